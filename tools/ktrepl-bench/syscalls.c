// SPDX-License-Identifier: GPL-2.0
/*
 * The syscalls benchmark, the x86 RFC's set (Artem Kuzin's evaluation,
 * repeated by AMD): kernel paths a process enters often, timed from a
 * process confined to each node in turn, off against on (engine.c).
 *
 *   fork-1       one fork(), from the call to its return in the parent
 *   fork-1024    1024 fork()s in a loop, the loop timed (children exit at
 *                once and are reaped after the loop)
 *   mmap-munmap  1024 iterations of mmap() then munmap() of one page
 *   mmap-lock    the same with MAP_LOCKED (the page is faulted in)
 *   open-close   1024 iterations of open("/dev/null") then close()
 *   mount        procfs mounted once on a directory under /tmp, the
 *                mount() timed; unmounted after
 *   kill         SIGUSR1 to a forked child, from the send to the child's
 *                handler reading CLOCK_MONOTONIC (shared memory)
 *
 * --quick (emulators) cuts the 1024-iteration loops to 16; the report's
 * iterations say how many ran.
 *
 * Each hot and cold. Hot: one untimed iteration of the same operation
 * runs just before the timed one. Cold: instead, just before the timed
 * operation (before the whole loop of the 1024-iteration ones), the
 * runner writes one byte every 64 bytes of a buffer twice the size of
 * the last-level cache (sysfs cache/index*), so every cache line and,
 * one page after another, every TLB entry, data and instruction (the
 * shared second-level TLB) is taken by the buffer's pages; kernel text
 * is then fetched again from memory, through a walk of the tables.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

#define LOOPS 1024
/* --quick, for emulators: the 1024-iteration loops cut to this */
#define QUICK_LOOPS 16
#define EVICT_DEFAULT_BYTES (32ULL << 20)
#define KILL_WAIT_S 5.0
#define CACHE_SYSFS "/sys/devices/system/cpu/cpu0/cache"

enum sys_op {
	OP_FORK_1,
	OP_FORK_1024,
	OP_MMAP_MUNMAP,
	OP_MMAP_LOCK,
	OP_OPEN_CLOSE,
	OP_MOUNT,
	OP_KILL,
	NR_OPS,
};

static const struct {
	const char *name;
	unsigned int loops;
	const char *what;
} ops[NR_OPS] = {
	[OP_FORK_1] = { "fork-1", 1, "one fork(), call to return" },
	[OP_FORK_1024] = { "fork-1024", LOOPS, "fork()s in a loop, the loop" },
	[OP_MMAP_MUNMAP] = { "mmap-munmap", LOOPS, "mmap+munmap of one page, in a loop" },
	[OP_MMAP_LOCK] = { "mmap-lock", LOOPS, "mmap(MAP_LOCKED)+munmap of one page, in a loop" },
	[OP_OPEN_CLOSE] = { "open-close", LOOPS, "open+close of /dev/null, in a loop" },
	[OP_MOUNT] = { "mount", 1, "one mount() of procfs under /tmp" },
	[OP_KILL] = { "kill", 1, "SIGUSR1 to a child, send to its handler" },
};

struct sys_ctx {
	char mnt_dir[64];
	unsigned int loops;	/* of the 1024-iteration operations */
	size_t evict_bytes;
	bool wait_bind;		/* this runner is in the on-arm under mm */
	long page;
};

/* the kill child's handler writes its receive time here */
struct kill_shared {
	volatile double recv_s;
	volatile int seq;
};

static struct kill_shared *kill_shm;

static void kill_handler(int sig)
{
	(void)sig;
	kill_shm->recv_s = bench_now_s();
	__atomic_add_fetch(&kill_shm->seq, 1, __ATOMIC_RELEASE);
}

/* "16384K", "32M": bytes; 0 if unparsable */
static uint64_t cache_size(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 10);

	if (end == s)
		return 0;
	if (*end == 'K')
		v <<= 10;
	else if (*end == 'M')
		v <<= 20;
	else if (*end == 'G')
		v <<= 30;
	return v;
}

/* twice the largest cache level cpu0 has; the default when sysfs has none */
static uint64_t evict_size(bool *from_sysfs)
{
	uint64_t best = 0, size;
	int idx, level, best_level = 0;
	char path[128], buf[64];

	for (idx = 0; idx < 16; idx++) {
		snprintf(path, sizeof(path), CACHE_SYSFS "/index%d/level", idx);
		if (!bench_read_file(path, buf, sizeof(buf)))
			continue;
		level = atoi(buf);
		snprintf(path, sizeof(path), CACHE_SYSFS "/index%d/size", idx);
		if (!bench_read_file(path, buf, sizeof(buf)))
			continue;
		size = cache_size(buf);
		if (level > best_level || (level == best_level && size > best)) {
			best_level = level;
			best = size;
		}
	}
	*from_sysfs = best > 0;
	return best ? 2 * best : EVICT_DEFAULT_BYTES;
}

static void evict(volatile unsigned char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i += 64)
		buf[i]++;
}

static int fork_n(unsigned int n, double *ns)
{
	pid_t pids[LOOPS];
	unsigned int k, made = 0;
	double t0, t1;
	int ret = 0;

	t0 = bench_now_s();
	for (k = 0; k < n; k++) {
		pid_t pid = fork();

		if (!pid)
			_exit(0);
		if (pid < 0) {
			ret = -errno;
			break;
		}
		pids[made++] = pid;
	}
	t1 = bench_now_s();
	for (k = 0; k < made; k++)
		while (waitpid(pids[k], NULL, 0) < 0 && errno == EINTR)
			;
	*ns = (t1 - t0) * 1e9;
	return ret;
}

static int mmap_n(unsigned int n, long page, bool locked, double *ns)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | (locked ? MAP_LOCKED : 0);
	unsigned int k;
	double t0;
	void *p;

	t0 = bench_now_s();
	for (k = 0; k < n; k++) {
		p = mmap(NULL, page, PROT_READ | PROT_WRITE, flags, -1, 0);
		if (p == MAP_FAILED)
			return -errno;
		munmap(p, page);
	}
	*ns = (bench_now_s() - t0) * 1e9;
	return 0;
}

static int open_n(unsigned int n, double *ns)
{
	unsigned int k;
	double t0;
	int fd;

	t0 = bench_now_s();
	for (k = 0; k < n; k++) {
		fd = open("/dev/null", O_RDONLY);
		if (fd < 0)
			return -errno;
		close(fd);
	}
	*ns = (bench_now_s() - t0) * 1e9;
	return 0;
}

static int mount_once(const char *dir, double *ns)
{
	double t0 = bench_now_s();
	int ret = mount("proc", dir, "proc", 0, NULL);

	*ns = (bench_now_s() - t0) * 1e9;
	if (ret)
		return -errno;
	while (umount2(dir, 0) && errno == EBUSY)
		;
	return 0;
}

static int kill_once(pid_t child, double *ns)
{
	int seq = __atomic_load_n(&kill_shm->seq, __ATOMIC_ACQUIRE);
	double t0 = bench_now_s();

	if (kill(child, SIGUSR1))
		return -errno;
	while (__atomic_load_n(&kill_shm->seq, __ATOMIC_ACQUIRE) == seq) {
		if (bench_now_s() - t0 > KILL_WAIT_S)
			return -ETIMEDOUT;
		sched_yield();
	}
	*ns = (kill_shm->recv_s - t0) * 1e9;
	return 0;
}

static unsigned int op_loops(const struct sys_ctx *c, enum sys_op op)
{
	return ops[op].loops == LOOPS ? c->loops : ops[op].loops;
}

static int one_op(const struct sys_ctx *c, enum sys_op op, unsigned int n,
		  pid_t kill_child, double *ns)
{
	switch (op) {
	case OP_FORK_1:
	case OP_FORK_1024:
		return fork_n(n, ns);
	case OP_MMAP_MUNMAP:
		return mmap_n(n, c->page, false, ns);
	case OP_MMAP_LOCK:
		return mmap_n(n, c->page, true, ns);
	case OP_OPEN_CLOSE:
		return open_n(n, ns);
	case OP_MOUNT:
		return mount_once(c->mnt_dir, ns);
	case OP_KILL:
		return kill_once(kill_child, ns);
	default:
		return -EINVAL;
	}
}

static pid_t start_kill_child(void)
{
	struct sigaction sa = { .sa_handler = kill_handler };
	pid_t pid;

	sigaction(SIGUSR1, &sa, NULL);
	pid = fork();
	if (!pid) {
		for (;;)
			pause();
	}
	return pid;
}

/* in the runner child: every operation, hot then cold */
static int sys_child(void *arg, double *ns, char *why, size_t len)
{
	const struct sys_ctx *c = arg;
	unsigned char *buf;
	double warm;
	pid_t child;
	int op, ret = 0;

	buf = mmap(NULL, c->evict_bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	kill_shm = mmap(NULL, sizeof(*kill_shm), PROT_READ | PROT_WRITE,
			MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED || kill_shm == MAP_FAILED) {
		snprintf(why, len, "mmap of the eviction buffer (%zu bytes): %s",
			 c->evict_bytes, strerror(errno));
		return -ENOMEM;
	}
	/* fork would copy its tables: the forks would time the buffer */
	madvise(buf, c->evict_bytes, MADV_DONTFORK);
	memset(buf, 1, c->evict_bytes);	/* its pages, before any timing */
	child = start_kill_child();
	if (child < 0) {
		snprintf(why, len, "fork of the kill child: %s",
			 strerror(errno));
		return -errno;
	}
	/* forked while confined: ktrepl's fork probe binds it too */
	if (c->wait_bind && bench_wait_bound(child)) {
		snprintf(why, len, "the kill child (pid %d) was not bound to its node's tables",
			 (int)child);
		ret = -ETIMEDOUT;
	}
	for (op = 0; op < NR_OPS && !ret; op++) {
		ret = one_op(c, op, 1, child, &warm);
		if (!ret)
			ret = one_op(c, op, op_loops(c, op), child,
				     &ns[2 * op]);
		if (!ret) {
			evict(buf, c->evict_bytes);
			ret = one_op(c, op, op_loops(c, op), child,
				     &ns[2 * op + 1]);
		}
		if (ret)
			snprintf(why, len, "%s: %s", ops[op].name,
				 strerror(-ret));
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	return ret;
}

static int sys_measure(struct bench_engine *e, int i, bool on, double *ns,
		       struct kt_err *err)
{
	struct sys_ctx *c = e->priv;

	c->wait_bind = on && e->wait_bind;
	return bench_engine_child(e, i, on, sys_child, c, ns,
				  BENCH_SYSCALLS, err);
}

static char names[BENCH_SYSCALLS][48];

int bench_syscalls_run(const struct bench_opts *o,
		       const struct bench_machine *m, struct bench_result *r,
		       struct kt_err *err)
{
	struct sys_ctx c = {
		.page = sysconf(_SC_PAGESIZE),
		.loops = o->quick ? QUICK_LOOPS : LOOPS,
	};
	struct bench_engine e = {
		.o = o, .m = m, .name = "syscalls", .nr_series = BENCH_SYSCALLS,
		.measure = sys_measure, .priv = &c,
	};
	double start = bench_now_s();
	bool time_limited, from_sysfs;
	int ret, s;

	if (c.page <= 0)
		c.page = 4096;
	c.evict_bytes = evict_size(&from_sysfs);
	ret = bench_engine_setup(&e, err);
	if (ret)
		return ret;
	snprintf(c.mnt_dir, sizeof(c.mnt_dir), "/tmp/ktrepl-bench.XXXXXX");
	if (!mkdtemp(c.mnt_dir))
		return kt_err_set(err, errno, "mkdtemp %s: %s", c.mnt_dir,
				  strerror(errno));
	ret = bench_engine_rounds(&e, &time_limited, err);
	if (!ret) {
		for (s = 0; s < BENCH_SYSCALLS; s++) {
			struct bench_result *res = &r[s];

			snprintf(names[s], sizeof(names[s]), "syscalls/%s/%s",
				 ops[s / 2].name, s % 2 ? "cold" : "hot");
			res->name = names[s];
			res->unit_desc = ops[s / 2].what;
			res->syscall = true;
			res->cold = s % 2;
			res->evict_bytes = res->cold ? c.evict_bytes : 0;
			res->evict_assumed = res->cold && !from_sysfs;
			res->iterations = op_loops(&c, s / 2);
			res->time_limited = time_limited;
			bench_engine_fill(&e, s, res);
		}
	}
	rmdir(c.mnt_dir);
	bench_engine_teardown(&e);
	for (s = 0; s < BENCH_SYSCALLS && !ret; s++)
		r[s].seconds = bench_now_s() - start;
	return ret;
}
