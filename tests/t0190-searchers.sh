#!/bin/sh
# t0190-searchers.sh - schedulers x searchers (issue 34): dehbq init
# --scheduler M --searcher S, run to the end in lockstep (one worker,
# --once batches: no timing), and an ASHA snapshot of 0.3, before the
# searcher interface, resuming exactly.
#  (a) --scheduler asha --searcher halton: study.json's optimizer is
#      {"name": "asha", "searcher": "halton"}; the study finishes; the
#      checker accepts it; status.json names the searcher.
#  (b) --searcher halton alone runs under fifo: every trial at the top
#      fidelity.
#  (c) an ASHA state of 0.3 ({"configs", "rng"}) loads as the random
#      searcher's, and the study continues exactly as one never saved in
#      that form (the same final optimiser state).
#  (d) bad pairings and names: one line naming what is possible, exit 100,
#      no study created (a searcher that cannot rescore, in a
#      multi-objective study, too).
#  (e) runtime.prefetch: 0 by default for an optimiser that proposes from
#      every result (tpe: one worker then runs a sequential study, each
#      trial issued after the last result was told), 1 for the rest; the
#      spec's value or --prefetch wins; --max-inflight is recorded.
#  (f) tpe is a searcher, and the preset tpe is it under a scheduler:
#      --scheduler asha --searcher tpe writes the searcher's settings
#      (optimizer.search) and prefetch 0, and runs the very study that
#      --optimizer tpe --multi-fidelity asha runs (the same trials and
#      the same final optimiser state, but for the name); a bad search
#      setting is refused naming it.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 16
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
# snapshot's state rewritten as 0.3 wrote it
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
check "(c) an ASHA state of 0.3 loads and the study ends in the same optimiser state" \
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
	bad d2 "is not one of sh, hyperband, asha, fifo" --scheduler dehb --searcher halton
check "(d) --optimizer NAME that takes no searcher, with --searcher: names those that do" \
	bad d3 "takes no searcher (the schedulers that do: sh, hyperband, asha, fifo, asha-stop, hyperband-stop, median-stop, pbt)" --optimizer dehb --searcher halton
check "(d) --scheduler with --optimizer: give one" \
	bad d4 "give one" --scheduler asha --optimizer asha
check "(d) a multi-objective study with a scheduler that cannot rescore: names those that can" \
	bad d5 "asha-stop cannot run a multi-objective study (use dehb, random" --scheduler asha-stop --searcher gcp --objective a --objective b

# (e)
rt() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runtime"]; print(r["prefetch"], r["max_inflight"])' "$1/study.json"; }
mkspec "$T/spec-e.json" 8 '{"lease": 600, "poll": 1}'
mkspec "$T/spec-e1.json" 8 '{"lease": 600, "poll": 1, "prefetch": 1}'
"$B/dehbq" init "$T/e1" --spec "$T/spec-e.json" --optimizer tpe >"$T/e1.out" 2>&1
"$B/dehbq" init "$T/e2" --spec "$T/spec-e.json" >/dev/null 2>&1
"$B/dehbq" init "$T/e3" --spec "$T/spec-e1.json" --optimizer tpe >/dev/null 2>&1
"$B/dehbq" init "$T/e4" --spec "$T/spec-e.json" --optimizer tpe --prefetch 2 --max-inflight 3 >/dev/null 2>&1
diag "(e) prefetch, max_inflight: tpe $(rt "$T/e1"), dehb $(rt "$T/e2"), tpe with the spec's 1: $(rt "$T/e3"), tpe --prefetch 2 --max-inflight 3: $(rt "$T/e4")"
check "(e) prefetch 0 for tpe (said at init), 1 for dehb; the spec's or --prefetch's value wins; --max-inflight recorded" \
	sh -c "test '$(rt "$T/e1")' = '0 0' -a '$(rt "$T/e2")' = '1 0' -a '$(rt "$T/e3")' = '1 0' -a '$(rt "$T/e4")' = '2 3' && grep -q '^prefetch 0: tpe proposes from every result' '$T/e1.out'"
check "(e) --prefetch -1: refused, naming the range" \
	bad e5 "is not an integer in 0..100000" --prefetch -1
# one worker, prefetch 0: never two trials in flight (-v logs each issue)
bg "$B/dehbq-orchestrator" -v "$T/e1" 2>"$T/e1.orch.log"
"$B/dehbq-worker" --study "$T/e1" --idle-exit 600 -- sh -c "$TRAINER" 2>"$T/e1.w.log"
seq=$(python3 - "$T/e1.orch.log" <<'PY'
import re, sys
inflight = most = issued = 0
for l in open(sys.argv[1]):
    if re.search(r"trial=\d+ issued", l):
        inflight += 1; issued += 1; most = max(most, inflight)
    elif re.search(r"trial=\d+ attempt=\d+ told", l):
        inflight -= 1
print(issued, most)
PY
)
diag "(e) tpe, one worker, prefetch 0: trials issued, most in flight at once: $seq"
check "(e) ... a sequential study: 8 trials, never two in flight" test "$seq" = "8 1"

# (f)
"$B/dehbq" init "$T/f1" --spec "$T/spec.json" --scheduler asha --searcher tpe >"$T/f1.out" 2>&1
# prefetch 1: lockstep batches (--once) issue before any worker asks
"$B/dehbq" init "$T/f1p" --spec "$T/spec.json" --scheduler asha --searcher tpe --prefetch 1 >/dev/null 2>&1
"$B/dehbq" init "$T/f2" --spec "$T/spec.json" --optimizer tpe --multi-fidelity asha --prefetch 1 >/dev/null 2>&1
diag "(f) $(opt "$T/f1") / $(opt "$T/f2"); $(grep prefetch "$T/f1.out")"
check "(f) --scheduler asha --searcher tpe: the searcher's settings in optimizer.search, prefetch 0" \
	sh -c "test '$(opt "$T/f1")' = '{\"name\": \"asha\", \"search\": {\"constant_liar\": false, \"hypervolume_weights\": false, \"multivariate\": false, \"n_ei_candidates\": 24, \"n_startup_trials\": 10, \"prior_weight\": 1}, \"searcher\": \"tpe\"}' && grep -q '^prefetch 0: asha with searcher tpe proposes' '$T/f1.out'"
lockstep_run "$T/f1p" 0 "$TRAINER"
lockstep_run "$T/f2" 0 "$TRAINER"
a=$(optim_state "$T/f1p" | sed 's/"name": "asha"/"name": "tpe"/')
b=$(optim_state "$T/f2")
"$B/dehbq" export "$T/f1p" --csv "$T/f1.csv" 2>/dev/null
"$B/dehbq" export "$T/f2" --csv "$T/f2.csv" 2>/dev/null
cut -d, -f1-6 "$T/f1.csv" >"$T/f1.cut"
cut -d, -f1-6 "$T/f2.csv" >"$T/f2.cut"
diag "(f) trials: $(($(wc -l <"$T/f1.cut") - 1)), $(($(wc -l <"$T/f2.cut") - 1))"
check "(f) ... and runs the study tpe --multi-fidelity asha runs: the same trials, the same final state" \
	sh -c "test -e '$T/f1p/FINISHED' -a -e '$T/f2/FINISHED' -a -n '$a' && test '$a' = '$b' && cmp -s '$T/f1.cut' '$T/f2.cut' && test \$(wc -l <'$T/f1.cut') -gt 20"
python3 - "$T/spec.json" "$T/spec-f.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["optimizer"] = {"name": "fifo", "searcher": "tpe", "search": {"n_startup_trials": 0}}
json.dump(s, open(sys.argv[2], "w"))
PY
"$B/dehbq" init "$T/f3" --spec "$T/spec-f.json" >"$T/f3.out" 2>&1
rc=$?
diag "(f) a bad search setting: exit $rc: $(cat "$T/f3.out")"
check "(f) a bad search setting is refused, naming it" \
	sh -c "test $rc = 100 -a ! -e '$T/f3' && grep -q 'optimizer.search.n_startup_trials: must be' '$T/f3.out'"
exit 0
