// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>

#include "output.h"

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
	fprintf(out->errfp, "%s: error: %s\n", out->prog, msg);
}

void kt_out_info(struct kt_out *out, const char *fmt, ...)
{
	va_list ap;

	if (out->json)
		return;
	va_start(ap, fmt);
	vfprintf(out->errfp, fmt, ap);
	va_end(ap);
}
