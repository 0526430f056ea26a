/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_ERR_H
#define KTREPL_ERR_H

#include <errno.h>
#include <stdarg.h>

/*
 * Errors travel up as a negative errno plus a message that each layer
 * may prefix with its own context, so the tool prints one line such as
 * "vmcore /x: read 0x1000+4096: page not present" without the library
 * ever printing or exiting itself.
 */
struct kt_err {
	int code; /* positive errno; 0 means no error */
	char msg[1024];
};

/*
 * The code an error gets when its caller gave none (0): EIO, never 1,
 * which is EPERM and which the tools explain as a privilege or lockdown
 * refusal (lockdown.h).
 */
#define KT_ERR_UNSPECIFIED EIO

void kt_err_clear(struct kt_err *err);

/* Record a fresh error and return -code, for "return kt_err_set(...)". */
int kt_err_set(struct kt_err *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix the current message with "context: " and return -code. */
int kt_err_wrap(struct kt_err *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
