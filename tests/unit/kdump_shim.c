// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim for damaged-dumps.t: makes libkdumpfile crash
 * (KT_SHIM=crash) or hang (KT_SHIM=hang) the first time a tool asks for
 * VMCOREINFO, standing for damage no header check foresees.
 */
#include <dlfcn.h>
#include <libkdumpfile/kdumpfile.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

kdump_status kdump_vmcoreinfo_raw(kdump_ctx_t *ctx, char **raw)
{
	kdump_status (*real)(kdump_ctx_t *, char **) =
		(kdump_status (*)(kdump_ctx_t *, char **))dlsym(RTLD_NEXT,
								"kdump_vmcoreinfo_raw");
	const char *how = getenv("KT_SHIM");

	if (how && !strcmp(how, "crash"))
		raise(SIGSEGV);
	if (how && !strcmp(how, "hang"))
		for (;;)
			pause();
	return real(ctx, raw);
}
