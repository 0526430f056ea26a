// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 page-table geometry, root switches, TLB flushes and the
 * instruction forms the tests inject (the entry bits: arch_x86.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kprobes.h>
#include <linux/mm.h>
#include <asm/pgtable.h>
#include <asm/processor-flags.h>
#include <asm/tlbflush.h>

#include "core.h"
#include "ktrepl_compat.h"
#include "testing.h"

phys_addr_t ktr_arch_read_root(void)
{
	return __read_cr3() & CR3_ADDR_MASK;
}

static struct mm_struct *x86_init_mm;
static void (*switch_mm_irqs_off_fn)(struct mm_struct *prev,
				    struct mm_struct *next,
				    struct task_struct *tsk);

phys_addr_t ktr_arch_master_root(void)
{
	x86_init_mm = (struct mm_struct *)ktr_ksym("init_mm");
	/* for ktr_arch_leave_root(); without it the workload could not start */
	switch_mm_irqs_off_fn = (void *)ktr_ksym("switch_mm_irqs_off");
	if (!x86_init_mm || !switch_mm_irqs_off_fn)
		return 0;
	return __pa(x86_init_mm->pgd);
}

void ktr_arch_flush_local(unsigned long va)
{
	/* invlpg drops a global entry too, whatever the page size */
	asm volatile("invlpg (%0)" ::"r"(va) : "memory");
}
NOKPROBE_SYMBOL(ktr_arch_flush_local);

void ktr_arch_sync_icache(void *alias, unsigned long va, size_t len)
{
	/* coherent; the patcher's own sync_core IPIs serialise the CPUs */
}
NOKPROBE_SYMBOL(ktr_arch_sync_icache);

void ktr_arch_release_cpu(void)
{
	ktr_compat_leave_mm();
}

/*
 * leave_mm() warns unless the CPU is already lazy, and the scheduler
 * calls us before that: do what leave_mm() does, without the check.
 */
void ktr_arch_leave_root(void)
{
	switch_mm_irqs_off_fn(NULL, x86_init_mm, NULL);
}

/*
 * CPA rewrites the image's mapping of a page too (its "high alias")
 * when the page lies in the span the image keeps mapped, _text to the
 * value of _brk_end rounded up to 2 MiB, as CPA's own test has it: freed
 * init memory, reused by the page allocator, among them module pages.
 * The image's mapping is in tables every node owns. Inclusive; 0:
 * unknown.
 */
static unsigned long image_first_pfn, image_last_pfn;

int ktr_arch_image_aliases_init(void)
{
	unsigned long text = ktr_ksym("_text");
	unsigned long *brk_end = (void *)ktr_ksym_quiet("_brk_end");
	/* _brk_end is a variable; _end lies past its value: a superset */
	unsigned long end = brk_end ? READ_ONCE(*brk_end) : ktr_ksym("_end");

	if (!text || !end)
		return -ENOENT;
	image_first_pfn = __pa_symbol(text & PMD_MASK) >> PAGE_SHIFT;
	image_last_pfn = __pa_symbol(ALIGN(end, PMD_SIZE)) >> PAGE_SHIFT;
	return 0;
}

/* the image's own mapping of a PFN of its span */
static unsigned long image_va(unsigned long pfn)
{
	return (pfn << PAGE_SHIFT) - phys_base + __START_KERNEL_map;
}
NOKPROBE_SYMBOL(image_va);

/* widen [*lo, *end) by the image's mapping of PFNs first..last in its span */
static void add_image_alias(unsigned long first, unsigned long last,
			    unsigned long *lo, unsigned long *end)
{
	first = max(first, image_first_pfn);
	last = min(last, image_last_pfn);
	if (first > last)
		return;
	*lo = min(*lo, image_va(first));
	*end = max(*end, image_va(last) + PAGE_SIZE);
}
NOKPROBE_SYMBOL(add_image_alias);

/*
 * Every CPA change that can rewrite a mapping a node owns.
 * change_page_attr_set_clr() is the funnel of set_memory_*() (ro, rw, x,
 * nx, rox, uc, wc, wb, np, 4k...), set_pages_*() and set_pages_array_*(),
 * but for the two callers that run its core, __change_page_attr_set_clr(),
 * with aliases themselves. tests/unit/mirror-funnels.t checks each -dbg
 * vmlinux (and the debug kernel's) for another way in.
 */
const struct ktr_protect_probe ktr_arch_protect_probes[KTR_MAX_PROTECT_PROBES] = {
	{ "change_page_attr_set_clr", KTR_PROTECT_CPA },
	{ "set_pages_array_wb", KTR_PROTECT_PAGE_ARRAY },
	/* only with CONFIG_ARCH_HAS_CC_PLATFORM, as Debian builds */
	{ "__set_memory_enc_pgtable", KTR_PROTECT_PAGES, .optional = true },
};

/*
 * The image's mapping of numpages pages at addr that CPA may rewrite
 * with them, added to s. A module's and BPF's pages are vmalloc pages,
 * one PFN each (above 4 MiB of them: cannot tell, rather than walk long
 * with preemption off); a copy's or a driver's, direct-map pages, one
 * PFN range however long. Anything else (the image's own mapping, whose
 * direct-map alias no node owns): cannot tell.
 */
static bool image_alias_of_range(unsigned long addr, long numpages,
				 struct ktr_protect_span *s)
{
	unsigned long pfn;
	long i;

	if (is_vmalloc_addr((void *)addr) ||
	    (addr >= MODULES_VADDR && addr < MODULES_END)) {
		if (numpages > SZ_4M / PAGE_SIZE)
			return false;
		for (i = 0; i < numpages; i++) {
			struct page *page = vmalloc_to_page(
				(void *)(addr + i * PAGE_SIZE));

			if (!page)
				return false;
			pfn = page_to_pfn(page);
			add_image_alias(pfn, pfn, &s->alias_start,
					&s->alias_end);
		}
		return true;
	}
	if (addr >= PAGE_OFFSET && addr < __START_KERNEL_map &&
	    virt_addr_valid((void *)addr)) {
		pfn = __pa(addr) >> PAGE_SHIFT;
		add_image_alias(pfn, pfn + numpages - 1, &s->alias_start,
				&s->alias_end);
		return true;
	}
	return false;
}
NOKPROBE_SYMBOL(image_alias_of_range);

/* the same for an array of pages, whose own mapping is the direct map's */
static bool image_alias_of_pages(struct page **pages, long numpages,
				 struct ktr_protect_span *s)
{
	unsigned long pfn;
	long i;

	if (!pages || numpages > SZ_4M / PAGE_SIZE)
		return false;
	for (i = 0; i < numpages; i++) {
		pfn = page_to_pfn(READ_ONCE(pages[i]));
		add_image_alias(pfn, pfn, &s->alias_start, &s->alias_end);
	}
	return true;
}
NOKPROBE_SYMBOL(image_alias_of_pages);

/*
 * change_page_attr_set_clr(addr, numpages, mask_set, mask_clr,
 * force_split, in_flag, pages), the funnel of x86's CPA: its in_flag
 * bits (set_memory.c's own, unchanged from 4.19 to 6.12), and whether a
 * change rewrites the page's other mappings too. No change of NX alone
 * does: 6.1 does not look for them, 6.2 on strips NX from the aliases'
 * masks, which leaves them nothing to change. Nor one whose caller says
 * not to. (canon_pgprot() may only narrow the masks: more is mirrored.)
 */
#define KTR_CPA_ARRAY 2
#define KTR_CPA_PAGES_ARRAY 4
#define KTR_CPA_NO_CHECK_ALIAS 8

static bool cpa_span(struct pt_regs *regs, long numpages,
		     struct ktr_protect_span *s)
{
	unsigned long *addr = (void *)regs_get_kernel_argument(regs, 0);
	u64 masks = regs_get_kernel_argument(regs, 2) |
		    regs_get_kernel_argument(regs, 3);
	int in_flag = regs_get_kernel_argument(regs, 5);
	bool aliases = masks != _PAGE_NX && !(in_flag & KTR_CPA_NO_CHECK_ALIAS);

	/* an array of addresses: none of the kernels covered passes one */
	if (in_flag & KTR_CPA_ARRAY)
		return false;
	/* pages: changed through the direct map, no node owns its tables */
	if (in_flag & KTR_CPA_PAGES_ARRAY)
		return !aliases ||
		       image_alias_of_pages(
			       (void *)regs_get_kernel_argument(regs, 6),
			       numpages, s);
	s->start = READ_ONCE(*addr) & PAGE_MASK;
	s->end = s->start + numpages * PAGE_SIZE;
	return !aliases || image_alias_of_range(s->start, numpages, s);
}
NOKPROBE_SYMBOL(cpa_span);

bool ktr_arch_protect_span(enum ktr_protect_args args, struct pt_regs *regs,
			   struct ktr_protect_span *s)
{
	/* an int: the upper half of the register is undefined */
	long numpages = (int)regs_get_kernel_argument(regs, 1);
	unsigned long addr = regs_get_kernel_argument(regs, 0);

	s->start = 0;
	s->end = 0;
	s->alias_start = ULONG_MAX;
	s->alias_end = 0;
	if (numpages <= 0)
		return true;
	if (!image_last_pfn)
		return false;
	switch (args) {
	case KTR_PROTECT_PAGES:
		s->start = addr;
		s->end = addr + numpages * PAGE_SIZE;
		return image_alias_of_range(addr, numpages, s);
	case KTR_PROTECT_PAGE_ARRAY:
		return image_alias_of_pages((void *)addr, numpages, s);
	case KTR_PROTECT_CPA:
		return cpa_span(regs, numpages, s);
	}
	return false;
}
NOKPROBE_SYMBOL(ktr_arch_protect_span);

int ktr_arch_protect_alias(unsigned long addr, int numpages, bool ro)
{
	static int (*set_ro)(unsigned long addr, int numpages);
	static int (*set_rw)(unsigned long addr, int numpages);

	if (!set_ro || !set_rw) {
		set_ro = (void *)ktr_ksym("set_memory_ro");
		set_rw = (void *)ktr_ksym("set_memory_rw");
		if (!set_ro || !set_rw)
			return -ENOENT;
	}
	return ro ? set_ro(addr, numpages) : set_rw(addr, numpages);
}

int ktr_arch_geometry(struct ktr_geom *g)
{
	static const unsigned int shifts[] = { 48, 39, 30, 21, 12 };
	int skip = pgtable_l5_enabled() ? 0 : 1, i;

	g->levels = 5 - skip;
	for (i = 0; i < g->levels; i++) {
		g->shift[i] = shifts[i + skip];
		g->bits[i] = 9;
	}
	/* with PTI the user copy of a PGD sits in the page after it */
	g->root_order = 1;
	g->addr_mask = PTE_PFN_MASK;
	g->kernel_first = 1U << 8;
	return 0;
}

int ktr_arch_retval_insn(u8 *buf, size_t len, unsigned long value)
{
	/* mov $imm32, %rax (sign-extended); ret */
	if (len < 8 || value > 0x7fffffff)
		return -EINVAL;
	buf[0] = 0x48;
	buf[1] = 0xc7;
	buf[2] = 0xc0;
	memcpy(buf + 3, &value, 4);
	buf[7] = 0xc3;
	return 8;
}

int ktr_arch_trap_insn(u8 *buf, size_t len)
{
	if (len < 2)
		return -EINVAL;
	buf[0] = 0x0f;	/* ud2 */
	buf[1] = 0x0b;
	return 2;
}

struct flush_range {
	unsigned long start, end;
};

static void flush_range_here(void *arg)
{
	const struct flush_range *r = arg;
	unsigned long va;

	for (va = r->start; va < r->end; va += PAGE_SIZE)
		ktr_arch_flush_local(va);
}

/* flush_tlb_kernel_range() is not exported; both send IPIs */
void ktr_arch_flush_kernel_range(unsigned long start, unsigned long end)
{
	static void (*flush)(unsigned long start, unsigned long end);
	struct flush_range r = { start & PAGE_MASK, end };

	if (!flush)
		flush = (void *)ktr_ksym_quiet("flush_tlb_kernel_range");
	if (flush)
		flush(start, end);
	else
		on_each_cpu(flush_range_here, &r, 1);
}

static void flush_every_pcid(void *ran)
{
	__flush_tlb_all();	/* every PCID, global entries too */
	atomic_inc(ran);
}

void ktr_arch_flush_all(void)
{
	atomic_t ran = ATOMIC_INIT(0);

	on_each_cpu(flush_every_pcid, &ran, 1);
	ktr_test_lifetime("flush_all cpus=%d online=%u by=%ps",
			  atomic_read(&ran), num_online_cpus(),
			  __builtin_return_address(0));
}
