# SPDX-License-Identifier: GPL-2.0
# What `make demo` shows on arm64: every CPU on its node's replica
# (activation=percpu) and a plain workload fetching text locally.
. /lib.sh
say() { printf '\n### %s\n' "$*"; }
run() { echo "\$ $*"; "$@"; echo "(exit $?)"; }
say "load ktrepl.ko: every CPU's TTBR1 moves to its node's tables"
run insmod /lib/modules/ktrepl.ko
head -n1 $D/summary | tr ' ' '\n' | grep -E '^(arch|activation|activation_reason|switch_ns|donated_pages)='
run cat $D/pgds
say "the fleet health check: replicas, every table level, every CPU's root"
run ktrepl-dump --verify
say "busybox loops pinned to every CPU; ktrepl-top, one 2-second frame"
start_load
run ktrepl-top -b -n 1 -d 2 --functions 3
stop_load
say "unload: every CPU back on swapper_pg_dir first"
run rmmod ktrepl
dmesg | grep 'ktrepl: freed'
done_testing
