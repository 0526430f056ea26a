/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_FILES_H
#define KTREPL_FILES_H

/* What the publisher's files share: publish.c and control.c. */
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/seq_file.h>

#include "ktrepl_provider.h"
#include "ktrepl_summary.h"

/* one field's value, as its table's type says (ktrepl_summary.h) */
union ktrepl_field_value {
	s64 i;
	u64 u;
	const char *s;
	const struct cpumask *cpus;
};

/* one record line: n fields of table f, each as its type says */
void ktrepl_print_fields(struct seq_file *m, const struct ktrepl_field *f,
			 const union ktrepl_field_value *v, int n);

/* 0, or -EPERM for a reader /proc/kallsyms would show no addresses to */
int ktrepl_addresses_allowed(struct file *file);
/* the workload, bind and inject files, as the provider has them */
void ktrepl_publish_controls(struct dentry *dir, struct ktrepl_provider *p);

/* DEFINE_SHOW_ATTRIBUTE, for a file that prints kernel addresses */
#define KTREPL_ADDR_ATTRIBUTE(__name)					\
static int __name##_open(struct inode *inode, struct file *file)	\
{									\
	int ret = ktrepl_addresses_allowed(file);			\
									\
	return ret ?: single_open(file, __name##_show, inode->i_private); \
}									\
									\
static const struct file_operations __name##_fops = {			\
	.owner = THIS_MODULE,						\
	.open = __name##_open,						\
	.read = seq_read,						\
	.llseek = seq_lseek,						\
	.release = single_release,					\
}

#endif
