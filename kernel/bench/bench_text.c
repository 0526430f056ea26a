// SPDX-License-Identifier: GPL-2.0
/*
 * ktrepl_bench_text.ko: the text benchmark of ktrepl-bench (issue 29),
 * after the arm64 seed's measurement: a large body of straight-line,
 * CPU-bound code (bench_text_body.S, its size set by the build), run on
 * each node in turn, timed per node. Loaded from node 0's CPUs, its text
 * lies in node 0's memory; ktrepl.ko's module replication gives every
 * other node a copy, and the difference per node is what replication
 * buys.
 *
 * Who runs it: the process that writes to the run file, in that system
 * call, and only if its CPU affinity lies within one node's CPUs. A
 * kernel thread bound to a node would do on arm64, where every CPU runs
 * on its node's tables, but not on x86_64, where ktrepl.ko moves
 * processes confined to a node onto that node's tables (activation=mm)
 * and a kernel thread runs on whatever tables its CPU last loaded. A
 * confined process is served by both, so ktrepl-bench forks one per node.
 *
 * debugfs, /sys/kernel/debug/ktrepl_bench_text/:
 *   info (0400)  bytes=... delay_node=... delay_us=... delay_phase=...
 *   run (0600)   write "iterations=N phase=P" (P: warmup, before, after),
 *                then read back from the same open file
 *                "node=... iterations=... ns=... phase=... delayed=0|1"
 *   static_key (0600)  each write enables, then disables, a static key
 *                whose one branch lies in this module's text; a read of
 *                the same open file then says "ns=... enabled_seen=0|1":
 *                the cost of a jump label flip (a read patches nothing)
 *                (ktrepl-bench costs; with ktrepl.ko loaded every replica
 *                of the site is written too)
 *
 * delay_node, delay_us and delay_phase, in the test build only, test the
 * harness: they add a fixed sleep inside one node's timed runs of one
 * phase, a slowdown ktrepl-bench must report as significant on that node
 * alone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fs.h>
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>
#include <linux/topology.h>
#include <linux/uaccess.h>

/* bench_text_body.S */
unsigned long ktrepl_bench_text_body(void);

/* far more than any run needs; bounds a mistyped request */
#define BENCH_MAX_ITERATIONS 1000000U

/* the harness's own test (make kernel-test only): none in the shipped module */
#ifdef KTREPL_TEST
static int delay_node = -1;
module_param(delay_node, int, 0444);
MODULE_PARM_DESC(delay_node, "test build: the node whose runs get delay_us added (default -1: none)");

static unsigned int delay_us;
module_param(delay_us, uint, 0444);
MODULE_PARM_DESC(delay_us, "test build: microseconds slept inside each timed run of delay_node");

static char *delay_phase = "any";
module_param(delay_phase, charp, 0444);
MODULE_PARM_DESC(delay_phase, "test build: the runs delayed: before, after or any (default; never warmup)");
#else
static const int delay_node = -1;
static const unsigned int delay_us;
static const char *const delay_phase = "any";
#endif

static struct dentry *bench_dir;

static DEFINE_STATIC_KEY_FALSE(bench_flip_key);
/*
 * One static_key read at a time: each times an enable and a disable of
 * bench_flip_key, which another reader's flip in between would make a
 * no-op (or a double). Taken by static_key's reader only.
 */
static DEFINE_MUTEX(bench_flip_lock);

/* the key's one branch site, in this module's (replicated) text */
static noinline bool bench_flip_site(void)
{
	return static_branch_unlikely(&bench_flip_key);
}

/* one open file of run: a request, then its result */
struct bench_run {
	/*
	 * Every field below: a write (the run) and a read (its result) of
	 * the same open file, from two threads sharing it, take it.
	 */
	struct mutex lock;
	bool done;
	int node;
	unsigned int iterations;
	u64 ns;
	bool delayed;
	char phase[8];
};

static bool phase_valid(const char *phase)
{
	return !strcmp(phase, "warmup") || !strcmp(phase, "before") ||
	       !strcmp(phase, "after");
}

/* the node whose CPUs hold every CPU the caller may run on, or -1 */
static int caller_node(void)
{
	int nid;

	for_each_node_state(nid, N_CPU)
		if (cpumask_subset(current->cpus_ptr, cpumask_of_node(nid)))
			return nid;
	return -1;
}

static bool run_delayed(int nid, const char *phase)
{
	if (nid != delay_node || !delay_us || !strcmp(phase, "warmup"))
		return false;
	return !strcmp(delay_phase, "any") || !strcmp(delay_phase, phase);
}

static int bench_run_open(struct inode *inode, struct file *file)
{
	struct bench_run *run = kzalloc(sizeof(*run), GFP_KERNEL);

	if (!run)
		return -ENOMEM;
	mutex_init(&run->lock);
	file->private_data = run;
	return nonseekable_open(inode, file);
}

static int bench_run_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static ssize_t bench_run_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	struct bench_run *run = file->private_data;
	unsigned int iterations, i;
	unsigned long sink = 0;
	char buf[64], phase[8];
	bool delayed;
	ssize_t ret;
	u64 start;
	int nid;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "iterations=%u phase=%7s", &iterations, phase) != 2 ||
	    !iterations || iterations > BENCH_MAX_ITERATIONS ||
	    !phase_valid(phase))
		return -EINVAL;
	nid = caller_node();
	if (nid < 0)
		return -EPERM;	/* not confined to one node: nothing to time */
	delayed = run_delayed(nid, phase);

	mutex_lock(&run->lock);
	start = ktime_get_ns();
	for (i = 0; i < iterations; i++) {
		sink += ktrepl_bench_text_body();
		if (fatal_signal_pending(current))
			break;
		cond_resched();
	}
	if (delayed)
		fsleep(delay_us);
	run->ns = ktime_get_ns() - start;
	/* a pass adds 1 bytes/4 times; using the sum keeps every call */
	if (sink != (unsigned long)i * (KTREPL_BENCH_TEXT_BYTES / 4))
		pr_warn_once("the body added up to %lu, not %lu\n", sink,
			     (unsigned long)i * (KTREPL_BENCH_TEXT_BYTES / 4));
	run->done = i == iterations;
	run->node = nid;
	run->iterations = i;
	run->delayed = delayed;
	strscpy(run->phase, phase, sizeof(run->phase));
	ret = run->done ? len : -EINTR;
	mutex_unlock(&run->lock);
	return ret;
}

static ssize_t bench_run_read(struct file *file, char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	struct bench_run *run = file->private_data;
	char buf[160];
	int n;

	mutex_lock(&run->lock);
	if (!run->done) {
		mutex_unlock(&run->lock);
		return -ENODATA;
	}
	n = scnprintf(buf, sizeof(buf),
		      "node=%d iterations=%u ns=%llu phase=%s delayed=%d\n",
		      run->node, run->iterations, run->ns, run->phase,
		      run->delayed);
	mutex_unlock(&run->lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations bench_run_fops = {
	.owner = THIS_MODULE,
	.open = bench_run_open,
	.release = bench_run_release,
	.write = bench_run_write,
	.read = bench_run_read,
};

static ssize_t bench_info_read(struct file *file, char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	char buf[160];
	int n;

	n = scnprintf(buf, sizeof(buf),
		      "bytes=%lu delay_node=%d delay_us=%u delay_phase=%s\n",
		      (unsigned long)KTREPL_BENCH_TEXT_BYTES, delay_node,
		      delay_us, delay_phase);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

/* one open file's last flip; NULL until it wrote one */
struct bench_flip {
	u64 ns;
	bool seen;
	bool done;
};

static int bench_static_key_open(struct inode *inode, struct file *file)
{
	file->private_data = kzalloc(sizeof(struct bench_flip), GFP_KERNEL);
	return file->private_data ? nonseekable_open(inode, file) : -ENOMEM;
}

static int bench_static_key_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

/* a write flips the key: patching kernel text is never a read's side effect */
static ssize_t bench_static_key_write(struct file *file,
				      const char __user *ubuf, size_t len,
				      loff_t *ppos)
{
	struct bench_flip *flip = file->private_data;
	u64 start;

	mutex_lock(&bench_flip_lock);
	start = ktime_get_ns();
	static_branch_enable(&bench_flip_key);
	flip->seen = bench_flip_site();
	static_branch_disable(&bench_flip_key);
	flip->ns = ktime_get_ns() - start;
	flip->done = true;
	mutex_unlock(&bench_flip_lock);
	return len;
}

static ssize_t bench_static_key_read(struct file *file, char __user *ubuf,
				     size_t len, loff_t *ppos)
{
	struct bench_flip *flip = file->private_data;
	char buf[64];
	int n;

	mutex_lock(&bench_flip_lock);
	if (!flip->done) {
		mutex_unlock(&bench_flip_lock);
		return -ENODATA;
	}
	n = scnprintf(buf, sizeof(buf), "ns=%llu enabled_seen=%d\n", flip->ns,
		      flip->seen);
	mutex_unlock(&bench_flip_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations bench_static_key_fops = {
	.owner = THIS_MODULE,
	.open = bench_static_key_open,
	.release = bench_static_key_release,
	.write = bench_static_key_write,
	.read = bench_static_key_read,
};

static const struct file_operations bench_info_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = bench_info_read,
	.llseek = default_llseek,
};

static int __init bench_text_init(void)
{
	if (strcmp(delay_phase, "any") && strcmp(delay_phase, "before") &&
	    strcmp(delay_phase, "after")) {
		pr_err("delay_phase=%s: want before, after or any\n",
		       delay_phase);
		return -EINVAL;
	}
	bench_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR(bench_dir)) {
		pr_err("no debugfs directory (%ld): debugfs is off or locked down\n",
		       PTR_ERR(bench_dir));
		return PTR_ERR(bench_dir);
	}
	debugfs_create_file("info", 0400, bench_dir, NULL, &bench_info_fops);
	debugfs_create_file("run", 0600, bench_dir, NULL, &bench_run_fops);
	debugfs_create_file("static_key", 0600, bench_dir, NULL,
			    &bench_static_key_fops);
	pr_info("%lu bytes of text at node %d\n",
		(unsigned long)KTREPL_BENCH_TEXT_BYTES, numa_node_id());
	return 0;
}

static void __exit bench_text_exit(void)
{
	debugfs_remove(bench_dir);
}

module_init(bench_text_init);
module_exit(bench_text_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("ktrepl-bench's text benchmark: straight-line code timed per NUMA node");
