#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every JSON golden file is exactly one JSON value (what a consumer parses),
# valid against its command's schema (tests/schemas/, from the man pages):
# golden/NAME.json and golden/NAME-CASE.json are ktrepl-dump NAME's output.
cd "$(dirname "$0")/golden" || exit 1
. ../../tap.sh
CHECK=../../json-schema-check
tap_header
files=(*.json)
N=$((2 * ${#files[@]}))
echo "1..$N"
for f in "${files[@]}"; do
	check "golden/$f is one JSON value" \
		python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$f"
	schema=ktrepl-dump-${f%%[-.]*}
	if [ -f "../../schemas/$schema.schema.json" ]; then
		check "golden/$f is valid against $schema" "$CHECK" "$schema" "$f"
	else
		not_ok "golden/$f: no schema $schema.schema.json"
	fi
done
[ "$T_FAIL" = 0 ] && [ "$T_N" = "$N" ]
