// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "elf_file.h"

int kt_elf_open(const char *path, int *fd, Elf **elf, struct kt_err *err)
{
	*elf = NULL;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return kt_err_set(err, errno, "%s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	*elf = elf_begin(*fd, ELF_C_READ_MMAP, NULL);
	if (*elf && elf_kind(*elf) != ELF_K_ELF) {
		elf_end(*elf);
		*elf = NULL;
	}
	return 0;
}

void kt_elf_close(int fd, Elf *elf)
{
	if (elf)
		elf_end(elf);
	close(fd);
}
