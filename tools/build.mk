# SPDX-License-Identifier: GPL-2.0
# Flags every userspace part of ktrepl builds with.
CC ?= gcc
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Werror -Wno-unused-parameter -std=gnu11 -D_GNU_SOURCE
TOOLS_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
LIBKTREPL_DIR := $(TOOLS_DIR)lib/ktrepl
# the vmcore descriptor layout is shared with the kernel module
KTREPL_SRC ?= $(abspath $(TOOLS_DIR)..)
CFLAGS += -I$(KTREPL_SRC)/kernel/include
LIBKTREPL := $(LIBKTREPL_DIR)/libktrepl.a
LIBKTREPL_LIBS := -lkdumpfile -lelf -ldw
