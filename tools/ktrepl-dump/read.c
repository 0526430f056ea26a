// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

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

/* read PA LEN: the bytes at a physical address, from any memory source */
int do_read(int argc, char **argv)
{
	struct kt_memsrc *src;
	struct kt_err err;
	uint64_t pa, len;
	uint8_t *buf;
	int ret;

	if (argc != 2 || parse_u64(argv[0], &pa) || parse_u64(argv[1], &len) ||
	    !len || len > READ_MAX_LEN) {
		kt_out_error(&dump.out,
			     "usage: read PHYSADDR LEN (LEN 1..%u)", READ_MAX_LEN);
		return EXIT_TROUBLE;
	}
	ret = dump_open_memsrc(&src);
	if (ret)
		return ret;
	buf = malloc(len);
	kt_err_clear(&err);
	if (!buf) {
		kt_err_set(&err, ENOMEM, "out of memory for %" PRIu64 " bytes", len);
		ret = dump_fail(&err);
	} else if (kt_memsrc_read_phys(src, pa, buf, len, &err)) {
		ret = dump_fail(&err);
	} else {
		if (dump.out.json)
			json_hex(buf, pa, len);
		else
			print_hex(buf, pa, len);
		ret = EXIT_CLEAN;
	}
	free(buf);
	kt_memsrc_close(src);
	return ret;
}
