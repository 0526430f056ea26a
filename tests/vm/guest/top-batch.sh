# SPDX-License-Identifier: GPL-2.0
. /lib.sh
ktrepl-top -b -n 1 -d 0.5
