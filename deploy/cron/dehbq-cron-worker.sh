#!/bin/sh
# dehbq-cron-worker.sh - keep up to N dehbq workers per node alive, from cron
#
# Usage: dehbq-cron-worker.sh [-n N] [-i IDLE] [-l LOGDIR] STUDY -- CMD [ARGS...]
#
# Run it every few minutes from cron (see crontab.example).  Each run:
#   - exits 0 quietly if STUDY/FINISHED exists (the study is over);
#   - tries the N slot files SLOTDIR/KEY.1 .. KEY.N with `flock -n`, where
#     KEY identifies the study; for every free slot it starts one
#     `dehbq-worker --study STUDY --idle-exit IDLE -- CMD ARGS` in the
#     background, holding that slot's lock for its whole life;
#   - exits 0 quietly when all slots are taken.
# So at most N workers for this study run on this node, however often cron
# starts the wrapper, and a worker that exits or crashes frees its slot for
# the next run.  flock locks are local to the node, so SLOTDIR must be a
# local directory: $DEHBQ_SLOT_DIR, else /var/lock/dehbq-slots when it is
# writable (root), else $XDG_RUNTIME_DIR/dehbq-slots, else
# /tmp/dehbq-slots-$USER.
#
# Options: -n N slots (default: the number of CPUs), -i IDLE seconds before
# an idle worker exits (default 300), -l LOGDIR for the workers' logs
# (default SLOTDIR; file KEY.SLOT.log, appended).  $DEHBQ_WORKER names the
# worker binary (default dehbq-worker on PATH; cron's PATH is short).
#
# Output: nothing on success (cron mails any output); one line on stderr
# and exit 100 for bad usage or an unreadable study, 111 when the slot
# directory cannot be made.
set -eu

prog=dehbq-cron-worker
usage() {
	echo "usage: $prog [-n N] [-i IDLE] [-l LOGDIR] STUDY -- CMD [ARGS...]" >&2
	exit 100
}
N=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
IDLE=300
LOGDIR=
while getopts n:i:l:h opt; do
	case $opt in
	n) N=$OPTARG ;;
	i) IDLE=$OPTARG ;;
	l) LOGDIR=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 3 ] && [ "$2" = "--" ] || usage
STUDY=$1
shift 2
case $N in '' | *[!0-9]* | 0) echo "$prog: -n '$N': want a positive integer" >&2; exit 100 ;; esac
case $IDLE in '' | *[!0-9.]*) echo "$prog: -i '$IDLE': want seconds" >&2; exit 100 ;; esac

[ -e "$STUDY/FINISHED" ] && exit 0
if [ ! -r "$STUDY/study.json" ]; then
	echo "$prog: $STUDY/study.json: not readable (not a dehbq study?)" >&2
	exit 100
fi
STUDY=$(cd "$STUDY" && pwd -P)

if [ -n "${DEHBQ_SLOT_DIR:-}" ]; then
	SLOTDIR=$DEHBQ_SLOT_DIR
elif [ -d /var/lock ] && [ -w /var/lock ]; then
	SLOTDIR=/var/lock/dehbq-slots
elif [ -n "${XDG_RUNTIME_DIR:-}" ] && [ -d "$XDG_RUNTIME_DIR" ]; then
	SLOTDIR=$XDG_RUNTIME_DIR/dehbq-slots
else
	SLOTDIR=/tmp/dehbq-slots-${USER:-$(id -un)}
fi
if ! mkdir -p "$SLOTDIR" 2>/dev/null || [ ! -w "$SLOTDIR" ]; then
	echo "$prog: cannot use the slot directory $SLOTDIR" >&2
	exit 111
fi
[ -n "$LOGDIR" ] || LOGDIR=$SLOTDIR
if ! mkdir -p "$LOGDIR" 2>/dev/null; then
	echo "$prog: cannot make the log directory $LOGDIR" >&2
	exit 111
fi
# One key per study path: the last path component plus a checksum of the
# whole path, so two studies never share slots.
KEY=$(basename "$STUDY" | tr -c 'A-Za-z0-9_-' '_').$(printf '%s' "$STUDY" | cksum | cut -d' ' -f1)

i=1
while [ "$i" -le "$N" ]; do
	slot=$SLOTDIR/$KEY.$i
	exec 9>>"$slot"
	if flock -n 9; then
		# The worker inherits fd 9 and with it the lock; this shell
		# closes its copy below, so the slot is free when the worker
		# (and anything it left running) is gone.
		"${DEHBQ_WORKER:-dehbq-worker}" --study "$STUDY" \
			--idle-exit "$IDLE" -- "$@" \
			</dev/null >>"$LOGDIR/$KEY.$i.log" 2>&1 &
	fi
	exec 9>&-
	i=$((i + 1))
done
exit 0
