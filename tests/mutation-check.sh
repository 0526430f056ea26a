#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The unit tests must fail when the library is broken: each mutation of
# tests/mutations.txt (one realistic one-line bug) is made in turn in one
# copy of the tree, and make unit-check must then fail (TAP, one test per
# mutation; a mutation it survives is a missing test). Not in make check:
# every mutation rebuilds the library and runs every unit test.
#
# A block of tests/mutations.txt, blocks apart by blank lines:
#   # what it breaks (the description; the first comment line)
#   file: tools/lib/ktrepl/verify.c
#   old: <text that occurs exactly once in the file, within one line>
#   new: <its replacement>
# (what follows "key: " is taken as it is, leading blanks included)
#
# MUTATION_ONLY=<regex>   only the mutations whose description matches (ERE)
# KEEP=1                  keep the copy and the logs (their place is printed)
# MUTATION_JOBS=<n>       make -j in the copy (default: nproc)
# MUTATION_TIMEOUT=<s>    the time limit of each make (default 1800 s)
# MUTATION_BASELINE=0     skip the first run of unit-check on the unmutated
#                         copy (which shows that a failure is the mutation's)
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd -P)
list=$top/tests/mutations.txt
. "$top/tests/tap.sh"

jobs=${MUTATION_JOBS:-$(nproc)}
limit=${MUTATION_TIMEOUT:-1800}
only=${MUTATION_ONLY:-}
if [ -n "$only" ]; then
	[[ "" =~ $only ]]
	if [ $? -eq 2 ]; then
		echo "error: MUTATION_ONLY='$only' is not an extended regular expression" >&2
		exit 2
	fi
fi
if [ ! -r "$list" ]; then
	echo "error: no $list" >&2
	exit 2
fi

# the blocks, as parallel arrays; why[i] says what is wrong with a block
descs=() files=() olds=() news=() why=()
desc='' file='' old='' new='' has_new=0 keys=0 bad=''
end_block() {
	if [ "$keys" -gt 0 ]; then
		[ -n "$file" ] || bad=${bad:-no file: line}
		[ -n "$old" ] || bad=${bad:-no old: line, or an empty one}
		[ "$has_new" = 1 ] || bad=${bad:-no new: line}
		[ "$old" != "$new" ] || bad=${bad:-old and new are the same}
		descs+=("${desc:-$file: $old}")
		files+=("$file")
		olds+=("$old")
		news+=("$new")
		why+=("$bad")
	fi
	desc='' file='' old='' new='' has_new=0 keys=0 bad=''
}
while IFS= read -r line || [ -n "$line" ]; do
	case $line in
	'')
		end_block
		;;
	'#'*)
		if [ -z "$desc" ]; then
			desc=${line#\#}
			desc=${desc# }
		fi
		;;
	file:* | old:* | new:*)
		key=${line%%:*}
		val=${line#*:}
		val=${val# }
		keys=$((keys + 1))
		case $key in
		file) file=$val ;;
		old) old=$val ;;
		new) new=$val has_new=1 ;;
		esac
		;;
	*)
		keys=$((keys + 1))
		bad=${bad:-a line that is no comment, file:, old: or new:}
		;;
	esac
done <"$list"
end_block

sel=()
for i in "${!descs[@]}"; do
	if [ -z "$only" ] || [[ ${descs[i]} =~ $only ]]; then
		sel+=("$i")
	fi
done

tap_header
if [ ${#descs[@]} -eq 0 ]; then
	echo "Bail out! no mutation in $list"
	exit 1
fi
# a selection that names no mutation (a typo, a description since
# reworded) would otherwise pass having tested nothing
if [ ${#sel[@]} -eq 0 ]; then
	echo "Bail out! MUTATION_ONLY='$only' matches no mutation in $list"
	exit 1
fi
echo "1..${#sel[@]}"

# One copy, with the build's tools and unit test output so that each
# mutation rebuilds only what it touches. The compiler's dependency files
# name the checkout's paths: they are made to name the copy's, so that a
# mutated header rebuilds what includes it.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ktrepl-mutation.XXXXXX") || exit 2
copy=$tmp/tree
cur=''
restore() {
	cp "$tmp/pristine/$1" "$copy/$1"
}
# shellcheck disable=SC2317 # called by the traps
cleanup() {
	[ -z "$cur" ] || restore "$cur"
	if [ "${KEEP:-0}" = 1 ]; then
		echo "# kept the copy: $copy (logs: $tmp/logs)"
	else
		rm -rf "$tmp"
	fi
}
# make runs in the background so that a signal stops the run at once:
# the make under way (timeout's process group) is ended first
child=''
# shellcheck disable=SC2317 # called by the traps
interrupted() {
	if [ -n "$child" ]; then
		kill -TERM "$child" 2>/dev/null
		wait "$child"
	fi
	exit "$1"
}
trap cleanup EXIT
trap 'interrupted 130' INT
trap 'interrupted 143' TERM
mkdir -p "$copy/build" "$tmp/pristine" "$tmp/logs"
shopt -s dotglob nullglob
for p in "$top"/*; do
	case ${p##*/} in
	.git | build) ;;
	*) cp -a "$p" "$copy/" || exit 2 ;;
	esac
done
shopt -u dotglob nullglob
for d in tools unit; do
	if [ -d "$top/build/$d" ]; then
		cp -a "$top/build/$d" "$copy/build/" || exit 2
	fi
done
python3 - "$top" "$copy" <<'EOF' || exit 2
import os
import sys

old, new = sys.argv[1] + "/", sys.argv[2] + "/"
for d, _, names in os.walk(os.path.join(sys.argv[2], "build")):
	for name in names:
		if not name.endswith(".d"):
			continue
		path = os.path.join(d, name)
		with open(path, encoding="utf-8", errors="surrogateescape") as f:
			text = f.read()
		if old not in text:
			continue
		st = os.stat(path)
		with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
			f.write(text.replace(old, new))
		os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
EOF

# make LOG TARGET... in the copy, appending to LOG
run_make() {
	local log=$1 rc
	shift
	timeout -k 30 "$limit" make -C "$copy" -j"$jobs" "$@" >>"$log" 2>&1 &
	child=$!
	wait "$child"
	rc=$?
	child=''
	return "$rc"
}

# apply FILE OLD NEW: replace the one occurrence of OLD, literally; else
# print how many there are and fail
apply() {
	python3 - "$@" <<'EOF'
import sys

path, old, new = sys.argv[1:4]
with open(path, encoding="utf-8", errors="surrogateescape", newline="") as f:
	text = f.read()
n = text.count(old)
if n != 1:
	print(n)
	sys.exit(3)
with open(path, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
	f.write(text.replace(old, new, 1))
EOF
}

# the failing assertions in LOG, each after the test program it is from
failures() {
	awk '/^[^ #].* \.\. *$/ { t = $1; sub(/.*\//, "", t) }
	     /^not ok / { print "#   " (t ? t ": " : "") $0 }' "$1" | head -n 5
}

tail_of() {
	tail -n 15 "$1" | sed 's/^/#   /'
}

if [ "${MUTATION_BASELINE:-1}" != 0 ]; then
	log=$tmp/logs/baseline.log
	if ! run_make "$log" unit-check; then
		echo "# make unit-check fails on the unmutated copy; its log's end:"
		tail_of "$log"
		echo "Bail out! unit-check must pass before a mutation can prove anything"
		exit 1
	fi
	echo "# make unit-check passes on the unmutated copy"
fi

for i in "${sel[@]}"; do
	d=${descs[i]}
	f=${files[i]}
	log=$tmp/logs/$((T_N + 1)).log
	if [ -n "${why[i]}" ]; then
		not_ok "$d # a malformed block: ${why[i]}"
		continue
	fi
	if [ ! -f "$copy/$f" ]; then
		not_ok "$d # the mutation no longer applies"
		echo "#   no file $f"
		continue
	fi
	if [ ! -e "$tmp/pristine/$f" ]; then
		mkdir -p "$(dirname "$tmp/pristine/$f")"
		cp -p "$copy/$f" "$tmp/pristine/$f" || exit 2
	fi
	restore "$f"
	cur=$f
	if ! n=$(apply "$copy/$f" "${olds[i]}" "${news[i]}"); then
		restore "$f"
		cur=''
		not_ok "$d # the mutation no longer applies"
		echo "#   'old' occurs ${n:-?} times in $f, not once"
		continue
	fi
	# a mutation that does not compile proves nothing about the tests
	if ! run_make "$log" tools; then
		not_ok "$d # the mutated library does not build"
		tail_of "$log"
	else
		rc=0
		run_make "$log" unit-check || rc=$?
		if [ "$rc" -ne 0 ]; then
			ok "$d: unit-check fails"
			case $rc in
			124 | 137)
				echo "#   (make ran out of its $limit s)"
				;;
			esac
			failures "$log"
		else
			not_ok "$d: survived (a missing test)"
			tail_of "$log"
		fi
	fi
	restore "$f"
	cur=''
done
exit $((T_FAIL > 0))
