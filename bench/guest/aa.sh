# SPDX-License-Identifier: GPL-2.0
# ktrepl-bench's false-positive rate: AA_RUNS A/A controls (--control,
# both arms without ktrepl.ko), each a separate run with its own rounds.
# bench.py aa counts the nodes flagged significant.
. /lib.sh
B=/lib/modules/ktrepl_bench_text.ko
i=1
while [ $i -le ${AA_RUNS:-20} ]; do
	emit aa ktrepl-bench --quick -j --control --bench-module $B \
		--max-time 8 text
	i=$((i + 1))
done
echo "AA-DONE"
