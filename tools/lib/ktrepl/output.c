// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>

#include "output.h"
#include "utf8.h"

int kt_out_init(struct kt_out *out, const char *prog, bool json, bool pretty)
{
	return kt_out_init_fp(out, prog, json, pretty, stdout, stderr);
}

int kt_out_init_fp(struct kt_out *out, const char *prog, bool json,
		   bool pretty, FILE *fp, FILE *errfp)
{
	out->fp = fp;
	out->errfp = errfp;
	out->json = json || pretty;
	out->pretty = pretty;
	out->prog = prog;
	out->jw = NULL;
	if (out->json) {
		out->jw = jsonw_new(out->fp, pretty);
		if (!out->jw)
			return -1;
	}
	return 0;
}

void kt_out_fini(struct kt_out *out)
{
	jsonw_destroy(&out->jw);
	fflush(out->fp);
}

/* a message for a terminal: bytes that are no UTF-8, and controls, as \\xNN */
static void put_clean(FILE *fp, const char *msg)
{
	const unsigned char *s = (const unsigned char *)msg;
	int n;

	while (*s) {
		n = kt_utf8_seq_len(s);
		if (!n || (*s < 0x20 && *s != '\t' && *s != '\n') || *s == 0x7f) {
			fprintf(fp, "\\x%02x", *s);
			s++;
		} else {
			fwrite(s, 1, n, fp);
			s += n;
		}
	}
}

void kt_out_error(struct kt_out *out, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (out->jw) {
		jsonw_start_object(out->jw);
		jsonw_uint_field(out->jw, "version", KT_JSON_VERSION);
		jsonw_string_field(out->jw, "error", msg);
		jsonw_end_object(out->jw);
		return;
	}
	fprintf(out->errfp, "%s: error: ", out->prog);
	put_clean(out->errfp, msg);
	putc('\n', out->errfp);
}

void kt_out_info(struct kt_out *out, const char *fmt, ...)
{
	char msg[4096];
	va_list ap;

	if (out->json)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	put_clean(out->errfp, msg);
}

void kt_out_warn(struct kt_out *out, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fprintf(out->errfp, "%s: warning: ", out->prog);
	put_clean(out->errfp, msg);
	putc('\n', out->errfp);
}
