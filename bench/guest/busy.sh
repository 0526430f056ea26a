# SPDX-License-Identifier: GPL-2.0
# A guest that keeps every vCPU busy until it is killed: the other load
# on the host for bench.py top-busy.
. /lib.sh
start_load
echo "BUSY-STARTED"
sleep 100000
