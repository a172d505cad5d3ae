#!/bin/sh
# t5000: the Python package (python/dehbq) and `dehbq best`.  A study whose
# trainer uses dehbq.trial runs to the end; dehbq best agrees with the
# export; load_study and best read the study; report() refuses what the
# result format cannot hold; intermediate() and should_stop() (live
# trials: a median-stop study whose trainer uses them stops some trials);
# make install puts the package where python3 finds it.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 27

py_with pandas
have_pandas=$?
export PYTHONPATH="$DEHBQ_SRC/python" DEHBQ_CLI="$B/dehbq"
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 7))' 2>/dev/null; then
	for i in $(seq 27); do skip "no python3 >= 3.7 ($PY)"; done
	exit 0
fi

cat >"$T/train.py" <<'TR'
import os, sys
from dehbq import trial
cfg = trial.config()
b = trial.budget()
assert isinstance(b, float) and b > 0, b
assert trial.checkpoint_dir() == os.getcwd(), (trial.checkpoint_dir(), os.getcwd())
assert len(trial.trial_id()) == 8, trial.trial_id()
p = trial.parent_workdir()
assert p is None or os.path.isdir(p), p
with open(os.path.join(trial.checkpoint_dir(), "ck"), "w") as f:
    f.write("%g\n" % b)
loss = (cfg["x"] - 0.3) ** 2 + cfg["layers"] / 100 + 1 / b
trial.report(loss, cost=b, acc=1 - loss, opt=cfg["opt"], nested={"b": b})
TR
mkspec "$T/spec.json" 30
"$B/dehbq" init "$T/s" --spec "$T/spec.json" >/dev/null
"$B/dehbq" best "$T/s" >"$T/out" 2>"$T/err"
check "best before any result exits 100 and says why" \
	sh -c "test $? = 100 && grep -q 'no ok result at the maximum fidelity yet' '$T/err'"
bg "$B/dehbq-orchestrator" "$T/s" 2>"$T/orch.log"
for i in 1 2; do
	bg "$B/dehbq-worker" --study "$T/s" --idle-exit 20 -- "$PY" "$T/train.py" 2>>"$T/workers.log"
done
wait_for 90 test -e "$T/s/FINISHED"
check "a study whose trainer uses dehbq.trial finishes" test -e "$T/s/FINISHED"
"$B/dehbq" trials "$T/s" --state failed --format csv >"$T/out"
check "... with no failed trial" test "$(wc -l <"$T/out")" = 1
[ "$(wc -l <"$T/out")" = 1 ] || tail -5 "$T/workers.log" "$T/out" | sed 's/^/# /'
"$B/dehbq" export "$T/s" --csv "$T/exp.csv"
check "... and the report's info in the export" \
	sh -c "head -1 '$T/exp.csv' | grep -q 'info.acc,info.nested.b,info.opt'"

"$B/dehbq" best "$T/s" >"$T/best.json"
check "dehbq best exits 0" test $? = 0
"$B/dehbq" best "$T/s" --any-fidelity >"$T/bestany.json"
check "dehbq best: the lowest ok loss at the maximum fidelity, and at any" "$PY" -c '
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
top = max(float(r["fidelity"]) for r in rows)
ok = [r for r in rows if r["status"] == "ok"]
want = min(ok, key=lambda r: (float(r["loss"]), r["id"]) if float(r["fidelity"]) == top else (9e9, ""))
wany = min(ok, key=lambda r: (float(r["loss"]), r["id"]))
b, a = json.load(open(sys.argv[2])), json.load(open(sys.argv[3]))
assert b["id"] == want["id"] and b["loss"] == float(want["loss"]), (b, want)
assert b["fidelity"] == top and a["id"] == wany["id"] and a["loss"] <= b["loss"], (a, b)
assert sorted(b["config"]) == ["layers", "opt", "x"] and b["config"]["x"] == float(want["x"]), b
' "$T/exp.csv" "$T/best.json" "$T/bestany.json"
"$B/dehbq" best "$T/s" --bogus 2>"$T/err"
check "dehbq best --bogus exits 100 with the usage" \
	sh -c "test $? = 100 && grep -q 'usage: dehbq best' '$T/err'"
"$B/dehbq" best "$T/nostudy" 2>"$T/err"
check "dehbq best on a missing study exits 100" test $? = 100

check "dehbq.best() is dehbq best" "$PY" -c '
import json, sys, dehbq
assert dehbq.best(sys.argv[1]) == json.load(open(sys.argv[2]))
assert dehbq.best(sys.argv[1], any_fidelity=True) == json.load(open(sys.argv[3]))
' "$T/s" "$T/best.json" "$T/bestany.json"
check "load_study(frame=False): one dict per exported row, string ids" "$PY" -c '
import csv, sys, dehbq
rows = dehbq.load_study(sys.argv[1], frame=False)
exp = list(csv.DictReader(open(sys.argv[2])))
assert [r["id"] for r in rows] == [r["id"] for r in exp], "ids differ"
assert list(rows[0]) == list(exp[0]), (list(rows[0]), list(exp[0]))
assert all(len(r["id"]) == 8 for r in rows) and rows[0]["info.nested.b"] > 0
' "$T/s" "$T/exp.csv"
if [ "$have_pandas" = 0 ]; then
	check "load_study(): a DataFrame with the export's columns and ids kept" "$PY" -c '
import sys, pandas, dehbq
df = dehbq.load_study(sys.argv[1])
ex = pandas.read_csv(sys.argv[2], dtype={"id": str})
assert isinstance(df, pandas.DataFrame) and list(df.columns) == list(ex.columns)
assert list(df["id"]) == list(ex["id"]) and df["id"].iloc[0].startswith("0000")
assert abs(df["loss"].sum() - ex["loss"].sum()) < 1e-9
' "$T/s" "$T/exp.csv"
else
	skip "no python3 with pandas (tried:$PY_TRIED; apt-get install python3-pandas)"
fi
check "load_study of a missing study raises StudyError with dehbq's message" "$PY" -c '
import sys, dehbq
try:
    dehbq.load_study(sys.argv[1] + "/none")
except dehbq.StudyError as e:
    assert "dehbq export" in str(e), e
else:
    raise SystemExit("no error")
' "$T"
check "a missing dehbq command is a StudyError that says what to do" "$PY" -c '
import dehbq
try:
    dehbq.best(".", cli="/nonexistent/dehbq")
except dehbq.StudyError as e:
    assert "/nonexistent/dehbq" in str(e), e
else:
    raise SystemExit("no error")
'

# report() outside a worker, and what it refuses
cd "$T" || exit 1
out=$(env -u DEHBQ_RESULT "$PY" -c 'from dehbq import trial; trial.report(0.5, cost=2, acc=0.9)')
check "report() without DEHBQ_RESULT prints the report" \
	test "$out" = '{"loss": 0.5, "cost": 2.0, "info": {"acc": 0.9}}'
DEHBQ_RESULT="$T/r.json" "$PY" -c 'from dehbq import trial; trial.report(1)'
check "report() writes DEHBQ_RESULT, nothing else" \
	sh -c "test \"\$(cat '$T/r.json')\" = '{\"loss\": 1.0}' && test -z \"\$(ls '$T' | grep 'r.json.tmp')\""
for bad in 'float("nan")' 'float("inf")' '"0.1"' 'True'; do
	DEHBQ_RESULT="$T/bad.json" "$PY" -c "from dehbq import trial; trial.report($bad)" 2>"$T/err"
	rc=$?
	if [ $rc != 0 ] && [ ! -e "$T/bad.json" ] && grep -q "TrialError: loss" "$T/err"; then
		ok "report($bad) raises TrialError, writes nothing"
	else
		not_ok "report($bad) raises TrialError, writes nothing (rc $rc)"
	fi
done
out=$(env -u DEHBQ_RESULT DEHBQ_OBJECTIVES=error,ms "$PY" -c 'from dehbq import trial; print(trial.objectives()); trial.report(objectives={"error": 0.25, "ms": 12}, cost=1)')
check "objectives() lists DEHBQ_OBJECTIVES; report(objectives=...) needs no loss" \
	test "$out" = "['error', 'ms']
{\"objectives\": {\"error\": 0.25, \"ms\": 12.0}, \"cost\": 1.0}"
env -u DEHBQ_RESULT "$PY" -c 'from dehbq import trial; trial.report(objectives={"ms": float("nan")})' 2>"$T/err"
check "report() refuses a NaN objective, naming it" grep -q "TrialError: objective ms" "$T/err"
env -u DEHBQ_CONFIG "$PY" -c 'from dehbq import trial; trial.config()' 2>"$T/err"
check "config() outside a worker names DEHBQ_CONFIG" grep -q "DEHBQ_CONFIG is not set" "$T/err"

# live trials: intermediate() prints a progress line, should_stop() reads
# $DEHBQ_STOP
out=$(env -u DEHBQ_STOP "$PY" -c 'from dehbq import trial; trial.intermediate(0.5, 3, cost=2, acc=0.9); print(trial.should_stop())')
check "intermediate() prints one progress line; should_stop() is False outside a worker" \
	test "$out" = '{"fidelity": 3.0, "loss": 0.5, "cost": 2.0, "info": {"acc": 0.9}}
False'
: >"$T/stopfile"
out=$(DEHBQ_STOP="$T/stopfile" "$PY" -c 'from dehbq import trial; print(trial.should_stop())')
check "should_stop() is True once the file \$DEHBQ_STOP names exists" test "$out" = True
"$PY" -c 'from dehbq import trial; trial.intermediate(0.5, 0)' 2>"$T/err"
check "intermediate() refuses a fidelity of 0, naming it" grep -q "TrialError: fidelity" "$T/err"
# one worker: trials 0-4 complete first; from trial 5 on, the loss (its
# id + 1/epoch) is worse than the completed trials' median at epoch 1, so
# median-stop stops each at its first report, which the trainer waits for
cat >"$T/live.py" <<'TR'
import time
from dehbq import trial
i = int(trial.trial_id())
for e in range(1, round(trial.budget()) + 1):
    trial.intermediate(i + 1 / e, e)
    for _ in range(600 if i >= 5 else 0):
        if trial.should_stop():
            raise SystemExit(0)
        time.sleep(0.1)
trial.report(i + 1 / round(trial.budget()))
TR
mkspec "$T/lspec.json" 20 '{"lease": 5, "poll": 0.1, "stop_grace": 5}'
"$B/dehbq" init "$T/ls" --spec "$T/lspec.json" --scheduler median-stop \
	--searcher random >/dev/null
bg "$B/dehbq-orchestrator" "$T/ls" 2>"$T/lorch.log"
bg "$B/dehbq-worker" --study "$T/ls" --idle-exit 20 -- "$PY" "$T/live.py" 2>>"$T/lworkers.log"
wait_for 120 test -e "$T/ls/FINISHED"
"$B/dehbq" export "$T/ls" --csv "$T/ls.csv" >/dev/null 2>&1
diag "median-stop statuses: $(cut -d, -f11 "$T/ls.csv" | sort | uniq -c | tr '\n' ' ')"
check "median-stop: trials 0-4 complete, every later one is stopped at its first report" \
	awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "status") s = i; if ($i == "reached") r = i } next }
		$1 + 0 < 5 && $s == "ok" { n++ } $1 + 0 >= 5 && $s == "stopped" && $r == 1 { n++ }
		END { exit n != 20 }' "$T/ls.csv"

# make install: the package lands where this python3 looks
if make -s -C "$DEHBQ_SRC" install DESTDIR="$T/inst" PREFIX=/usr/local \
	B="$(dirname "$B")" PYTHON="$PY" >"$T/inst.log" 2>&1; then
	d=$(find "$T/inst" -name __init__.py -path '*dehbq*' | head -1)
	check "make install installs the package, at the release's version" \
		env PYTHONPATH="$(dirname "$(dirname "$d")")" "$PY" -c '
import sys, dehbq
assert dehbq.__file__.startswith(sys.argv[1]), dehbq.__file__
assert dehbq.__version__ == open(sys.argv[2]).read().strip(), dehbq.__version__
' "$T/inst" "$DEHBQ_SRC/VERSION"
else
	not_ok "make install"
	sed 's/^/# /' "$T/inst.log"
fi
