// SPDX-License-Identifier: GPL-2.0
/*
 * ktrepl publisher: the debugfs view of kernel text replication.
 */
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/nodemask.h>
#include <linux/seq_file.h>

#include "ktrepl_abi.h"

static struct dentry *ktrepl_dir;

static int abi_show(struct seq_file *m, void *v)
{
	seq_printf(m, "%d\n", KTREPL_ABI_VERSION);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(abi);

static int summary_show(struct seq_file *m, void *v)
{
	int nid;

	seq_printf(m, "abi=%d arch=%s nodes=%d\n", KTREPL_ABI_VERSION,
		   IS_ENABLED(CONFIG_X86_64) ? "x86_64" : "arm64",
		   num_online_nodes());
	for_each_online_node(nid)
		seq_printf(m, "node=%d memory=%d\n", nid,
			   node_state(nid, N_MEMORY) ? 1 : 0);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(summary);

static int __init ktrepl_init(void)
{
	ktrepl_dir = debugfs_create_dir("ktrepl", NULL);
	debugfs_create_file("abi", 0400, ktrepl_dir, NULL, &abi_fops);
	debugfs_create_file("summary", 0400, ktrepl_dir, NULL, &summary_fops);
	return 0;
}

static void __exit ktrepl_exit(void)
{
	debugfs_remove_recursive(ktrepl_dir);
}

module_init(ktrepl_init);
module_exit(ktrepl_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("NUMA kernel text replication and its debugfs view");
