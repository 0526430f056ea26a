// SPDX-License-Identifier: GPL-2.0
/*
 * ktrepl publisher, the activation's files: the workload (tasks,
 * workload, workload_ctl), x86 mm's bindings (bind, bind_ctl,
 * bind_history) and the test build's inject. Apart from publish.c
 * because these are the files that take commands: every write goes
 * through read_command()'s CAP_SYS_ADMIN check, and each control file
 * has a 0400 reader beside it for kernel lockdown (docs/abi.md).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "ktrepl_records.h"
#include "files.h"
#include "publish.h"

static struct ktrepl_provider *prov;

/* the provider's lists the files show, each in full (no cap) */
enum list_kind { LIST_TASKS, LIST_BOUND, LIST_BOUND_PAST };

static int list_call(enum list_kind kind, void *recs, int max)
{
	switch (kind) {
	case LIST_TASKS:
		return prov->tasks(recs, max);
	case LIST_BOUND:
		return prov->bound(recs, max);
	default:
		return prov->bound_past(recs, max);
	}
}

/*
 * Every record of a list, however many: the provider copies up to the
 * room given and says how many there are, and the list may grow between
 * two calls, so ask again with room for the count. kvfree() the result.
 */
static void *list_all(enum list_kind kind, int *nr)
{
	size_t size = kind == LIST_TASKS ? sizeof(struct ktrepl_task_record) :
					   sizeof(struct ktrepl_bound_record);
	int cap = kind == LIST_TASKS ? KTREPL_MAX_TASK_RECORDS :
				       KTREPL_MAX_BOUND_RECORDS;
	int tries, n;
	void *recs;

	for (tries = 0; tries < 8; tries++) {
		recs = kvcalloc(cap, size, GFP_KERNEL);
		if (!recs)
			return ERR_PTR(-ENOMEM);
		n = list_call(kind, recs, cap);
		if (n <= cap) {
			*nr = n;
			return recs;
		}
		kvfree(recs);
		cap = n + n / 8 + 16;
	}
	return ERR_PTR(-EAGAIN);
}

static void print_task(struct seq_file *m,
		       const struct ktrepl_task_record *t)
{
	union ktrepl_field_value vals[KTREPL_T_NR] = {
		[KTREPL_T_PID].i = t->pid,
		[KTREPL_T_COMM].s = t->comm,
		[KTREPL_T_NODE].i = t->node,
		[KTREPL_T_CPU].i = t->cpu,
		[KTREPL_T_ROOT_PA].u = (u64)t->root_pa,
		[KTREPL_T_EXPECTED_ROOT_PA].u = (u64)t->runs_on_pa,
		[KTREPL_T_TABLES].s = t->on_master ? "master" : "node",
		[KTREPL_T_SINCE_NS].u = t->since_ns,
		[KTREPL_T_ITERATIONS].u = t->iterations,
		[KTREPL_T_PROBE].u = t->probe,
	};

	ktrepl_print_fields(m, ktrepl_task_fields(), vals, KTREPL_T_NR);
}

static int tasks_show(struct seq_file *m, void *v)
{
	struct ktrepl_task_record *recs;
	int i, n;

	ktrepl_desc_refresh(true);
	recs = list_all(LIST_TASKS, &n);
	if (IS_ERR(recs))
		return PTR_ERR(recs);
	for (i = 0; i < n; i++)
		print_task(m, &recs[i]);
	kvfree(recs);
	return 0;
}
KTREPL_ADDR_ATTRIBUTE(tasks);

static int workload_show(struct seq_file *m, void *v)
{
	enum ktrepl_workload_mode mode = prov->workload_mode();

	seq_printf(m, "running=%d tables=%s master_probe=%lu\n",
		   mode != KTREPL_WORKLOAD_STOP,
		   mode == KTREPL_WORKLOAD_MASTER ? "master" : "node",
		   prov->master_probe());
	return 0;
}

static int workload_open(struct inode *inode, struct file *file)
{
	return single_open(file, workload_show, NULL);
}

/*
 * Every control write: CAP_SYS_ADMIN of the writer (the file mode alone
 * lets any uid-0 process through), one line, no more than the buffer.
 */
static ssize_t read_command(const char __user *ubuf, size_t len, char *buf,
			    size_t size)
{
	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (!len || len >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	strim(buf);
	return len;
}

static ssize_t workload_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	char buf[16];
	ssize_t ret = read_command(ubuf, len, buf, sizeof(buf));

	if (ret < 0)
		return ret;
	if (!strcmp(buf, "start") || !strcmp(buf, "1"))
		ret = prov->workload_ctl(KTREPL_WORKLOAD_NODE);
	else if (!strcmp(buf, "start master"))
		ret = prov->workload_ctl(KTREPL_WORKLOAD_MASTER);
	else if (!strcmp(buf, "stop") || !strcmp(buf, "0"))
		ret = prov->workload_ctl(KTREPL_WORKLOAD_STOP);
	else
		ret = -EINVAL;
	return ret ? ret : len;
}

/*
 * Each control file has a 0400 reader beside it: under kernel lockdown
 * debugfs refuses any file whose mode has a write bit, even to read it.
 */
static const struct file_operations workload_fops = {
	.owner = THIS_MODULE,
	.open = workload_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static const struct file_operations workload_ctl_fops = {
	.owner = THIS_MODULE,
	.write = workload_write,
};

static void print_binding(struct seq_file *m,
			  const struct ktrepl_bound_record *r)
{
	union ktrepl_field_value vals[KTREPL_B_NR] = {
		[KTREPL_B_PID].i = r->pid,
		[KTREPL_B_COMM].s = r->comm,
		[KTREPL_B_NODE].i = r->node,
		[KTREPL_B_HOW].s = r->manual ? "manual" : "auto",
		[KTREPL_B_MM_PGD_PA].u = (u64)r->mm_pgd_pa,
		[KTREPL_B_ROOT_PA].u = (u64)r->root_pa,
		[KTREPL_B_SINCE_NS].u = r->since_ns,
	};

	ktrepl_print_fields(m, ktrepl_bind_fields(), vals, KTREPL_B_NR);
}

static void print_bound(struct seq_file *m,
			const struct ktrepl_bound_record *r)
{
	union ktrepl_field_value vals[KTREPL_BH_NR] = {
		[KTREPL_BH_PID].i = r->pid,
		[KTREPL_BH_COMM].s = r->comm,
		[KTREPL_BH_NODE].i = r->node,
		[KTREPL_BH_ROOT_PA].u = (u64)r->root_pa,
		[KTREPL_BH_SINCE_NS].u = r->since_ns,
		[KTREPL_BH_UNTIL_NS].u = r->until_ns,
	};

	ktrepl_print_fields(m, ktrepl_bound_fields(), vals, KTREPL_BH_NR);
}

/*
 * One record per bound process (bind), or per binding that ended in the
 * last 10 s (bind_history); a comm's blanks become '_'.
 */
static int show_bindings(struct seq_file *m, bool ended)
{
	struct ktrepl_bound_record *recs, *r;
	int i, n;

	recs = list_all(ended ? LIST_BOUND_PAST : LIST_BOUND, &n);
	if (IS_ERR(recs))
		return PTR_ERR(recs);
	for (i = 0; i < n; i++) {
		r = &recs[i];
		strreplace(r->comm, ' ', '_');
		if (ended)
			print_bound(m, r);
		else
			print_binding(m, r);
	}
	kvfree(recs);
	return 0;
}

static int bind_show(struct seq_file *m, void *v)
{
	return show_bindings(m, false);
}

static int bind_history_show(struct seq_file *m, void *v)
{
	return show_bindings(m, true);
}
KTREPL_ADDR_ATTRIBUTE(bind_history);

static int bind_open(struct inode *inode, struct file *file)
{
	int ret = ktrepl_addresses_allowed(file);

	return ret ?: single_open(file, bind_show, NULL);
}

struct bind_cmd {
	int pid, node, on;	/* on: -1 when not given */
};

/*
 * "pid=P node=N" (N = -1 unbinds) or "auto=0|1", each key once, nothing
 * else. -EINVAL for a malformed command, -ERANGE for a number that does
 * not fit (kstrtoint), never a silent wrap.
 */
static int parse_bind(char *buf, struct bind_cmd *cmd)
{
	bool have_pid = false, have_node = false, have_auto = false;
	char *tok, *val;
	int ret;

	cmd->on = -1;
	while ((tok = strsep(&buf, " \t")) != NULL) {
		if (!*tok)
			continue;
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = '\0';
		if (!strcmp(tok, "pid") && !have_pid) {
			ret = kstrtoint(val, 10, &cmd->pid);
			have_pid = true;
		} else if (!strcmp(tok, "node") && !have_node) {
			ret = kstrtoint(val, 10, &cmd->node);
			have_node = true;
		} else if (!strcmp(tok, "auto") && !have_auto) {
			ret = kstrtoint(val, 10, &cmd->on);
			have_auto = true;
		} else {
			return -EINVAL;
		}
		if (ret)
			return ret;
	}
	if (have_auto)
		return !have_pid && !have_node &&
		       (cmd->on == 0 || cmd->on == 1) ? 0 : -EINVAL;
	if (!have_pid || !have_node || cmd->pid <= 0 || cmd->node < -1)
		return -EINVAL;
	return 0;
}

static ssize_t bind_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	char buf[64];
	ssize_t ret = read_command(ubuf, len, buf, sizeof(buf));
	struct bind_cmd cmd;

	if (ret < 0)
		return ret;
	ret = parse_bind(buf, &cmd);
	if (!ret)
		ret = cmd.on >= 0 ? prov->bind_ctl(0, -1, cmd.on) :
				    prov->bind_ctl(cmd.pid, cmd.node, -1);
	return ret ? ret : len;
}

static const struct file_operations bind_fops = {
	.owner = THIS_MODULE,
	.open = bind_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static const struct file_operations bind_ctl_fops = {
	.owner = THIS_MODULE,
	.write = bind_write,
};

static ssize_t inject_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	char buf[160];
	ssize_t ret = read_command(ubuf, len, buf, sizeof(buf));

	if (ret < 0)
		return ret;
	ret = prov->inject(buf);
	if (ret)
		pr_info("inject '%s' failed: %zd\n", buf, ret);
	return ret ? ret : len;
}

static const struct file_operations inject_fops = {
	.owner = THIS_MODULE,
	.write = inject_write,
};

void ktrepl_publish_controls(struct dentry *dir, struct ktrepl_provider *p)
{
	prov = p;
	if (prov->workload_ctl) {
		debugfs_create_file("tasks", 0400, dir, NULL, &tasks_fops);
		debugfs_create_file("workload", 0400, dir, NULL,
				    &workload_fops);
		debugfs_create_file("workload_ctl", 0200, dir, NULL,
				    &workload_ctl_fops);
	}
	if (prov->bind_ctl) {
		debugfs_create_file("bind", 0400, dir, NULL, &bind_fops);
		debugfs_create_file("bind_ctl", 0200, dir, NULL,
				    &bind_ctl_fops);
	}
	if (prov->bound_past)
		debugfs_create_file("bind_history", 0400, dir, NULL,
				    &bind_history_fops);
	if (prov->inject)
		debugfs_create_file("inject", 0200, dir, NULL, &inject_fops);
}
