// SPDX-License-Identifier: GPL-2.0
/*
 * Are the probes that watch for text and table writes armed? The patch
 * hook, the table mirror and the table-free vetoes are kprobes (and an
 * ftrace_ops on arm64 6.1, which is FTRACE_OPS_FL_PERMANENT, so that
 * kernel.ftrace_enabled=0 is refused while it is registered). Two
 * switches silence them all without a word to their owners:
 *
 *   debugfs kprobes/enabled = 0   disarms every kprobe;
 *   kernel.ftrace_enabled = 0     stops every ftrace-based kprobe.
 *
 * Read directly where kallsyms lists the kernel's data (x86_64's
 * KALLSYMS_ALL); and in every case a canary kprobe on a function of
 * ours is fired and must run: a disarmed kprobe does not.
 *
 * Locking: canary_lock (mutex, this file's) serializes the canary's
 * firing, its registration and its removal. Context: process only (the
 * audit and the fail-safe): called from a probe handler the canary would
 * nest in it and be missed, which would look disarmed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/mutex.h>

#include "core.h"
#include "armed.h"

static DEFINE_MUTEX(canary_lock);
static bool canary_on;		/* under canary_lock */
static unsigned long canary_hits;	/* the handler's, under canary_lock */

/* what the canary probes: never inlined, never optimised away */
static noinline void canary_fn(void)
{
	asm volatile("" ::: "memory");
}

static int canary_pre(struct kprobe *kp, struct pt_regs *regs)
{
	WRITE_ONCE(canary_hits, canary_hits + 1);
	return 0;
}
NOKPROBE_SYMBOL(canary_pre);

static struct kprobe canary = { .pre_handler = canary_pre };

/* Process context, at load. */
int ktr_armed_start(void)
{
	int ret;

	mutex_lock(&canary_lock);
	canary.addr = (kprobe_opcode_t *)canary_fn;
	ret = register_kprobe(&canary);
	canary_on = !ret;
	mutex_unlock(&canary_lock);
	if (ret)
		pr_err("cannot register the canary probe that shows kprobes are armed: %d\n",
		       ret);
	return ret;
}

/* Process context, at unload; safe to call more than once. */
void ktr_armed_stop(void)
{
	mutex_lock(&canary_lock);
	if (canary_on)
		unregister_kprobe(&canary);
	canary_on = false;
	mutex_unlock(&canary_lock);
}

/*
 * Which switch silences our probes now: "kprobes" or "ftrace"; NULL
 * when they are armed (or the canary is gone: unload). Process context.
 */
const char *ktr_probes_unarmed(void)
{
	unsigned long before;
	bool fired = true;

	might_sleep();
	if (ktr.kprobes_all_disarmed && READ_ONCE(*ktr.kprobes_all_disarmed))
		return "kprobes";
	if (ktr.ftrace_enabled && !READ_ONCE(*ktr.ftrace_enabled))
		return "ftrace";
	mutex_lock(&canary_lock);
	if (canary_on) {
		before = READ_ONCE(canary_hits);
		canary_fn();
		fired = READ_ONCE(canary_hits) != before;
	}
	mutex_unlock(&canary_lock);
	return fired ? NULL : "kprobes";
}
