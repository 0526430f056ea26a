# SPDX-License-Identifier: GPL-2.0
#
# ktrepl top-level build. `make help` lists the targets.

# The kernel the tests run on, by profile (scripts/kernels/NAME.conf):
# 6.1 is the pinned ABI of Debian 12's own series, 6.12 its newer series
# (cloud-amd64, and arm64-16k). make check runs everything on KERNEL and a
# smoke suite on OTHER_KERNEL.
KERNEL ?= 6.1
OTHER_KERNEL ?= $(if $(filter 6.12,$(KERNEL)),6.1,6.12)
KERNEL_PROFILES := $(patsubst scripts/kernels/%.conf,%,$(wildcard scripts/kernels/*.conf))
# Big downloads live here, outside the tree, and survive `make clean`.
KTREPL_CACHE ?= /var/cache/ktrepl

ifeq ($(wildcard scripts/kernels/$(KERNEL).conf),)
$(error no kernel profile KERNEL=$(KERNEL); have: $(KERNEL_PROFILES))
endif
kernel_conf = $(shell sed -n 's/^$(2)=//p' scripts/kernels/$(1).conf)
kernel_headers = $(KTREPL_CACHE)/kernels/$(1)/usr/src/linux-headers-$(1)
KREL_X86 := $(call kernel_conf,$(KERNEL),KERNEL_X86)
KREL_ARM64 := $(call kernel_conf,$(KERNEL),KERNEL_ARM64)

# headers to build against; the module lands in build/kernel-<release>.
# Given KDIR (say /lib/modules/$$(uname -r)/build), the release is the
# name of the Debian headers tree it resolves to.
ifneq ($(filter command line environment,$(origin KDIR)),)
KREL_X86 := $(patsubst linux-headers-%,%,$(notdir $(realpath $(KDIR))))
endif
ifneq ($(filter command line environment,$(origin KDIR_ARM64)),)
KREL_ARM64 := $(patsubst linux-headers-%,%,$(notdir $(realpath $(KDIR_ARM64))))
endif
KDIR ?= $(call kernel_headers,$(KREL_X86))
KDIR_ARM64 ?= $(call kernel_headers,$(KREL_ARM64))
CROSS_COMPILE_ARM64 ?= aarch64-linux-gnu-

PREFIX ?= /usr/local
# make check's module and tool builds, side by side
BUILD_JOBS ?= $(shell nproc)
DESTDIR ?=
BUILD := $(CURDIR)/build

export KTREPL_CACHE
export KTREPL_KERNEL := $(KERNEL)
export KTREPL_OTHER_KERNEL := $(OTHER_KERNEL)

.PHONY: all deps check-deps kernel kernel-arm64 kernel-test kernel-arm64-test kernel-other kernel-every tools tools-arm64 helpers crash-ext crash-ext-arm64 check unit-check mutation-check bench-check vm-check fuzz sanitize-check \
	demo install clean help debug-kernel debug-modules debug-check

all: kernel tools

help:
	@echo "make deps        install every Debian package build and tests need, for KERNEL"
	@echo "make all         module (x86_64) and tools"
	@echo "make kernel      ktrepl.ko for KERNEL=$(KERNEL) ($(KREL_X86)), or KDIR=<headers>"
	@echo "make kernel-arm64  ktrepl.ko cross-built for arm64 ($(KREL_ARM64))"
	@echo "make kernel-test   the test build (fault injection, KTREPL_TEST): tests only, never installed"
	@echo "make kernel-every  ktrepl.ko for both arches of every profile: $(KERNEL_PROFILES)"
	@echo "make tools       ktrepl-dump, ktrepl-top, ktrepl-bench and the shared library"
	@echo "make crash-ext   the crash extension (host arch); crash-ext-arm64 for arm64 dumps"
	@echo "make check       every test (unit + real NUMA guests), TAP"
	@echo "make mutation-check  the library's breaks (tests/mutations.txt): unit-check must fail on each; not in make check"
	@echo "make bench-check   bench/bench.py --check (BENCH=load|scaling|top|...): exit 1 when a goal is missed"
	@echo "make fuzz        the parsers under libFuzzer (FUZZ_SECONDS=$(FUZZ_SECONDS) each)"
	@echo "make demo        boot a 2-node guest and show ktrepl at work"
	@echo "make install     PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)"
	@echo "make clean       remove build output (keeps $(KTREPL_CACHE))"
	@echo "make debug-kernel  an x86_64 6.1 kernel with lockdep, KASAN, kmemleak (cached)"
	@echo "make debug-check   ktrepl.ko's guest suites on it (or make check KTREPL_DEBUG_KERNEL=1)"

deps:
	@scripts/deps.sh $(KERNEL)

# make check: the suite's kernel, the smoke suite's, and every other
# profile the module must build for (t08 builds it for each with DKMS)
check-deps:
	@scripts/deps.sh $(KERNEL) $(filter-out $(KERNEL),$(KERNEL_PROFILES))

# Out-of-tree kbuild writes next to the sources, so each arch builds in
# its own copy of kernel/ to keep x86_64 and arm64 objects apart.
# $(5) is empty for the shipped module, or "test" for the test build
# (fault injection and test parameters, KTREPL_TEST) in kernel-<rel>-test.
define build_module
	@test -f $(2)/Makefile || { echo "error: no kernel headers at $(2);" \
		"set $(3)=<headers tree> or run 'make deps KERNEL=$(KERNEL)'" >&2; exit 2; }
	@mkdir -p $(BUILD)/kernel-$(1)$(if $(5),-$(5))
	@cp -r kernel/. $(BUILD)/kernel-$(1)$(if $(5),-$(5))/
	$(MAKE) -C $(2) M=$(BUILD)/kernel-$(1)$(if $(5),-$(5)) $(4) \
		$(if $(5),KTREPL_TEST=y) modules
endef
ARM64_KBUILD := ARCH=arm64 CROSS_COMPILE=$(CROSS_COMPILE_ARM64)

kernel:
	$(call build_module,$(KREL_X86),$(KDIR),KDIR,)

kernel-arm64:
	$(call build_module,$(KREL_ARM64),$(KDIR_ARM64),KDIR_ARM64,$(ARM64_KBUILD))

# the test build, never installed: what the tests and the demo inject with
kernel-test:
	$(call build_module,$(KREL_X86),$(KDIR),KDIR,,test)

kernel-arm64-test:
	$(call build_module,$(KREL_ARM64),$(KDIR_ARM64),KDIR_ARM64,$(ARM64_KBUILD),test)

# the smoke suite's kernel, both arches, both builds
kernel-other:
	$(MAKE) kernel kernel-arm64 kernel-test kernel-arm64-test KERNEL=$(OTHER_KERNEL)

kernel-every:
	@set -e; for k in $(KERNEL_PROFILES); do \
		$(MAKE) kernel kernel-arm64 KERNEL=$$k; done

# Tools build out of tree, bpftool-style: OUTPUT is where they land.
TOOLS_OUT := $(BUILD)/tools/
TOOLS_ARM64_OUT := $(BUILD)/tools-arm64/

tools:
	$(MAKE) -C tools/ktrepl-dump OUTPUT=$(TOOLS_OUT)
	$(MAKE) -C tools/ktrepl-top OUTPUT=$(TOOLS_OUT)
	$(MAKE) -C tools/ktrepl-bench OUTPUT=$(TOOLS_OUT)

# The arm64 guests run the tools too: the same sources, cross-built.
tools-arm64:
	$(MAKE) -C tools/ktrepl-dump OUTPUT=$(TOOLS_ARM64_OUT) \
		CC=$(CROSS_COMPILE_ARM64)gcc AR=$(CROSS_COMPILE_ARM64)ar
	$(MAKE) -C tools/ktrepl-top OUTPUT=$(TOOLS_ARM64_OUT) \
		CC=$(CROSS_COMPILE_ARM64)gcc AR=$(CROSS_COMPILE_ARM64)ar
	$(MAKE) -C tools/ktrepl-bench OUTPUT=$(TOOLS_ARM64_OUT) \
		CC=$(CROSS_COMPILE_ARM64)gcc AR=$(CROSS_COMPILE_ARM64)ar

# programs the guest scripts run that busybox has no applet for
# (tests/vm/helpers/), for each guest arch; ktvm.helper() finds them
HELPERS_OUT := $(BUILD)/helpers
HELPERS := seccomp_storm
helpers: $(foreach a,x86_64 arm64,$(addprefix $(HELPERS_OUT)/$(a)/,$(HELPERS)))
$(HELPERS_OUT)/x86_64/%: tests/vm/helpers/%.c
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -Wextra -Werror -o $@ $<
$(HELPERS_OUT)/arm64/%: tests/vm/helpers/%.c
	@mkdir -p $(@D)
	$(CROSS_COMPILE_ARM64)gcc -O2 -Wall -Wextra -Werror -o $@ $<

crash-ext: tools
	$(MAKE) -C crash-ext OUTPUT=$(TOOLS_OUT)

# the extension for Debian's arm64 crash (arm64 dumps), against the arm64
# libktrepl; on an x86_64 host tests/vm/ktvm.py runs that crash under
# qemu-aarch64-static (README, "crash on arm64")
crash-ext-arm64: tools-arm64
	$(MAKE) -C crash-ext OUTPUT=$(TOOLS_ARM64_OUT) \
		CRASH_EXT_OUT=$(BUILD)/crash-ext-arm64/ \
		CC=$(CROSS_COMPILE_ARM64)gcc AR=$(CROSS_COMPILE_ARM64)ar

unit-check: tools
	$(MAKE) -C tests/unit check OUTPUT=$(TOOLS_OUT)

# Each break of the library in tests/mutations.txt, one at a time in a
# copy of the tree (with this build's output, so each rebuilds little):
# unit-check must fail on every one. Slow, so not in make check. The
# script runs its own make in the copy, without this one's jobserver;
# MUTATION_ONLY=<regex> runs some, KEEP=1 keeps the copy.
mutation-check: tools
	MAKEFLAGS= MAKELEVEL= tests/mutation-check.sh

# The README's speed goals, judged (noisy under TCG: not in make check)
bench-check: kernel kernel-arm64 kernel-test kernel-arm64-test tools tools-arm64
	MAKEFLAGS= MAKELEVEL= python3 bench/bench.py --check $(BENCH)

# Its twelve builds are independent (each in its own tree): make check
# builds them in parallel, and the guests then run without make's
# jobserver in their environment (t08's dkms runs make itself)
vm-check: kernel kernel-arm64 kernel-test kernel-arm64-test kernel-other tools tools-arm64 helpers crash-ext crash-ext-arm64 \
		$(if $(filter 1,$(KTREPL_DEBUG_KERNEL)),debug-modules)
	MAKEFLAGS= MAKELEVEL= tests/vm/run-all.sh

# every parser of untrusted input under libFuzzer, ASan and UBSan; check
# runs each briefly, FUZZ_SECONDS=N for longer
FUZZ_SECONDS ?= 5
fuzz:
	$(MAKE) -C tests/fuzz fuzz OUTPUT=$(BUILD)/fuzz/ FUZZ_SECONDS=$(FUZZ_SECONDS)

# The library, the tools and the unit tests again under ASan and UBSan,
# and the unit tests run on them. make check also hands the sanitized
# ktrepl-dump to the guest tests, which run it on every vmcore they make
# (t04, KTREPL_SANITIZED_DUMP).
SAN_OUT := $(BUILD)/tools-san/
SAN_DUMP := $(SAN_OUT)ktrepl-dump/ktrepl-dump
sanitize-check:
	$(MAKE) -C tools/ktrepl-dump OUTPUT=$(SAN_OUT) SANITIZE=1
	$(MAKE) -C tools/ktrepl-top OUTPUT=$(SAN_OUT) SANITIZE=1
	ASAN_OPTIONS=$(SAN_OPTIONS) $(MAKE) -C tests/unit check \
		OUTPUT=$(SAN_OUT) OUT=$(BUILD)/unit-san/ SANITIZE=1
# a crash the tools catch on purpose (damaged-dumps.t) stays a signal;
# the library shim those tests preload comes before ASan's runtime
SAN_OPTIONS := handle_segv=0:handle_sigbus=0:verify_asan_link_order=0
# a leak inside libkdumpfile is not ours to fix: tests/lsan.supp
export LSAN_OPTIONS := suppressions=$(CURDIR)/tests/lsan.supp

# make check SANITIZE=1 is make check: the sanitized pass is always in it,
# and the tools the guests run stay unsanitized
MAKEOVERRIDES := $(filter-out SANITIZE=%,$(MAKEOVERRIDES))

# the builds of each step run in parallel; the tests of a step do not
# (prove), except the fuzzers, FUZZ_JOBS at a time (tests/fuzz/run.sh)
check: check-deps
	$(MAKE) -j$(BUILD_JOBS) unit-check
	$(MAKE) -j$(BUILD_JOBS) fuzz
	$(MAKE) -j$(BUILD_JOBS) sanitize-check
	KTREPL_SANITIZED_DUMP=$(SAN_DUMP) ASAN_OPTIONS=$(SAN_OPTIONS) \
		$(MAKE) -j$(BUILD_JOBS) vm-check

# The debug kernel (scripts/debug-kernel.sh): built once into the cache,
# ktrepl.ko (both builds) against its tree, and t15 on it, which skips
# unless KTREPL_DEBUG_KERNEL=1 (so plain make check does not build it)
DEBUG_REL := $(call kernel_conf,built/debug,KERNEL_X86)
debug-kernel:
	@scripts/debug-kernel.sh

debug-modules: debug-kernel
	$(MAKE) kernel kernel-test KDIR=$(call kernel_headers,$(DEBUG_REL))

debug-check: debug-modules tools
	KTREPL_DEBUG_KERNEL=1 tests/vm/run-all.sh tests/vm/t15-debug-kernel.py

demo: deps
	$(MAKE) kernel kernel-arm64 kernel-test kernel-arm64-test tools tools-arm64 crash-ext
	tests/vm/demo.sh

install: all crash-ext
	install -D -m 0755 $(TOOLS_OUT)ktrepl-dump/ktrepl-dump $(DESTDIR)$(PREFIX)/sbin/ktrepl-dump
	install -D -m 0755 $(TOOLS_OUT)ktrepl-top/ktrepl-top $(DESTDIR)$(PREFIX)/sbin/ktrepl-top
	install -D -m 0755 $(TOOLS_OUT)ktrepl-bench/ktrepl-bench $(DESTDIR)$(PREFIX)/sbin/ktrepl-bench
	install -D -m 0644 $(BUILD)/crash-ext/ktrepl.so $(DESTDIR)/usr/lib/crash/extensions/ktrepl.so
	install -D -m 0644 $(BUILD)/kernel-$(KREL_X86)/ktrepl.ko \
		$(DESTDIR)/lib/modules/$(KREL_X86)/extra/ktrepl.ko
	install -D -m 0644 $(BUILD)/kernel-$(KREL_X86)/ktrepl_bench_text.ko \
		$(DESTDIR)/lib/modules/$(KREL_X86)/extra/ktrepl_bench_text.ko
	install -D -m 0644 tools/prometheus/ktrepl-alerts.yml \
		$(DESTDIR)$(PREFIX)/share/ktrepl/prometheus/ktrepl-alerts.yml
	@for m in docs/man/*.8; do [ -f "$$m" ] || continue; \
		install -D -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man8/$$(basename $$m); done

clean:
	rm -rf $(BUILD)
