// SPDX-License-Identifier: GPL-2.0
/*
 * seccomp_storm SECONDS FILTERS: for SECONDS, fork a child that installs
 * FILTERS seccomp filters (each a classic BPF program the kernel JITs
 * into module-area memory, which any user may do) and then makes
 * syscalls through all of them, so that a child running on a replica
 * node's tables executes JIT images the table mirror must have copied
 * into them. Prints "rounds=N filters=M" and exits 0, or names what
 * failed and exits 1. A child killed by a signal (a fault in a JIT
 * image mapped nowhere on its node's tables) is a failure.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int install_allow_all(void)
{
	/* a few instructions, so that the JIT makes an image of its own */
	struct sock_filter insns[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffff, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(insns) / sizeof(insns[0]),
		.filter = insns,
	};

	return syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
}

static int child(int filters)
{
	int i;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return 2;
	for (i = 0; i < filters; i++)
		if (install_allow_all())
			return 3;
	/* every syscall now runs every filter's JIT image */
	for (i = 0; i < 1000; i++)
		syscall(SYS_getppid);
	return 0;
}

int main(int argc, char **argv)
{
	long seconds, filters, rounds = 0;
	time_t end;

	if (argc != 3 || (seconds = atol(argv[1])) <= 0 ||
	    (filters = atol(argv[2])) <= 0) {
		fprintf(stderr, "usage: seccomp_storm SECONDS FILTERS\n");
		return 2;
	}
	end = time(NULL) + seconds;
	while (time(NULL) < end) {
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			/* the fork storm beside may hold every slot for a while */
			if (errno == EAGAIN || errno == ENOMEM) {
				usleep(10000);
				continue;
			}
			perror("seccomp_storm: fork");
			return 1;
		}
		if (!pid)
			_exit(child((int)filters));
		if (waitpid(pid, &status, 0) < 0) {
			perror("seccomp_storm: waitpid");
			return 1;
		}
		if (WIFSIGNALED(status)) {
			fprintf(stderr, "seccomp_storm: round %ld: child killed by signal %d (%s)\n",
				rounds, WTERMSIG(status), strsignal(WTERMSIG(status)));
			return 1;
		}
		if (WEXITSTATUS(status)) {
			fprintf(stderr, "seccomp_storm: round %ld: child exit %d (2: no_new_privs, 3: seccomp refused)\n",
				rounds, WEXITSTATUS(status));
			return 1;
		}
		rounds++;
	}
	printf("rounds=%ld filters=%ld\n", rounds, filters);
	return rounds > 0 ? 0 : 1;
}
