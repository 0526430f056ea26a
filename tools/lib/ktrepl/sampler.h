/* SPDX-License-Identifier: GPL-2.0 */
#ifndef KTREPL_SAMPLER_H
#define KTREPL_SAMPLER_H

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
 * Per-CPU perf_event_open sampling of kernel instruction pointers:
 * hardware cycles where the machine has a PMU, cpu-clock (an hrtimer)
 * where it does not, as in TCG guests. It only collects; what a sample
 * means is the locality model's business.
 */
struct kt_sampler;

/* Sample cpus[0..nr) rate_hz times per second each. */
int kt_sampler_open(struct kt_sampler **out, const int *cpus, int nr,
		    unsigned int rate_hz, struct kt_err *err);
/* "cycles" or "cpu-clock" */
const char *kt_sampler_event(const struct kt_sampler *s);

typedef void (*kt_sample_fn)(const struct kt_sample *smp, void *arg);

/*
 * Hand every sample collected so far to fn, oldest first per CPU.
 * *lost grows by the samples the kernel dropped because a buffer was full.
 */
int kt_sampler_drain(struct kt_sampler *s, kt_sample_fn fn, void *arg,
		     uint64_t *lost, struct kt_err *err);
void kt_sampler_close(struct kt_sampler *s);

#endif
