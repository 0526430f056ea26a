/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_ELF_FILE_H
#define KTREPL_ELF_FILE_H

#include <gelf.h>

#include "err.h"

/*
 * Open path for libelf. Fails only when the file cannot be opened; a
 * file that is not ELF gives *elf == NULL, and the caller says what it
 * expected instead.
 */
int kt_elf_open(const char *path, int *fd, Elf **elf, struct kt_err *err);
void kt_elf_close(int fd, Elf *elf);

#endif
