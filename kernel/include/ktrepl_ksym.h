/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_KSYM_H
#define KTREPL_KSYM_H

/* kallsyms for the few non-exported symbols ktrepl needs */
int ktr_ksym_init(void);
unsigned long ktr_ksym(const char *name);
unsigned long ktr_ksym_quiet(const char *name);	/* absence is not an error */

#endif
