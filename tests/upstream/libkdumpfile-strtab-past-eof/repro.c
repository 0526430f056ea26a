// SPDX-License-Identifier: GPL-2.0
/* Open a dump with libkdumpfile alone: cc repro.c -lkdumpfile */
#include <fcntl.h>
#include <libkdumpfile/kdumpfile.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	kdump_ctx_t *ctx = kdump_new();
	int fd = argc > 1 ? open(argv[1], O_RDONLY) : -1;
	kdump_status st;

	if (!ctx || fd < 0)
		return 2;
	st = kdump_set_number_attr(ctx, KDUMP_ATTR_FILE_FD, fd);
	printf("kdump_set_number_attr: %d (%s)\n", st,
	       st == KDUMP_OK ? "ok" : kdump_get_err(ctx));
	kdump_free(ctx);
	return 0;
}
