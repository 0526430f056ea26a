// SPDX-License-Identifier: GPL-2.0
/*
 * The machine a report speaks for: CPU model, nodes, their distances
 * (/sys/devices/system/node/nodeN/distance, the firmware's SLIT), the
 * kernel, and whether the machine is emulated. Under QEMU's TCG every
 * guest instruction is translated and run from the host's memory, so
 * no figure says anything about fetching kernel text from a node: the
 * report marks it. Signs, in order: x86's hypervisor CPUID leaf
 * (0x40000000 names TCG or the hypervisor), DMI's sys_vendor, and on
 * arm64 the device tree QEMU's virt machine builds ("linux,dummy-virt"),
 * which does not say whether KVM or TCG runs it: such a machine counts
 * as emulated.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "bench.h"

#define NODE_SYSFS "/sys/devices/system/node"

/* the whole (small) file at path, NUL-terminated, trailing newline cut */
/* the whole file, or -EFBIG: never a silently cut value */
static int read_small(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	bool more;
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	more = n == len - 1 && fgetc(f) != EOF;
	fclose(f);
	if (more) {
		buf[0] = '\0';
		return -EFBIG;
	}
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

static void cpu_model(struct bench_machine *m)
{
	char line[512], impl[32] = "", part[32] = "";
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(m->cpu_model, sizeof(m->cpu_model), "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');
		char *val;

		if (!colon)
			continue;
		val = colon + 1 + strspn(colon + 1, " \t");
		val[strcspn(val, "\n")] = '\0';
		if (!strncmp(line, "model name", 10)) {
			snprintf(m->cpu_model, sizeof(m->cpu_model), "%s", val);
			break;
		}
		if (!strncmp(line, "CPU implementer", 15) && !impl[0])
			snprintf(impl, sizeof(impl), "%s", val);
		if (!strncmp(line, "CPU part", 8) && !part[0])
			snprintf(part, sizeof(part), "%s", val);
	}
	fclose(f);
	/* arm64's cpuinfo has no model name: MIDR's implementer and part */
	if (!strcmp(m->cpu_model, "unknown") && impl[0])
		snprintf(m->cpu_model, sizeof(m->cpu_model),
			 "implementer %s part %s", impl, part);
}

static void detect_emulation(struct bench_machine *m)
{
	char buf[4096];

	m->hypervisor[0] = '\0';
	m->emulated = false;
#if defined(__x86_64__)
	{
		unsigned int a, b, c, d;
		char sig[13];

		if (__get_cpuid(1, &a, &b, &c, &d) && (c & (1U << 31))) {
			__cpuid(0x40000000, a, b, c, d);
			memcpy(sig, &b, 4);
			memcpy(sig + 4, &c, 4);
			memcpy(sig + 8, &d, 4);
			sig[12] = '\0';
			if (!strcmp(sig, "TCGTCGTCGTCG")) {
				snprintf(m->hypervisor, sizeof(m->hypervisor),
					 "QEMU/TCG");
				m->emulated = true;
				return;
			}
			if (!strncmp(sig, "KVMKVMKVM", 9)) {
				snprintf(m->hypervisor, sizeof(m->hypervisor),
					 "KVM");
				return;
			}
			snprintf(m->hypervisor, sizeof(m->hypervisor),
				 "%s", sig[0] ? sig : "unnamed hypervisor");
		}
	}
#endif
	if (!read_small("/sys/class/dmi/id/sys_vendor", buf, sizeof(buf)) &&
	    !strcmp(buf, "QEMU") && !m->hypervisor[0]) {
		/* QEMU without a KVM signature: its own TCG */
		snprintf(m->hypervisor, sizeof(m->hypervisor), "QEMU");
		m->emulated = true;
		return;
	}
	if (!read_small("/proc/device-tree/compatible", buf, sizeof(buf)) &&
	    !strcmp(buf, "linux,dummy-virt")) {
		snprintf(m->hypervisor, sizeof(m->hypervisor),
			 "QEMU virt (TCG or KVM)");
		m->emulated = true;
	}
}

static int load_nodes(struct bench_machine *m, struct kt_err *err)
{
	unsigned char online[KT_MAX_NODES] = { 0 };
	char buf[4096], path[128];
	int nid, i, j, ret;

	ret = read_small(NODE_SYSFS "/online", buf, sizeof(buf));
	if (ret)
		return kt_err_set(err, -ret, "%s: %s", NODE_SYSFS "/online",
				  strerror(-ret));
	ret = kt_parse_cpulist(buf, online, KT_MAX_NODES);
	if (ret)
		return kt_err_set(err, -ret, "%s: '%s': %s", NODE_SYSFS "/online",
				  buf, ret == -E2BIG ?
				  "a node beyond the tools' limit of 64" :
				  "not a node list");
	m->nr_nodes = 0;
	for (nid = 0; nid < KT_MAX_NODES; nid++) {
		char *p;

		if (!online[nid])
			continue;
		i = m->nr_nodes++;
		m->nodes[i] = nid;
		snprintf(path, sizeof(path), NODE_SYSFS "/node%d/cpulist", nid);
		ret = read_small(path, m->node_cpus[i], sizeof(m->node_cpus[i]));
		if (ret == -EFBIG)
			return kt_err_set(err, EFBIG, "%s: longer than %d bytes",
					  path, BENCH_SYSFS_MAX - 1);
		if (ret)
			m->node_cpus[i][0] = '\0';
		snprintf(path, sizeof(path), NODE_SYSFS "/node%d/meminfo", nid);
		m->node_mem_kb[i] = 0;
		if (!read_small(path, buf, sizeof(buf))) {
			p = strstr(buf, "MemTotal:");
			if (p)
				m->node_mem_kb[i] = strtoull(p + 9, NULL, 10);
		}
	}
	for (i = 0; i < m->nr_nodes; i++) {
		char *p = buf, *end;

		snprintf(path, sizeof(path), NODE_SYSFS "/node%d/distance",
			 m->nodes[i]);
		ret = read_small(path, buf, sizeof(buf));
		for (j = 0; j < m->nr_nodes; j++) {
			long d = ret ? -1 : strtol(p, &end, 10);

			if (!ret && end == p)
				d = -1;
			else if (!ret)
				p = end;
			m->distance[i][j] = (int)d;
		}
	}
	return 0;
}

int bench_machine_load(struct bench_machine *m, struct kt_err *err)
{
	struct utsname u;

	memset(m, 0, sizeof(*m));
	if (uname(&u) == 0) {
		snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
		snprintf(m->arch, sizeof(m->arch), "%s", u.machine);
	}
	cpu_model(m);
	detect_emulation(m);
	return load_nodes(m, err);
}
