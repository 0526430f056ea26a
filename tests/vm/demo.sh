#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make demo`: boot a 2-node x86_64 guest, load ktrepl.ko and show what it
# publishes.
set -euo pipefail
cd "$(dirname "$0")/../.."
mkdir -p build
exec python3 tests/vm/demo.py "$@"
