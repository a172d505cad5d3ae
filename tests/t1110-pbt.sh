#!/bin/sh
# t1110: population based training (issue 36) end to end, in lockstep (one
# worker, --once batches: no timing).  The trainer checkpoints: it starts
# from {parent_workdir}'s checkpoint, trains to {budget} and saves its own;
# the best value of x moves from 0.8 to 0.2 after 4 units, so a schedule
# beats any one configuration.  A study killed 4 times (at planned crash
# points) and one never killed run the very same trials.  Checked:
#  - the study ends by itself when every member reached the maximum
#    fidelity, far below its --fevals cap; the checker accepts it;
#  - the lineage is data: each segment continues its member's previous
#    segment, or, when it exploited a donor, a segment of the donor's that
#    ended one below; each trainer started at its parent's fidelity;
#  - some member exploited another, and every member reached fidelity 9;
#  - dehbq best prints the winning member's schedule, segment by segment;
#  - dehbq trials has the lineage columns, and dehbq report draws the
#    population and prints the same schedule.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 8

write_space "$T/space.json"
cat >"$T/spec.json" <<SP
{"format": "dehbq-study/1", "space": "space.json",
 "fidelity": {"min": 1, "max": 9, "eta": 3}, "seed": 7,
 "optimizer": {"name": "pbt", "searcher": "random", "population_size": 4},
 "termination": {"fevals": 1000},
 "runtime": {"lease": 600, "poll": 1}}
SP
for s in a b; do
	"$B/dehbq" init "$T/$s" --spec "$T/spec.json" >"$T/$s.out" 2>&1 ||
		diag "init: $(cat "$T/$s.out")"
done
PBT_TRAINER='start=0 acc=0
if [ -n "$DEHBQ_PARENT_WORKDIR" ]; then
	read start acc <"$DEHBQ_PARENT_WORKDIR/ck" || exit 3
fi
awk -v s="$start" -v a="$acc" -v b="$DEHBQ_BUDGET" -v x="$DEHBQ_P_X" \
	-v l="$DEHBQ_P_LAYERS" "BEGIN {
	if (s >= b) exit 4
	for (t = s; t < b; t++)
		a += exp(-20 * (x - (t < 4 ? 0.8 : 0.2)) ^ 2) / (1 + l / 20)
	printf \"%d %.17g\\n\", b, a >\"ck\"
	printf \"{\\\"loss\\\": %.17g, \\\"info\\\": {\\\"start\\\": %d}}\\n\", 1 / (1 + a), s
}"'
killed_pair "a study killed 4 times" "$T/a" "$T/b" 4 "$PBT_TRAINER"
check "the checker accepts both" sh -c "
	python3 '$DEHBQ_SRC/tests/checkstudy.py' '$T/a' --finished >/dev/null &&
	python3 '$DEHBQ_SRC/tests/checkstudy.py' '$T/b' --finished >/dev/null"
for s in a b; do
	"$B/dehbq" export "$T/$s" --csv "$T/$s.csv" 2>/dev/null
done
same() {
	python3 - "$T/a.csv" "$T/b.csv" <<'PY'
import csv, sys
keep = lambda r: {k: v for k, v in r.items() if k not in
    ("cost", "worker", "host", "started", "finished", "wall_time", "max_rss_kb")}
a, b = ([keep(r) for r in csv.DictReader(open(p))] for p in sys.argv[1:])
print("# %d and %d rows" % (len(a), len(b)))
sys.exit(0 if a == b and a else 1)
PY
}
check "killed or not, the same trials: configurations, parents, losses" same

lineage() {
	python3 - "$T/b.csv" "$1" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
what = sys.argv[2]
by = {r["id"]: r for r in rows}
seg = lambda r: int(r["state.segment"])
mem = lambda r: int(r["state.member"])
if what == "chain":
    for r in rows:
        assert r["status"] == "ok", r
        p, d = by.get(r["parent"]), int(r["state.donor"])
        if seg(r) == 1 and d < 0:
            assert p is None and r["info.start"] == "0", r
            continue
        assert p is not None and seg(p) == seg(r) - 1, r
        assert mem(p) == (mem(r) if d < 0 else d), (r, p)
        assert int(r["info.start"]) == int(float(p["fidelity"])), (r, p)
        assert float(r["fidelity"]) == seg(r), r
    print("# %d trials" % len(rows))
elif what == "ends":
    done = {mem(r) for r in rows if float(r["fidelity"]) == 9}
    ex = [r for r in rows if int(r["state.donor"]) >= 0]
    print("# members at 9: %s; exploits: %d; trials: %d" % (sorted(done), len(ex), len(rows)))
    assert done == {0, 1, 2, 3} and ex and len(rows) < 1000
PY
}
check "each segment continues its member's previous one, or a donor's one below; trainers start at the parent's fidelity" \
	lineage chain
check "every member reached fidelity 9, some by exploiting another; the study ended by itself" \
	lineage ends
"$B/dehbq" best "$T/b" >"$T/best.json"
schedule() {
	python3 - "$T/best.json" "$T/b.csv" <<'PY'
import csv, json, sys
b = json.load(open(sys.argv[1]))
rows = {r["id"]: r for r in csv.DictReader(open(sys.argv[2]))}
s = b["schedule"]
print("# schedule: %s" % [(t["fidelity"], round(t["config"]["x"], 3)) for t in s])
assert [t["fidelity"] for t in s] == list(range(1, 10)) and s[-1]["id"] == b["id"]
for t, u in zip(s[1:], s):
    assert rows[t["id"]]["parent"] == u["id"]
    assert t["config"]["x"] == float(rows[t["id"]]["x"])
PY
}
check "dehbq best prints the winning member's schedule, one configuration per segment" \
	schedule
trials_lineage() {
	"$B/dehbq" trials "$T/b" --format csv >"$T/trials.csv" &&
		"$B/dehbq" status "$T/b" >/dev/null &&
		python3 - "$T/trials.csv" "$T/b.csv" <<'PY'
import csv, sys
t = list(csv.DictReader(open(sys.argv[1])))
e = {int(r["id"]): r for r in csv.DictReader(open(sys.argv[2]))}
assert list(t[0])[6:10] == ["parent", "member", "segment", "donor"], list(t[0])
for r in t:
    x = e[int(r["id"])]
    assert r["parent"] == x["parent"], (r, x["parent"])
    for k in ("member", "segment", "donor"):
        assert r[k] == x["state." + k], (r, k)
print("# %d rows" % len(t))
PY
}
check "dehbq trials has each trial's parent, member, segment and donor, as the export" \
	trials_lineage
report() {
	"$B/dehbq" report "$T/b" -o "$T/r.html" >/dev/null 2>&1 &&
		"$B/dehbq" best "$T/b" >"$T/best.json" &&
		python3 - "$T/r.html" "$T/best.json" <<'PY'
import json, re, sys
h = open(sys.argv[1]).read()
sec = h[h.index('<section id="population">'):]
sec = sec[:sec.index("</section>")]
assert sec.count("<circle") > 0 and "stroke-dasharray" in sec, "no exploit drawn"
rows = [(float(f), i) for f, i in
        re.findall(r"<tr><td>([0-9.e+]+)</td><td>([0-9]+)</td>", sec)]
want = [(t["fidelity"], t["id"]) for t in json.load(open(sys.argv[2]))["schedule"]]
assert rows == want and len(rows) == 9, (rows, want)
print("# %d segments in the schedule" % len(rows))
PY
}
check "dehbq report draws the population, an exploit dashed, and the best member's schedule as dehbq best prints it" \
	report
