#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run every real-guest test under prove. One test: tests/vm/t02-vmcore.py
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p build
if [ $# -gt 0 ]; then
	tests=("$@")
else
	tests=(tests/vm/t[0-9]*.py)
fi
exec prove -v --timer -e python3 "${tests[@]}"
