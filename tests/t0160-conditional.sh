#!/bin/sh
# t0160: a conditional search space (ConfigSpace 1.x JSON with EQ, OR,
# AND, NEQ and LT conditions) through a real study: a parameter whose
# condition does not hold never reaches the trainer, neither in {config}
# nor in DEHBQ_P_*, and every active one does; the trial files leave it
# out; export leaves its cell empty.  With dehb and with tpe.  Then
# forbidden clauses: a forbidden configuration never reaches a worker.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 14

cat >"$T/trainer.py" <<'TR'
import json, os, sys
cfg = json.load(open(sys.argv[1]))
env = {k[8:].lower(): v for k, v in os.environ.items() if k.startswith("DEHBQ_P_")}
k, shrink = cfg["kernel"], cfg["shrink"]
want = {"kernel", "shrink", "tol"}
if k == "poly": want |= {"degree"}
if k in ("poly", "sigmoid"): want |= {"coef0"}
if k != "linear" and shrink != "high": want |= {"gamma"}
if set(cfg) != want or set(env) != want:
    print("bad config %s / env %s, want %s" % (sorted(cfg), sorted(env), sorted(want)), file=sys.stderr)
    sys.exit(3)
loss = {"linear": 0.5, "poly": 0.3, "rbf": 0.2, "sigmoid": 0.4}[k] + cfg["tol"]
print(json.dumps({"loss": loss, "cost": float(os.environ["DEHBQ_BUDGET"])}))
TR
for opt in dehb tpe; do
	"$B/dehbq" init "$T/$opt" --space "$DEHBQ_SRC/tests/data/space_cs_conditions_1x.json" \
		--min-budget 1 --max-budget 9 --fevals 40 --optimizer "$opt" --poll 0.1 \
		>/dev/null 2>"$T/init.err"
	bg "$B/dehbq-orchestrator" "$T/$opt" 2>"$T/$opt.orch.log"
	bg "$B/dehbq-worker" --study "$T/$opt" --idle-exit 10 -- python3 "$T/trainer.py" {config} \
		2>"$T/$opt.w.log"
	wait_for 90 test -e "$T/$opt/FINISHED"
	check "$opt: a conditional study finishes" test -e "$T/$opt/FINISHED"
	n=$(ls "$T/$opt"/archive/0000/*.result.json 2>/dev/null | wc -l)
	nf=$(grep -l '"status": *"failed"' "$T/$opt"/archive/0000/*.result.json 2>/dev/null | wc -l)
	check "$opt: $n trials, none failed: inactive parameters never reached the trainer" \
		sh -c "test $n = 40 && test $nf = 0"
	[ "$nf" = 0 ] || { grep -h "bad config" "$T/$opt"/logs/*/* 2>/dev/null | head -3 | sed 's/^/# /'; }
	check "$opt: trial files leave inactive parameters out" python3 -c '
import glob, json, sys
seen = set()
for f in glob.glob(sys.argv[1] + "/archive/0000/*.trial.json"):
    t = json.load(open(f))
    c = t["config"]
    seen.add(("degree" in c, "gamma" in c))
    assert ("degree" in c) == (c["kernel"] == "poly"), c
    assert len(t["vector"]) == 6
assert len(seen) >= 3, seen  # several activity patterns occurred
' "$T/$opt"
done
"$B/dehbq" export "$T/dehb" --csv "$T/exp.csv" 2>/dev/null
check "export: an inactive parameter's cell is empty" python3 -c '
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert rows and all((r["degree"] == "") == (r["kernel"] != "poly") for r in rows), rows[:2]
' "$T/exp.csv"
"$B/dehbq" validate "$DEHBQ_SRC/tests/data/space_cs_conditions_0.4.json" >"$T/out"
check "validate accepts ConfigSpace 0.4 JSON with conditions" grep -q 'valid search space: 5 parameters' "$T/out"
"$B/dehbq" best "$T/dehb" >"$T/best.json"
check "best prints only the active parameters" python3 -c '
import json, sys
b = json.load(open(sys.argv[1]))["config"]
assert ("degree" in b) == (b["kernel"] == "poly"), b
' "$T/best.json"
"$B/dehbq" report "$T/dehb" -o "$T/r.html" >/dev/null
check "report draws a conditional study (no NaN in its charts)" \
	sh -c "test -s '$T/r.html' && ! grep -qi 'nan' '$T/r.html'"

# forbidden clauses: a = y and b = y together never run
cat >"$T/forb.py" <<'TR'
import json, sys
c = json.load(open(sys.argv[1]))
if c["a"] == "y" and c["b"] == "y":
    print("forbidden configuration reached the trainer", file=sys.stderr)
    sys.exit(3)
print(json.dumps({"loss": (c["a"] == "x") + 0.5 * (c["b"] == "x")}))
TR
for opt in random dehb; do
	"$B/dehbq" init "$T/f$opt" --space "$DEHBQ_SRC/tests/data/space_cs_forbidden_1x.json" \
		--min-budget 1 --max-budget 9 --fevals 30 --optimizer "$opt" --poll 0.1 \
		>/dev/null 2>&1
	bg "$B/dehbq-orchestrator" "$T/f$opt" 2>"$T/f$opt.orch.log"
	bg "$B/dehbq-worker" --study "$T/f$opt" --idle-exit 10 -- python3 "$T/forb.py" {config} \
		2>"$T/f$opt.w.log"
	wait_for 90 test -e "$T/f$opt/FINISHED"
	nf=$(grep -l '"status": *"failed"' "$T/f$opt"/archive/0000/*.result.json 2>/dev/null | wc -l)
	n=$(ls "$T/f$opt"/archive/0000/*.result.json 2>/dev/null | wc -l)
	check "$opt: 30 evaluations, no forbidden configuration reached a worker ($n, $nf failed)" \
		sh -c "test $n = 30 && test $nf = 0"
done
"$B/dehbq" status "$T/frandom" >"$T/out"
check "status counts the refused proposals" grep -q 'forbidden [1-9][0-9]* (proposals' "$T/out"
python3 - "$T/frandom" <<'PY'
import json, sys
s = json.load(open(sys.argv[1] + "/FINISHED"))
assert s["counts"]["issued"] == 30 and s["counts"]["forbidden"] > 0, s["counts"]
PY
check "... and they count for no evaluation of the budget" test $? = 0
