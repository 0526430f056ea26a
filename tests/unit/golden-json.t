#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every JSON golden file is exactly one JSON value (what a consumer parses).
cd "$(dirname "$0")/golden" || exit 1
. ../../tap.sh
tap_header
for f in *.json; do
	check "golden/$f is one JSON value" \
		python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$f"
done
done_testing
