# SPDX-License-Identifier: GPL-2.0
# Flags every userspace part of ktrepl builds with.
CC ?= gcc
CFLAGS ?= -O2 -g
CFLAGS += -Wall -Wextra -Werror -Wno-unused-parameter -std=gnu11 -D_GNU_SOURCE
LIBKTREPL_DIR := $(dir $(lastword $(MAKEFILE_LIST)))lib/ktrepl
LIBKTREPL := $(LIBKTREPL_DIR)/libktrepl.a
LIBKTREPL_LIBS := -lkdumpfile -lelf -ldw
