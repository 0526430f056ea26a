// SPDX-License-Identifier: GPL-2.0
/*
 * ktrepl publisher: /sys/kernel/debug/ktrepl/, format in docs/abi.md.
 *
 * Everything here reads a struct ktrepl_provider, so any replication
 * implementation can be published the same way. Addresses are printed
 * raw, since tools need the real values, and only to a reader
 * /proc/kallsyms would show them to (kallsyms_show_value(): CAP_SYSLOG,
 * and kernel.kptr_restrict below 2); others get EPERM.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/cpu.h>
#include <linux/debugfs.h>
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "ktrepl_abi.h"
#include "ktrepl_desc.h"
#include "ktrepl_ksym.h"
#include "ktrepl_node.h"
#include "ktrepl_records.h"
#include "ktrepl_summary.h"
#include "files.h"
#include "publish.h"

static struct ktrepl_provider *prov;
static struct dentry *ktrepl_dir;

const char *ktrepl_activation_name(enum ktrepl_activation act)
{
	return ktrepl_activation_str(act) ?: "?";
}

static const char *role_name(u32 role)
{
	return ktrepl_role_str(role) ?: "?";
}

/* A node's role, one KTREPL_DESC_ROLE_*: the same in debugfs and dumps. */
u32 ktrepl_node_role(const struct ktrepl_provider *p, int nid)
{
	if (nid == p->master_node)
		return KTREPL_DESC_ROLE_MASTER;
	/* onlined after the provider set up its nodes: no set of its own */
	if (p->memory_node(nid) == NUMA_NO_NODE)
		return KTREPL_DESC_ROLE_LATE;
	if (p->memory_node(nid) != nid)
		return KTREPL_DESC_ROLE_ALIAS;
	if (p->activation == KTREPL_ACT_NONE)
		return KTREPL_DESC_ROLE_NONE;
	return KTREPL_DESC_ROLE_REPLICA;
}

/*
 * The VA of physical address 0 in the direct map, so that VA = this + PA
 * for any RAM. Not PAGE_OFFSET: arm64 maps RAM from memstart_addr at
 * PAGE_OFFSET. Derived from a page the provider knows is RAM.
 */
unsigned long ktrepl_direct_map(const struct ktrepl_provider *p)
{
	return (unsigned long)__va(p->master_root) - p->master_root;
}

/* the kernel's own rule for /proc/kallsyms, resolved at publish */
static bool (*show_value)(const struct cred *cred);

int ktrepl_addresses_allowed(struct file *file)
{
	if (show_value)
		return show_value(file->f_cred) ? 0 : -EPERM;
	return file_ns_capable(file, &init_user_ns, CAP_SYSLOG) ? 0 : -EPERM;
}

static int abi_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", KTREPL_ABI_VERSION);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(abi);

/* the replicated modules; kvfree() the result */
static struct ktrepl_module_info *load_modules(int *nr)
{
	struct ktrepl_module_info *mods;

	mods = kvcalloc(KTREPL_MAX_MODULES, sizeof(*mods), GFP_KERNEL);
	*nr = 0;
	if (mods && prov->modules)
		*nr = prov->modules(mods, KTREPL_MAX_MODULES);
	return mods;
}

void ktrepl_print_fields(struct seq_file *m, const struct ktrepl_field *f,
			 const union ktrepl_field_value *v, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		seq_printf(m, "%s%s=", i ? " " : "", f[i].name);
		switch (f[i].type) {
		case KTREPL_F_INT:
			seq_printf(m, "%lld", v[i].i);
			break;
		case KTREPL_F_UINT:
			seq_printf(m, "%llu", v[i].u);
			break;
		case KTREPL_F_HEX:
			seq_printf(m, "0x%llx", v[i].u);
			break;
		case KTREPL_F_STR:
			seq_puts(m, v[i].s && *v[i].s ? v[i].s : "-");
			break;
		case KTREPL_F_CPULIST:
			seq_printf(m, "%*pbl", cpumask_pr_args(v[i].cpus));
			break;
		}
	}
	seq_putc(m, '\n');
}

static void print_node(struct seq_file *m, int nid)
{
	union ktrepl_field_value vals[KTREPL_N_NR] = {
		[KTREPL_N_NODE].i = nid,
		[KTREPL_N_MEMORY_NODE].i = prov->memory_node(nid),
		[KTREPL_N_HAS_MEMORY].i = node_state(nid, N_MEMORY) ? 1 : 0,
		[KTREPL_N_ROLE].s = role_name(ktrepl_node_role(prov, nid)),
		[KTREPL_N_CPUS].cpus = cpumask_of_node(nid),
		[KTREPL_N_ROOT_PA].u = (u64)prov->node_root(nid),
		[KTREPL_N_OVERHEAD_BYTES].u = prov->overhead_bytes(nid),
		[KTREPL_N_MEM_START].u = (u64)PFN_PHYS(node_start_pfn(nid)),
		[KTREPL_N_MEM_END].u = (u64)PFN_PHYS(node_end_pfn(nid)),
	};

	ktrepl_print_fields(m, ktrepl_node_fields(), vals, KTREPL_N_NR);
}

static void print_region(struct seq_file *m, const struct ktrepl_region *reg)
{
	union ktrepl_field_value vals[KTREPL_R_NR] = {
		[KTREPL_R_REGION].s = reg->name,
		[KTREPL_R_START].u = reg->start,
		[KTREPL_R_END].u = reg->end,
		[KTREPL_R_SIZE].u = reg->end - reg->start,
	};

	ktrepl_print_fields(m, ktrepl_region_fields(), vals, KTREPL_R_NR);
}

static void print_module(struct seq_file *m,
			 const struct ktrepl_module_info *mod)
{
	union ktrepl_field_value vals[KTREPL_M_NR] = {
		[KTREPL_M_MODULE].s = mod->name,
		[KTREPL_M_START].u = mod->start,
		[KTREPL_M_TEXT_END].u = mod->text_end,
		[KTREPL_M_END].u = mod->end,
		[KTREPL_M_SIZE].u = mod->end - mod->start,
		[KTREPL_M_ORIG_NODE].i = mod->orig_node,
		[KTREPL_M_MASTER_COPIES].u = mod->master_copies,
		[KTREPL_M_SINCE_NS].u = mod->since_ns,
		[KTREPL_M_RODATA_START].u = mod->rodata_start,
		[KTREPL_M_RODATA_END].u = mod->rodata_end,
	};

	/* 6.4+: the rodata apart; older readers ignore the keys */
	ktrepl_print_fields(m, ktrepl_module_fields(), vals,
		     mod->rodata_end ? KTREPL_M_NR : KTREPL_M_NR_ALWAYS);
}

static int summary_show(struct seq_file *m, void *v)
{
	struct ktrepl_engine_counters ec = { 0 };
	u64 patches, bytes, missed, total = 0;
	struct ktrepl_module_info *mods;
	int nid, r, nr_mods;
	u64 mod_bytes = 0;
	bool propagate;

	mods = load_modules(&nr_mods);
	if (!mods)
		return -ENOMEM;
	for (r = 0; r < nr_mods; r++)
		mod_bytes += mods[r].end - mods[r].start;
	if (prov->flush)
		prov->flush();
	prov->patch_counters(&patches, &bytes, &missed, &propagate);
	if (prov->engine_counters)
		prov->engine_counters(&ec);
	for_each_online_node(nid)
		total += prov->overhead_bytes(nid);
	{
		union ktrepl_field_value vals[KTREPL_S_NR] = {
			[KTREPL_S_ABI].i = KTREPL_ABI_VERSION,
			[KTREPL_S_PROVIDER].s = prov->name,
			[KTREPL_S_ARCH].s = prov->arch,
			[KTREPL_S_PAGING_LEVELS].u = prov->paging_levels,
			[KTREPL_S_VA_BITS].u = prov->va_bits,
			[KTREPL_S_PAGE_SIZE].u = 1UL << prov->page_shift,
			[KTREPL_S_MASTER_NODE].i = prov->master_node,
			[KTREPL_S_NODES].u = num_online_nodes(),
			[KTREPL_S_ACTIVATION].s =
				ktrepl_activation_name(prov->activation),
			[KTREPL_S_PROPAGATE].i = propagate,
			[KTREPL_S_PATCHES].u = patches,
			[KTREPL_S_PATCH_BYTES].u = bytes,
			[KTREPL_S_PATCHES_MISSED].u = missed,
			[KTREPL_S_OVERHEAD_BYTES].u = total,
			[KTREPL_S_MASTER_ROOT_PA].u = (u64)prov->master_root,
			[KTREPL_S_DIRECT_MAP].u = ktrepl_direct_map(prov),
			[KTREPL_S_ALLOCATIONS].u = prov->allocations,
			[KTREPL_S_LOAD_NS].u = prov->load_ns,
			[KTREPL_S_REPLICATE_NS].u = prov->replicate_ns,
			[KTREPL_S_HOOK_NS].u = prov->hook_ns,
			[KTREPL_S_MEMCPY_NS].u = prov->memcpy_ns,
			[KTREPL_S_MEMSET_NS].u = prov->memset_ns,
			[KTREPL_S_ACTIVATION_REASON].s = prov->activation_reason,
			[KTREPL_S_AUDITS].u = ec.audits,
			[KTREPL_S_AUDIT_REPAIRS].u = ec.audit_repairs,
			[KTREPL_S_SWITCHES].u = ec.switches,
			[KTREPL_S_REINSTALLS].u = ec.reinstalls,
			[KTREPL_S_SWITCH_NS].u = ec.switch_ns,
			[KTREPL_S_DONATED_PAGES].u = ec.donated_pages,
			[KTREPL_S_VETOES].u = ec.vetoes,
			[KTREPL_S_BINDS].u = ec.binds,
			[KTREPL_S_UNBINDS].u = ec.unbinds,
			[KTREPL_S_MODULES].i = nr_mods,
			[KTREPL_S_MODULE_BYTES].u = mod_bytes,
			[KTREPL_S_TABLE_MIRRORS].u = ec.table_mirrors,
			[KTREPL_S_MIRROR_MISSED].u = ec.mirror_missed,
			[KTREPL_S_PATCH_WINDOW].u = ec.patch_window,
			[KTREPL_S_FAILSAFE].u = ec.failsafe,
			[KTREPL_S_FAILSAFE_ACTIVE].i = ec.failsafe_active,
			[KTREPL_S_FAILSAFE_REASON].s = ec.failsafe_reason,
		};

		ktrepl_print_fields(m, ktrepl_summary_fields(), vals, KTREPL_S_NR);
	}
	for_each_online_node(nid)
		print_node(m, nid);
	for (r = 0; r < prov->nr_regions; r++)
		print_region(m, &prov->regions[r]);
	for (r = 0; r < nr_mods; r++)
		print_module(m, &mods[r]);
	kvfree(mods);
	return 0;
}
KTREPL_ADDR_ATTRIBUTE(summary);

struct extent_ctx {
	struct seq_file *m;
	int nid;
	int region;
	const char *module;
};

/* a core region's extent, or (ctx->module set) a module's */
static int show_extent(const struct ktrepl_extent *ext, void *arg)
{
	struct extent_ctx *ctx = arg;
	union ktrepl_field_value vals[KTREPL_E_NR] = {
		[KTREPL_E_NODE].i = ctx->nid,
		[KTREPL_E_REGION].s = ctx->module ? "module" :
				      prov->regions[ctx->region].name,
		[KTREPL_E_VA].u = ext->va,
		[KTREPL_E_PA].u = (u64)ext->pa,
		[KTREPL_E_SIZE].u = ext->size,
		[KTREPL_E_PAGE_SIZE].u = 1UL << ext->page_shift,
		[KTREPL_E_PA_NODE].i = ktrepl_pa_node(ext->pa),
		[KTREPL_E_MODULE].s = ctx->module,
	};

	ktrepl_print_fields(ctx->m, ktrepl_extent_fields(), vals,
			    ctx->module ? KTREPL_E_NR : KTREPL_E_NR_CORE);
	return 0;
}

static int replicas_show(struct seq_file *m, void *v)
{
	struct extent_ctx ctx = { .m = m };
	struct ktrepl_module_info *mods;
	int nr_mods, i;

	mods = load_modules(&nr_mods);
	if (!mods)
		return -ENOMEM;
	for_each_online_node(ctx.nid) {
		ctx.module = NULL;
		for (ctx.region = 0; ctx.region < prov->nr_regions; ctx.region++)
			prov->for_each_extent(ctx.nid, ctx.region, show_extent,
					      &ctx);
		for (i = 0; i < nr_mods; i++) {
			ctx.module = mods[i].name;
			prov->for_each_module_extent(ctx.nid, mods[i].name,
						     show_extent, &ctx);
		}
	}
	kvfree(mods);
	return 0;
}
KTREPL_ADDR_ATTRIBUTE(replicas);

struct cpu_root {
	phys_addr_t root;
	pid_t pid;	/* the task the IPI interrupted */
};

static void read_root_on_cpu(void *arg)
{
	struct cpu_root *cr = arg;

	cr->root = prov->read_root();
	cr->pid = task_pid_nr(current);
}

static void print_pgd(struct seq_file *m, int nid)
{
	phys_addr_t root = prov->node_root(nid);
	unsigned int own, differ;

	prov->root_diff(nid, &own, &differ);
	{
		union ktrepl_field_value vals[KTREPL_PGD_NR] = {
			[KTREPL_PGD_NODE].i = nid,
			[KTREPL_PGD_MEMORY_NODE].i = prov->memory_node(nid),
			[KTREPL_PGD_ROOT_PA].u = (u64)root,
			[KTREPL_PGD_ROOT_VA].u = (unsigned long)__va(root),
			[KTREPL_PGD_ROOT_NODE].i = ktrepl_pa_node(root),
			[KTREPL_PGD_OWN_ENTRIES].u = own,
			[KTREPL_PGD_DIFFERING_ENTRIES].u = differ,
		};

		ktrepl_print_fields(m, ktrepl_pgd_fields(), vals,
				    KTREPL_PGD_NR);
	}
}

/* which root cpu has loaded, and whose tables it is */
static void print_cpu_root(struct seq_file *m, int cpu)
{
	struct cpu_root cr = { 0 };
	const char *set = "other";
	phys_addr_t loaded;
	int nid, owner = -1;

	smp_call_function_single(cpu, read_root_on_cpu, &cr, 1);
	loaded = cr.root;
	for_each_online_node(nid) {
		if (prov->node_root(nid) == loaded &&
		    prov->memory_node(nid) == nid) {
			owner = nid;
			break;
		}
	}
	if (loaded == prov->master_root)
		set = "master";
	else if (owner >= 0)
		set = "node";
	{
		union ktrepl_field_value vals[KTREPL_CPU_NR] = {
			[KTREPL_CPU_CPU].i = cpu,
			[KTREPL_CPU_NODE].i = cpu_to_node(cpu),
			[KTREPL_CPU_LOADED_ROOT_PA].u = (u64)loaded,
			[KTREPL_CPU_LOADED_SET].s = set,
			[KTREPL_CPU_LOADED_NODE_SET].i = owner,
			[KTREPL_CPU_CURRENT_PID].i = cr.pid,
			[KTREPL_CPU_EXPECTED_ROOT_PA].u =
				(u64)prov->node_root(cpu_to_node(cpu)),
		};

		ktrepl_print_fields(m, ktrepl_cpu_fields(), vals,
				    KTREPL_CPU_NR);
	}
}

static int pgds_show(struct seq_file *m, void *v)
{
	int nid, cpu;

	for_each_online_node(nid)
		print_pgd(m, nid);
	cpus_read_lock();
	for_each_online_cpu(cpu)
		print_cpu_root(m, cpu);
	cpus_read_unlock();
	return 0;
}
KTREPL_ADDR_ATTRIBUTE(pgds);

static int show_mapping(const struct ktrepl_mapping *map, void *arg)
{
	static const char *const level_names[] = { "pgd", "p4d", "pud", "pmd", "pte" };
	int skip = 5 - prov->paging_levels;
	struct seq_file *m = arg;
	char flags[16];

	snprintf(flags, sizeof(flags), "%s,%s,%s,%s",
		 map->present ? "P" : "NP", map->writable ? "RW" : "RO",
		 map->executable ? "X" : "NX", map->global ? "GLB" : "NG");
	{
		union ktrepl_field_value vals[KTREPL_MAP_NR] = {
			[KTREPL_MAP_VA].u = map->va,
			[KTREPL_MAP_SIZE].u = map->size,
			[KTREPL_MAP_LEVEL].s = level_names[map->level + skip],
			[KTREPL_MAP_ENTRY].u = map->entry,
			[KTREPL_MAP_PA].u = (u64)map->pa,
			[KTREPL_MAP_PA_NODE].i = ktrepl_pa_node(map->pa),
			[KTREPL_MAP_FLAGS].s = flags,
			[KTREPL_MAP_SHARED].i = map->shared,
		};

		ktrepl_print_fields(m, ktrepl_mapping_fields(), vals,
				    KTREPL_MAP_NR);
	}
	return 0;
}

static int pgtable_show(struct seq_file *m, void *v)
{
	return prov->for_each_mapping((long)m->private, show_mapping, m);
}

static int pgtable_open(struct inode *inode, struct file *file)
{
	int ret = ktrepl_addresses_allowed(file);

	return ret ?: single_open(file, pgtable_show, inode->i_private);
}

static const struct file_operations pgtable_fops = {
	.owner = THIS_MODULE,
	.open = pgtable_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static void print_patch(struct seq_file *m,
			const struct ktrepl_patch_record *rec)
{
	char sym[KSYM_SYMBOL_LEN];
	union ktrepl_field_value vals[KTREPL_P_NR] = {
		[KTREPL_P_SEQ].u = rec->seq,
		[KTREPL_P_VA].u = rec->va,
		[KTREPL_P_LEN].u = rec->len,
		[KTREPL_P_NODES].u = rec->nodes,
		[KTREPL_P_PROPAGATED].i = rec->propagated,
		[KTREPL_P_SYM].s = sym,
	};

	snprintf(sym, sizeof(sym), "%ps", (void *)rec->va);
	ktrepl_print_fields(m, ktrepl_patch_fields(), vals, KTREPL_P_NR);
}

static int patches_show(struct seq_file *m, void *v)
{
	struct ktrepl_patch_record *recs;
	u64 patches, bytes, missed;
	bool propagate;
	int i, n;

	if (prov->flush)
		prov->flush();
	prov->patch_counters(&patches, &bytes, &missed, &propagate);
	{
		union ktrepl_field_value vals[KTREPL_PC_NR] = {
			[KTREPL_PC_PATCHES].u = patches,
			[KTREPL_PC_BYTES].u = bytes,
			[KTREPL_PC_MISSED].u = missed,
			[KTREPL_PC_PROPAGATE].i = propagate,
		};

		ktrepl_print_fields(m, ktrepl_patch_count_fields(), vals,
				    KTREPL_PC_NR);
	}
	recs = kcalloc(KTREPL_MAX_PATCH_RECORDS, sizeof(*recs), GFP_KERNEL);
	if (!recs)
		return -ENOMEM;
	n = prov->patch_log(recs, KTREPL_MAX_PATCH_RECORDS);
	for (i = 0; i < n; i++)
		print_patch(m, &recs[i]);
	kfree(recs);
	return 0;
}
KTREPL_ADDR_ATTRIBUTE(patches);

/* one number, cheap to read between two reads of a range (abi.md) */
static int patch_window_show(struct seq_file *m, void *v)
{
	struct ktrepl_engine_counters ec = { 0 };

	if (prov->engine_counters)
		prov->engine_counters(&ec);
	seq_printf(m, "%llu\n", ec.patch_window);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(patch_window);

int ktrepl_publish(struct ktrepl_provider *provider)
{
	struct dentry *pgtables;
	char name[16];
	int nid, ret;

	prov = provider;
	show_value = (void *)ktr_ksym_quiet("kallsyms_show_value");
	if (prov->activation != KTREPL_ACT_NONE) {
		ret = ktrepl_desc_publish(prov);
		if (ret) {
			pr_err("cannot build the vmcore descriptor: %d\n",
			       ret);
			return ret;
		}
		WRITE_ONCE(provider->changed, ktrepl_desc_refresh);
	}
	ktrepl_dir = debugfs_create_dir("ktrepl", NULL);
	debugfs_create_file("abi", 0400, ktrepl_dir, NULL, &abi_fops);
	debugfs_create_file("summary", 0400, ktrepl_dir, NULL, &summary_fops);
	if (prov->activation == KTREPL_ACT_NONE)
		return 0;
	debugfs_create_file("replicas", 0400, ktrepl_dir, NULL, &replicas_fops);
	debugfs_create_file("pgds", 0400, ktrepl_dir, NULL, &pgds_fops);
	debugfs_create_file("patches", 0400, ktrepl_dir, NULL, &patches_fops);
	if (prov->engine_counters)
		debugfs_create_file("patch_window", 0400, ktrepl_dir, NULL,
				    &patch_window_fops);
	pgtables = debugfs_create_dir("pgtables", ktrepl_dir);
	for_each_online_node(nid) {
		snprintf(name, sizeof(name), "node%d", nid);
		debugfs_create_file(name, 0400, pgtables, (void *)(long)nid,
				    &pgtable_fops);
	}
	ktrepl_publish_controls(ktrepl_dir, prov);
	return 0;
}

void ktrepl_unpublish(void)
{
	debugfs_remove_recursive(ktrepl_dir);
	ktrepl_dir = NULL;
	/* the provider stopped calling ->changed before we were called */
	if (prov)
		WRITE_ONCE(prov->changed, NULL);
	ktrepl_desc_unpublish();
}
