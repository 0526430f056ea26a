// SPDX-License-Identifier: GPL-2.0
/* perf_event_open sampling of kernel IPs, one ring buffer per CPU. */
#include <errno.h>
#include <stdbool.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lockdown.h"
#include "sampler.h"

/* older uapi headers: Linux 5.8 */
#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif

/* 64 data pages: about 8 s of samples at 1 kHz before the kernel drops any */
#define RING_DATA_PAGES 64

struct cpu_ring {
	int cpu;
	int fd;
	void *base;	/* the control page, then the data pages */
	size_t data_size;
	uint64_t lost_read;	/* the event's lost count at the last drain */
};

struct kt_sampler {
	struct cpu_ring *rings;
	int nr;
	enum kt_sampler_event event;
	bool exclude_idle;
	/*
	 * PERF_FORMAT_LOST (Linux 6.0): the kernel counts a lost sample when
	 * it drops it. Its loss records come only once the buffer has room
	 * again, a drain later, so they would land in the next frame.
	 */
	bool lost_by_read;
	size_t page_size;
	unsigned int ring_pages;
};

/* what drain_ring() reads a record into: no record it uses is larger */
#define LARGEST_RECORD 256

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

/*
 * Opened disabled: nothing is sampled until the caller is ready to
 * count, so no start-up backlog lands in its first frame.
 */
static void fill_attr(struct perf_event_attr *attr, enum kt_sampler_event ev,
		      unsigned int rate_hz, bool exclude_idle)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	if (ev == KT_EVENT_CYCLES) {
		attr->type = PERF_TYPE_HARDWARE;
		attr->config = PERF_COUNT_HW_CPU_CYCLES;
		attr->freq = 1;
		attr->sample_freq = rate_hz;
	} else {
		/* a period in nanoseconds makes the rate the one asked for */
		attr->type = PERF_TYPE_SOFTWARE;
		attr->config = PERF_COUNT_SW_CPU_CLOCK;
		attr->sample_period = 1000000000ULL / rate_hz;
	}
	attr->sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	attr->exclude_user = 1;
	attr->exclude_hv = 1;
	attr->exclude_idle = exclude_idle;
	attr->disabled = 1;
	attr->read_format = PERF_FORMAT_LOST;
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

bool kt_sampler_privileged(void)
{
	return geteuid() == 0 || kt_have_cap(CAP_PERFMON) ||
	       kt_have_cap(CAP_SYS_ADMIN);
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
 * Check the event on the first CPU. cpu-clock samples idle CPUs too (the
 * idle task's samples are told apart by tid 0), so every CPU delivers
 * its rate and the achieved rate measures the sampler alone. cycles
 * excludes idle where the PMU can: a halted CPU counts no cycles.
 */
static int probe_event(int cpu, const struct kt_sampler_opts *o,
		       bool *exclude_idle, bool *lost_by_read,
		       struct kt_err *err)
{
	struct perf_event_attr attr;
	int code, fd;

	*exclude_idle = o->event == KT_EVENT_CYCLES;
	*lost_by_read = true;
	for (;;) {
		fill_attr(&attr, o->event, o->rate_hz, *exclude_idle);
		if (!*lost_by_read)
			attr.read_format = 0;
		fd = perf_event_open(&attr, cpu);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		code = errno;
		if (code == EINVAL && *lost_by_read) {
			*lost_by_read = false;	/* before Linux 6.0 */
			continue;
		}
		/* permission is not something another setting would fix */
		if (!*exclude_idle || code == EACCES || code == EPERM ||
		    code == ENOSYS)
			break;
		*exclude_idle = false;
	}
	if (o->event == KT_EVENT_CYCLES &&
	    (code == ENOENT || code == EOPNOTSUPP || code == ENODEV))
		return kt_err_set(err, code,
				  "perf_event_open on CPU %d: no hardware cycles event here (%s): use the cpu-clock event",
				  cpu, strerror(code));
	return open_error(cpu, code, err);
}

static int open_rings(struct kt_sampler *s, const int *cpus, int nr,
		      const struct perf_event_attr *attr, struct kt_err *err)
{
	int i;

	for (i = 0; i < nr; i++) {
		struct cpu_ring *r = &s->rings[i];
		size_t len = (1 + s->ring_pages) * s->page_size;

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
		r->data_size = s->ring_pages * s->page_size;
	}
	return 0;
}

static void close_rings(struct kt_sampler *s)
{
	int i;

	for (i = 0; i < s->nr; i++) {
		if (s->rings[i].base)
			munmap(s->rings[i].base,
			       (1 + s->ring_pages) * s->page_size);
		if (s->rings[i].fd >= 0)
			close(s->rings[i].fd);
		s->rings[i].base = NULL;
		s->rings[i].fd = -1;
	}
	s->nr = 0;
}

int kt_sampler_open(struct kt_sampler **out, const int *cpus, int nr,
		    const struct kt_sampler_opts *o, struct kt_err *err)
{
	struct perf_event_attr attr;
	unsigned int pages = o->ring_pages ? o->ring_pages : RING_DATA_PAGES;
	struct kt_sampler *s;
	bool exclude_idle, lost_by_read;
	int ret;

	*out = NULL;
	if (nr <= 0)
		return kt_err_set(err, EINVAL, "no CPUs to sample");
	if (o->rate_hz == 0 || o->rate_hz > 100000)
		return kt_err_set(err, EINVAL,
				  "sample rate %u Hz is outside 1..100000",
				  o->rate_hz);
	if (pages & (pages - 1))
		return kt_err_set(err, EINVAL,
				  "%u ring pages: perf needs a power of two",
				  pages);
	ret = probe_event(cpus[0], o, &exclude_idle, &lost_by_read, err);
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
	s->ring_pages = pages;
	s->event = o->event;
	s->exclude_idle = exclude_idle;
	s->lost_by_read = lost_by_read;
	fill_attr(&attr, o->event, o->rate_hz, exclude_idle);
	if (!lost_by_read)
		attr.read_format = 0;
	ret = open_rings(s, cpus, nr, &attr, err);
	if (ret) {
		kt_sampler_close(s);
		return ret;
	}
	*out = s;
	return 0;
}

int kt_sampler_enable(struct kt_sampler *s, struct kt_err *err)
{
	int i;

	for (i = 0; i < s->nr; i++)
		if (ioctl(s->rings[i].fd, PERF_EVENT_IOC_ENABLE, 0))
			return kt_err_set(err, errno,
					  "enabling sampling on CPU %d: %s",
					  s->rings[i].cpu, strerror(errno));
	return 0;
}

const char *kt_sampler_event_name(enum kt_sampler_event ev)
{
	return ev == KT_EVENT_CYCLES ? "cycles" : "cpu-clock";
}

int kt_sampler_event_parse(const char *name, enum kt_sampler_event *ev)
{
	if (!strcmp(name, "cpu-clock"))
		*ev = KT_EVENT_CPU_CLOCK;
	else if (!strcmp(name, "cycles"))
		*ev = KT_EVENT_CYCLES;
	else
		return -1;
	return 0;
}

const char *kt_sampler_event(const struct kt_sampler *s)
{
	return kt_sampler_event_name(s->event);
}

bool kt_sampler_samples_idle(const struct kt_sampler *s)
{
	return !s->exclude_idle;
}

static void drain_ring(struct kt_sampler *s, struct cpu_ring *r,
		       kt_sample_fn fn, void *arg, struct kt_sampler_counts *c)
{
	struct perf_event_mmap_page *ctl = r->base;
	const uint8_t *data = (const uint8_t *)r->base + s->page_size;
	uint64_t head = __atomic_load_n(&ctl->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = ctl->data_tail;
	/*
	 * The kernel loses a sample only when the ring has no room for it.
	 * Only this drain frees room, so a ring that holds less than a full
	 * ring's worth, less the largest record, now never filled since the
	 * last drain: nothing was lost, and the lost count need not be read.
	 * That read is an IPI to the event's CPU (perf_event_read()): a
	 * fifth of ktrepl-top's own time under TCG, 4 CPUs, 1 kHz.
	 */
	bool may_have_lost = head - tail + LARGEST_RECORD > r->data_size;

	while (tail < head) {
		union {
			struct perf_event_header header;
			struct sample_record sample;
			struct lost_record lost;
			uint8_t bytes[LARGEST_RECORD];
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
				if (!s->lost_by_read)
					c->lost += rec.lost.lost;
				may_have_lost = true;
			} else if (h.type == PERF_RECORD_THROTTLE) {
				c->throttles++;
			}
		}
		tail += h.size;
	}
	__atomic_store_n(&ctl->data_tail, tail, __ATOMIC_RELEASE);
	if (s->lost_by_read && may_have_lost) {
		struct {
			uint64_t value;
			uint64_t lost;
		} rf;

		/* a failed read leaves the count for the next drain */
		if (read(r->fd, &rf, sizeof(rf)) == sizeof(rf) &&
		    rf.lost >= r->lost_read) {
			c->lost += rf.lost - r->lost_read;
			r->lost_read = rf.lost;
		}
	}
}

int kt_sampler_drain(struct kt_sampler *s, kt_sample_fn fn, void *arg,
		     struct kt_sampler_counts *counts, struct kt_err *err)
{
	int i;

	for (i = 0; i < s->nr; i++)
		drain_ring(s, &s->rings[i], fn, arg, counts);
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
