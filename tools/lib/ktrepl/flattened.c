// SPDX-License-Identifier: GPL-2.0
/*
 * makedumpfile's flattened format, which is what QEMU's dump-guest-memory
 * writes for its kdump formats and what `makedumpfile -F` sends down a
 * pipe: a header, then (offset, size, data) records of the real file.
 * libkdumpfile reads only the real file, so it is rebuilt here, the way
 * `makedumpfile -R` does, into an unlinked temporary file.
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "flattened.h"

#define FLAT_HEADER_SIZE 4096
#define FLAT_SIGNATURE "makedumpfile"
#define FLAT_TYPE 1
#define FLAT_COPY_CHUNK (1 << 20)

static int read_full(int fd, void *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done,
				  (off_t)(off + done));

		if (n < 0)
			return -errno;
		if (n == 0)
			return -ENODATA;
		done += n;
	}
	return 0;
}

bool kt_is_flattened(int fd)
{
	char head[32];

	if (read_full(fd, head, sizeof(head), 0))
		return false;
	return !memcmp(head, FLAT_SIGNATURE, sizeof(FLAT_SIGNATURE)) &&
	       be64toh(*(uint64_t *)(head + 16)) == FLAT_TYPE;
}

int kt_unflatten(int fd, const char *path, int *out_fd, struct kt_err *err)
{
	const char *tmpdir = getenv("TMPDIR");
	uint64_t in = FLAT_HEADER_SIZE;
	char tmp[4096];
	uint8_t *buf;
	int out, ret = 0;

	snprintf(tmp, sizeof(tmp), "%s/ktrepl-unflat-XXXXXX",
		 tmpdir && *tmpdir ? tmpdir : "/tmp");
	out = mkstemp(tmp);
	if (out < 0)
		return kt_err_set(err, errno,
				  "%s: flattened vmcore: cannot make a temporary file in %s: %s (set TMPDIR)",
				  path, tmpdir && *tmpdir ? tmpdir : "/tmp",
				  strerror(errno));
	unlink(tmp);	/* gone when the last descriptor closes */
	buf = malloc(FLAT_COPY_CHUNK);
	if (!buf) {
		close(out);
		return kt_err_set(err, ENOMEM, "out of memory");
	}
	for (;;) {
		uint64_t rec[2];
		int64_t off, size;

		ret = read_full(fd, rec, sizeof(rec), in);
		if (ret) {
			ret = kt_err_set(err, EPROTO,
					 "%s: truncated flattened vmcore: no record header at %" PRIu64,
					 path, in);
			break;
		}
		in += sizeof(rec);
		off = (int64_t)be64toh(rec[0]);
		size = (int64_t)be64toh(rec[1]);
		if (off == -1 && size == -1)
			break;	/* the end marker */
		if (off < 0 || size < 0) {
			ret = kt_err_set(err, EPROTO,
					 "%s: corrupt flattened vmcore: record at %" PRIu64 " has offset %" PRId64 " size %" PRId64,
					 path, in - sizeof(rec), off, size);
			break;
		}
		while (size > 0 && !ret) {
			size_t n = size > FLAT_COPY_CHUNK ? FLAT_COPY_CHUNK : size;

			if (read_full(fd, buf, n, in)) {
				ret = kt_err_set(err, EPROTO,
						 "%s: truncated flattened vmcore: record data at %" PRIu64,
						 path, in);
				break;
			}
			if (pwrite(out, buf, n, off) != (ssize_t)n) {
				ret = kt_err_set(err, errno ? errno : EIO,
						 "%s: flattened vmcore: writing the rebuilt dump to %s: %s",
						 path, tmp, strerror(errno));
				break;
			}
			in += n;
			off += n;
			size -= n;
		}
		if (ret)
			break;
	}
	free(buf);
	if (ret) {
		close(out);
		return ret;
	}
	*out_fd = out;
	return 0;
}
