# SPDX-License-Identifier: GPL-2.0
# The TUI inside tmux: screens captured after keys, for the host to check.
#
# TEST: TUI
# - insmod ktrepl.ko activation=workload and start the workers
# - ktrepl-top in a tmux pane on the master node (and this script's
#   polling of the screen there too); once two frames are drawn, the
#   screens after each key: the node view, h (help), c (CPUs), Down,
#   f (functions), p (processes), n 4 (sort), d 2 (delay), a 40x6 window and back, q
#   (the host checks each screen, ktrepl-top's exit status and the
#   terminal's modes after it)
# - stop the workers; rmmod
# Expected log (load_log, unload_log): the load's (no activation line:
# the workers start on a control write) and the unload's, nothing
# between (the TUI and tmux log nothing); checked once tmux is gone.
. /lib.sh
mkdir -p /dev/pts
mount -t devpts devpts /dev/pts
export TERM=xterm HOME=/root LANG=C.UTF-8
start_test "TUI"
want=$(load_log /lib/modules/ktrepl.ko activation=workload)
check "insmod ktrepl.ko" logged insmod /lib/modules/ktrepl.ko activation=workload
echo "set -g default-terminal screen" > /root/.tmux.conf
echo start > $D/workload_ctl
# as in the batch test, the tool's own kernel work stays on the master node
M=$(head -n1 $D/summary | kv master_node)
MC=$(cut -d, -f1 /sys/devices/system/node/node$M/cpulist | cut -d- -f1)
# and so does this script's polling of the screen
taskset -p $((1 << MC)) $$ >/dev/null
# after ktrepl-top exits, show its status and the terminal's modes
check "tmux starts ktrepl-top" taskset -c $MC tmux -u new-session -d -s t -x 100 -y 30 \
	"ktrepl-top -d 0.5; echo TOP-EXIT=\$?; stty -a | tr ' ;' '\n\n' | grep -x -e icanon -e -icanon -e echo -e -echo; sleep 60"
pane() {
	sleep ${2:-1}
	emit "$1" tmux capture-pane -p -t t
}
# wait for two whole frames (startup reads kallsyms, slow under TCG)
i=0
while [ $i -lt 60 ] && ! tmux capture-pane -p -t t | grep -q "frame [2-9]"; do
	sleep 0.5
	i=$((i + 1))
done
pane nodes 0
tmux send-keys -t t h
pane help
tmux send-keys -t t x
tmux send-keys -t t c
pane cpus
tmux send-keys -t t Down
pane scrolled
tmux send-keys -t t Up
tmux send-keys -t t f
pane funcs 1.5
tmux send-keys -t t p
pane procs 1.5
tmux send-keys -t t n 4
pane sorted
tmux send-keys -t t d
sleep 0.5
tmux send-keys -t t 2 Enter
pane delay
tmux resize-window -t t -x 40 -y 6
pane small
tmux resize-window -t t -x 100 -y 30
pane resized
tmux send-keys -t t q
pane after 2
tmux kill-server
echo stop > $D/workload_ctl
check "rmmod ktrepl" logged rmmod ktrepl
check_log "the load's log and the unload's, nothing between" "$want
$(unload_log)"
check_dmesg_clean
done_testing
