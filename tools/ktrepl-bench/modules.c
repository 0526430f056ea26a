// SPDX-License-Identifier: GPL-2.0
/*
 * Module loads and unloads, with the reason named when the kernel says
 * no: a missing file, a kernel in lockdown (it loads only signed
 * modules), a rejected signature, or the module's own refusal (dmesg).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "lockdown.h"

#ifndef MODULE_INIT_COMPRESSED_FILE
#define MODULE_INIT_COMPRESSED_FILE 4
#endif

bool bench_module_loaded(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/module/%s/initstate", name);
	return access(path, F_OK) == 0;
}

static bool compressed(const char *path)
{
	size_t n = strlen(path);

	return (n > 3 && !strcmp(path + n - 3, ".xz")) ||
	       (n > 3 && !strcmp(path + n - 3, ".gz")) ||
	       (n > 4 && !strcmp(path + n - 4, ".zst"));
}

/* why the kernel refused a load with code (an errno) */
static int refused(const char *what, int code, struct kt_err *err)
{
	int lcode = 0;
	enum kt_lockdown level = kt_lockdown_read(NULL, &lcode);

	if (code == EPERM && level > KT_LOCKDOWN_NONE)
		return kt_err_set(err, code,
				  "%s: refused: the kernel is locked down (%s) and loads only modules signed with a key it trusts; sign ktrepl.ko and %s.ko (DKMS can sign with its MOK key) or boot without lockdown",
				  what, kt_lockdown_name(level),
				  BENCH_TEXT_MODULE);
	if (code == EKEYREJECTED || code == ENOKEY || code == EBADMSG)
		return kt_err_set(err, code,
				  "%s: refused: module signature %s (module.sig_enforce): sign it with a key the kernel trusts",
				  what, code == ENOKEY ? "made with a key the kernel does not know" : "rejected");
	if (code == EPERM)
		return kt_err_set(err, code,
				  "%s: refused (EPERM): loading modules needs CAP_SYS_MODULE%s",
				  what, level == KT_LOCKDOWN_UNKNOWN ?
				  ", or the kernel is locked down (its lockdown file is unreadable)" :
				  ", and /proc/sys/kernel/modules_disabled must be 0");
	if (code == EEXIST)
		return kt_err_set(err, code, "%s: already loaded", what);
	return kt_err_set(err, code, "%s: %s (the module's reason, if any, is in dmesg)",
			  what, strerror(code));
}

static int load_file(const char *path, const char *params, struct kt_err *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return kt_err_set(err, errno, "%s: %s", path, strerror(errno));
	ret = syscall(SYS_finit_module, fd, params,
		      compressed(path) ? MODULE_INIT_COMPRESSED_FILE : 0);
	ret = ret ? errno : 0;
	close(fd);
	if (ret)
		return refused(path, ret, err);
	return 0;
}

/* modprobe NAME PARAMS...: the module as the system installed it */
static int modprobe(const char *name, const char *params, struct kt_err *err)
{
	char copy[BENCH_MAX_PARAMS], *argv[64], *tok, *save = NULL;
	int argc = 0, status, lcode;
	struct utsname u;
	pid_t pid;

	snprintf(copy, sizeof(copy), "%s", params ? params : "");
	argv[argc++] = "modprobe";
	argv[argc++] = (char *)name;
	for (tok = strtok_r(copy, " ", &save); tok && argc < 62;
	     tok = strtok_r(NULL, " ", &save))
		argv[argc++] = tok;
	argv[argc] = NULL;
	pid = fork();
	if (pid < 0)
		return kt_err_set(err, errno, "fork: %s", strerror(errno));
	if (!pid) {
		execvp("modprobe", argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return kt_err_set(err, errno, "waitpid: %s", strerror(errno));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return kt_err_set(err, ENOENT,
				  "modprobe %s: no modprobe on PATH (kmod); give the module's file instead",
				  name);
	if (kt_lockdown_read(NULL, &lcode) > KT_LOCKDOWN_NONE)
		return refused(name, EPERM, err);
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	return kt_err_set(err, ENOENT,
			  "modprobe %s failed (status %d): is ktrepl-dkms installed for kernel %s? Or give the file with --%s",
			  name, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
			  u.release, strcmp(name, KTREPL_MODULE) ?
			  "bench-module" : "module");
}

int bench_module_load(const char *path, const char *name, const char *params,
		      struct kt_err *err)
{
	return path ? load_file(path, params ? params : "", err) :
		      modprobe(name, params, err);
}

/* ktrepl.ko's exit waits for every CPU and process to leave its tables */
int bench_module_unload(const char *name, struct kt_err *err)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	int tries;

	for (tries = 0; tries < 200; tries++) {
		if (!syscall(SYS_delete_module, name, O_NONBLOCK))
			return 0;
		if (errno != EAGAIN && errno != EBUSY)
			break;
		nanosleep(&pause, NULL);
	}
	return kt_err_set(err, errno, "unloading %s: %s", name,
			  strerror(errno));
}
