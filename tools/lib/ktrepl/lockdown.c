// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel lockdown and the other reasons root is refused a file. The
 * kernel answers lockdown with EPERM at open: debugfs for a file whose
 * mode goes beyond 0444 (integrity and up), /proc/kcore (confidentiality).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#include "lockdown.h"

static const char *const level_names[] = {
	[KT_LOCKDOWN_NONE] = "none",
	[KT_LOCKDOWN_INTEGRITY] = "integrity",
	[KT_LOCKDOWN_CONFIDENTIALITY] = "confidentiality",
};

const char *kt_lockdown_name(enum kt_lockdown level)
{
	if (level < KT_LOCKDOWN_NONE || level > KT_LOCKDOWN_CONFIDENTIALITY)
		return "unknown";
	return level_names[level];
}

enum kt_lockdown kt_lockdown_parse(const char *text)
{
	const char *open, *close;
	size_t len;
	int i;

	open = strchr(text, '[');
	if (!open)
		return KT_LOCKDOWN_UNKNOWN;
	close = strchr(open, ']');
	if (!close || strchr(close + 1, '['))
		return KT_LOCKDOWN_UNKNOWN;	/* none or two active levels */
	len = close - open - 1;
	for (i = KT_LOCKDOWN_NONE; i <= KT_LOCKDOWN_CONFIDENTIALITY; i++)
		if (strlen(level_names[i]) == len &&
		    !strncmp(open + 1, level_names[i], len))
			return i;
	return KT_LOCKDOWN_UNKNOWN;
}

enum kt_lockdown kt_lockdown_read(const char *path, int *code)
{
	enum kt_lockdown level;
	char buf[256];
	size_t n;
	FILE *f;

	*code = 0;
	f = fopen(path ? path : KT_LOCKDOWN_PATH, "re");
	if (!f) {
		*code = errno;
		return KT_LOCKDOWN_UNKNOWN;
	}
	n = fread(buf, 1, sizeof(buf) - 1, f);
	if (ferror(f))
		*code = EIO;
	fclose(f);
	if (*code)
		return KT_LOCKDOWN_UNKNOWN;
	buf[n] = '\0';
	level = kt_lockdown_parse(buf);
	if (level == KT_LOCKDOWN_UNKNOWN)
		*code = EPROTO;
	return level;
}

bool kt_have_cap(int cap)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
		.pid = 0,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	if (cap < 0 || cap >= 32 * _LINUX_CAPABILITY_U32S_3 ||
	    syscall(SYS_capget, &hdr, data))
		return false;
	return data[cap / 32].effective & (1u << (cap % 32));
}

/* what a level refuses, for "kernel lockdown is in ... mode, which ..." */
static const char *level_blocks(enum kt_lockdown level)
{
	if (level == KT_LOCKDOWN_CONFIDENTIALITY)
		return "blocks reading live kernel memory (/proc/kcore) and debugfs files with a mode beyond 0444, even for root";
	return "blocks debugfs files with a mode beyond 0444 (writable ones), even for root";
}

enum kt_lockdown_cause kt_lockdown_explain(const struct kt_lockdown_query *q,
					   char *buf, size_t len)
{
	enum kt_lockdown need = q->use == KT_LOCKDOWN_USE_KCORE ?
		KT_LOCKDOWN_CONFIDENTIALITY : KT_LOCKDOWN_INTEGRITY;
	const char *lpath = q->lockdown_path ? q->lockdown_path :
		KT_LOCKDOWN_PATH;
	const char *what = q->use == KT_LOCKDOWN_USE_KCORE ?
		"reading kcore" : "debugfs";
	const char *err = strerror(q->code);
	enum kt_lockdown level;
	int lcode;

	if (q->code != EPERM && q->code != EACCES) {
		snprintf(buf, len, "%s: %s", q->path, err);
		return KT_CAUSE_OTHER;
	}
	level = kt_lockdown_read(q->lockdown_path, &lcode);
	if (!q->root) {
		/* the mode bits refuse first; lockdown would refuse root too */
		if (level >= need)
			snprintf(buf, len,
				 "%s: %s (%s needs root, and kernel lockdown is in %s mode, which %s)",
				 q->path, err, what, kt_lockdown_name(level),
				 level_blocks(level));
		else
			snprintf(buf, len, "%s: %s (%s needs root)", q->path,
				 err, what);
		return KT_CAUSE_NOT_ROOT;
	}
	/* lockdown answers EPERM; EACCES to root is the file's own doing */
	if (q->code == EPERM && level >= need) {
		snprintf(buf, len,
			 "%s: %s: kernel lockdown is in %s mode (%s), which %s; only a reboot lifts it (%s)",
			 q->path, err, kt_lockdown_name(level), lpath,
			 level_blocks(level),
			 level == KT_LOCKDOWN_CONFIDENTIALITY ?
				 "see lockdown= on the kernel command line" :
				 "see lockdown= on the kernel command line, or Secure Boot");
		return KT_CAUSE_LOCKDOWN;
	}
	/* open_kcore() wants CAP_SYS_RAWIO, also with EPERM */
	if (q->use == KT_LOCKDOWN_USE_KCORE && !q->rawio) {
		snprintf(buf, len,
			 "%s: %s (reading kcore needs CAP_SYS_RAWIO, which this process lacks)",
			 q->path, err);
		return KT_CAUSE_NO_RAWIO;
	}
	/* ktrepl.ko shows addresses as /proc/kallsyms does (abi.md) */
	if (q->use == KT_LOCKDOWN_USE_DEBUGFS && q->code == EPERM &&
	    level == KT_LOCKDOWN_NONE) {
		snprintf(buf, len,
			 "%s: %s (ktrepl.ko shows kernel addresses only to a reader /proc/kallsyms would show them to: CAP_SYSLOG, and kernel.kptr_restrict below 2)",
			 q->path, err);
		return KT_CAUSE_ADDRESSES;
	}
	if (q->code == EPERM && level == KT_LOCKDOWN_UNKNOWN) {
		snprintf(buf, len,
			 "%s: %s: probably kernel lockdown, whose %s mode %s (its level is unknown: %s: %s)",
			 q->path, err, kt_lockdown_name(need),
			 level_blocks(need), lpath,
			 lcode == EPROTO ? "not understood" : strerror(lcode));
		return KT_CAUSE_PROBABLY_LOCKDOWN;
	}
	snprintf(buf, len, "%s: %s", q->path, err);
	return KT_CAUSE_OTHER;
}

int kt_lockdown_err(struct kt_err *err, enum kt_lockdown_use use,
		    const char *path, int code, enum kt_lockdown_cause *cause)
{
	struct kt_lockdown_query q = {
		.use = use,
		.path = path,
		.code = code,
		.root = geteuid() == 0,
		.rawio = kt_have_cap(CAP_SYS_RAWIO),
	};
	enum kt_lockdown_cause c;

	c = kt_lockdown_explain(&q, err->msg, sizeof(err->msg));
	if (cause)
		*cause = c;
	err->code = code ? code : KT_ERR_UNSPECIFIED;
	return -err->code;
}
