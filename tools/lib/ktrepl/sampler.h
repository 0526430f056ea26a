/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_SAMPLER_H
#define KTREPL_SAMPLER_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"

/* One kernel-mode sample: where a CPU was executing, and in which task. */
struct kt_sample {
	uint64_t ip;
	uint64_t time;	/* perf clock: local_clock(), as the module's since_ns */
	uint32_t pid;
	uint32_t tid;	/* 0: the idle task */
	int cpu;
};

/*
 * Per-CPU perf_event_open sampling of kernel instruction pointers. The
 * default event is cpu-clock, an hrtimer at exactly the period asked
 * for, on every machine; cycles (frequency mode on the PMU) on request.
 * It only collects; what a sample means is the locality model's business.
 */
struct kt_sampler;

enum kt_sampler_event {
	KT_EVENT_CPU_CLOCK,
	KT_EVENT_CYCLES,
};

struct kt_sampler_opts {
	unsigned int rate_hz;	/* per CPU, 1..100000 */
	enum kt_sampler_event event;
	unsigned int ring_pages;	/* data pages per CPU, power of 2; 0: 64 */
};

/* What the kernel reported besides samples, summed over the CPUs. */
struct kt_sampler_counts {
	uint64_t lost;		/* samples dropped: a buffer was full */
	uint64_t throttles;	/* times the kernel throttled an event */
};

/*
 * The process may sample kernel code on every CPU whatever
 * kernel.perf_event_paranoid says: root, CAP_PERFMON, or CAP_SYS_ADMIN
 * (which kernels before 5.8 want instead).
 */
bool kt_sampler_privileged(void);
/* Open, disabled, on cpus[0..nr); kt_sampler_enable() starts sampling. */
int kt_sampler_open(struct kt_sampler **out, const int *cpus, int nr,
		    const struct kt_sampler_opts *opts, struct kt_err *err);
int kt_sampler_enable(struct kt_sampler *s, struct kt_err *err);
/* "cycles" or "cpu-clock" */
const char *kt_sampler_event(const struct kt_sampler *s);
const char *kt_sampler_event_name(enum kt_sampler_event ev);
int kt_sampler_event_parse(const char *name, enum kt_sampler_event *ev);
/* true: idle CPUs deliver samples too (tid 0), at the full rate */
bool kt_sampler_samples_idle(const struct kt_sampler *s);

typedef void (*kt_sample_fn)(const struct kt_sample *smp, void *arg);

/* Hand every sample collected so far to fn, oldest first per CPU. */
int kt_sampler_drain(struct kt_sampler *s, kt_sample_fn fn, void *arg,
		     struct kt_sampler_counts *counts, struct kt_err *err);
void kt_sampler_close(struct kt_sampler *s);

#endif
