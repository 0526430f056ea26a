/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_QEMU_CPU_H
#define KTREPL_QEMU_CPU_H

#include <stdint.h>

#include "err.h"

/* Per-CPU CR3 physical addresses from a QEMU ELF dump; returns the count. */
int kt_qemu_cpu_roots(const char *path, uint64_t *roots, int max,
		      struct kt_err *err);

#endif
