// SPDX-License-Identifier: GPL-2.0
/*
 * The test build's parameters (KTREPL_TEST, make kernel-test). None of
 * this is in the module users install: see testing.h.
 *
 * Injecting damages a replica or a table on purpose, so it requires
 * CAP_SYS_ADMIN; the load has tainted the kernel (TAINT_TEST) already.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/panic.h>

#include "testing.h"

/* modinfo tells a test build from the shipped one: build=test */
MODULE_INFO(build, "test");

static bool fault_inject;
module_param(fault_inject, bool, 0444);
MODULE_PARM_DESC(fault_inject, "test build: create debugfs 'inject'");

static unsigned int fail_alloc;
module_param(fail_alloc, uint, 0444);
MODULE_PARM_DESC(fail_alloc, "test build: fail the k-th page allocation");

static bool bench;
module_param(bench, bool, 0444);
MODULE_PARM_DESC(bench, "test build: also time a plain memcpy of the replicated bytes at load");

/*
 * Each patch propagate=0 drops trips the fail-safe, which then waits with
 * the replicas stale and looks again until it is 1 (failsafe.c).
 */
static bool propagate = true;
module_param(propagate, bool, KTR_SAFETY_PARAM_PERM);
MODULE_PARM_DESC(propagate, "test build: copy runtime text patches into every replica (default 1); 0 leaves them stale so the tools can be shown to find it, and each one it drops trips the fail-safe, which waits until 1");

static bool untested_series;
module_param(untested_series, bool, 0444);
MODULE_PARM_DESC(untested_series, "test build: load as if this kernel's series were one the tests do not cover (allow_untested's refusal and taint)");

bool ktr_test_untested_series(void)
{
	return untested_series;
}

static unsigned int mirror_pool;
module_param(mirror_pool, uint, 0444);
MODULE_PARM_DESC(mirror_pool, "test build: instances of each table-mirror kretprobe (default 0: max(1024, 32 * CPUs)), small to show that no storm exhausts them");

unsigned int ktr_test_mirror_pool(void)
{
	return mirror_pool;
}

/*
 * A table-mirror probe that cannot be registered (a kernel that lists
 * its function on the kprobe blacklist, say): the last one, so that the
 * ones before it are registered and must be unregistered.
 */
static bool fail_mirror_hook;
module_param(fail_mirror_hook, bool, 0444);
MODULE_PARM_DESC(fail_mirror_hook, "test build: the last table-mirror kretprobe's registration fails (-EBUSY)");

bool ktr_test_fail_mirror_hook(void)
{
	return fail_mirror_hook;
}

static bool no_page_runs;
module_param(no_page_runs, bool, 0444);
MODULE_PARM_DESC(no_page_runs, "test build: every single-page copy takes a page of its own, as where no node has a block free");

bool ktr_test_no_page_runs(void)
{
	return no_page_runs;
}

/*
 * A module's map that fails after it linked a table (the one above the
 * failing one stays owned, as under real memory pressure), the same at
 * every load: fail_alloc's count moves with where a module's pages lie.
 */
static unsigned int fail_table_level;
module_param(fail_table_level, uint, 0444);
MODULE_PARM_DESC(fail_table_level, "test build: fail every level-L node table allocation made for a module once module loads are followed (0: none)");

bool ktr_test_fail_table(unsigned int level)
{
	if (!fail_table_level || level != fail_table_level)
		return false;
	pr_info("failing a level-%u table as fail_table_level asks\n", level);
	return true;
}

static bool audit_in_failsafe;
module_param(audit_in_failsafe, bool, 0444);
MODULE_PARM_DESC(audit_in_failsafe, "test build: run an audit pass inside every fail-safe, after the pause and before the repair (a race the periodic audit can win)");

bool ktr_test_audit_in_failsafe(void)
{
	return audit_in_failsafe;
}

/*
 * A stall in the arm64 hook, before the master-only write of a patch no
 * replica takes yet: that write then lands well after the copy, and only
 * the copy's grace period (ktr_copy_chunks()) makes its first compare
 * pass wait for it. Under TCG a vCPU can stall a scheduling slice (up to
 * 100 ms) anywhere. One write a copy stalls, one that came while the
 * copy ran: a static key's flip writes each of its sites in turn, and a
 * stall each would hold a CPU past the soft-lockup watchdog.
 */
static unsigned int unready_patch_delay_ms;
module_param(unready_patch_delay_ms, uint, 0444);
MODULE_PARM_DESC(unready_patch_delay_ms, "test build: arm64, stall the patch hook this long (ms) on one write a copy, made while the copy runs, that no replica takes yet");

static atomic_t copy_stall_armed;
/* the stalls made since the load: shows a test that the race was run */
static unsigned int unready_patch_stalls;
module_param(unready_patch_stalls, uint, 0444);
MODULE_PARM_DESC(unready_patch_stalls, "test build: how many writes unready_patch_delay_ms stalled since the load");

void ktr_test_copy_running(bool running)
{
	atomic_set(&copy_stall_armed, running && unready_patch_delay_ms);
}

void ktr_test_unready_patch_delay(void)
{
	/*
	 * Interrupts off: ftrace's stop_machine(), which holds the copy
	 * too, so that a stall there races nothing. A static key's write
	 * comes with them on.
	 */
	if (irqs_disabled() ||
	    atomic_cmpxchg(&copy_stall_armed, 1, 0) != 1)
		return;
	WRITE_ONCE(unready_patch_stalls, unready_patch_stalls + 1);
	mdelay(unready_patch_delay_ms);
}
NOKPROBE_SYMBOL(ktr_test_unready_patch_delay);

bool ktr_test_inject_on(void)
{
	return fault_inject;
}

unsigned int ktr_test_fail_alloc(void)
{
	return fail_alloc;
}

bool ktr_test_bench(void)
{
	return bench;
}

/* called from the patch hook's handlers */
bool ktr_test_propagate(void)
{
	return READ_ONCE(propagate);
}
NOKPROBE_SYMBOL(ktr_test_propagate);

static bool lifetime_log;
module_param(lifetime_log, bool, 0444);
MODULE_PARM_DESC(lifetime_log, "test build: log each leaf move, TLB flush and free, in order (\"lifetime seq=N ...\")");

void ktr_test_lifetime(const char *fmt, ...)
{
	static atomic_t seq = ATOMIC_INIT(0);
	struct va_format vaf;
	va_list args;

	if (!lifetime_log)
		return;
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	pr_info("lifetime seq=%d %pV\n", atomic_inc_return(&seq), &vaf);
	va_end(args);
}

/*
 * Whatever a test build does, an oops report must say that it ran: every
 * load taints, and says so, whether the boot was tainted before or not,
 * so that each load's log is the same.
 */
void ktr_test_taint_at_load(void)
{
	pr_warn("test build (KTREPL_TEST): fault injection compiled in; tainting the kernel (TAINT_TEST); never load it on a production host\n");
	add_taint(TAINT_TEST, LOCKDEP_STILL_OK);
}

/* the load tainted the kernel already: a command only needs the right */
int ktr_test_inject_allowed(void)
{
	return capable(CAP_SYS_ADMIN) ? 0 : -EPERM;
}
