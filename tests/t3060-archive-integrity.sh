#!/bin/bash
# t3060-archive-integrity.sh - issue 19: a trial file, claim or result is
# matched to its trial by id, attempt and token (docs/protocol.md 6.1); a
# foreign or stale file can never pair a result with the wrong config.
#   A  the reproduction: a copy of a pending trial file, renamed to a
#      future id with another config, is run by a worker while the
#      orchestrator is stopped.  The real trial of that id runs later.
#   B  a corrupt newest snapshot, then a late result of a trial issued
#      under it, after the orchestrator fell back and issued the id again.
#   C  a pending file hard-linked to a file outside the study is
#      quarantined, and the outside file's mtime is unchanged.
# Every finished study is checked by pairs: the loss in each archived
# result is recomputed from the config in the archived trial file beside
# it (the trainer is a formula), so a mispaired record cannot pass.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 23

# The trainer records what it ran: id, x, and the directory it ran in.
RTRAINER="echo \"\$DEHBQ_TRIAL_ID \$DEHBQ_P_X \$PWD\" >>'$T/ran'; $TRAINER"

# pairs STUDY: every archived trial file's config gives its result's loss
pairs() {
	python3 - "$1" <<'PY'
import glob, json, os, sys
bad = n = 0
for tp in sorted(glob.glob(os.path.join(sys.argv[1], "archive/*/*.trial.json"))):
    rp = tp[:-len(".trial.json")] + ".result.json"
    if not os.path.exists(rp):
        continue
    t, r = json.load(open(tp)), json.load(open(rp))
    if r["status"] != "ok":
        continue
    c, b = t["config"], t["fidelity"]
    want = (c["x"] - 0.3) ** 2 + c["layers"] / 100 + 1 / b
    n += 1
    if t["id"] != r["id"] or abs(want - r["loss"]) > 1e-8 * max(1, abs(want)):
        bad += 1
        print("# mispaired: %s: loss %r, config gives %r" % (os.path.basename(tp), r["loss"], want))
print("# %d archived pairs checked" % n)
sys.exit(1 if bad or not n else 0)
PY
}

# quarantined STUDY PATTERN: a quarantined file matching PATTERN, with a reason
quarantined() {
	for f in "$1"/quarantine/$2; do
		case $f in *.reason) continue ;; esac
		[ -e "$f" ] && [ -s "$f.reason" ] && return 0
	done
	return 1
}

# ---- A: the reproduction ----------------------------------------------------
mkspec "$T/spec.json" 12 '{"lease": 5, "poll": 0.1}'
S=$T/a
"$B/dehbq" init "$S" --spec "$T/spec.json" >/dev/null || exit 1
bg "$B/dehbq-orchestrator" -q "$S" 2>"$T/orch-a.log"
orch=$!
wait_for 20 sh -c "ls '$S/pending' | grep -q '^99-00000000.json$'"
kill -STOP $orch
python3 - "$S/pending/99-00000000.json" "$S/pending/99-00000011.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["id"] = "00000011"
t["config"]["x"] = 0.875
open(sys.argv[2], "w").write(json.dumps(t, indent="\t") + "\n")
PY
listed=$("$B/dehbq" trials "$S" --format csv 2>"$T/trials-a.err" | cut -d, -f1 | grep -c '^00000011$')
check "A: dehbq trials does not list the forged file as trial 00000011 ($listed rows)" \
	sh -c "test '$listed' = 0 && grep -q 'skipping.*99-00000011.json' '$T/trials-a.err'"
# (workers here exit on FINISHED; a long --idle-exit so that none leaves
# while the orchestrator is stopped or slow)
bg "$B/dehbq-worker" --study "$S" --idle-exit 60 --max-poll 0.2 -- sh -c "$RTRAINER" 2>"$T/w1.log"
wait_for 30 sh -c "ls '$S/results' | grep -q '^00000011\.'"
check "A: the forged trial 00000011 ran while the orchestrator was stopped" \
	sh -c "ls '$S/results' | grep -q '^00000011\.'"
kill -CONT $orch
bg "$B/dehbq-worker" --study "$S" --idle-exit 60 --max-poll 0.2 -- sh -c "$RTRAINER" 2>"$T/w2.log"
wait_for 60 test -e "$S/FINISHED"
check "A: the study finishes" test -e "$S/FINISHED"
check "A: the forged trial file is in quarantine with a reason" \
	quarantined "$S" 'claimed.00000011@*'
check "A: the forged trial's result is in quarantine with a reason" \
	quarantined "$S" 'results.00000011.*'
x11=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["config"]["x"])' "$S/archive/0000/00000011.trial.json")
check "A: archive/0000/00000011.trial.json holds the config that was told (x = $x11, not the forged 0.875)" \
	test "$x11" != 0.875
check "A: every archived result is paired with the config that produced it" pairs "$S"
dirs=$(awk '$1 == "00000011" {print $3}' "$T/ran" | sort -u | wc -l)
check "A: the forged run and the real trial 11 ran in different work directories ($dirs)" test "$dirs" = 2
ntr=$("$B/dehbq" trials "$S" --format csv | tail -n +2 | wc -l)
nid=$("$B/dehbq" trials "$S" --format csv | tail -n +2 | cut -d, -f1 | sort -u | wc -l)
check "A: dehbq trials lists the 12 issued trials once each ($ntr rows, $nid ids)" \
	test "$ntr:$nid" = 12:12
check "A: independent checker" python3 "$DEHBQ_SRC/tests/checkstudy.py" "$S" --finished

# ---- B: a late result of a trial issued under a lost snapshot ----------------
mkspec "$T/spec-b.json" 10 '{"lease": 30, "poll": 0.1, "prefetch": 2}'
S=$T/b
"$B/dehbq" init "$S" --spec "$T/spec-b.json" >/dev/null || exit 1
"$B/dehbq-orchestrator" -q --once "$S" 2>>"$T/orch-b.log"
"$B/dehbq-worker" --study "$S" --max-trials 2 --max-poll 0.2 -- sh -c "$RTRAINER" 2>>"$T/wb.log"
"$B/dehbq-orchestrator" -q --once "$S" 2>>"$T/orch-b.log"
newest=$(ls "$S"/state/snapshot-*.json | sort | tail -1)
# a worker claims trial 2, issued under the newest snapshot, and is slow
bg "$B/dehbq-worker" --study "$S" --max-trials 1 --pick 1 --max-poll 0.2 -- \
	sh -c "while [ ! -e '$T/go' ]; do sleep 0.1; done; $RTRAINER" 2>>"$T/wb.log"
late=$!
wait_for 20 sh -c "ls '$S/claimed' | grep -q '^00000002@'"
check "B: trial 2 (issued under the newest snapshot) is claimed" \
	sh -c "ls '$S/claimed' | grep -q '^00000002@'"
echo '{"format": "dehbq-snapshot/1", "study": ' >"$newest" # torn
bg "$B/dehbq-orchestrator" "$S" 2>>"$T/orch-b.log"
orch=$!
wait_for 20 grep -q 'skipped 1 unreadable snapshot' "$T/orch-b.log"
wait_for 20 sh -c "ls '$S/pending' | grep -q '00000002.json$'"
check "B: after the fallback trial 2 is issued again" \
	sh -c "ls '$S/pending' | grep -q '00000002.json$'"
touch "$T/go"
wait "$late"
wait_for 20 sh -c "ls '$S/quarantine' | grep -q '^results\.00000002\.'"
check "B: the late result of the lost issue of trial 2 is quarantined" \
	quarantined "$S" 'results.00000002.*'
bg "$B/dehbq-worker" --study "$S" --idle-exit 60 --max-poll 0.2 -- sh -c "$RTRAINER" 2>>"$T/wb.log"
wait_for 60 test -e "$S/FINISHED"
check "B: the study finishes" test -e "$S/FINISHED"
check "B: every archived result is paired with the config that produced it" pairs "$S"
told2=$(grep -c 'trial=00000002 attempt=1 told' "$T/orch-b.log")
check "B: trial 2 was told once, from its re-issued file ($told2)" test "$told2" = 1
check "B: independent checker" python3 "$DEHBQ_SRC/tests/checkstudy.py" "$S" --finished

# ---- C: a hard-linked pending file -------------------------------------------
S=$T/c
"$B/dehbq" init "$S" --spec "$T/spec.json" >/dev/null || exit 1
"$B/dehbq-orchestrator" -q --once "$S" 2>>"$T/orch-c.log"
echo secret >"$T/outside"
chmod 600 "$T/outside"
touch -d '2001-01-01 00:00:00' "$T/outside"
before=$(stat -c %Y "$T/outside")
for f in "$S"/pending/*.json; do
	rm -f "$f"
	ln "$T/outside" "$f"
done
"$B/dehbq-worker" --study "$S" --idle-exit 1 --max-poll 0.2 -- sh -c "$RTRAINER" 2>"$T/wc.log"
after=$(stat -c %Y "$T/outside")
nq=$(cat "$S"/quarantine/*.reason 2>/dev/null | grep -c 'hard links')
check "C: the hard-linked pending files are quarantined ($nq) and the outside file's mtime is unchanged ($before = $after)" \
	test "$nq" -ge 1 -a "$before" = "$after"
ln "$T/outside" "$S/results/00000000.a1.abcdefabcdef.json"
"$B/dehbq-orchestrator" -q --once "$S" 2>>"$T/orch-c.log"
check "C: a hard-linked result file is quarantined, not read" \
	sh -c "grep -q 'hard links' '$S/quarantine/results.00000000.a1.abcdefabcdef.json.reason' && test \"\$(cat '$T/outside')\" = secret"
# the heartbeat touches the file the worker claimed, never one put in its
# place (a hard link to a file outside the study)
S=$T/c2
mkspec "$T/spec-c2.json" 5 '{"lease": 4, "poll": 0.1}'
"$B/dehbq" init "$S" --spec "$T/spec-c2.json" >/dev/null 2>&1 || exit 1
"$B/dehbq-orchestrator" -q --once "$S" 2>>"$T/orch-c.log"
touch -d '2001-01-01 00:00:00' "$T/outside"
# the trainer runs until the worker has said so (at most 60 s): a heartbeat
# after the swap, however slow this script is to make it
bg "$B/dehbq-worker" --study "$S" --max-trials 1 --max-poll 0.2 -- sh -c "i=0
	while ! grep -q 'replaced, not touched' '$T/wc2.log' && [ \$i -lt 600 ]; do
		sleep 0.1
		i=\$((i + 1))
	done
	$TRAINER" 2>"$T/wc2.log"
hw=$!
wait_for 30 sh -c "ls '$S/claimed' | grep -q @"
c=$(ls "$S/claimed" | head -1)
rm -f "$S/claimed/$c"
ln "$T/outside" "$S/claimed/$c"
wait "$hw"
after=$(stat -c %Y "$T/outside")
check "C: a claim replaced by a hard link is not touched by the heartbeat ($before = $after), and the worker says so" \
	sh -c "test '$before' = '$after' && grep -q 'replaced, not touched' '$T/wc2.log'"

# ---- D: every file dehbq writes is UTF-8 JSON --------------------------------
# A trainer that prints bytes that are not UTF-8 on stderr (a failed trial
# keeps its stderr tail), reports an 'info' string in latin-1 (refused), or
# reports normally.
S=$T/d
mkspec "$T/spec-d.json" 12 '{"lease": 5, "poll": 0.1, "max_failures_in_a_row": 0}'
"$B/dehbq" init "$S" --spec "$T/spec-d.json" >/dev/null || exit 1
cat >"$T/bad-utf8.sh" <<SH
#!/bin/sh
printf 'bad \\377\\376 bytes, caf\\351\\n' >&2
case \$(expr "\$DEHBQ_TRIAL_ID" % 3) in
0) exit 3 ;;
1) printf '{"loss": 0.5, "info": {"note": "caf\\351"}}\\n' ;;
*) $TRAINER ;;
esac
SH
chmod +x "$T/bad-utf8.sh"
mkdir "$T/reg"
bg sh -c "while :; do cp '$S'/workers/*.json '$T/reg/' 2>/dev/null; sleep 0.1; done"
bg "$B/dehbq-orchestrator" "$S" 2>"$T/orch-d.log"
bg "$B/dehbq-worker" --study "$S" --idle-exit 60 --max-poll 0.2 -- "$T/bad-utf8.sh" 2>"$T/wd.log"
wait_for 60 test -e "$S/FINISHED"
check "D: the study with a trainer that writes bytes that are not UTF-8 finishes" test -e "$S/FINISHED"
nrej=$(grep -l 'is not UTF-8' "$S"/archive/*/*.result.json 2>/dev/null | wc -l)
check "D: a report whose 'info' is not UTF-8 is refused with a reason ($nrej trials)" test "$nrej" -ge 1
python3 - "$S" "$T/reg" <<'PY' >"$T/utf8.out" 2>&1
import glob, json, os, sys
root, reg = sys.argv[1], sys.argv[2]
kinds = {"trial": "archive/*/*.trial.json", "result": "archive/*/*.result.json",
         "snapshot": "state/snapshot-*.json", "status": "state/status.json",
         "FINISHED": "FINISHED", "claim": "claimed/*.json", "pending": "pending/*.json"}
bad, seen = [], {}
for kind, pat in kinds.items():
    for f in glob.glob(os.path.join(root, pat)):
        seen[kind] = seen.get(kind, 0) + 1
        try:
            json.load(open(f, encoding="utf-8"))
        except Exception as e:
            bad.append("%s: %s" % (f, e))
for f in glob.glob(os.path.join(reg, "*.json")):
    seen["registry"] = seen.get("registry", 0) + 1
    try:
        json.load(open(f, encoding="utf-8"))
    except Exception as e:
        bad.append("%s: %s" % (f, e))
for f in glob.glob(os.path.join(root, "quarantine", "*.reason")):
    seen["reason"] = seen.get("reason", 0) + 1
    try:
        open(f, encoding="utf-8").read()
    except Exception as e:
        bad.append("%s: %s" % (f, e))
tails = sum("\ufffd" in json.load(open(f, encoding="utf-8")).get("stderr_tail", "")
            for f in glob.glob(os.path.join(root, "archive/*/*.result.json")))
print("# files read:", ", ".join("%s %d" % kv for kv in sorted(seen.items())),
      "; stderr tails with U+FFFD:", tails)
for b in bad:
    print("# not UTF-8 JSON:", b)
need = {"trial", "result", "snapshot", "status", "FINISHED", "registry"}
sys.exit(1 if bad or not need <= set(seen) or not tails else 0)
PY
rc=$?
cat "$T/utf8.out"
check "D: every file written (trial, result, snapshot, status, FINISHED, registry, reasons) loads with a strict UTF-8 JSON parser" test $rc = 0
