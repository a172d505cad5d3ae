#!/bin/sh
# t0120: a damaged study directory (truncated result, non-JSON and FIFO
# trials in pending/, symlinks to /etc/passwd, unknown names, no
# status.json) never crashes or hangs a dehbq command: each skips the bad
# file with a warning naming it.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 20

mkspec "$T/spec.json" 13
"$B/dehbq" init "$T/s" --spec "$T/spec.json" >/dev/null
bg "$B/dehbq-orchestrator" "$T/s" 2>"$T/orch.log"
bg "$B/dehbq-worker" --study "$T/s" --idle-exit 20 -- sh -c "$TRAINER" 2>>"$T/workers.log"
wait_for 60 test -e "$T/s/FINISHED"
check "the study finishes" test -e "$T/s/FINISHED"
for p in $BG_PIDS; do wait "$p"; done

A=$T/s/archive/0000
head -c 40 "$A/00000001.result.json" >"$A/00000001.result.json.x" &&
	mv "$A/00000001.result.json.x" "$A/00000001.result.json"
rm -f "$A/00000002.result.json" && ln -s /etc/passwd "$A/00000002.result.json"
rm -f "$A/00000003.trial.json" && ln -s /etc/passwd "$A/00000003.trial.json"
echo garbage >"$A/junk.txt"
mkdir "$T/s/archive/zz"
echo 'not json' >"$T/s/pending/99-00000090.json"
mkfifo "$T/s/pending/99-00000091.json"
echo '{' >"$T/s/pending/what.json"
echo 'nope' >"$T/s/workers/garbage.json"
echo 'nope' >"$T/s/workers/h.1.0123456789ab.json"
ln -s /etc/passwd "$T/s/logs/0000/00000004.a1.out" 2>/dev/null ||
	{ rm -f "$T/s/logs/0000/00000004.a1.out"; ln -s /etc/passwd "$T/s/logs/0000/00000004.a1.out"; }
rm -f "$T/s/state/status.json" "$T/s/FINISHED"

# run CMD...: exit code in $rc, stdout in $T/out, stderr in $T/err
run() {
	timeout 20 "$@" >"$T/out" 2>"$T/err"
	rc=$?
}
run "$B/dehbq" trials "$T/s"
check "trials survives the damage (exit 0)" test $rc = 0
check "... warns about the truncated result" grep -q "warning: skipping .*00000001.result.json" "$T/err"
check "... warns about the symlinked result" grep -q "warning: skipping .*00000002.result.json" "$T/err"
check "... warns about the symlinked trial" grep -q "warning: skipping .*00000003.trial.json" "$T/err"
check "... warns about the non-JSON pending trial" grep -q "warning: skipping .*99-00000090.json" "$T/err"
check "... warns about the FIFO without blocking" grep -q "warning: skipping .*99-00000091.json" "$T/err"
check "... warns about unknown names" \
	sh -c "grep -q 'junk.txt.*unexpected name' '$T/err' && grep -q 'what.json.*unexpected name' '$T/err'"
check "... never shows /etc/passwd" sh -c "! grep -q 'root:' '$T/out'"
check "... still lists the good trials" grep -q "^00000005 done" "$T/out"
run "$B/dehbq" export "$T/s" --csv "$T/out.csv"
check "export --csv survives (exit 0, warnings)" \
	sh -c "test $rc = 0 && grep -q warning '$T/err' && test -s '$T/out.csv'"
run "$B/dehbq" export "$T/s" --jsonl -
check "export --jsonl survives" sh -c "test $rc = 0 && test -s '$T/out'"
run "$B/dehbq" plot "$T/s" -o "$T/p.svg"
check "plot survives" test $rc = 0
check "... and still writes XML" python3 -c "
import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])" "$T/p.svg"
run "$B/dehbq" status "$T/s"
check "status without status.json exits 0" test $rc = 0
check "... says so and still counts the directory" \
	sh -c "grep -q 'no state/status.json' '$T/out' && grep -q '^directory: .*pending 3' '$T/out'"
run "$B/dehbq" workers "$T/s"
check "workers survives a garbage registry" \
	sh -c "test $rc = 0 && grep -q 'garbage.json' '$T/err' && grep -q 'h.1.0123456789ab.json' '$T/err'"
run "$B/dehbq" show "$T/s" 00000004
check "show refuses to follow a symlinked log" \
	sh -c "test $rc = 0 && grep -q 'warning:.*00000004.a1.out' '$T/err' && ! grep -q 'root:' '$T/out'"
run "$B/dehbq" show "$T/s" 00000002
check "show of a trial with a symlinked result exits 0" test $rc = 0
run "$B/dehbq" status "$T/nope"
check "status of a missing directory exits 100" test $rc = 100
