#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every JSON golden file is exactly one JSON value (what a consumer parses).
cd "$(dirname "$0")/golden" || exit 1
echo "TAP version 13"
n=0
fail=0
for f in *.json; do
	n=$((n + 1))
	if python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$f" 2>/dev/null; then
		echo "ok $n - golden/$f is one JSON value"
	else
		echo "not ok $n - golden/$f is one JSON value"
		fail=1
	fi
done
echo "1..$n"
exit $fail
