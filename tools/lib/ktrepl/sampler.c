// SPDX-License-Identifier: GPL-2.0
/* perf_event_open sampling of kernel IPs, one ring buffer per CPU. */
#include <errno.h>
#include <stdbool.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sampler.h"

/* 64 data pages: about 5 s of samples at 1 kHz before the kernel drops any */
#define RING_DATA_PAGES 64

struct cpu_ring {
	int cpu;
	int fd;
	void *base;	/* the control page, then the data pages */
	size_t data_size;
};

struct kt_sampler {
	struct cpu_ring *rings;
	int nr;
	const char *event;
	size_t page_size;
};

struct sample_record {
	struct perf_event_header header;
	uint64_t ip;
	uint32_t pid;
	uint32_t tid;
	uint64_t time;
};

struct lost_record {
	struct perf_event_header header;
	uint64_t id;
	uint64_t lost;
};

static int perf_event_open(struct perf_event_attr *attr, int cpu)
{
	return syscall(SYS_perf_event_open, attr, -1, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

static void fill_attr(struct perf_event_attr *attr, bool cycles,
		      unsigned int rate_hz, bool exclude_idle)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	if (cycles) {
		attr->type = PERF_TYPE_HARDWARE;
		attr->config = PERF_COUNT_HW_CPU_CYCLES;
		attr->freq = 1;
		attr->sample_freq = rate_hz;
	} else {
		/* a period in nanoseconds keeps the rate exact, unlike freq */
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = PERF_COUNT_SW_CPU_CLOCK;
		attr->sample_period = 1000000000ULL / rate_hz;
	}
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr->exclude_user = 1;
	attr->exclude_hv = 1;
	/* a halted CPU fetches nothing; where unsupported, tid 0 tells idle */
	attr->exclude_idle = exclude_idle;
}

static int paranoid_level(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int level = 99;

	if (f) {
		if (fscanf(f, "%d", &level) != 1)
			level = 99;
		fclose(f);
	}
	return level;
}

static int open_error(int cpu, int code, struct kt_err *err)
{
	if (code == EACCES || code == EPERM)
		return kt_err_set(err, code,
				  "perf_event_open on CPU %d: %s: sampling kernel code on every CPU needs root or CAP_PERFMON, or kernel.perf_event_paranoid <= 0 (it is %d; see /proc/sys/kernel/perf_event_paranoid)",
				  cpu, strerror(code), paranoid_level());
	if (code == ENOSYS)
		return kt_err_set(err, code,
				  "perf_event_open: this kernel has no perf events (CONFIG_PERF_EVENTS)");
	return kt_err_set(err, code, "perf_event_open on CPU %d: %s", cpu,
			  strerror(code));
}

/*
 * Find what this machine supports on the first CPU: cycles, else
 * cpu-clock; exclude_idle where the event allows it.
 */
static int probe_event(int cpu, unsigned int rate_hz, bool *cycles,
		       bool *exclude_idle, struct kt_err *err)
{
	static const struct {
		bool cycles, exclude_idle;
	} tries[] = { { true, true }, { true, false },
		      { false, true }, { false, false } };
	struct perf_event_attr attr;
	int first_code = 0;
	size_t i;

	for (i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
		int fd;

		fill_attr(&attr, tries[i].cycles, rate_hz,
			  tries[i].exclude_idle);
		fd = perf_event_open(&attr, cpu);
		if (fd >= 0) {
			close(fd);
			*cycles = tries[i].cycles;
			*exclude_idle = tries[i].exclude_idle;
			return 0;
		}
		if (!first_code)
			first_code = errno;
		/* permission is not something another event would fix */
		if (errno == EACCES || errno == EPERM || errno == ENOSYS)
			return open_error(cpu, errno, err);
	}
	return open_error(cpu, first_code, err);
}

static int open_rings(struct kt_sampler *s, const int *cpus, int nr,
		      const struct perf_event_attr *attr, struct kt_err *err)
{
	int i;

	for (i = 0; i < nr; i++) {
		struct cpu_ring *r = &s->rings[i];
		size_t len = (1 + RING_DATA_PAGES) * s->page_size;

		r->cpu = cpus[i];
		r->fd = perf_event_open((struct perf_event_attr *)attr, cpus[i]);
		if (r->fd < 0)
			return open_error(cpus[i], errno, err);
		s->nr = i + 1;
		r->base = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED,
			       r->fd, 0);
		if (r->base == MAP_FAILED) {
			r->base = NULL;
			return kt_err_set(err, errno,
					  "mmap of CPU %d's perf buffer: %s (see /proc/sys/kernel/perf_event_mlock_kb)",
					  cpus[i], strerror(errno));
		}
		r->data_size = RING_DATA_PAGES * s->page_size;
	}
	return 0;
}

static void close_rings(struct kt_sampler *s)
{
	int i;

	for (i = 0; i < s->nr; i++) {
		if (s->rings[i].base)
			munmap(s->rings[i].base,
			       (1 + RING_DATA_PAGES) * s->page_size);
		if (s->rings[i].fd >= 0)
			close(s->rings[i].fd);
		s->rings[i].base = NULL;
		s->rings[i].fd = -1;
	}
	s->nr = 0;
}

int kt_sampler_open(struct kt_sampler **out, const int *cpus, int nr,
		    unsigned int rate_hz, struct kt_err *err)
{
	struct perf_event_attr attr;
	struct kt_sampler *s;
	bool cycles = false, exclude_idle = false;
	int ret;

	*out = NULL;
	if (nr <= 0)
		return kt_err_set(err, EINVAL, "no CPUs to sample");
	if (rate_hz == 0 || rate_hz > 100000)
		return kt_err_set(err, EINVAL,
				  "sample rate %u Hz is outside 1..100000", rate_hz);
	ret = probe_event(cpus[0], rate_hz, &cycles, &exclude_idle, err);
	if (ret)
		return ret;
	s = calloc(1, sizeof(*s));
	if (!s)
		return kt_err_set(err, ENOMEM, "out of memory");
	s->rings = calloc(nr, sizeof(*s->rings));
	if (!s->rings) {
		free(s);
		return kt_err_set(err, ENOMEM, "out of memory");
	}
	s->page_size = sysconf(_SC_PAGESIZE);
	fill_attr(&attr, cycles, rate_hz, exclude_idle);
	ret = open_rings(s, cpus, nr, &attr, err);
	/*
	 * A PMU can run out of counters on some CPU (an emulated one, or one
	 * another profiler holds): every CPU then uses cpu-clock alike.
	 */
	if (ret && cycles && err->code != EACCES && err->code != EPERM) {
		close_rings(s);
		kt_err_clear(err);
		cycles = false;
		fill_attr(&attr, false, rate_hz, exclude_idle);
		ret = open_rings(s, cpus, nr, &attr, err);
	}
	if (ret) {
		kt_sampler_close(s);
		return ret;
	}
	s->event = cycles ? "cycles" : "cpu-clock";
	*out = s;
	return 0;
}

const char *kt_sampler_event(const struct kt_sampler *s)
{
	return s->event;
}

static void drain_ring(struct kt_sampler *s, struct cpu_ring *r,
		       kt_sample_fn fn, void *arg, uint64_t *lost)
{
	struct perf_event_mmap_page *ctl = r->base;
	const uint8_t *data = (const uint8_t *)r->base + s->page_size;
	uint64_t head = __atomic_load_n(&ctl->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = ctl->data_tail;

	while (tail < head) {
		union {
			struct perf_event_header header;
			struct sample_record sample;
			struct lost_record lost;
			uint8_t bytes[256];
		} rec;
		size_t off = tail % r->data_size;
		struct perf_event_header h;
		size_t first;

		memcpy(&h, data + off, sizeof(h));	/* headers never wrap */
		if (h.size < sizeof(h) || tail + h.size > head)
			break;
		if (h.size <= sizeof(rec)) {
			/* a record may wrap around the end of the ring */
			first = r->data_size - off;
			if (first >= h.size) {
				memcpy(&rec, data + off, h.size);
			} else {
				memcpy(&rec, data + off, first);
				memcpy(rec.bytes + first, data, h.size - first);
			}
			if (h.type == PERF_RECORD_SAMPLE &&
			    h.size >= sizeof(rec.sample)) {
				struct kt_sample smp = {
					.ip = rec.sample.ip,
					.time = rec.sample.time,
					.pid = rec.sample.pid,
					.tid = rec.sample.tid,
					.cpu = r->cpu,
				};

				fn(&smp, arg);
			} else if (h.type == PERF_RECORD_LOST &&
				   h.size >= sizeof(rec.lost)) {
				*lost += rec.lost.lost;
			}
		}
		tail += h.size;
	}
	__atomic_store_n(&ctl->data_tail, tail, __ATOMIC_RELEASE);
}

int kt_sampler_drain(struct kt_sampler *s, kt_sample_fn fn, void *arg,
		     uint64_t *lost, struct kt_err *err)
{
	int i;

	for (i = 0; i < s->nr; i++)
		drain_ring(s, &s->rings[i], fn, arg, lost);
	return 0;
}

void kt_sampler_close(struct kt_sampler *s)
{
	if (!s)
		return;
	close_rings(s);
	free(s->rings);
	free(s);
}
