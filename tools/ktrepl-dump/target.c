// SPDX-License-Identifier: GPL-2.0
/* Opening what the global options point at: state, memory, symbols. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kallsyms.h"
#include "main.h"
#include "prometheus.h"

int parse_u64(const char *s, uint64_t *val)
{
	char *end;

	errno = 0;
	*val = strtoull(s, &end, 0);
	return errno || *end || end == s ? -1 : 0;
}

int dump_fail(const struct kt_err *err)
{
	kt_out_error(&dump.out, "%s", err->msg);
	return EXIT_TROUBLE;
}

int dump_usage_error(const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kt_out_error(&dump.out, "%s", msg);
	return EXIT_TROUBLE;
}

/*
 * --prometheus[=FILE]: the metrics on stdout, or into FILE through a
 * temporary file renamed over it, so the textfile collector never reads
 * half a file.
 */
int dump_write_metrics(void (*emit)(FILE *fp, const void *arg),
		       const void *arg)
{
	const char *path = dump.args.prometheus_file;
	struct kt_err err;

	if (!path) {
		emit(stdout, arg);
		return fflush(stdout) ? EXIT_TROUBLE : 0;
	}
	kt_err_clear(&err);
	if (kt_prometheus_write_file(path, emit, arg, &err)) {
		kt_out_error(&dump.out, "%s", err.msg);
		return EXIT_TROUBLE;
	}
	return 0;
}

int dump_open_memsrc(struct kt_memsrc **src)
{
	struct kt_err err;
	int ret;

	kt_err_clear(&err);
	if (dump.raw_path)
		ret = kt_memsrc_open_raw(src, dump.raw_path, dump.raw_base, &err);
	else if (dump.vmcore_path)
		ret = kt_memsrc_open_vmcore(src, dump.vmcore_path, &err);
	else
		ret = kt_memsrc_open_kcore(src, dump.kcore_path, &err);
	if (ret)
		return dump_fail(&err);
	return 0;
}

/*
 * A dump without a symbol file names its addresses from its own kallsyms
 * tables, found through VMCOREINFO and read through the master's page
 * tables: Debian ships no -dbg vmlinux for arm64, and its System.map is a
 * placeholder on every arch.
 */
static int load_dump_kallsyms(struct dump_target *dt, struct kt_err *err)
{
	struct kt_kva_pgtable pt = {
		.arch = dt->t.arch,
		.geo = &dt->t.geo,
		.src = dt->src,
		.root_pa = dt->st.master_root_pa,
	};
	struct kt_kva_map map = { kt_kva_pgtable_to_pa, &pt };
	struct kt_kallsyms_layout lay;
	int ret;

	ret = kt_kallsyms_layout_from_vmcoreinfo(&lay, dt->src, dt->st.arch,
						 err);
	if (!ret)
		ret = kt_kallsyms_load(&dt->syms, dt->src, &map, &lay, err);
	if (ret)
		return kt_err_wrap(err, "the dump's kallsyms");
	dt->have_syms = true;
	return 0;
}

static int load_symbols(struct dump_target *dt, struct kt_err *err)
{
	const char *path = dump.kallsyms_path;
	int ret;

	if (dump.vmlinux_path) {
		ret = kt_symtab_load_vmlinux(&dt->syms, dump.vmlinux_path, err);
		path = dump.vmlinux_path;
	} else if (dump.system_map_path) {
		ret = kt_symtab_load_map(&dt->syms, dump.system_map_path, err);
		path = dump.system_map_path;
	} else {
		if (!path && dump.vmcore_path && !dump.raw_path)
			return load_dump_kallsyms(dt, err);
		if (!path)
			path = dump.vmcore_path ? NULL : "/proc/kallsyms";
		if (!path)
			return 0;	/* a raw image and a vmcore: addresses only */
		ret = kt_symtab_load_map(&dt->syms, path, err);
		if (ret)
			return ret;
		dt->have_syms = true;
		kt_symtab_drop_foreign(&dt->syms, &dt->st);
		return 0;	/* kallsyms is already at runtime addresses */
	}
	if (ret)
		return ret;
	dt->have_syms = true;
	/* the text region starts at _stext: that is the KASLR slide */
	ret = kt_symtab_relocate(&dt->syms, "_stext", dt->st.regions[0].start,
				 err);
	return ret ? kt_err_wrap(err, "%s", path) : 0;
}

/*
 * Symbols on first use. A symbol file that cannot be read leaves the
 * output with bare addresses and a note on stderr, not a failed check.
 */
static struct kt_symtab *lazy_symbols(struct kt_target *t)
{
	struct dump_target *dt = t->load_arg;
	struct kt_err err;

	kt_err_clear(&err);
	if (load_symbols(dt, &err)) {
		kt_out_warn(&dump.out, "no symbols: %s", err.msg);
		return NULL;
	}
	return dt->have_syms ? &dt->syms : NULL;
}

/* A vmlinux from another build would name every address wrongly. */
int dump_check_vmlinux(struct dump_target *dt, struct kt_err *err)
{
	char dump_id[128], file_id[128];

	if (!dump.vmlinux_path ||
	    kt_memsrc_vmcoreinfo(dt->src, "BUILD-ID", dump_id, sizeof(dump_id),
				 err)) {
		kt_err_clear(err);
		return 0;	/* nothing to compare against */
	}
	if (kt_elf_build_id(dump.vmlinux_path, file_id, sizeof(file_id), err))
		return -err->code;
	if (strcmp(dump_id, file_id))
		return kt_err_set(err, EINVAL,
				  "%s does not match the dump: build id %s, the dump's is %s",
				  dump.vmlinux_path, file_id, dump_id);
	return 0;
}

static int live_patch_window(struct kt_target *t, uint64_t *window,
			     struct kt_err *err)
{
	int ret = kt_state_patch_window(t->st, dump.debugfs_dir, err);

	*window = t->st->patch_window;
	return ret;
}

/* state and memory are open: paging geometry, and symbols when needed */
static int finish_open(struct dump_target *dt)
{
	struct kt_err err;

	kt_err_clear(&err);
	if (kt_target_init(&dt->t, &dt->st, dt->src, NULL, &err)) {
		dump_target_close(dt);
		return dump_fail(&err);
	}
	dt->t.load_syms = lazy_symbols;
	dt->t.load_arg = dt;
	return 0;
}

int dump_target_open_vmcore(struct dump_target *dt, const char *path,
			    struct kt_err *err)
{
	int ret;

	memset(dt, 0, sizeof(*dt));
	dump.vmcore_path = path;
	ret = kt_memsrc_open_vmcore(&dt->src, path, err);
	if (ret)
		return ret;
	ret = kt_target_open_dump(&dt->t, &dt->st, dt->src, NULL, err);
	if (ret) {
		kt_memsrc_close(dt->src);
		dt->src = NULL;
		return ret;
	}
	dt->t.load_syms = lazy_symbols;
	dt->t.load_arg = dt;
	return 0;
}

static int open_offline(struct dump_target *dt)
{
	struct kt_err err;
	int ret;

	kt_err_clear(&err);
	ret = dump_open_memsrc(&dt->src);
	if (ret)
		return ret;
	ret = dump_check_vmlinux(dt, &err);
	if (!ret)
		ret = kt_target_open_dump(&dt->t, &dt->st, dt->src, NULL, &err);
	if (ret) {
		kt_memsrc_close(dt->src);
		dt->src = NULL;
		return dump_fail(&err);
	}
	dt->t.load_syms = lazy_symbols;
	dt->t.load_arg = dt;
	return 0;
}

int dump_target_open(struct dump_target *dt)
{
	struct kt_err err;
	int ret;

	memset(dt, 0, sizeof(*dt));
	kt_err_clear(&err);
	if (dump.vmcore_path || dump.raw_path)
		return open_offline(dt);
	if (geteuid() != 0 && !getenv("KTREPL_NO_ROOT_CHECK")) {
		kt_err_set(&err, EPERM,
			   "live inspection needs root (it reads %s and %s)",
			   dump.debugfs_dir, dump.kcore_path);
		return dump_fail(&err);
	}
	ret = kt_state_load_debugfs(&dt->st, dump.debugfs_dir, &err);
	if (ret)
		return dump_fail(&err);
	if (dt->st.activation == KT_ACT_NONE) {
		kt_state_free(&dt->st);
		kt_err_set(&err, ENOENT,
			   "nothing is replicated on this kernel: it has one memory node");
		return dump_fail(&err);
	}
	ret = dump_open_memsrc(&dt->src);
	if (ret) {
		kt_state_free(&dt->st);
		return ret;
	}
	ret = finish_open(dt);
	/* a module without the file: differing ranges are not re-read */
	if (!ret && !kt_state_patch_window(&dt->st, dump.debugfs_dir, &err))
		dt->t.patch_window = live_patch_window;
	return ret;
}

void dump_target_close(struct dump_target *dt)
{
	if (dt->have_syms)
		kt_symtab_free(&dt->syms);
	kt_memsrc_close(dt->src);
	kt_state_free(&dt->st);
	dt->src = NULL;
}
