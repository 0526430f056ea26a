// SPDX-License-Identifier: GPL-2.0
/*
 * arm64's patch hook. Every post-boot core-text write (jump labels,
 * ftrace, kprobes) funnels through __aarch64_insn_write(), which kprobes
 * refuse but ftrace can hook. The ftrace handler takes the write over:
 * it writes the master, then every replica, cleans each copy to the
 * point of unification, and makes the kernel's function return without
 * writing again. The writer's own kick_all_cpus_sync() or stop_machine()
 * then covers every copy. Context: the ftrace handler, any.
 *
 * arm64 6.12 builds that code noinstr: neither ftrace nor kprobes reach
 * it. Every write still maps its page at the kernel's poke slot and
 * unmaps it after, under patch_lock, through __set_fixmap(), which a
 * kprobe reaches. The map opens the patch window; the unmap (the write
 * made, the writer's cache maintenance and synchronisation still to come)
 * copies what changed on that page into every replica, and cleans the
 * master through its linear alias, since the writer cleans the VA, which
 * on a replica node's CPU is that node's copy.
 *
 * Locking: the poke state is set and cleared under patch.c's hook_lock
 * (ktr_hook_lock()), which the audit holds over a page too; the
 * registration flags are written only by start and stop, which never
 * run concurrently.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/io.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/trace_recursion.h>
#include <asm/cacheflush.h>
#include <asm/fixmap.h>
#include <asm/insn.h>
#include <asm/memory.h>

#include "core.h"
#include "audit.h"
#include "build.h"
#include "failsafe.h"
#include "slot.h"
#include "patch.h"
#include "testing.h"

const char *const ktr_patch_symbol = "__aarch64_insn_write";

/*
 * __aarch64_insn_write(void *addr, __le32 insn): the one function every
 * core-text write reaches. aarch64_insn_patch_text_nosync() is not that
 * funnel: patching.c inlines it into the stop_machine() callback that
 * arms and disarms kprobes, so a hook there never sees those writes.
 */
bool ktr_patch_arch_args(struct pt_regs *regs, unsigned long *va,
			 const void **src, size_t *len, bool *fill)
{
	*va = regs->regs[0];
	*src = &regs->regs[1];	/* the low 32 bits: little-endian */
	*len = AARCH64_INSN_SIZE;
	*fill = false;
	return true;
}
NOKPROBE_SYMBOL(ktr_patch_arch_args);

/*
 * The kernel writes the master through its fixmap and then cleans the
 * *VA* it was given, which on a CPU running a replica is that replica's
 * line, not the master's. So the master is written here, through a
 * writable alias of its physical page, and cleaned through its linear
 * alias, which every CPU translates to the master. pa is the master's
 * physical address of va: the image's, or a module page's.
 */
void ktr_patch_arch_write_master(unsigned long va, phys_addr_t pa,
				 const void *src, size_t len)
{
	unsigned long alias = (unsigned long)phys_to_virt(pa);

	ktr_write_phys(pa, src, len);
	caches_clean_inval_pou(alias, alias + len);
}
NOKPROBE_SYMBOL(ktr_patch_arch_write_master);

/* where a taken-over __aarch64_insn_write() returns from: success */
static noinline int notrace insn_written(void *addr, __le32 insn)
{
	return 0;
}

/*
 * The master and every replica are written already, so the kernel's own
 * write (a fixmap map and unmap, each a broadcast TLB invalidate) would
 * only repeat the master's. The hooked call resumes in a stub rather
 * than at the caller's return address: a function-graph tracer that hooks
 * this call's return then still sees a function return.
 */
static void skip_kernel_write(struct pt_regs *regs)
{
	instruction_pointer_set(regs, (unsigned long)insn_written);
}

/*
 * __set_fixmap(idx, phys, prot), prot 0 clearing the slot: true for the
 * poke slot, with the page's physical address and whether it is mapped
 * (else unmapped).
 */
static const char poke_symbol[] = "__set_fixmap";

static bool poke_slot(struct pt_regs *regs, phys_addr_t *pa, bool *map)
{
	if (regs->regs[0] != FIX_TEXT_POKE0)
		return false;
	*pa = regs->regs[1] & PAGE_MASK;
	*map = regs->regs[2] != 0;
	return true;
}

/* the image's VA of a physical address inside it */
static unsigned long image_va(phys_addr_t pa)
{
	return (unsigned long)pa + kimage_voffset;
}

static bool ftrace_registered, poke_registered;
/* the hook writes the master and the kernel's function skips its write */
static bool write_taken_over;

/*
 * The page in the poke slot, between its map and unmap (patch_lock), and
 * its bytes at the map: the unmap passes on exactly what the kernel wrote,
 * never a replica's own damage, which is the tools' to find. chunk is
 * set and cleared under hook_lock: the kernel writes the master between
 * the two, and the audit must not take that for a missed write.
 */
static struct {
	struct ktr_chunk *chunk;
	unsigned long va;
	phys_addr_t pa;
	u8 *before;	/* PAGE_SIZE */
} poked;

/*
 * Calls of the ftrace hook that could not pass the write on: a recursion
 * in the same context (the hook's own guard refused it) or no registers.
 * Each is a write the master got and no replica did: counted with the
 * kprobes' nmissed (ktr_patch_poll_misses()).
 */
static atomic64_t hook_misses;
#ifdef KTREPL_TEST
static atomic_t force_hook_miss;	/* the next call goes as a miss */
#endif

static bool notrace hook_forced_miss(void)
{
#ifdef KTREPL_TEST
	return atomic_add_unless(&force_hook_miss, -1, 0);
#else
	return false;
#endif
}

/*
 * A write no replica takes yet (its copy not ready, or a module not yet
 * replicated), made to the master here: each write to text that is or
 * may become a replica is then made inside the handler, preemption off
 * (the recursion guard), where ktr_copy_chunks()'s grace period after
 * *ready waits for it. Left to the kernel, it would land after the
 * handler returned, at any later time: under TCG a vCPU stalls there for
 * a scheduling slice, past the copy's last check (t06's arm64 storm saw
 * a load whose replica missed such a write). The master's page is found
 * as patch_map() finds it: the chunk's within the core's chunks, else
 * through the kernel's tables. On arm64 the image lies in the vmalloc
 * area too, so every text write comes through here (BPF pokes, kprobe
 * slots, unreplicated modules alike), each to the page the kernel itself
 * would have written.
 */
static bool write_master_only(struct pt_regs *regs)
{
	const struct ktr_chunk *first = &ktr.chunks[0],
			       *last = &ktr.chunks[ktr.nr_chunks - 1];
	unsigned long va, flags;
	struct ktr_chunk *c;
	struct page *page;
	const void *src;
	phys_addr_t pa;
	size_t len;
	bool fill;

	ktr_patch_arch_args(regs, &va, &src, &len, &fill);
	if (va >= first->va && va + len <= last->va + ktr_chunk_size(last)) {
		c = ktr_search_chunks(ktr.chunks, ktr.nr_chunks, va);
		if (!c)
			return false;
		pa = c->master_pa + (va - c->va);
	} else if (is_vmalloc_addr((void *)va) ||
		   (va >= MODULES_VADDR && va < MODULES_END)) {
		page = vmalloc_to_page((void *)va);
		if (!page)
			return false;
		pa = page_to_phys(page) + offset_in_page(va);
	} else {
		return false;
	}
	ktr_test_unready_patch_delay();
	flags = ktr_hook_lock();
	ktr_patch_arch_write_master(va, pa, src, len);
	ktr_hook_unlock(flags);
	return true;
}
NOKPROBE_SYMBOL(write_master_only);

/*
 * arm64: at the entry of the one patching funnel, any context. The
 * recursion guard is the hook's own rather than ftrace's
 * (FTRACE_OPS_FL_RECURSION), since ftrace's drops a call silently.
 */
static void notrace patch_ftrace_handler(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *op,
					 struct ftrace_regs *fregs)
{
	int bit = ftrace_test_recursion_trylock(ip, parent_ip);
	struct pt_regs *regs = ftrace_get_regs(fregs);
	bool made;

	if (bit < 0 || !regs || hook_forced_miss()) {
		atomic64_inc(&hook_misses);
		ktr_patch_poll_misses();
	} else {
		ktr_propagate_patch(regs, &made);
		if (!made)
			made = write_master_only(regs);
		if (made && write_taken_over)
			skip_kernel_write(regs);
	}
	if (bit >= 0)
		ftrace_test_recursion_unlock(bit);
}

/*
 * PERMANENT: while registered, kernel.ftrace_enabled=0 is refused, since
 * it would stop the hook while the kernel still patches. IPMODIFY is
 * added where the handler takes the write over (skip_kernel_write).
 */
static struct ftrace_ops patch_fops = {
	.func = patch_ftrace_handler,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_PERMANENT,
};

static struct ktr_chunk *chunk_at_master_pa(phys_addr_t pa, unsigned long *va)
{
	unsigned long image = image_va(pa);
	struct ktr_chunk *c = ktr_search_chunks(ktr.chunks, ktr.nr_chunks,
						image);

	if (c && c->master_pa + (image - c->va) == pa) {
		*va = image;
		return c;
	}
	c = ktr_module_chunk_at_pa(pa);
	if (c)
		*va = c->va;
	return c;
}
NOKPROBE_SYMBOL(chunk_at_master_pa);

/* the poked page is written: every replica gets the bytes that changed */
static void sync_poked_page(void)
{
	u8 *master = phys_to_virt(poked.pa);
	size_t first = PAGE_SIZE, last = 0, b, len;
	unsigned int written = 0;
	unsigned long flags;
	int nid;

	for (b = 0; b < PAGE_SIZE; b++)
		if (master[b] != poked.before[b]) {
			first = min(first, b);
			last = b;
		}
	flags = ktr_hook_lock();
	if (first == PAGE_SIZE) {
		poked.chunk = NULL;
		ktr_hook_unlock(flags);
		return;
	}
	len = last - first + 1;
	for_each_replica(poked.chunk, nid) {
		ktr_replica_write(nid, poked.va + first, master + first, -1,
				  len);
		written++;
	}
	ktr_arch_sync_icache(master + first, poked.va + first, len);
	poked.chunk = NULL;
	ktr_hook_unlock(flags);
	ktr_patch_count(len);
	ktr_patch_log_add(poked.va + first, len, written, true);
	ktr_notify_changed(false);
}
NOKPROBE_SYMBOL(sync_poked_page);

static int poke_pre(struct kprobe *kp, struct pt_regs *regs)
{
	unsigned long va, flags;
	struct ktr_chunk *c;
	phys_addr_t pa;
	bool map;

	if (!poke_slot(regs, &pa, &map))
		return 0;
	if (!map) {
		if (!poked.chunk)
			return 0;
		sync_poked_page();
		ktr_patch_window_step();
		return 0;
	}
	/*
	 * A map with one still open: that poke's unmap was never seen. A
	 * kprobe disarm restores our own site through this very poke, so
	 * the map may fire and the unmap not; left open, the patch window
	 * stays odd at rest and every range the tools re-read is
	 * unsettled. Close it: the fail-safe that the disarm tripped
	 * recopies the page.
	 */
	if (poked.chunk) {
		flags = ktr_hook_lock();
		poked.chunk = NULL;
		ktr_hook_unlock(flags);
		ktr_patch_window_step();
	}
	if (!ktr_replicas_ready())
		return 0;
	c = chunk_at_master_pa(pa, &va);
	if (!c)
		return 0;
	if (ktr_patch_dropped(va & PAGE_MASK, PAGE_SIZE))
		return 0;
	memcpy(poked.before, phys_to_virt(pa), PAGE_SIZE);
	flags = ktr_hook_lock();
	poked.va = va & PAGE_MASK;
	poked.pa = pa;
	poked.chunk = c;
	ktr_hook_unlock(flags);
	ktr_patch_window_step();
	return 0;
}
NOKPROBE_SYMBOL(poke_pre);

static struct kprobe poke_kprobe = { .pre_handler = poke_pre };

static int start_poke_hook(void)
{
	int ret;

	poked.before = kmalloc(PAGE_SIZE, GFP_KERNEL);
	if (!poked.before)
		return -ENOMEM;
	poke_kprobe.symbol_name = poke_symbol;
	ret = register_kprobe(&poke_kprobe);
	if (ret) {
		kfree(poked.before);
		poked.before = NULL;
		return ret;
	}
	poke_registered = true;
	ktr_audit_start();
	pr_info("%s cannot be hooked: text writes are followed through %s\n",
		ktr_patch_symbol, poke_symbol);
	return 0;
}

static int start_ftrace_hook(void)
{
	unsigned long addr = ktr_ksym(ktr_patch_symbol);
	int ret;

	if (!addr)
		return -ENOENT;
	ret = ftrace_set_filter_ip(&patch_fops, addr, 0, 0);
	if (!ret) {
		patch_fops.flags |= FTRACE_OPS_FL_IPMODIFY;
		ret = register_ftrace_function(&patch_fops);
		write_taken_over = !ret;
		/* another ip-modifying user has it: write the master twice */
		if (ret == -EBUSY) {
			pr_warn("%s is modified by another ftrace user: the kernel writes the master again after the hook\n",
				ktr_patch_symbol);
			patch_fops.flags &= ~FTRACE_OPS_FL_IPMODIFY;
			ret = register_ftrace_function(&patch_fops);
		}
	}
	if (ret) {
		ftrace_free_filter(&patch_fops);
		return ret;
	}
	ftrace_registered = true;
	ktr_audit_start();
	return 0;
}

int ktr_patch_arch_start(void)
{
	int ret = start_ftrace_hook();

	/* not traceable, or no ftrace_regs with registers */
	if (ret == -EINVAL || ret == -ENOENT)
		ret = start_poke_hook();
	return ret;
}

void ktr_patch_arch_stop(void)
{
	if (poke_registered) {
		unregister_kprobe(&poke_kprobe);
		poke_registered = false;
		poked.chunk = NULL;
		kfree(poked.before);
		poked.before = NULL;
	}
	/*
	 * Before the ftrace hook goes: unregistering it rewrites core text
	 * that no hook passes on any more, which the audit would take for
	 * a missed write.
	 */
	ktr_audit_stop();
	if (ftrace_registered) {
		/* waits for running handlers too */
		unregister_ftrace_function(&patch_fops);
		ftrace_free_filter(&patch_fops);
		ftrace_registered = false;
		write_taken_over = false;
	}
}

u64 ktr_patch_arch_probe_misses(void)
{
	return atomic64_read(&hook_misses) +
	       (poke_registered ? READ_ONCE(poke_kprobe.nmissed) : 0);
}
NOKPROBE_SYMBOL(ktr_patch_arch_probe_misses);

/* hook_lock and the poke state keep a comparison out of a patch */
bool ktr_patch_excludable(void)
{
	return true;
}

bool ktr_patch_arch_page_in_flight(struct ktr_chunk *c, unsigned long va)
{
	ktr_hook_lock_assert_held();
	return poked.chunk == c && poked.va == va;
}

#ifdef KTREPL_TEST
/*
 * The ftrace hook: its next call goes as a miss (the next patch reaches
 * the master only). The poke kprobe: one call it could not handle.
 */
int ktr_patch_arch_force_probe_miss(void)
{
	if (ftrace_registered) {
		atomic_inc(&force_hook_miss);
		return 0;
	}
	if (!poke_registered)
		return -EOPNOTSUPP;
	poke_kprobe.nmissed++;
	return 0;
}
#endif
