// SPDX-License-Identifier: GPL-2.0
/* The QEMU ELF dump's per-CPU notes (x86_64 CR3s). */
#include "qemu_cpu.h"
#include "sparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t roots[64];
	struct kt_err err;
	char path[64];
	int fd = input_file(data, size, path, sizeof(path));

	if (fd < 0)
		return 0;
	kt_err_clear(&err);
	kt_qemu_cpu_roots(path, roots, 64, &err);
	close(fd);
	return 0;
}
