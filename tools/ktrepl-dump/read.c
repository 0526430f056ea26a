// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "main.h"

#define READ_MAX_LEN (16u << 20)

static void print_hex(const uint8_t *buf, uint64_t pa, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (i % 16 == 0)
			fprintf(dump.out.fp, "%s0x%016" PRIx64 ":", i ? "\n" : "",
				pa + i);
		fprintf(dump.out.fp, " %02x", buf[i]);
	}
	if (len)
		fputc('\n', dump.out.fp);
}

/*
 * The parts of a read that the dump does not hold and that read as zeros
 * (an ELF dump's filtered pages, as in crash): named, so that zeros the
 * filter made are never taken for the memory's contents. Under -j they
 * go into the record instead (json_hex).
 */
static void note_gaps(struct kt_memsrc *src, uint64_t pa, uint64_t len)
{
	uint64_t end = pa + len, gap_start, gap_end;

	while (pa < end &&
	       !kt_memsrc_first_gap(src, pa, end - pa, &gap_start, &gap_end)) {
		kt_out_warn(&dump.out,
			    "physical 0x%" PRIx64 "-0x%" PRIx64 " is not in this dump (its filter left the pages out): those bytes read as zeros, as crash reads them, and are not the memory's contents",
			    gap_start, gap_end);
		pa = gap_end;
	}
}

static void json_gaps(struct kt_memsrc *src, uint64_t pa, uint64_t len)
{
	struct json_writer *jw = dump.out.jw;
	uint64_t end = pa + len, gap_start, gap_end;

	jsonw_name(jw, "not_in_dump");
	jsonw_start_array(jw);
	while (pa < end &&
	       !kt_memsrc_first_gap(src, pa, end - pa, &gap_start, &gap_end)) {
		jsonw_start_object(jw);
		jsonw_hex_field(jw, "pa", gap_start);
		jsonw_uint_field(jw, "len", gap_end - gap_start);
		jsonw_end_object(jw);
		pa = gap_end;
	}
	jsonw_end_array(jw);
}

static void json_hex(struct kt_memsrc *src, const uint8_t *buf, uint64_t pa,
		     size_t len)
{
	struct json_writer *jw = dump.out.jw;
	char *hex = malloc(len * 2 + 1);
	size_t i;

	jsonw_start_object(jw);
	jsonw_uint_field(jw, "version", KT_JSON_VERSION);
	jsonw_hex_field(jw, "pa", pa);
	jsonw_uint_field(jw, "len", len);
	if (hex) {
		for (i = 0; i < len; i++)
			snprintf(hex + 2 * i, 3, "%02x", buf[i]);
		jsonw_string_field(jw, "bytes", hex);
	}
	json_gaps(src, pa, len);
	jsonw_end_object(jw);
	free(hex);
}

/*
 * -o FILE will hold physical memory: a new file, 0600, created where
 * the name says and nowhere else, so never through a symlink someone
 * planted there and never over an existing file. The one exception is
 * the null device (by its device number, not its name), which holds
 * nothing: reading into it times the read alone (bench.py's raw read).
 * *created: the file is ours, to remove if the read fails.
 */
static bool is_null_device(const struct stat *sb)
{
	return S_ISCHR(sb->st_mode) && sb->st_rdev == makedev(1, 3);
}

static FILE *create_output(const char *path, bool *created)
{
	struct stat sb;
	FILE *fp;
	int fd, e;

	*created = false;
	/*
	 * What is opened is checked, not only the name (lstat first, so
	 * nothing else is opened for writing at all): a path swapped
	 * between the two is refused, never written.
	 */
	if (!lstat(path, &sb) && is_null_device(&sb)) {
		fd = open(path, O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK |
				O_CLOEXEC);
		if (fd >= 0 && (fstat(fd, &sb) || !is_null_device(&sb))) {
			close(fd);
			fd = -1;
			errno = EEXIST;
		}
		fp = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!fp) {
			kt_out_error(&dump.out, "%s: %s", path, strerror(errno));
			if (fd >= 0)
				close(fd);
		}
		return fp;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0) {
		e = errno;
		if (e == ELOOP || (e == EEXIST && !lstat(path, &sb) &&
				   S_ISLNK(sb.st_mode)))
			kt_out_error(&dump.out,
				     "%s: is a symbolic link, which read -o does not follow: it only creates a new file, mode 0600, since the file holds physical memory",
				     path);
		else if (e == EEXIST)
			kt_out_error(&dump.out,
				     "%s: already exists; read -o only creates a new file, mode 0600, since the file holds physical memory: remove it or name another",
				     path);
		else
			kt_out_error(&dump.out, "%s: %s", path, strerror(e));
		return NULL;
	}
	*created = true;
	fp = fdopen(fd, "w");
	if (!fp) {
		e = errno;
		close(fd);
		unlink(path);
		kt_out_error(&dump.out, "%s: %s", path, strerror(e));
	}
	return fp;
}

/* read [-o FILE] PA LEN [PA LEN...]: bytes at physical addresses */
int do_read(int argc, char **argv)
{
	const char *out_path = NULL;
	struct kt_memsrc *src;
	uint8_t *buf = NULL;
	FILE *bin = NULL;
	bool created = false;
	struct kt_err err;
	uint64_t pa, len;
	int i, ret;

	if (dump.args.given & CMD_OPT_OUTPUT)
		out_path = dump.args.output;
	for (i = 0; i < argc; i += 2)
		if (i + 1 >= argc || parse_u64(argv[i], &pa) ||
		    parse_u64(argv[i + 1], &len) || !len || len > READ_MAX_LEN)
			break;
	if (!argc || i < argc || (argc > 2 && !out_path)) {
		kt_out_error(&dump.out,
			     "usage: read [-o FILE] PHYSADDR LEN [PHYSADDR LEN...] (LEN 1..%u; several only with -o)",
			     READ_MAX_LEN);
		return EXIT_TROUBLE;
	}
	if (out_path) {
		bin = create_output(out_path, &created);
		if (!bin)
			return EXIT_TROUBLE;
	}
	ret = dump_open_memsrc(&src);
	if (ret)
		goto out;
	kt_err_clear(&err);
	for (i = 0; i < argc && !ret; i += 2) {
		parse_u64(argv[i], &pa);
		parse_u64(argv[i + 1], &len);
		free(buf);
		buf = malloc(len);
		if (!buf) {
			kt_err_set(&err, ENOMEM, "out of memory for %" PRIu64 " bytes", len);
			ret = dump_fail(&err);
		} else if (kt_memsrc_read_phys(src, pa, buf, len, &err)) {
			ret = dump_fail(&err);
		} else if (bin) {
			note_gaps(src, pa, len);
			if (fwrite(buf, 1, len, bin) != len) {
				kt_out_error(&dump.out, "%s: write failed: %s",
					     out_path, strerror(errno));
				ret = EXIT_TROUBLE;
			}
		} else if (dump.out.json) {
			json_hex(src, buf, pa, len);
		} else {
			note_gaps(src, pa, len);
			print_hex(buf, pa, len);
		}
	}
	kt_memsrc_close(src);
out:
	if (bin && fclose(bin) && !ret) {
		kt_out_error(&dump.out, "%s: write failed: %s", out_path,
			     strerror(errno));
		ret = EXIT_TROUBLE;
	}
	/* the file was ours alone: nothing half written stays behind */
	if (created && ret)
		unlink(out_path);
	free(buf);
	return ret;
}
