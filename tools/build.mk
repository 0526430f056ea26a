# SPDX-License-Identifier: GPL-2.0
# Flags and places every userspace part of ktrepl builds with.
#
# Objects and binaries go under OUTPUT (with a trailing slash), never
# into the source tree: OUTPUT=build/tools/ natively (the default) and
# OUTPUT=build/tools-arm64/ for the cross build, each with the same
# layout: lib/ktrepl/libktrepl.a, ktrepl-dump/ktrepl-dump, ...
CC ?= gcc
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Werror -Wno-unused-parameter -std=gnu11 -D_GNU_SOURCE
TOOLS_DIR := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))/
OUTPUT ?= $(abspath $(TOOLS_DIR)../build/tools)/
LIBKTREPL_DIR := $(TOOLS_DIR)lib/ktrepl
LIBKTREPL_OUT := $(OUTPUT)lib/ktrepl/
LIBKTREPL := $(LIBKTREPL_OUT)libktrepl.a
LIBKTREPL_LIBS := -lkdumpfile -lelf -ldw
# the vmcore descriptor layout is shared with the kernel module
KTREPL_SRC ?= $(abspath $(TOOLS_DIR)..)
CFLAGS += -I$(KTREPL_SRC)/kernel/include
# -V/--version; packages pass their own
KTREPL_VERSION ?= $(shell cat $(KTREPL_SRC)/VERSION)
CFLAGS += -DKTREPL_VERSION='"$(KTREPL_VERSION)"'
# header dependencies come from the compiler, as bpftool's do
DEPFLAGS = -MMD -MP
# SANITIZE=1: ASan and UBSan, every report fatal (make sanitize-check)
ifeq ($(SANITIZE),1)
CFLAGS += -fsanitize=address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
endif
