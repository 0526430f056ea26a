/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test-only knobs. The shipped module (make kernel, make install, DKMS)
 * is built without KTREPL_TEST: these are then constants, so it has no
 * such parameter, no inject file, and no way to turn propagation off.
 * The test build (make kernel-test) has testing.c and inject.c.
 */
#ifndef KTREPL_TESTING_H
#define KTREPL_TESTING_H

#include <linux/types.h>

/*
 * A parameter that safety rests on is set at load only. The test build
 * lets the tests change it at run time (to stop the audit before a flip
 * they want to survive, say).
 */
#ifdef KTREPL_TEST
#define KTR_TEST_BUILD true
#define KTR_SAFETY_PARAM_PERM 0644
#else
#define KTR_TEST_BUILD false
#define KTR_SAFETY_PARAM_PERM 0444
#endif

#ifdef KTREPL_TEST
bool ktr_test_inject_on(void);		/* fault_inject=1: debugfs 'inject' */
unsigned int ktr_test_fail_alloc(void);	/* fail_alloc=k: the k-th allocation */
bool ktr_test_bench(void);		/* bench=1: time a plain memcpy too */
bool ktr_test_propagate(void);		/* propagate=0: patches left stale */
bool ktr_test_untested_series(void);	/* untested_series=1 */
unsigned int ktr_test_mirror_pool(void);	/* mirror_pool=N, 0: sized */
bool ktr_test_fail_mirror_hook(void);		/* fail_mirror_hook=1 */
bool ktr_test_no_page_runs(void);	/* no_page_runs=1: build.c's fallback */
bool ktr_test_fail_table(unsigned int level);	/* fail_table_level=L */
int ktr_test_inject_allowed(void);	/* the capability check */
void ktr_test_taint_at_load(void);	/* TAINT_TEST, and says so */
int ktr_inject(const char *cmd);
int ktr_patch_force_miss(const char *kind, unsigned long va);	/* patch.c */
int ktr_audit_force_miss(unsigned long va);			/* audit.c */
int ktr_mirror_force_miss(void);			/* mirror.c */
int ktr_fresh_force_miss(bool lose_table);		/* fresh.c */
bool ktr_test_audit_in_failsafe(void);	/* audit_in_failsafe=1 */
void ktr_audit_pass_now(void);				/* audit.c */
void ktr_test_unready_patch_delay(void);	/* unready_patch_delay_ms */
void ktr_test_copy_running(bool running);
/*
 * The order of the events that decide whether a freed page is still
 * reachable (a leaf moved, every TLB flushed, pages freed), one kernel
 * log line each with a sequence number: a TCG guest drops its whole TLB
 * on every CR3 write, so a stale entry cannot be seen there, and the
 * tests assert this order instead. Only with lifetime_log=1: the other
 * tests' expected logs hold none of it.
 */
__printf(1, 2) void ktr_test_lifetime(const char *fmt, ...);
#else
static inline __printf(1, 2) void ktr_test_lifetime(const char *fmt, ...) {}
static inline bool ktr_test_inject_on(void) { return false; }
static inline unsigned int ktr_test_fail_alloc(void) { return 0; }
static inline bool ktr_test_bench(void) { return false; }
static inline bool ktr_test_propagate(void) { return true; }
static inline bool ktr_test_untested_series(void) { return false; }
static inline unsigned int ktr_test_mirror_pool(void) { return 0; }
static inline bool ktr_test_fail_mirror_hook(void) { return false; }
static inline bool ktr_test_no_page_runs(void) { return false; }
static inline bool ktr_test_fail_table(unsigned int level) { return false; }
static inline bool ktr_test_audit_in_failsafe(void) { return false; }
static inline void ktr_audit_pass_now(void) {}
static inline void ktr_test_unready_patch_delay(void) {}
static inline void ktr_test_copy_running(bool running) {}
#endif

#endif
