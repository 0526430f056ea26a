/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_INSN_H
#define KTREPL_INSN_H

/*
 * Per-architecture instruction forms behind struct kt_arch's instruction
 * hooks; use them through the arch object, not directly.
 */
#include <stdbool.h>
#include <stdint.h>

#include "pgtable.h"

extern const uint8_t kt_x86_nop5[5];

const char *kt_x86_classify(const uint8_t *m, const uint8_t *r, uint64_t len,
			    const char *sym);
unsigned int kt_x86_site_len(const uint8_t *m, const uint8_t *r,
			     uint64_t left);
unsigned int kt_x86_insn_backup(const uint8_t *m, const uint8_t *r,
				uint64_t len);
unsigned int kt_x86_branch_len(const uint8_t *b);
bool kt_x86_site_bytes_valid(enum kt_site_kind kind, uint32_t len,
			     const uint8_t *mem);

const char *kt_arm64_classify(const uint8_t *m, const uint8_t *r,
			      uint64_t len, const char *sym);
unsigned int kt_arm64_site_len(const uint8_t *m, const uint8_t *r,
			       uint64_t left);

#endif
