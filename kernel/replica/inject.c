// SPDX-License-Identifier: GPL-2.0
/*
 * Fault injection, in the test build only (KTREPL_TEST, fault_inject=1):
 * damage one node's replica or tables the way a bug would, so that the
 * tools can be shown to find it. Each command needs CAP_SYS_ADMIN and
 * taints the kernel (testing.c). Commands (docs/abi.md):
 *
 *   flip|trap|writable node=N (sym=S [off=[-]O] | va=V)
 *   retval node=N (sym=S | va=V) value=V
 *   remap node=N (sym=S | va=V) to=M
 *   pgd node=N
 *   stale node=N [level=L]
 *   pm_revert node=N
 *   mm pid=P node=N
 *   miss kind=patch|probe|mirror|veto|table_lost
 *   miss kind=audit (sym=S [off=O] | va=V)
 *   cpa kind=4k|uc|wb|uc_deferred (sym=S [off=O] | va=V)
 *
 * Context: process (a debugfs write), on a kernel the test keeps quiet.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/io.h>
#include <linux/kallsyms.h>
#include <linux/parser.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "activation.h"
#include "core.h"
#include "activation_mm.h"
#include "build.h"
#include "mirror.h"
#include "modules.h"
#include "slot.h"
#include "tables.h"
#include "testing.h"

enum inject_verb {
	V_FLIP, V_RETVAL, V_TRAP, V_REMAP, V_WRITABLE, V_PGD, V_STALE,
	V_PM_REVERT, V_MM, V_MISS, V_CPA,
};

static const char *const verbs[] = {
	[V_FLIP] = "flip",	   [V_RETVAL] = "retval", [V_TRAP] = "trap",
	[V_REMAP] = "remap",	   [V_WRITABLE] = "writable",
	[V_PGD] = "pgd",	   [V_STALE] = "stale",
	[V_PM_REVERT] = "pm_revert", [V_MM] = "mm", [V_MISS] = "miss",
	[V_CPA] = "cpa",
};

enum {
	OPT_NODE, OPT_SYM, OPT_OFF, OPT_VA, OPT_TO, OPT_VALUE, OPT_LEVEL,
	OPT_PID, OPT_KIND, OPT_ERR,
};

static const match_table_t inject_opts = {
	{ OPT_NODE, "node=%s" },   { OPT_SYM, "sym=%s" },
	{ OPT_OFF, "off=%s" },	   { OPT_VA, "va=%s" },
	{ OPT_TO, "to=%s" },	   { OPT_VALUE, "value=%s" },
	{ OPT_LEVEL, "level=%s" }, { OPT_PID, "pid=%s" },
	{ OPT_KIND, "kind=%s" },
	{ OPT_ERR, NULL },
};

struct inject_cmd {
	int verb;
	unsigned long node, to, value, va, level, pid;
	long off;
	char sym[KSYM_NAME_LEN];
	char kind[16];
	bool has_node, has_to, has_value, has_va, has_level, has_pid;
};

static int parse_ulong(substring_t *arg, unsigned long *val, bool *seen)
{
	char *s = match_strdup(arg);
	int ret;

	if (!s)
		return -ENOMEM;
	ret = kstrtoul(s, 0, val);
	kfree(s);
	if (!ret && seen)
		*seen = true;
	return ret;
}

static int parse_option(struct inject_cmd *cmd, char *p)
{
	substring_t args[MAX_OPT_ARGS];
	char *s;
	int ret;

	switch (match_token(p, inject_opts, args)) {
	case OPT_NODE:
		return parse_ulong(&args[0], &cmd->node, &cmd->has_node);
	case OPT_TO:
		return parse_ulong(&args[0], &cmd->to, &cmd->has_to);
	case OPT_VALUE:
		return parse_ulong(&args[0], &cmd->value, &cmd->has_value);
	case OPT_VA:
		return parse_ulong(&args[0], &cmd->va, &cmd->has_va);
	case OPT_LEVEL:
		return parse_ulong(&args[0], &cmd->level, &cmd->has_level);
	case OPT_PID:
		return parse_ulong(&args[0], &cmd->pid, &cmd->has_pid);
	case OPT_SYM:
		return match_strlcpy(cmd->sym, &args[0], sizeof(cmd->sym)) <
			       sizeof(cmd->sym) ? 0 : -EINVAL;
	case OPT_KIND:
		return match_strlcpy(cmd->kind, &args[0], sizeof(cmd->kind)) <
			       sizeof(cmd->kind) ? 0 : -EINVAL;
	case OPT_OFF:
		/* may be negative: "sym=_etext off=-1" is text's last byte */
		s = match_strdup(&args[0]);
		if (!s)
			return -ENOMEM;
		ret = kstrtol(s, 0, &cmd->off);
		kfree(s);
		return ret;
	default:
		return -EINVAL;
	}
}

/* verbs about a node's tables or CPUs, not one address */
static bool node_wide(int verb)
{
	return verb == V_PGD || verb == V_STALE || verb == V_PM_REVERT ||
	       verb == V_MM;
}

static int parse_command(char *buf, struct inject_cmd *cmd)
{
	char *p, *verb = strsep(&buf, " ");
	int ret;

	memset(cmd, 0, sizeof(*cmd));
	cmd->verb = match_string(verbs, ARRAY_SIZE(verbs), verb);
	if (cmd->verb < 0)
		return -EINVAL;
	while ((p = strsep(&buf, " "))) {
		if (!*p)
			continue;
		ret = parse_option(cmd, p);
		if (ret)
			return ret;
	}
	/* a miss is the engine's, not one node's; so is a kernel's call */
	if (cmd->verb == V_MISS || cmd->verb == V_CPA) {
		if (!cmd->kind[0])
			return -EINVAL;
		if (cmd->verb == V_MISS && strcmp(cmd->kind, "audit"))
			return 0;
	} else {
		if (!cmd->has_node || cmd->node >= nr_node_ids ||
		    !node_online(cmd->node) ||
		    !ktr_set_node(cmd->node) ||
		    !ktr_set_node(cmd->node)->own_replica)
			return -EINVAL;
		cmd->node = ktr_memory_nid(cmd->node);
	}
	if (cmd->sym[0]) {
		cmd->va = ktr_ksym(cmd->sym);
		if (!cmd->va)
			return -ENOENT;
		cmd->va += cmd->off;
	} else if (!cmd->has_va && !node_wide(cmd->verb)) {
		return -EINVAL;
	}
	if (!node_wide(cmd->verb) && cmd->verb != V_CPA) {
		bool replicated;

		/* a module chunk is looked up under RCU (ktr_find_chunk()) */
		rcu_read_lock();
		replicated = ktr_find_chunk(cmd->va);
		rcu_read_unlock();
		if (!replicated)
			return -ERANGE;
	}
	return 0;
}

static u64 *node_leaf_entry(int nid, unsigned long va)
{
	int level;

	return ktr_walk(ktr.nodes[nid].root, va, -1, &level);
}

/* the first present kernel-half entry the node did not replace */
static int mark_shared_root_entry(int nid)
{
	u64 *root = ktr.nodes[nid].root;
	unsigned int i;

	for (i = ktr.geom.kernel_first; i < (1U << ktr.geom.bits[0]); i++) {
		if (ktr_pte_present(root[i]) && root[i] == ktr.master_root[i]) {
			WRITE_ONCE(root[i], ktr_pte_mark_shared(root[i]));
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * Make one entry of a node-owned table page that is not on the path to
 * the replicas differ from the master's, as a missed table update would:
 * an ignored bit, so the walk is unchanged and CPUs on it are safe.
 * Without level=, the deepest owned page with such an entry.
 */
static int mark_stale_entry(int nid, int want_level)
{
	struct ktr_node *n = &ktr.nodes[nid];
	struct ktr_table *t, *best = NULL;
	unsigned int i, best_i = 0;

	/* a module load may be growing the list: see ktr_owned_table() */
	rcu_read_lock();
	list_for_each_entry_rcu(t, ktr_node_tables(n), list) {
		u64 *own = page_address(t->page), *master = ktr_master_table_of(t);

		if (!master || (want_level >= 0 && t->level != want_level) ||
		    (best && best->level >= t->level))
			continue;
		for (i = 0; i < PTRS_PER_PTE; i++) {
			if (own[i] == master[i] && ktr_pte_present(own[i]) &&
			    !ktr_pte_leaf(own[i], t->level, ktr.geom.levels)) {
				best = t;
				best_i = i;
				break;
			}
		}
	}
	rcu_read_unlock();
	if (!best)
		return want_level == 0 || want_level < 0 ?
			       mark_shared_root_entry(nid) : -ENOENT;
	t = best;
	WRITE_ONCE(((u64 *)page_address(t->page))[best_i],
		   ktr_pte_mark_shared(
			   ((u64 *)page_address(t->page))[best_i]));
	pr_info("inject: node %d level %d entry %u (va 0x%lx) now differs from the master's\n",
		nid, t->level, best_i,
		t->va + best_i * ktr_level_size(t->level));
	return 0;
}

static int pm_revert(int nid)
{
	int cpu;

	if (!ktr_arch.pm_revert)
		return -EOPNOTSUPP;
	for_each_cpu_and(cpu, cpumask_of_node(nid), cpu_online_mask)
		return ktr_arch.pm_revert(cpu);
	return -ENODEV;
}

static int write_insn(const struct inject_cmd *cmd)
{
	u8 insn[16];
	int len;

	if (cmd->verb == V_RETVAL) {
		if (!cmd->has_value)
			return -EINVAL;
		len = ktr_arch_retval_insn(insn, sizeof(insn), cmd->value);
	} else {
		len = ktr_arch_trap_insn(insn, sizeof(insn));
	}
	if (len < 0)
		return len;
	ktr_replica_write(cmd->node, cmd->va, insn, -1, len);
	return 0;
}

/*
 * What a driver's set_memory call on a page of freed init memory does
 * (x86): a protection change on the direct-map alias of the image page
 * at va, which CPA makes to the image's own mapping of it too, in
 * tables every node owns. Not damage: the table mirror must follow it.
 * uc_deferred makes the call as modules.c protects a module's copies:
 * under mods_lock with the mirror deferred, mirrored once at the end.
 */
static int cpa_image_page(const struct inject_cmd *cmd)
{
	enum { CPA_4K, CPA_UC, CPA_WB, CPA_UC_DEFERRED };
	static const char *const kinds[] = {
		[CPA_4K] = "4k", [CPA_UC] = "uc", [CPA_WB] = "wb",
		[CPA_UC_DEFERRED] = "uc_deferred",
	};
	static const char *const fns[] = {
		[CPA_4K] = "set_memory_4k", [CPA_UC] = "set_memory_uc",
		[CPA_WB] = "set_memory_wb", [CPA_UC_DEFERRED] = "set_memory_uc",
	};
	int kind = match_string(kinds, ARRAY_SIZE(kinds), cmd->kind);
	int (*set_memory)(unsigned long addr, int numpages);
	unsigned long addr;
	bool replicated;
	int ret;

	if (!IS_ENABLED(CONFIG_X86_64))
		return -EOPNOTSUPP;
	/*
	 * Writable data only: a split of a replica's 2 MiB leaf would cost
	 * the node that replica, and freed init memory is another owner's
	 * (wb would drop its memtype)
	 */
	if (kind < 0 || cmd->va < ktr_ksym("_sdata") ||
	    cmd->va >= ktr_ksym("_edata"))
		return -EINVAL;
	rcu_read_lock();
	replicated = ktr_find_chunk(cmd->va);
	rcu_read_unlock();
	if (replicated)
		return -EINVAL;
	set_memory = (void *)ktr_ksym(fns[kind]);
	if (!set_memory)
		return -ENOENT;
	addr = (unsigned long)__va(__pa(cmd->va & PAGE_MASK));
	if (kind != CPA_UC_DEFERRED)
		return set_memory(addr, 1);
	ktr_modules_lock();
	ktr_mirror_defer(true);
	ret = set_memory(addr, 1);
	ktr_mirror_defer(false);
	ktr_modules_unlock();
	return ret;
}

int ktr_inject(const char *text)
{
	struct ktr_chunk *c;
	struct inject_cmd cmd;
	char *buf = kstrdup(text, GFP_KERNEL);
	u64 *e;
	u8 b;
	int ret;

	if (!buf)
		return -ENOMEM;
	ret = ktr_test_inject_allowed();
	if (!ret)
		ret = parse_command(buf, &cmd);
	kfree(buf);
	if (ret)
		return ret;
	switch (cmd.verb) {
	case V_FLIP:
		/* a module chunk stays valid under RCU; the write is atomic */
		rcu_read_lock();
		c = ktr_find_chunk(cmd.va);
		if (c) {
			b = *(u8 *)(page_address(c->copy[cmd.node]) +
				    (cmd.va - c->va));
			b ^= 0xff;
			ktr_replica_write(cmd.node, cmd.va, &b, -1, 1);
		}
		rcu_read_unlock();
		return c ? 0 : -ERANGE;
	case V_RETVAL:
	case V_TRAP:
		return write_insn(&cmd);
	case V_REMAP:
		if (!cmd.has_to || cmd.to >= nr_node_ids || !node_online(cmd.to))
			return -EINVAL;
		e = node_leaf_entry(cmd.node, cmd.va);
		rcu_read_lock();
		c = ktr_find_chunk(cmd.va);
		if (c)
			WRITE_ONCE(*e, (*e & ~ktr.geom.addr_mask) |
				       ktr_chunk_pa(c, cmd.to));
		rcu_read_unlock();
		return c ? 0 : -ERANGE;
	case V_WRITABLE:
		e = node_leaf_entry(cmd.node, cmd.va);
		WRITE_ONCE(*e, ktr_pte_make_writable(*e));
		return 0;
	case V_PGD:
		return mark_shared_root_entry(cmd.node);
	case V_STALE:
		return mark_stale_entry(cmd.node,
					cmd.has_level ? cmd.level : -1);
	case V_PM_REVERT:
		return pm_revert(cmd.node);
	case V_CPA:
		return cpa_image_page(&cmd);
	case V_MM:
		if (!cmd.has_pid || ktr_activation() != KTREPL_ACT_MM)
			return -EINVAL;
		return ktr_arch.mm->inject(cmd.pid, cmd.node);
	case V_MISS:
		if (!strcmp(cmd.kind, "mirror"))
			return ktr_mirror_force_miss();
		if (!strcmp(cmd.kind, "veto"))
			return ktr_fresh_force_miss(false);
		if (!strcmp(cmd.kind, "table_lost"))
			return ktr_fresh_force_miss(true);
		return ktr_patch_force_miss(cmd.kind, cmd.va);
	}
	return -EINVAL;
}
