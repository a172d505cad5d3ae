#!/bin/sh
# skipped.sh PROVE-LOG - the suites `make check` skipped, and why.
# Reads the output of `prove --directives` (which prints each SKIP line
# under its script's name) and prints one line per script with skips, so
# a machine without SLURM, sshfs or root says what it did not test
# instead of only "All tests successful".
awk '
/^[^ ]+\.sh \.\.+/ { f = $1; next }
/^(not )?ok [0-9]+ # (SKIP|skip)/ {
	n[f]++
	r = $0
	sub(/^.*# (SKIP|skip) */, "", r)
	if (!(f in why)) { why[f] = r; order[++k] = f }
}
END {
	if (!k) { print "skipped: nothing"; exit }
	print "skipped (these checks did not run here):"
	for (i = 1; i <= k; i++)
		printf "  %s: %d check%s: %s\n", order[i], n[order[i]], n[order[i]] == 1 ? "" : "s", why[order[i]]
}' "$1"
