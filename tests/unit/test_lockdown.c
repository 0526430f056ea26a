// SPDX-License-Identifier: GPL-2.0
/*
 * Why an open was refused: the lockdown file of each level (fixtures/
 * lockdown/, as securityfs prints it) and the message each cause gets,
 * for kcore and debugfs, root or not.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/capability.h>

#include "fixture_path.h"
#include "lockdown.h"
#include "tap.h"

/* under tests/unit/fixtures (fixture_path()) */
#define FIXTURE "lockdown/"

static void test_parse(void)
{
	static const struct {
		const char *text;
		enum kt_lockdown level;
	} cases[] = {
		{ "[none] integrity confidentiality\n", KT_LOCKDOWN_NONE },
		{ "none [integrity] confidentiality\n", KT_LOCKDOWN_INTEGRITY },
		{ "none integrity [confidentiality]\n",
		  KT_LOCKDOWN_CONFIDENTIALITY },
		{ "none integrity confidentiality\n", KT_LOCKDOWN_UNKNOWN },
		{ "[none] [integrity] confidentiality\n", KT_LOCKDOWN_UNKNOWN },
		{ "none [bogus]\n", KT_LOCKDOWN_UNKNOWN },
		{ "[integrity", KT_LOCKDOWN_UNKNOWN },
		{ "", KT_LOCKDOWN_UNKNOWN },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tap_eq_u64(kt_lockdown_parse(cases[i].text), cases[i].level,
		       "parse '%.*s': %s", (int)strcspn(cases[i].text, "\n"),
		       cases[i].text, kt_lockdown_name(cases[i].level));
}

static void test_read(void)
{
	static const struct {
		const char *file;
		enum kt_lockdown level;
		int code;
	} cases[] = {
		{ FIXTURE "none", KT_LOCKDOWN_NONE, 0 },
		{ FIXTURE "integrity", KT_LOCKDOWN_INTEGRITY, 0 },
		{ FIXTURE "confidentiality", KT_LOCKDOWN_CONFIDENTIALITY, 0 },
		{ FIXTURE "malformed", KT_LOCKDOWN_UNKNOWN, EPROTO },
		{ FIXTURE "absent", KT_LOCKDOWN_UNKNOWN, ENOENT },
	};
	size_t i;
	int code;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		tap_ok(kt_lockdown_read(fixture_path(cases[i].file), &code) ==
			       cases[i].level && code == cases[i].code,
		       "read %s: %s, errno %d", cases[i].file,
		       kt_lockdown_name(cases[i].level), code);
}

struct explain_case {
	const char *what;
	enum kt_lockdown_use use;
	const char *lockdown;	/* fixture, or a missing file */
	int code;
	bool root, rawio;
	enum kt_lockdown_cause cause;
	const char *says[3];	/* each in the message */
	const char *not_says;
};

static const struct explain_case explain_cases[] = {
	{ "kcore, root, confidentiality", KT_LOCKDOWN_USE_KCORE,
	  FIXTURE "confidentiality", EPERM, true, true, KT_CAUSE_LOCKDOWN,
	  { "/proc/kcore: Operation not permitted: kernel lockdown is in confidentiality mode",
	    "reading live kernel memory (/proc/kcore)", "even for root" },
	  "needs root" },
	{ "kcore, root, confidentiality, no CAP_SYS_RAWIO either",
	  KT_LOCKDOWN_USE_KCORE, FIXTURE "confidentiality", EPERM, true,
	  false, KT_CAUSE_LOCKDOWN, { "confidentiality mode" } },
	{ "kcore, root, integrity: not lockdown's doing",
	  KT_LOCKDOWN_USE_KCORE, FIXTURE "integrity", EPERM, true, true,
	  KT_CAUSE_OTHER, { "/proc/kcore: Operation not permitted" },
	  "lockdown" },
	{ "kcore, root without CAP_SYS_RAWIO, no lockdown",
	  KT_LOCKDOWN_USE_KCORE, FIXTURE "none", EPERM, true, false,
	  KT_CAUSE_NO_RAWIO, { "needs CAP_SYS_RAWIO" }, "lockdown" },
	{ "kcore, root, no securityfs: probably lockdown",
	  KT_LOCKDOWN_USE_KCORE, FIXTURE "absent", EPERM, true, true,
	  KT_CAUSE_PROBABLY_LOCKDOWN,
	  { "probably kernel lockdown", "confidentiality mode",
	    FIXTURE "absent: No such file or directory" } },
	{ "kcore, root, a lockdown file not understood",
	  KT_LOCKDOWN_USE_KCORE, FIXTURE "malformed", EPERM, true, true,
	  KT_CAUSE_PROBABLY_LOCKDOWN, { "not understood" } },
	{ "kcore, not root", KT_LOCKDOWN_USE_KCORE, FIXTURE "absent", EACCES,
	  false, false, KT_CAUSE_NOT_ROOT,
	  { "/proc/kcore: Permission denied (reading kcore needs root)" },
	  "lockdown" },
	{ "kcore, not root, under confidentiality", KT_LOCKDOWN_USE_KCORE,
	  FIXTURE "confidentiality", EACCES, false, false, KT_CAUSE_NOT_ROOT,
	  { "needs root", "confidentiality mode" } },
	{ "kcore, root, EACCES: the file's mode", KT_LOCKDOWN_USE_KCORE,
	  FIXTURE "confidentiality", EACCES, true, true, KT_CAUSE_OTHER,
	  { "Permission denied" }, "lockdown" },
	{ "kcore, ENOENT", KT_LOCKDOWN_USE_KCORE, FIXTURE "confidentiality",
	  ENOENT, true, true, KT_CAUSE_OTHER,
	  { "/proc/kcore: No such file or directory" }, "lockdown" },
	{ "debugfs, root, integrity", KT_LOCKDOWN_USE_DEBUGFS,
	  FIXTURE "integrity", EPERM, true, false, KT_CAUSE_LOCKDOWN,
	  { "kernel lockdown is in integrity mode",
	    "debugfs files with a mode beyond 0444" }, "kcore" },
	{ "debugfs, root, confidentiality", KT_LOCKDOWN_USE_DEBUGFS,
	  FIXTURE "confidentiality", EPERM, true, true, KT_CAUSE_LOCKDOWN,
	  { "confidentiality mode", "debugfs files with a mode beyond 0444" } },
	{ "debugfs, root, no lockdown: kallsyms' rule for addresses",
	  KT_LOCKDOWN_USE_DEBUGFS, FIXTURE "none", EPERM, true, true,
	  KT_CAUSE_ADDRESSES,
	  { "Operation not permitted", "CAP_SYSLOG", "kptr_restrict below 2" },
	  "lockdown" },
	{ "debugfs, root, no securityfs", KT_LOCKDOWN_USE_DEBUGFS,
	  FIXTURE "absent", EPERM, true, false, KT_CAUSE_PROBABLY_LOCKDOWN,
	  { "probably kernel lockdown", "integrity mode" } },
	{ "debugfs, not root", KT_LOCKDOWN_USE_DEBUGFS, FIXTURE "absent",
	  EACCES, false, false, KT_CAUSE_NOT_ROOT, { "(debugfs needs root)" } },
};

static void test_explain(void)
{
	size_t i, j;

	for (i = 0; i < sizeof(explain_cases) / sizeof(explain_cases[0]); i++) {
		const struct explain_case *c = &explain_cases[i];
		struct kt_lockdown_query q = {
			.use = c->use,
			.path = c->use == KT_LOCKDOWN_USE_KCORE ? "/proc/kcore" :
				"/sys/kernel/debug/ktrepl/bind",
			.code = c->code,
			.root = c->root,
			.rawio = c->rawio,
			.lockdown_path = fixture_path(c->lockdown),
		};
		enum kt_lockdown_cause cause;
		char msg[1024];
		bool says = true;

		cause = kt_lockdown_explain(&q, msg, sizeof(msg));
		for (j = 0; j < 3 && c->says[j]; j++)
			says &= strstr(msg, c->says[j]) != NULL;
		if (c->not_says)
			says &= !strstr(msg, c->not_says);
		tap_ok(cause == c->cause && says &&
			       !strncmp(msg, q.path, strlen(q.path)),
		       "%s: cause %d: %s", c->what, cause, msg);
	}
}

/* capget(2) agrees with what /proc/self/status says */
static void test_caps(void)
{
	unsigned long long eff = 0;
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	bool agree = true;
	int cap;

	if (!f) {
		tap_skip("no /proc/self/status");
		return;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	for (cap = 0; cap <= CAP_LAST_CAP; cap++)
		agree &= kt_have_cap(cap) == !!(eff & (1ull << cap));
	tap_ok(agree && !kt_have_cap(-1) && !kt_have_cap(64),
	       "kt_have_cap matches CapEff %llx", eff);
}

static void test_err(void)
{
	enum kt_lockdown_cause cause;
	struct kt_err err;

	kt_err_clear(&err);
	tap_ok(kt_lockdown_err(&err, KT_LOCKDOWN_USE_DEBUGFS, "/x/summary",
			       ENOENT, &cause) == -ENOENT &&
		       err.code == ENOENT && cause == KT_CAUSE_OTHER &&
		       !strcmp(err.msg, "/x/summary: No such file or directory"),
	       "kt_lockdown_err: -code, the message in err: %s", err.msg);
	/* a caller with no errno must not be reported as EPERM (1) */
	kt_err_clear(&err);
	tap_eq_u64(-kt_lockdown_err(&err, KT_LOCKDOWN_USE_DEBUGFS, "/x/summary",
				    0, &cause),
		   KT_ERR_UNSPECIFIED, "kt_lockdown_err with code 0: -%s",
		   "KT_ERR_UNSPECIFIED, not -EPERM");
	tap_eq_u64(err.code, KT_ERR_UNSPECIFIED, "and err.code is it too");
}

int main(void)
{
	tap_header();
	tap_plan(32);
	test_parse();
	test_read();
	test_explain();
	test_caps();
	test_err();
	return tap_finish();
}
