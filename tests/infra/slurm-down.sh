#!/usr/bin/env bash
# slurm-down.sh - stop the cluster started by slurm-up.sh (same SLURM_BASE)
#
# Cancels all jobs, then stops slurmd, slurmctld and munged by the PIDs their
# pid files recorded (never by name), escalating to SIGKILL after 5 s.
# Exits 0 when every recorded daemon is gone, 1 otherwise.  Leaves
# $SLURM_BASE in place (the caller removes its temp dir).
set -uo pipefail
: "${SLURM_BASE:?set SLURM_BASE}"
export SLURM_CONF=$SLURM_BASE/slurm.conf

gone() { for _ in $(seq 50); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done; return 1; }
stop_pid() { # stop_pid PIDFILE
	local p
	[ -s "$1" ] || return 0
	p=$(cat "$1")
	if kill -0 "$p" 2>/dev/null; then
		kill -TERM "$p" 2>/dev/null
		gone "$p" || { echo "slurm-down: $p ignored TERM, sending KILL" >&2; kill -KILL "$p" 2>/dev/null; gone "$p"; }
	fi
}

if [ -f "$SLURM_CONF" ] && [ -s "$SLURM_BASE/pids/slurmctld.pid" ] &&
	kill -0 "$(cat "$SLURM_BASE/pids/slurmctld.pid")" 2>/dev/null; then
	timeout 10 /usr/bin/scancel --quiet --full -u root 2>/dev/null || true
	for _ in $(seq 50); do
		[ -z "$(timeout 5 /usr/bin/squeue -h 2>/dev/null)" ] && break
		sleep 0.2
	done
fi
for f in "$SLURM_BASE"/pids/slurmd-*.pid; do
	[ -e "$f" ] && stop_pid "$f"
done
stop_pid "$SLURM_BASE/pids/slurmctld.pid"
stop_pid "$SLURM_BASE/pids/munged.pid"
rc=0
for f in "$SLURM_BASE"/pids/*.pid; do
	[ -s "$f" ] || continue
	if kill -0 "$(cat "$f")" 2>/dev/null; then
		echo "slurm-down: still running: $f ($(cat "$f"))" >&2
		rc=1
	fi
done
exit $rc
