// SPDX-License-Identifier: GPL-2.0
/*
 * The dump as tools/lib/ktrepl sees it: a memory source over crash's
 * readmem() and the dump file's own map, and crash's symbol table.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>

#include "crash_ext.h"
#include "dump_check.h"

/* len bytes at the kernel symbol sym plus offset; false if crash cannot */
bool crash_read_symbol(char *sym, ulong offset, void *buf, long len)
{
	return symbol_exists(sym) &&
	       readmem(symbol_value(sym) + offset, KVADDR, buf, len, sym,
		       RETURN_ON_ERROR | QUIET);
}

static int crash_vmcoreinfo(struct kt_memsrc *src, const char *key, char *val,
			    size_t len, struct kt_err *err)
{
	char *v = pc->read_vmcoreinfo ? pc->read_vmcoreinfo(key) : NULL;

	if (!v)
		return kt_err_set(err, ENOENT, "VMCOREINFO has no %s", key);
	snprintf(val, len, "%s", v);
	free(v);
	return 0;
}

/*
 * ktrepl.ko's own record of its descriptor (kernel/debugfs/vmcore_desc.c;
 * 0 while unpublished). crash has it where a module's data symbols are
 * in its in-memory symtab (x86_64's KALLSYMS_ALL), not in minimal mode.
 */
#define DESCRIPTOR_PA_SYMBOL "ktrepl_descriptor_pa"

static int crash_descriptor_hint(struct kt_memsrc *src, uint64_t *pa)
{
	uint64_t val;

	if (!crash_read_symbol(DESCRIPTOR_PA_SYMBOL, 0, &val, sizeof(val)))
		return -ENOENT;
	*pa = val;
	return 0;
}

/*
 * What the dump holds, for the descriptor scan: kdump-tools loads the
 * crash kernel before ktrepl.ko, so its dumps carry no KTREPL_DESCRIPTOR
 * line, and arm64 kernels have no data symbols for the hint. The dump
 * file's own PT_LOADs or page bitmap (read as ktrepl-dump reads them)
 * where crash opened one we can parse; crash's node table otherwise (not
 * in minimal mode); else the kernel's max_pfn (phys_end).
 */
struct crash_memory {
	bool parsed;
	struct kt_dump_layout layout;
};

static struct crash_memory *crash_memory(struct kt_memsrc *src)
{
	struct crash_memory *m = src->priv;
	struct kt_err ignored;
	int fd;

	if (m->parsed)
		return m;
	m->parsed = true;
	if (!pc->dumpfile || !DUMPFILE())
		return m;
	fd = open(pc->dumpfile, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return m;
	/* damage crash put up with, or a format we do not parse: no map */
	if (kt_dump_validate(fd, pc->dumpfile, &m->layout, &ignored))
		memset(&m->layout, 0, sizeof(m->layout));
	close(fd);
	return m;
}

/*
 * crash says only that readmem failed; the dump file's own map says
 * whether the page is in it at all.
 */
static int crash_read_phys(struct kt_memsrc *src, uint64_t pa, void *buf,
			   size_t len, struct kt_err *err)
{
	struct crash_memory *m;
	uint64_t start, end;

	if (readmem(pa, PHYSADDR, buf, (long)len, "ktrepl",
		    RETURN_ON_ERROR | QUIET))
		return 0;
	m = crash_memory(src);
	if (m->layout.nr_ranges &&
	    (kt_dump_layout_next_range(&m->layout, pa, &start, &end) ||
	     start > pa))
		return kt_err_set(err, KT_MEM_ABSENT,
				  "physical 0x%" PRIx64 "+%zu: page 0x%" PRIx64 " is not in the dump: excluded by the dump filter, or not RAM (ktrepl-dump --vmcore %s says which)",
				  pa, len, pa & ~(uint64_t)(PAGESIZE() - 1),
				  pc->dumpfile);
	return kt_err_set(err, KT_MEM_ABSENT,
			  "physical 0x%" PRIx64 "+%zu: crash cannot read it from the dump (a page the dump filter excluded, or not RAM; ktrepl-dump --vmcore names which)",
			  pa, len);
}

static int crash_next_range(struct kt_memsrc *src, uint64_t pa,
			    uint64_t *start, uint64_t *end)
{
	struct crash_memory *m = crash_memory(src);
	uint64_t best = UINT64_MAX, s, e;
	int i;

	if (m->layout.nr_ranges)
		return kt_dump_layout_next_range(&m->layout, pa, start, end);
	if (!vt->numnodes || !vt->node_table)
		return -ENOTSUP;	/* phys_end, then */
	for (i = 0; i < vt->numnodes; i++) {
		s = vt->node_table[i].start_paddr;
		e = s + (uint64_t)vt->node_table[i].size * PAGESIZE();
		if (e <= pa || s >= best)
			continue;
		best = s;
		*start = s > pa ? s : pa;
		*end = e;
	}
	return best == UINT64_MAX ? -ENOENT : 0;
}

/* one past the kernel's last page frame: its max_pfn */
static int crash_phys_end(struct kt_memsrc *src, uint64_t *end,
			  struct kt_err *err)
{
	ulong max_pfn;

	if (!crash_read_symbol("max_pfn", 0, &max_pfn, sizeof(max_pfn)))
		return kt_err_set(err, ENOENT,
				  "crash knows neither this dump's memory map (its format, a node table) nor the kernel's max_pfn");
	*end = (uint64_t)max_pfn * PAGESIZE();
	return 0;
}

static void crash_close(struct kt_memsrc *src)
{
	struct crash_memory *m = src->priv;

	kt_dump_layout_free(&m->layout);
	free(m);
}

static const struct kt_memsrc_ops crash_ops = {
	.name = "crash",
	.read_phys = crash_read_phys,
	.vmcoreinfo = crash_vmcoreinfo,
	.phys_end = crash_phys_end,
	.next_range = crash_next_range,
	.descriptor_hint = crash_descriptor_hint,
	.close = crash_close,
};

static void add_syms(struct kt_symtab *tab, struct syment *sp, long count)
{
	long i;

	for (i = 0; i < count; i++) {
		tab->syms[tab->nr].addr = sp[i].value;
		tab->syms[tab->nr].name = strdup(sp[i].name);
		if (tab->syms[tab->nr].name)
			tab->nr++;
	}
}

/* crash's kernel and module symbols, already at runtime addresses */
static int crash_symtab(struct kt_symtab *tab)
{
	long total = st->symcnt + st->ext_module_symcnt;

	memset(tab, 0, sizeof(*tab));
	tab->syms = calloc(total ? total : 1, sizeof(*tab->syms));
	if (!tab->syms)
		return -ENOMEM;
	add_syms(tab, st->symtable, st->symcnt);
	add_syms(tab, st->ext_module_symtable, st->ext_module_symcnt);
	kt_symtab_sort(tab);
	return 0;
}


bool session_open(struct session *s)
{
	struct crash_memory *mem;
	struct kt_err err;

	memset(s, 0, sizeof(*s));
	kt_err_clear(&err);
	mem = calloc(1, sizeof(*mem));
	s->src = mem ? kt_memsrc_new(&crash_ops, mem,
				     pc->dumpfile ? pc->dumpfile : "live") :
		       NULL;
	if (!s->src) {
		free(mem);
		error(INFO, "out of memory\n");
		return false;
	}
	crash_symtab(&s->syms);
	if (kt_target_open_dump(&s->t, &s->st, s->src, &s->syms, &err)) {
		error(INFO, "%s\n", err.msg);
		kt_symtab_free(&s->syms);
		kt_memsrc_close(s->src);
		return false;
	}
	kt_out_init(&s->out, "ktrepl", false, false);
	s->out.fp = fp;
	s->out.errfp = fp;
	return true;
}

void session_close(struct session *s)
{
	kt_out_fini(&s->out);
	kt_symtab_free(&s->syms);
	kt_state_free(&s->st);
	kt_memsrc_close(s->src);
}
