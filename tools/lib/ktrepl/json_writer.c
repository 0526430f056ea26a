// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdlib.h>

#include "json_writer.h"
#include "utf8.h"

#define JSONW_MAX_DEPTH 64

struct json_writer {
	FILE *fp;
	bool pretty;
	int depth;
	/* per depth: has a value already been written at this level? */
	bool has_value[JSONW_MAX_DEPTH];
	bool after_name;
};

struct json_writer *jsonw_new(FILE *fp, bool pretty)
{
	struct json_writer *jw = calloc(1, sizeof(*jw));

	if (!jw)
		return NULL;
	jw->fp = fp;
	jw->pretty = pretty;
	return jw;
}

void jsonw_destroy(struct json_writer **jw)
{
	if (!*jw)
		return;
	if ((*jw)->depth == 0 && (*jw)->has_value[0])
		putc('\n', (*jw)->fp);
	fflush((*jw)->fp);
	free(*jw);
	*jw = NULL;
}

static void jsonw_indent(struct json_writer *jw)
{
	int i;

	if (!jw->pretty)
		return;
	putc('\n', jw->fp);
	for (i = 0; i < jw->depth; i++)
		fputs("    ", jw->fp);
}

/* Separator logic shared by every value and every name. */
static void jsonw_before_item(struct json_writer *jw)
{
	if (jw->after_name) {
		jw->after_name = false;
		return;
	}
	if (jw->has_value[jw->depth])
		putc(',', jw->fp);
	if (jw->depth > 0)
		jsonw_indent(jw);
	jw->has_value[jw->depth] = true;
}

static void jsonw_escaped(struct json_writer *jw, const char *s)
{
	int n;

	putc('"', jw->fp);
	for (; *s; s++) {
		unsigned char c = *s;

		switch (c) {
		case '"':
			fputs("\\\"", jw->fp);
			break;
		case '\\':
			fputs("\\\\", jw->fp);
			break;
		case '\n':
			fputs("\\n", jw->fp);
			break;
		case '\t':
			fputs("\\t", jw->fp);
			break;
		case '\r':
			fputs("\\r", jw->fp);
			break;
		default:
			n = kt_utf8_seq_len((const unsigned char *)s);
			/* a byte that is no UTF-8: its Latin-1 code point */
			if (c < 0x20 || !n) {
				fprintf(jw->fp, "\\u%04x", c);
			} else {
				fwrite(s, 1, n, jw->fp);
				s += n - 1;
			}
		}
	}
	putc('"', jw->fp);
}

static void jsonw_open(struct json_writer *jw, char bracket)
{
	jsonw_before_item(jw);
	putc(bracket, jw->fp);
	if (jw->depth < JSONW_MAX_DEPTH - 1)
		jw->depth++;
	jw->has_value[jw->depth] = false;
}

static void jsonw_close(struct json_writer *jw, char bracket)
{
	bool had_items = jw->has_value[jw->depth];

	if (jw->depth > 0)
		jw->depth--;
	if (had_items)
		jsonw_indent(jw);
	putc(bracket, jw->fp);
}

void jsonw_start_object(struct json_writer *jw)
{
	jsonw_open(jw, '{');
}

void jsonw_end_object(struct json_writer *jw)
{
	jsonw_close(jw, '}');
}

void jsonw_start_array(struct json_writer *jw)
{
	jsonw_open(jw, '[');
}

void jsonw_end_array(struct json_writer *jw)
{
	jsonw_close(jw, ']');
}

void jsonw_name(struct json_writer *jw, const char *name)
{
	jsonw_before_item(jw);
	jsonw_escaped(jw, name);
	putc(':', jw->fp);
	if (jw->pretty)
		putc(' ', jw->fp);
	jw->after_name = true;
}

void jsonw_string(struct json_writer *jw, const char *value)
{
	jsonw_before_item(jw);
	jsonw_escaped(jw, value ? value : "");
}

void jsonw_uint(struct json_writer *jw, uint64_t value)
{
	jsonw_before_item(jw);
	fprintf(jw->fp, "%" PRIu64, value);
}

void jsonw_int(struct json_writer *jw, int64_t value)
{
	jsonw_before_item(jw);
	fprintf(jw->fp, "%" PRId64, value);
}

void jsonw_float(struct json_writer *jw, double value)
{
	jsonw_before_item(jw);
	fprintf(jw->fp, "%.3f", value);
}

void jsonw_bool(struct json_writer *jw, bool value)
{
	jsonw_before_item(jw);
	fputs(value ? "true" : "false", jw->fp);
}

void jsonw_null(struct json_writer *jw)
{
	jsonw_before_item(jw);
	fputs("null", jw->fp);
}

void jsonw_hex(struct json_writer *jw, uint64_t value)
{
	jsonw_before_item(jw);
	fprintf(jw->fp, "\"0x%" PRIx64 "\"", value);
}

void jsonw_string_field(struct json_writer *jw, const char *name,
			const char *value)
{
	jsonw_name(jw, name);
	jsonw_string(jw, value);
}

void jsonw_uint_field(struct json_writer *jw, const char *name, uint64_t value)
{
	jsonw_name(jw, name);
	jsonw_uint(jw, value);
}

void jsonw_int_field(struct json_writer *jw, const char *name, int64_t value)
{
	jsonw_name(jw, name);
	jsonw_int(jw, value);
}

void jsonw_float_field(struct json_writer *jw, const char *name, double value)
{
	jsonw_name(jw, name);
	jsonw_float(jw, value);
}

void jsonw_bool_field(struct json_writer *jw, const char *name, bool value)
{
	jsonw_name(jw, name);
	jsonw_bool(jw, value);
}

void jsonw_hex_field(struct json_writer *jw, const char *name, uint64_t value)
{
	jsonw_name(jw, name);
	jsonw_hex(jw, value);
}
