/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_LOCKDOWN_H
#define KTREPL_LOCKDOWN_H

/*
 * Why the kernel refused an open: kernel lockdown, a missing capability
 * or plain file permissions. Under lockdown the kernel refuses even root
 * (EPERM): "integrity" refuses debugfs files whose mode goes beyond 0444,
 * "confidentiality" that and /proc/kcore, i.e. reading live memory. The
 * active level is the bracketed word of /sys/kernel/security/lockdown;
 * without securityfs it is inferred, never mounted.
 */
#include <stdbool.h>
#include <stddef.h>

#include "err.h"

#define KT_LOCKDOWN_PATH "/sys/kernel/security/lockdown"

enum kt_lockdown {
	KT_LOCKDOWN_UNKNOWN = -1,	/* the file unreadable or not understood */
	KT_LOCKDOWN_NONE,
	KT_LOCKDOWN_INTEGRITY,
	KT_LOCKDOWN_CONFIDENTIALITY,
};

/* what the refused open was for: each needs its own level to be refused */
enum kt_lockdown_use {
	KT_LOCKDOWN_USE_KCORE,		/* live memory: confidentiality */
	KT_LOCKDOWN_USE_DEBUGFS,	/* a debugfs file: integrity */
};

enum kt_lockdown_cause {
	KT_CAUSE_OTHER,		/* not a permission error lockdown explains */
	KT_CAUSE_LOCKDOWN,	/* the lockdown file names a level refusing it */
	KT_CAUSE_PROBABLY_LOCKDOWN,	/* root, EPERM, lockdown file unreadable */
	KT_CAUSE_NOT_ROOT,	/* it needs root */
	KT_CAUSE_NO_RAWIO,	/* root without CAP_SYS_RAWIO (kcore) */
	KT_CAUSE_ADDRESSES,	/* debugfs: kallsyms' rule hides addresses */
};

/* "none integrity [confidentiality]": the bracketed word's level */
enum kt_lockdown kt_lockdown_parse(const char *text);
/* the level in path (NULL: KT_LOCKDOWN_PATH); UNKNOWN sets *code (errno) */
enum kt_lockdown kt_lockdown_read(const char *path, int *code);
const char *kt_lockdown_name(enum kt_lockdown level);

/* the process's effective capability set has cap (capget(2)) */
bool kt_have_cap(int cap);

struct kt_lockdown_query {
	enum kt_lockdown_use use;
	const char *path;		/* the file refused */
	int code;			/* the open's errno */
	bool root;			/* euid 0 */
	bool rawio;			/* CAP_SYS_RAWIO is effective */
	const char *lockdown_path;	/* NULL: KT_LOCKDOWN_PATH */
};

/*
 * Explain a refused open: the cause, and in buf (always terminated) the
 * whole message, "PATH: strerror: why", as the tools print it.
 */
enum kt_lockdown_cause kt_lockdown_explain(const struct kt_lockdown_query *q,
					   char *buf, size_t len);

/*
 * kt_err_set() for an open of path that failed with code, explained for
 * this process (euid, capabilities, the live lockdown file); returns
 * -code. *cause, if given, receives the cause.
 */
int kt_lockdown_err(struct kt_err *err, enum kt_lockdown_use use,
		    const char *path, int code, enum kt_lockdown_cause *cause);

#endif
