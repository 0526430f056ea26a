// SPDX-License-Identifier: GPL-2.0
/*
 * The debugfs ABI parser: the input is the module's files one after the
 * other, each introduced by a line "==> NAME <==" (as head(1) prints
 * them), written into a directory the parser then reads.
 */
#include <sys/stat.h>

#include "sparse.h"
#include "state.h"

static const char *const files[] = {
	"abi", "summary", "replicas", "pgds", "tasks", "patches",
	"patch_window", "bind_history",
};

static char dir[64];

static void write_file(const char *name, const uint8_t *data, size_t size)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	if (!fp)
		return;
	fwrite(data, 1, size, fp);
	fclose(fp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *end = data + size, *p = data;
	struct kt_state st;
	struct kt_err err;
	size_t i;

	if (!dir[0]) {
		strcpy(dir, "/tmp/ktrepl-fuzz-XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[128];

		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	while (p < end) {
		const uint8_t *name, *body, *next;
		size_t len;

		name = memmem(p, end - p, "==> ", 4);
		if (!name)
			break;
		name += 4;
		body = memmem(name, end - name, " <==\n", 5);
		if (!body)
			break;
		len = body - name;
		body += 5;
		next = memmem(body, end - body, "==> ", 4);
		if (!next)
			next = end;
		for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
			if (strlen(files[i]) == len &&
			    !memcmp(files[i], name, len))
				write_file(files[i], body, next - body);
		p = next;
	}
	kt_err_clear(&err);
	memset(&st, 0, sizeof(st));
	if (!kt_state_load_debugfs(&st, dir, &err)) {
		kt_state_refresh(&st, dir, &err);
		kt_state_free(&st);
	}
	kt_state_patch_window(&st, dir, &err);
	return 0;
}
