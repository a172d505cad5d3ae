#!/bin/sh
# run.sh - run every libFuzzer target in BUILD_DIR over its seed corpus.
#   sh fuzz/run.sh BUILD_DIR runs N    # N executions each (make fuzz)
#   sh fuzz/run.sh BUILD_DIR secs S    # S seconds each (make check smoke)
# The committed corpus in fuzz/corpus/NAME is only read; new inputs go to
# a scratch copy.  Prints executions per target; fails on any crash/leak.
set -u
dir=$1
mode=$2
n=$3
status=0
work=$(mktemp -d "${TMPDIR:-/tmp}/dehbq-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
for bin in "$dir"/fuzz_*; do
	[ -x "$bin" ] || continue
	name=${bin##*/fuzz_}
	mkdir -p "$work/$name"
	if [ "$mode" = runs ]; then
		lim="-runs=$n"
	else
		lim="-max_total_time=$n"
	fi
	if "$bin" $lim -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
		"$work/$name" "fuzz/corpus/$name" >"$work/$name.log" 2>&1; then
		execs=$(grep -o 'Done [0-9]* runs' "$work/$name.log" | tail -1 |
			awk '{print $2}')
		[ -n "$execs" ] || execs=$(grep -o '^#[0-9]*' "$work/$name.log" |
			tail -1 | tr -d '#')
		echo "fuzz $name: ok, ${execs:-?} executions, no crash or leak"
	else
		echo "fuzz $name: FAILED"
		tail -40 "$work/$name.log"
		status=1
	fi
done
exit $status
