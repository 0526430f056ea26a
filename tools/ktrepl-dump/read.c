// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

static void json_hex(const uint8_t *buf, uint64_t pa, size_t len)
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
	jsonw_end_object(jw);
	free(hex);
}

/* read [-o FILE] PA LEN [PA LEN...]: bytes at physical addresses */
int do_read(int argc, char **argv)
{
	const char *out_path = NULL;
	struct kt_memsrc *src;
	uint8_t *buf = NULL;
	FILE *bin = NULL;
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
		bin = fopen(out_path, "w");
		if (!bin) {
			kt_out_error(&dump.out, "%s: %s", out_path, strerror(errno));
			return EXIT_TROUBLE;
		}
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
			if (fwrite(buf, 1, len, bin) != len) {
				kt_out_error(&dump.out, "%s: write failed", out_path);
				ret = EXIT_TROUBLE;
			}
		} else if (dump.out.json) {
			json_hex(buf, pa, len);
		} else {
			print_hex(buf, pa, len);
		}
	}
	kt_memsrc_close(src);
out:
	if (bin)
		fclose(bin);
	free(buf);
	return ret;
}
