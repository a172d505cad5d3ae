#!/bin/sh
# unit.sh CHECK_MAIN LOGDIR SUITE... - run the unit suites, each in its own
# process, as many at once as the machine has cores (UNIT_JOBS overrides).
# SUITE:CASE runs one test case of a suite (a slow suite in parts).
#
# Every suite's output goes to LOGDIR/SUITE.log.  Then, in the order given,
# one line per suite: its Check summary, and the whole log of a suite that
# failed.  Exits 1 if any suite failed or did not say how it ended.
#
# The suites share nothing on disk (each check makes its own mkdtemp
# directory) and none decides by time, so running them side by side only
# changes how long `make check` takes.  List the slowest first: they start
# first, and the short ones fill the other cores.
set -u
bin=$1 dir=$2
shift 2
jobs=${UNIT_JOBS:-$(nproc 2>/dev/null || echo 2)}
mkdir -p "$dir"
rm -f "$dir"/*.log "$dir"/*.rc
printf '%s\n' "$@" | xargs -P "$jobs" -I{} sh -c '
	s=${1%%:*} c=${1#*:} f=$(echo "$1" | tr : .)
	[ "$c" != "$1" ] && export CK_RUN_CASE="$c"
	CK_RUN_SUITE=$s "$2" >"$3/$f.log" 2>&1
	echo $? >"$3/$f.rc"' sh {} "$bin" "$dir"
bad=0 checks=0
for s in "$@"; do
	f=$(echo "$s" | tr : .)
	sum=$(grep -E '^[0-9]+%: Checks: ' "$dir/$f.log" 2>/dev/null | tail -1)
	rc=$(cat "$dir/$f.rc" 2>/dev/null || echo none)
	printf '%-14s %s\n' "$s" "${sum:-no summary (exit $rc)}"
	n=$(echo "$sum" | sed -n 's/^.*Checks: \([0-9]*\),.*$/\1/p')
	checks=$((checks + ${n:-0}))
	if [ "$rc" != 0 ] || [ -z "$sum" ]; then
		bad=$((bad + 1))
		echo "--- $s failed (exit $rc); its log:"
		cat "$dir/$f.log"
		echo "--- end of $s"
	fi
done
if [ $bad -ne 0 ]; then
	echo "unit suites: $bad of $# failed ($checks checks ran)"
	exit 1
fi
echo "unit suites: all $# passed, $checks checks, $jobs at a time"
