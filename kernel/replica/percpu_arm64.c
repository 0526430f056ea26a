// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 activation "percpu": every CPU's TTBR1_EL1 points at its node's
 * root, so everything the kernel runs, not only ktrepl's threads,
 * fetches text from node-local memory.
 *
 * The switch is cpu_replace_ttbr1(), open-coded because it is inline and
 * names symbols a module cannot link (swapper_pg_dir, idmap_pg_dir,
 * reserved_pg_dir, init_mm). Master and node tables map the same text VA
 * to different PAs, so old and new TLB entries must never coexist: the
 * switch is break-before-make over the whole table (TTBR1 <- reserved,
 * local invalidate, TTBR1 <- node root), run from the identity map
 * because TTBR1 is empty in the middle. Node roots never carry CnP, so a
 * local invalidate is enough.
 *
 * Every path that moves a CPU off its root reloads swapper_pg_dir (a
 * valid copy), so a revert costs locality, never correctness. The CPU is
 * put back from CPUHP_AP_ONLINE_DYN (hotplug, system suspend) and from
 * CPU_PM_EXIT (deep idle, suspend and hibernation of the boot CPU).
 * Context switches change only TTBR1.ASID and keep the root.
 *
 * Context: process at load and unload; the switch itself with
 * interrupts off, on the CPU being switched (hotplug thread, CPU_PM
 * notifier in the idle path, or an IPI).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/cpu_pm.h>
#include <linux/cpuhotplug.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/workqueue.h>
#include <asm/mmu.h>
#include <asm/pgtable.h>
#include <asm/sysreg.h>
#include <asm/tlbflush.h>

#include "core.h"
#include "build.h"

static struct {
	phys_addr_t swapper, reserved, idmap;
	bool swapper_cnp;		/* as the kernel installed it */
	void (*replace_ttbr1)(u64 ttbr1);	/* called at its PA */
	void (*do_switch_mm)(phys_addr_t pgd_phys, struct mm_struct *mm);
	int hp_state;
	bool pm_registered;
	bool on;			/* CPUs belong on node roots */
} pc = { .hp_state = -1 };

static DEFINE_PER_CPU(phys_addr_t, installed_root);
static atomic64_t nr_switches, nr_reinstalls, switch_ns_total;

static phys_addr_t root_of_cpu(int cpu)
{
	int nid = cpu_to_node(cpu);
	struct ktr_node *n;

	/* a CPU with no node stays on the master's tables */
	if (nid == NUMA_NO_NODE)
		return pc.swapper;
	n = ktr_set_node(nid);	/* NULL for a node onlined after load */
	return n && n->root ? __pa(n->root) : pc.swapper;
}

static phys_addr_t loaded_root(void)
{
	return read_sysreg(ttbr1_el1) & GENMASK_ULL(47, 2);
}

/*
 * cpu_replace_ttbr1(), open-coded. Interrupts off, on this CPU.
 */
static void switch_ttbr1(phys_addr_t root, bool cnp)
{
	u64 reserved = phys_to_ttbr(pc.reserved);
	struct mm_struct *mm = current->active_mm;
	u64 t = ktime_get_ns();

	lockdep_assert_irqs_disabled();
	/* off the user tables, onto the identity map with ASID 0 */
	write_sysreg(reserved, ttbr0_el1);
	isb();
	local_flush_tlb_all();
	write_sysreg(read_sysreg(ttbr1_el1) & ~TTBR_ASID_MASK, ttbr1_el1);
	write_sysreg(phys_to_ttbr(pc.idmap), ttbr0_el1);
	isb();
	/* reserved TTBR1, invalidate, new TTBR1: from the idmap */
	pc.replace_ttbr1(phys_to_ttbr(root) | (cnp ? TTBR_CNP_BIT : 0));
	write_sysreg(reserved, ttbr0_el1);
	isb();
	local_flush_tlb_all();
	/* back to the task's own user tables and ASID */
	if (mm && virt_to_phys(mm->pgd) != pc.swapper)
		pc.do_switch_mm(virt_to_phys(mm->pgd), mm);
	this_cpu_write(installed_root, root);
	atomic64_inc(&nr_switches);
	atomic64_add(ktime_get_ns() - t, &switch_ns_total);
}

/* onto this CPU's node root, unless it is there already */
static bool install_here(void)
{
	phys_addr_t want = root_of_cpu(smp_processor_id());

	lockdep_assert_irqs_disabled();
	if (loaded_root() == want) {
		this_cpu_write(installed_root, want);
		return false;
	}
	switch_ttbr1(want, want == pc.swapper && pc.swapper_cnp);
	return true;
}

static void uninstall_here(void)
{
	lockdep_assert_irqs_disabled();
	if (loaded_root() != pc.swapper)
		switch_ttbr1(pc.swapper, pc.swapper_cnp);
	this_cpu_write(installed_root, pc.swapper);
}

static int cpu_online_cb(unsigned int cpu)
{
	unsigned long flags;
	bool moved = false;

	local_irq_save(flags);
	if (READ_ONCE(pc.on))
		moved = install_here();
	local_irq_restore(flags);
	/*
	 * Only the CPU roots changed, which the refresh that does not sleep
	 * covers. The one that sleeps would take the descriptor's mutex and
	 * then mods_lock here, under the CPU hotplug lock, while a module
	 * load may hold mods_lock and wait for that lock in stop_machine().
	 */
	if (moved)
		ktr_notify_changed(false);
	return 0;
}

static int cpu_offline_cb(unsigned int cpu)
{
	unsigned long flags;

	local_irq_save(flags);
	uninstall_here();
	local_irq_restore(flags);
	/* as in cpu_online_cb(): no mutex under the CPU hotplug lock */
	ktr_notify_changed(false);
	return 0;
}

/* deep idle and suspend come back on swapper_pg_dir: return */
static int cpu_pm_cb(struct notifier_block *nb, unsigned long action,
		     void *unused)
{
	if (action != CPU_PM_EXIT && action != CPU_PM_ENTER_FAILED)
		return NOTIFY_OK;
	if (READ_ONCE(pc.on) && install_here()) {
		atomic64_inc(&nr_reinstalls);
		ktr_notify_changed(false);
	}
	return NOTIFY_OK;
}

static struct notifier_block cpu_pm_nb = {
	.notifier_call = cpu_pm_cb,
};

/*
 * idmap_pg_dir is not in kallsyms; the linker puts it three pages below
 * swapper_pg_dir. Believe that only if it maps the switch routine onto
 * itself, executable.
 */
static bool idmap_maps_itself(phys_addr_t fn)
{
	int level;
	u64 e = READ_ONCE(*ktr_walk(__va(pc.idmap), fn, -1, &level));
	u64 size = ktr_level_size(level);

	return ktr_pte_present(e) && ktr_pte_leaf(e, level, ktr.geom.levels) &&
	       ktr_pte_executable(e, level) &&
	       (e & ktr.geom.addr_mask & ~(size - 1)) == (fn & ~(size - 1));
}

/* NULL when this CPU model and kernel allow the switch, else why not */
static const char *percpu_refusal(void)
{
	unsigned long fn;

	/*
	 * The geometries this switch was proven on: 4K pages with 48-bit
	 * VAs (Debian's cloud-arm64), and 16K pages with 52-bit VAs under
	 * LPA2 (arm64-16k), both four levels, below 48-bit PAs (checked
	 * next), where a TTBR holds the plain address.
	 */
	if (CONFIG_PGTABLE_LEVELS != 4 ||
	    !((PAGE_SHIFT == 12 && vabits_actual == 48) ||
	      (PAGE_SHIFT == 14 && vabits_actual == 52)))
		return ktrepl_reason_name(KTREPL_REASON_PAGING_GEOMETRY);
	pc.swapper = __pa(ktr.master_root);
	pc.swapper_cnp = read_sysreg(ttbr1_el1) & TTBR_CNP_BIT;
	pc.reserved = pc.swapper - PAGE_SIZE;
	pc.idmap = pc.swapper - 3 * PAGE_SIZE;
	fn = ktr_ksym("idmap_cpu_replace_ttbr1");
	pc.do_switch_mm = (void *)ktr_ksym("cpu_do_switch_mm");
	if (!fn || !pc.do_switch_mm)
		return ktrepl_reason_name(KTREPL_REASON_SYMBOLS_MISSING);
	fn -= kimage_voffset;	/* its PA: called through the idmap */
	if (fn >= BIT_ULL(48) || pc.swapper >= BIT_ULL(48))
		return ktrepl_reason_name(KTREPL_REASON_IMAGE_ABOVE_48_BIT_PA);
	if (!idmap_maps_itself(fn))
		return ktrepl_reason_name(KTREPL_REASON_IDMAP_NOT_FOUND);
	pc.replace_ttbr1 = (void *)fn;
	return NULL;
}

static void uninstall_ipi(void *unused)
{
	unsigned long flags;

	local_irq_save(flags);
	uninstall_here();
	local_irq_restore(flags);
}

static void ktr_percpu_stop(void);

/*
 * After the node tables are built and the replicas equal the master.
 * Returns NULL with every online CPU on its node's root, or why not
 * (and then every CPU is on the master).
 */
static const char *ktr_percpu_start(void)
{
	const char *why = percpu_refusal();
	int ret;

	if (why)
		return why;
	WRITE_ONCE(pc.on, true);
	ret = cpu_pm_register_notifier(&cpu_pm_nb);
	if (ret) {
		ktr_percpu_stop();
		return ktrepl_reason_name(
			KTREPL_REASON_CPU_PM_NOTIFIER_REFUSED);
	}
	pc.pm_registered = true;
	/* runs cpu_online_cb on every online CPU, and on each one onlined */
	ret = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "ktrepl:percpu",
				cpu_online_cb, cpu_offline_cb);
	if (ret < 0) {
		ktr_percpu_stop();
		return ktrepl_reason_name(KTREPL_REASON_CPUHP_REFUSED);
	}
	pc.hp_state = ret;
	return NULL;
}

/* Every CPU back on the master's tables; safe to call more than once. */
static void ktr_percpu_stop(void)
{
	int cpu;

	WRITE_ONCE(pc.on, false);
	if (pc.pm_registered) {
		cpu_pm_unregister_notifier(&cpu_pm_nb);
		/* a notifier running in the idle path is an RCU reader */
		synchronize_rcu();
		pc.pm_registered = false;
	}
	if (pc.hp_state >= 0) {
		/* runs cpu_offline_cb on every online CPU */
		cpuhp_remove_state(pc.hp_state);
		pc.hp_state = -1;
	}
	if (!pc.replace_ttbr1)
		return;
	/* belt and braces: nothing may run on a root about to be freed */
	cpus_read_lock();
	on_each_cpu(uninstall_ipi, NULL, 1);
	for_each_online_cpu(cpu)
		WARN_ON(per_cpu(installed_root, cpu) != pc.swapper);
	cpus_read_unlock();
}

static phys_addr_t ktr_percpu_installed_root(int cpu)
{
	return per_cpu(installed_root, cpu);
}

static void ktr_percpu_counters(u64 *switches, u64 *reinstalls, u64 *switch_ns)
{
	u64 n = atomic64_read(&nr_switches);

	*switches = n;
	*reinstalls = atomic64_read(&nr_reinstalls);
	*switch_ns = n ? div64_u64(atomic64_read(&switch_ns_total), n) : 0;
}

/*
 * Fault injection: put one CPU back on swapper_pg_dir the way firmware
 * does on a power-down exit, then run the CPU PM exit notifiers as the
 * idle path does. ktrepl's notifier must bring it back. It runs from a
 * worker bound to the CPU, not an IPI: other CPU PM notifiers (the GIC's)
 * reinitialise the CPU interface on exit, which inside an interrupt
 * handler loses that CPU's later IPIs.
 */
static long pm_revert_on_cpu(void *unused)
{
	unsigned long flags;
	int ret;

	local_irq_save(flags);
	ret = cpu_pm_enter();
	if (!ret) {
		switch_ttbr1(pc.swapper, pc.swapper_cnp);
		ret = cpu_pm_exit();
	}
	local_irq_restore(flags);
	return ret;
}

static int ktr_percpu_pm_revert(int cpu)
{
	if (!READ_ONCE(pc.on))
		return -ENODEV;
	return work_on_cpu(cpu, pm_revert_on_cpu, NULL);
}

/* arm64's activations beyond "workload": this file's percpu */
const struct ktr_arch ktr_arch = {
	.percpu_start = ktr_percpu_start,
	.percpu_stop = ktr_percpu_stop,
	.installed_root = ktr_percpu_installed_root,
	.percpu_counters = ktr_percpu_counters,
	.pm_revert = ktr_percpu_pm_revert,
};
