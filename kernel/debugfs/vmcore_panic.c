// SPDX-License-Identifier: GPL-2.0
/*
 * The root each CPU has loaded when the kernel stops it for a crash dump,
 * written into the vmcore descriptor's panic_root[] (ktrepl_desc.h), and
 * where the kernel died: the panic site fields of its header.
 *
 * A dump written by kdump (makedumpfile, or the capture kernel's
 * /proc/vmcore copied as it is) holds each CPU's general registers in
 * its PRSTATUS note and nothing else: no CR3, no TTBR1. Without this a
 * tool cannot say which node's tables a CPU ran on when the box died.
 *
 * crash_save_cpu() is where every stopping CPU passes on both arches and
 * both kernel series: on x86_64 from the NMI that stops the other CPUs
 * (kdump_nmi_callback()) and, for the panicking CPU, from
 * native_machine_crash_shutdown(); on arm64 from the crash-stop IPI and
 * from machine_crash_shutdown(). Each call runs on the CPU it saves, so
 * the probe reads that CPU's own root. A panic notifier would not do:
 * with kdump loaded, __crash_kexec() runs before the notifiers.
 *
 * The panicking CPU saves itself last, once the others have stopped, so
 * the last writer of the panic site is that CPU: the header's panic_cpu
 * and the registers crash_save_cpu() was given (an oops: the trap's).
 * Stopping CPUs may write the site at once and tear it; the panicking
 * CPU's write comes after theirs and is whole.
 *
 * Context: the handler runs in NMI or hard-IRQ context with the machine
 * going down; it takes no lock and touches only its own CPU's slot and
 * the panic site.
 * Arming and disarming run in process context, from the descriptor's
 * publish and unpublish, under the module's load and unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/smp.h>

#include "ktrepl_desc.h"
#include "publish.h"

static u64 *panic_slots;
static unsigned int nr_panic_slots;
static struct ktrepl_desc *panic_site;
static phys_addr_t (*panic_read_root)(void);

/* the caller's return address in a saved frame: arm64's x30 */
static u64 saved_link(struct pt_regs *saved)
{
#ifdef CONFIG_ARM64
	return saved->regs[30];
#else
	return 0;
#endif
}
NOKPROBE_SYMBOL(saved_link);

/* crash_save_cpu(struct pt_regs *regs, int cpu): its first argument */
static int record_root(struct kprobe *kp, struct pt_regs *regs)
{
	struct pt_regs *saved = (struct pt_regs *)regs_get_kernel_argument(regs, 0);
	unsigned int cpu = raw_smp_processor_id();

	if (cpu < nr_panic_slots)
		WRITE_ONCE(panic_slots[cpu], panic_read_root());
	if (!panic_site || !saved)
		return 0;
	WRITE_ONCE(panic_site->panic_pid, current->pid);
	WRITE_ONCE(panic_site->panic_pc, instruction_pointer(saved));
	WRITE_ONCE(panic_site->panic_lr, saved_link(saved));
	WRITE_ONCE(panic_site->panic_cpu, cpu);
	return 0;
}
NOKPROBE_SYMBOL(record_root);

static struct kprobe crash_save_cpu_probe;
static bool armed;

/*
 * Point the probe at slots[nr] and desc's panic site. false where the
 * kernel refuses the probe (no crash_save_cpu, kprobes off): dumps then
 * carry no panic roots and no site, and the tools say so.
 */
bool ktrepl_panic_roots_arm(u64 *slots, unsigned int nr,
			    struct ktrepl_desc *desc,
			    phys_addr_t (*read_root)(void))
{
	int ret;

	if (!read_root)
		return false;
	panic_slots = slots;
	nr_panic_slots = nr;
	panic_read_root = read_root;
	desc->panic_cpu = -1;
	panic_site = desc;
	/* a kprobe is registered from a clean struct, every time */
	crash_save_cpu_probe = (struct kprobe){
		.symbol_name = "crash_save_cpu",
		.pre_handler = record_root,
	};
	ret = register_kprobe(&crash_save_cpu_probe);
	if (ret) {
		pr_info("dumps will not record each CPU's root at panic: probe on crash_save_cpu refused (%d)\n",
			ret);
		panic_site = NULL;
		return false;
	}
	armed = true;
	return true;
}

/* After this returns the handler runs nowhere (unregister_kprobe waits). */
void ktrepl_panic_roots_disarm(void)
{
	if (!armed)
		return;
	unregister_kprobe(&crash_save_cpu_probe);
	armed = false;
	panic_slots = NULL;
	panic_site = NULL;
	nr_panic_slots = 0;
}
