#!/bin/sh
# t2010-worker-race.sh - 32 dehbq-worker processes race for 2000 trials
# with a no-op trainer: every trial runs exactly once (counted both by the
# result files and by the trainers themselves), pending/ ends empty and
# every claim has its result.

. "${DEHBQ_SRC:-$(cd "$(dirname "$0")/.." && pwd)}/tests/lib.sh"
PIDS=
trap 'for p in $PIDS; do kill -9 $p 2>/dev/null; done; cleanup' EXIT

WORKERS=${DEHBQ_RACE_WORKERS:-32}
TRIALS=${DEHBQ_RACE_TRIALS:-2000}


cat >"$T/space.json" <<'EOF'
{"format": "dehbq-space/1", "parameters": [
 {"name": "x", "type": "float", "low": 0, "high": 1}]}
EOF
S=$T/s
"$DEHBQ_BIN/dehbq" init "$S" --space "$T/space.json" --min-budget 1 \
	--max-budget 9 --fevals 10 >/dev/null || exit 1
SID=$(sed -n 's/^[[:space:]]*"study":[[:space:]]*"\([^"]*\)".*/\1/p' \
	"$S/study.json")

echo "1..6"

# Publish the trials, rungs 0..2 mixed.  No worker runs yet, so they are
# written in place.
i=1
while [ $i -le "$TRIALS" ]; do
	id=$(printf '%08d' $i)
	rung=$((i % 3))
	printf '{"format": "dehbq-trial/1", "id": "%s", "study": "%s", "epoch": 1, "bracket": 0, "rung": %d, "fidelity": 1, "kind": "trial", "parent": null, "attempt": 1, "created": "2026-11-22T04:30:00.123Z", "seed": %d, "config": {"x": 0.5}, "vector": [0.5]}\n' \
		"$id" "$SID" $rung $i \
		>"$S/pending/$(printf '%02d-%s.json' $((99 - rung)) "$id")"
	i=$((i + 1))
done

# The trainer: record the id, report loss 0.  O_APPEND lines of a few
# bytes on a local disk do not interleave.
LOG=$T/ran.log
: >"$LOG"
start=$(date +%s)
w=0
while [ $w -lt "$WORKERS" ]; do
	"$DEHBQ_BIN/dehbq-worker" --study "$S" --idle-exit 2 --max-poll 0.5 \
		-- sh -c 'echo "$DEHBQ_TRIAL_ID" >>"$0"; echo "{\"loss\": 0}"' \
		"$LOG" 2>"$T/w$w.log" &
	PIDS="$PIDS $!"
	w=$((w + 1))
done
bad=0
for p in $PIDS; do wait "$p" || bad=$((bad + 1)); done
PIDS=
end=$(date +%s)
echo "# $WORKERS workers, $TRIALS trials: $((end - start)) s"

check "every worker exits 0" [ $bad = 0 ]
nres=$(ls "$S/results" | wc -l)
uniq_res=$(ls "$S/results" | cut -c1-8 | sort -u | wc -l)
check "one result per trial ($nres files, $uniq_res ids)" \
	eval '[ "$nres" -eq "$TRIALS" ] && [ "$uniq_res" -eq "$TRIALS" ]'
nran=$(wc -l <"$LOG")
uniq_ran=$(sort -u "$LOG" | wc -l)
check "each trainer ran once ($nran runs, $uniq_ran ids)" \
	eval '[ "$nran" -eq "$TRIALS" ] && [ "$uniq_ran" -eq "$TRIALS" ]'
check "pending/ is empty, nothing quarantined" eval \
	'[ -z "$(ls "$S/pending")" ] && [ -z "$(ls "$S/quarantine")" ]'
ls "$S/claimed" | cut -c1-8 | sort >"$T/claims"
ls "$S/results" | cut -c1-8 | sort >"$T/results"
check "every claim has its result" cmp -s "$T/claims" "$T/results"
check "all results ok" eval '! grep -l "\"status\":[[:space:]]*\"[^o]" \
	"$S"/results/*.json >/dev/null'
if [ "$TAP_FAIL" != 0 ]; then
	head -n 3 "$S"/quarantine/*.reason 2>/dev/null | sed 's/^/# /'
	grep -h ' [WE] ' "$T"/w*.log | head -n 20 | sed 's/^/# /'
	grep -h 'exiting' "$T"/w*.log | sort | uniq -c | sed 's/^/# /'
fi
exit 0
