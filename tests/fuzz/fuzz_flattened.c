// SPDX-License-Identifier: GPL-2.0
/* makedumpfile's flattened format, rebuilt into a temporary file. */
#include "flattened.h"
#include "sparse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kt_err err;
	char path[64];
	int fd = input_file(data, size, path, sizeof(path)), out = -1;

	if (fd < 0)
		return 0;
	kt_err_clear(&err);
	if (kt_is_flattened(fd) && !kt_unflatten(fd, path, &out, &err))
		close(out);
	close(fd);
	return 0;
}
