# SPDX-License-Identifier: GPL-2.0
# A panic that has nothing to do with replication.
. /lib.sh
insmod /lib/modules/ktrepl.ko
sync
echo c > /proc/sysrq-trigger
