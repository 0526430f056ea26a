/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_FLATTENED_H
#define KTREPL_FLATTENED_H

#include <stdbool.h>

#include "err.h"

/* Does fd hold makedumpfile's flattened format? */
bool kt_is_flattened(int fd);
/*
 * Rebuild the real dump from the flattened one in fd into a temporary
 * file ($TMPDIR, already unlinked): *out_fd reads it.
 */
int kt_unflatten(int fd, const char *path, int *out_fd, struct kt_err *err);

#endif
