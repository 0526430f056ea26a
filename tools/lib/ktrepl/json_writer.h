/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_JSON_WRITER_H
#define KTREPL_JSON_WRITER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/*
 * A streaming JSON writer: the caller emits names and values in order
 * and the writer handles commas, indentation and escaping.
 */
struct json_writer;

struct json_writer *jsonw_new(FILE *fp, bool pretty);
void jsonw_destroy(struct json_writer **jw);

void jsonw_start_object(struct json_writer *jw);
void jsonw_end_object(struct json_writer *jw);
void jsonw_start_array(struct json_writer *jw);
void jsonw_end_array(struct json_writer *jw);
void jsonw_name(struct json_writer *jw, const char *name);

void jsonw_string(struct json_writer *jw, const char *value);
void jsonw_uint(struct json_writer *jw, uint64_t value);
void jsonw_int(struct json_writer *jw, int64_t value);
void jsonw_float(struct json_writer *jw, double value);
void jsonw_bool(struct json_writer *jw, bool value);
void jsonw_null(struct json_writer *jw);
/* Addresses are "0x..." strings, so 64-bit values survive JavaScript. */
void jsonw_hex(struct json_writer *jw, uint64_t value);

void jsonw_string_field(struct json_writer *jw, const char *name,
			const char *value);
void jsonw_uint_field(struct json_writer *jw, const char *name, uint64_t value);
void jsonw_int_field(struct json_writer *jw, const char *name, int64_t value);
void jsonw_float_field(struct json_writer *jw, const char *name, double value);
void jsonw_bool_field(struct json_writer *jw, const char *name, bool value);
void jsonw_hex_field(struct json_writer *jw, const char *name, uint64_t value);

#endif
