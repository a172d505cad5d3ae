#!/bin/sh
# t0190-searchers.sh - schedulers x searchers (issue 34): dehbq init
# --scheduler M --searcher S, run to the end in lockstep (one worker,
# --once batches: no timing), and an ASHA snapshot of 0.4, before the
# searcher interface, resuming exactly.
#  (a) --scheduler asha --searcher halton: study.json's optimizer is
#      {"name": "asha", "searcher": "halton"}; the study finishes; the
#      checker accepts it; status.json names the searcher.
#  (b) --searcher halton alone runs under fifo: every trial at the top
#      fidelity.
#  (c) an ASHA state of 0.4 ({"configs", "rng"}) loads as the random
#      searcher's, and the study continues exactly as one never saved in
#      that form (the same final optimiser state).
#  (d) bad pairings and names: one line naming what is possible, exit 100,
#      no study created.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 9
mkspec "$T/spec.json" 30 '{"lease": 600, "poll": 1}'
opt() { python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1]))["optimizer"], sort_keys=True))' "$1/study.json"; }

# (a)
"$B/dehbq" init "$T/a" --spec "$T/spec.json" --scheduler asha --searcher halton >"$T/a.out" 2>&1
check "(a) init --scheduler asha --searcher halton writes optimizer {name: asha, searcher: halton}" \
	test "$(opt "$T/a")" = '{"name": "asha", "searcher": "halton"}'
lockstep_run "$T/a" 0 "$TRAINER"
check "(a) the study finishes, and the independent checker accepts it" \
	sh -c "test -e '$T/a/FINISHED' && python3 '$DEHBQ_SRC/tests/checkstudy.py' '$T/a' --finished >/dev/null"
check "(a) status.json names the searcher" \
	grep -q '"searcher":[[:space:]]*"halton"' "$T/a/state/status.json"

# (b)
"$B/dehbq" init "$T/b" --spec "$T/spec.json" --searcher halton >"$T/b.out" 2>&1
lockstep_run "$T/b" 0 "$TRAINER"
"$B/dehbq" export "$T/b" --csv "$T/b.csv" 2>/dev/null
diag "(b) $(opt "$T/b"); fidelities: $(tail -n +2 "$T/b.csv" | cut -d, -f4 | sort -u | tr '\n' ' ')"
check "(b) --searcher alone runs under fifo: 30 trials, all at fidelity 9" \
	sh -c "test '$(opt "$T/b")' = '{\"name\": \"fifo\", \"searcher\": \"halton\"}' && test \$(tail -n +2 '$T/b.csv' | wc -l) = 30 && test \"\$(tail -n +2 '$T/b.csv' | cut -d, -f4 | sort -u)\" = 9"

# (c) two copies of an ASHA study after 12 steps; in one, the newest
# snapshot's state rewritten as 0.4 wrote it
"$B/dehbq" init "$T/c1" --spec "$T/spec.json" --optimizer asha >/dev/null 2>&1
LS_MAX_STEPS=12 lockstep_run "$T/c1" 0 "$TRAINER"
cp -R "$T/c1" "$T/c2"
cp "$T/c1.orch.log" "$T/c2.orch.log" 2>/dev/null
snap=$(ls "$T/c2/state"/snapshot-*.json | tail -1)
python3 - "$snap" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
st = s["optimizer"]["state"]
assert st["searcher"] == "random", st
s["optimizer"]["state"] = {"configs": st["configs"], "rng": st["search"]["rng"]}
json.dump(s, open(sys.argv[1], "w"))
PY
ls "$T/c2/state"/snapshot-*.json | grep -v "${snap##*/}" | xargs rm -f
lockstep_run "$T/c1" 0 "$TRAINER"
lockstep_run "$T/c2" 0 "$TRAINER"
a=$(optim_state "$T/c1")
b=$(optim_state "$T/c2")
check "(c) an ASHA state of 0.4 loads and the study ends in the same optimiser state" \
	test -e "$T/c2/FINISHED" -a -n "$a" -a "$a" = "$b"

# (d)
bad() { # bad NAME WANT ARGS...: init refuses with exit 100, one line
	n=$1 want=$2
	shift 2
	"$B/dehbq" init "$T/$n" --spec "$T/spec.json" "$@" >"$T/$n.out" 2>&1
	rc=$?
	diag "(d) $*: exit $rc: $(cat "$T/$n.out")"
	test $rc = 100 -a "$(wc -l <"$T/$n.out")" = 1 -a ! -e "$T/$n" &&
		grep -q -- "$want" "$T/$n.out"
}
check "(d) --searcher NAME not a searcher: names the searchers" \
	bad d1 "is not one of random, halton" --searcher sobol
check "(d) --scheduler NAME that takes no searcher: names those that do" \
	bad d2 "is not one of asha, fifo" --scheduler dehb --searcher halton
check "(d) --optimizer NAME that takes no searcher, with --searcher: names those that do" \
	bad d3 "takes no searcher (the schedulers that do: asha, fifo)" --optimizer dehb --searcher halton
check "(d) --scheduler with --optimizer: give one" \
	bad d4 "give one" --scheduler asha --optimizer asha
exit 0
