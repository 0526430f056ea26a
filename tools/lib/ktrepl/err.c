// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>

#include "err.h"

void kt_err_clear(struct kt_err *err)
{
	err->code = 0;
	err->msg[0] = '\0';
}

int kt_err_set(struct kt_err *err, int code, const char *fmt, ...)
{
	va_list ap;

	err->code = code ? code : KT_ERR_UNSPECIFIED;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -err->code;
}

int kt_err_wrap(struct kt_err *err, const char *fmt, ...)
{
	size_t size = sizeof(err->msg), plen, mlen;
	char prefix[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	/* "prefix: " goes in front; the tail of the old message may be cut */
	plen = strlen(prefix) + 2;
	mlen = strnlen(err->msg, size - 1);
	if (plen + mlen >= size)
		mlen = size - 1 - plen;
	memmove(err->msg + plen, err->msg, mlen);
	err->msg[plen + mlen] = '\0';
	memcpy(err->msg, prefix, plen - 2);
	memcpy(err->msg + plen - 2, ": ", 2);
	if (!err->code)
		err->code = KT_ERR_UNSPECIFIED;
	return -err->code;
}
