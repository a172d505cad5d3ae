#!/bin/bash
# t3040-hostile-inputs.sh - issue 7 item 8: while a study runs, drop 60+
# malformed and hostile files (tests/hostile/gen.py) into every directory the
# programs read: results/ pending/ claimed/ workers/ state/requests/ staging/
# state/.  Truncated JSON, NaN/Infinity/1e400, 100k '[' nesting, wrong types,
# 100 MB files, unknown ids, ids with / and .. (names and content), symlinks
# to /etc/passwd, FIFOs, chmod 000, directories, empty files, control
# characters and newlines in names, .nfsXXXX files.  Then the orchestrator
# is restarted (SIGTERM), so staging/ and state/ are read too.
#
# Every program runs as the unprivileged user "nobody" (setpriv), so chmod 000
# really is unreadable to them (root would read it anyway).  "No file read
# outside the study" is checked with strace -f -y: -y prints the path of each
# descriptor an open returned, i.e. the real file after symlinks and "..", so
# reading /etc/passwd through a hostile symlink cannot hide.
# Also valid forgeries (gen.py's last kinds): copies of real, told trials'
# files and results with a wrong or missing token.
# Pass: no crash, no hang (bounded time), every hostile file quarantined or
# refused with a reason (counts printed), checkstudy.py --finished.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
# Sanitizer builds: LeakSanitizer cannot run under ptrace (this suite runs
# every program under strace); leaks are checked by every other suite.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
NCHK=16
plan $NCHK
H=$DEHBQ_SRC/tests/hostile
# bug_check DESC BUG CMD...: a regression check for a bug this suite found
# (all four were fixed in 5830dfa); BUG describes the old failure
bug_check() {
	local d=$1 b=$2
	shift 2
	if "$@"; then ok "$d"; else not_ok "$d (regression of: $b)"; fi
}
skipall() { for _ in $(seq $NCHK); do skip "$1"; done; exit 0; }
[ "$(id -u)" = 0 ] || skipall "needs root to run the programs as nobody under strace"
command -v setpriv >/dev/null || skipall "setpriv (util-linux) missing"
command -v strace >/dev/null || skipall "strace missing (apt-get install strace)"
strace -f -o /dev/null true 2>/dev/null || skipall "strace cannot trace here (ptrace not permitted)"
NOBODY=$(id -u nobody 2>/dev/null) || skipall "no user nobody"
AS=(setpriv --reuid="$NOBODY" --regid="$(id -g nobody)" --clear-groups --)
# on exit also kill the traced programs: strace -9 leaves its tracee running
trap 'for p in $BG_PIDS; do kill -9 $(cat /proc/$p/task/*/children 2>/dev/null) 2>/dev/null; done; cleanup' EXIT
TRACE=(strace -f -qq -y -e trace=open,openat,openat2,execve,clone,clone3,fork,vfork)

chmod 755 "$T"
mkspec "$T/spec.json" 200 '{"lease": 3, "poll": 0.1}'
chmod 644 "$T"/*.json
mkdir "$T/n"
chown "$NOBODY:$(id -g nobody)" "$T/n"
S=$T/n/s
"${AS[@]}" "$B/dehbq" init "$S" --spec "$T/spec.json" >/dev/null || exit 1

# the traced program's pid (strace's child; setpriv execs it in place).
# Signals must go to it: strace would detach on SIGTERM, not forward it.
traced() {
	local c
	wait_for 5 sh -c "test -n \"\$(cat /proc/$1/task/*/children 2>/dev/null)\""
	c=$(cat /proc/"$1"/task/*/children 2>/dev/null | awk '{print $1}')
	echo "${c:-$1}"
}
# reap PID SECS: RC=its exit status, or "hung" (then it is killed)
reap() {
	if wait_for "$2" sh -c "! kill -0 $1 2>/dev/null"; then
		wait "$1"
		RC=$?
	else
		kill -9 "$(traced "$1")" "$1" 2>/dev/null
		RC=hung
	fi
}
wstart() {
	for k in 1 2 3; do
		bg "${TRACE[@]}" -o "$T/st.w$k" "${AS[@]}" "$B/dehbq-worker" --study "$S" \
			--idle-exit 90 --max-poll 0.3 -- sh -c "sleep 0.2; $TRAINER" \
			2>>"$T/workers.log"
		eval "W$k=\$!"
	done
}
bg "${TRACE[@]}" -o "$T/st.o1" "${AS[@]}" "$B/dehbq-orchestrator" "$S" 2>"$T/orch.log"
orch=$!
wstart
wait_for 60 sh -c "ls '$S'/archive/0000 2>/dev/null | grep -q '00000003.result'"

# drop the hostile files (as root, into dirs the study user owns)
PY3=$(PATH=/usr/bin:/bin command -v python3)
n=$("${AS[@]}" "$PY3" "$H/gen.py" "$S" "$T/n/manifest" 2>"$T/gen.err") || {
	sed 's/^/# /' "$T/gen.err"
}
mv "$T/n/manifest" "$T/manifest"
diag "hostile files dropped: $n (in $(cut -f1 "$T/manifest" | sort | uniq -c | awk '{printf "%s: %s  ", $2, $1}'))"
t0=$(date +%s)
sleep 5
alive=1
for p in $orch $W1 $W2 $W3; do kill -0 "$p" 2>/dev/null || alive=0; done
check "orchestrator and all workers still alive 5 s after the drop" test $alive = 1
# restart the orchestrator: staging/ and the corrupt newest snapshot are
# read at start
kill -TERM "$(traced $orch)"
reap $orch 20
rc1=$RC
bg "${TRACE[@]}" -o "$T/st.o2" "${AS[@]}" "$B/dehbq-orchestrator" "$S" 2>>"$T/orch.log"
orch=$!
wait_for ${HOSTILE_CAP:-120} test -e "$S/FINISHED"
check "the study finishes in bounded time ($(($(date +%s) - t0)) s after the drop; cap 120 s)" test -e "$S/FINISHED"
reap $orch 20
rc2=$RC
check "the orchestrator exited 0 after SIGTERM and after FINISHED ($rc1, $rc2)" test "$rc1$rc2" = 00
wrc=
for p in $W1 $W2 $W3; do
	reap "$p" 20
	wrc="$wrc$RC"
done
check "every worker exited 0 ($wrc)" test "$wrc" = 000
grep -q 'skipped .* unreadable snapshot' "$T/orch.log" &&
	diag "restart: $(grep -o 'skipped .* unreadable snapshot.*' "$T/orch.log" | head -1 | cut -c1-120)"

# the fate of every hostile file
python3 - "$S" "$T/manifest" >"$T/fate" <<'PY'
import ast, collections, os, sys
root, man = sys.argv[1], sys.argv[2]
rows = [l.rstrip("\n").split("\t") for l in open(man)]
fate = collections.Counter()
left = []
for d, nrepr, kind in rows:
    name = ast.literal_eval(nrepr)
    here = os.path.lexists(os.path.join(root, d, name))
    if name.startswith("."):
        f = "skipped (dotfile), left in place" if here else "REMOVED (dotfile)"
    else:
        f = "left in place" if here else "gone from its place"
    fate[(d, f)] += 1
    if here and not name.startswith("."):
        left.append("%s/%r (%s)" % (d, name, kind))
for (d, f), n in sorted(fate.items()):
    print("FATE %-16s %-34s %d" % (d, f, n))
for l in left:
    print("LEFT " + l)
q = os.listdir(os.path.join(root, "quarantine"))
files = [n for n in q if not n.endswith(".reason")]
noreason = [n for n in files if n + ".reason" not in q]
print("QUAR %d %d" % (len(files), len(noreason)))
reasons = collections.Counter()
for n in q:
    if n.endswith(".reason"):
        r = open(os.path.join(root, "quarantine", n), errors="replace").read().strip()
        r = r.split(":", 1)[-1].strip()[:60]
        reasons[r] += 1
for r, n in reasons.most_common(8):
    print("REASON %3d %s" % (n, r))
PY
grep '^FATE\|^REASON' "$T/fate" | sed 's/^/# /'
set -- $(grep '^QUAR' "$T/fate")
nq=$2
noreason=$3
diag "files quarantined: $nq; without a .reason: $noreason; duplicates/notes archived: $(ls "$S"/archive/*/ | grep -c '\.note$')"
check "every quarantined file has a one-line reason" test "$noreason" = 0
nleft=$(grep -c '^LEFT \(results\|pending\|claimed\|staging\)/' "$T/fate")
nreq=$(grep -c '^LEFT state/requests/' "$T/fate")
grep '^LEFT' "$T/fate" | head -20 | sed 's/^/# /'
check "every hostile file in results/ pending/ claimed/ staging/ was quarantined or refused (left in place: $nleft)" test "$nleft" = 0
bug_check "every refused request in state/requests/ was quarantined (left in place: $nreq)" \
	"quarantine() renames state/requests/NAME to quarantine/state/requests.NAME (no such directory: ENOENT), so refused requests stay and are retried with a warning every batch" \
	test "$nreq" = 0
nesc=$(grep -c "$(printf '\033')" "$T/orch.log")
bug_check "control characters in file names do not reach the log raw ($nesc lines with ESC)" \
	"the orchestrator logs hostile names verbatim: a name with a newline splits a log line, an ESC sequence reaches the terminal" \
	test "$nesc" = 0
check "no .nfsXXXX or dotfile was touched" sh -c "! grep -q 'REMOVED (dotfile)' '$T/fate'"

python3 "$H/opens.py" "$S" "$T"/st.* >"$T/opens" 2>&1
orc=$?
sed 's/^/# /' "$T/opens" | head -12
check "no dehbq process opened a file outside the study (strace -y)" test $orc = 0

# checkstudy.py parses every name in staging/ pending/ claimed/; it cannot
# take hostile leftovers, so it runs on a copy without them if any remain
if [ "$nleft" = 0 ] && [ "$nreq" = 0 ]; then
	check "independent checker (--finished)" python3 "$DEHBQ_SRC/tests/checkstudy.py" "$S" --finished
else
	cp -a "$S" "$T/copy"
	grep '^LEFT' "$T/fate" >/dev/null
	python3 - "$T/copy" "$T/manifest" <<'PY'
import ast, os, shutil, sys
for l in open(sys.argv[2]):
    d, n, k = l.rstrip("\n").split("\t")
    p = os.path.join(sys.argv[1], d, ast.literal_eval(n))
    if os.path.isdir(p) and not os.path.islink(p): shutil.rmtree(p)
    elif os.path.lexists(p): os.unlink(p)
PY
	check "independent checker (--finished; hostile leftovers removed from a copy)" \
		python3 "$DEHBQ_SRC/tests/checkstudy.py" "$T/copy" --finished
fi
grep ' [EW] ' "$T/workers.log" | sed 's/^[^ ]* [^ ]* [EW] //; s/[0-9]\{8\}/N/g' | cut -c1-80 | sort | uniq -c | sort -rn | head -5 | sed 's/^/# worker: /'

# ---- minimal reproductions of bugs found here ------------------------------
# R1: a chmod 000 file in results/ (the orchestrator runs as nobody)
"${AS[@]}" mkdir "$T/n/r1"
"${AS[@]}" "$B/dehbq" init "$T/n/r1/s" --spec "$T/spec.json" >/dev/null
"${AS[@]}" sh -c "echo '{}' >'$T/n/r1/s/results/99999913.a1.abcdefabcdef.json'; chmod 000 '$T/n/r1/s/results/99999913.a1.abcdefabcdef.json'"
for _ in 1 2; do timeout 20 "${AS[@]}" "$B/dehbq-orchestrator" --once "$T/n/r1/s" 2>>"$T/r1.log"; done
r1q=$(ls "$T/n/r1/s/quarantine" | grep -c 99999913)
r1e=$(grep -c 'storage error' "$T/r1.log")
diag "R1: unreadable result: quarantined $r1q, storage errors logged $r1e: $(grep 'storage error' "$T/r1.log" | head -1 | cut -d' ' -f4-)"
bug_check "R1: an unreadable (chmod 000) file in results/ is quarantined" \
	"EACCES opening a result is treated as a storage error: the batch is abandoned and retried forever, the file is never quarantined and the study stalls (no more tells)" \
	test "$r1q" -ge 1 -a "$r1e" = 0
# R2: a corrupt snapshot whose name claims epoch 999999
"${AS[@]}" mkdir "$T/n/r2"
"${AS[@]}" "$B/dehbq" init "$T/n/r2/s" --spec "$T/spec.json" >/dev/null
timeout 20 "${AS[@]}" "$B/dehbq-orchestrator" --once "$T/n/r2/s" 2>>"$T/r2.log"
"${AS[@]}" sh -c "echo garbage >'$T/n/r2/s/state/snapshot-999999-9999999999.json'"
timeout 20 "${AS[@]}" "$B/dehbq-orchestrator" --once "$T/n/r2/s" 2>>"$T/r2.log"
r2=$?
diag "R2: restart with state/snapshot-999999-9999999999.json (garbage): exit $r2: $(grep ' E ' "$T/r2.log" | head -1 | cut -d' ' -f4-)"
bug_check "R2: a corrupt snapshot named with epoch 999999 does not stop the orchestrator from starting" \
	"the new epoch is taken from the corrupt file's name (999999 + 1 = 1000000, beyond EEEEEE); the lease it writes cannot be re-read, so every start exits 111 'lease taken over by ? (pid 0, epoch 0; ours is 1000000)'" \
	test "$r2" = 0
# R3: a result for an attempt that was never issued (a real worker's result,
# renamed and edited to claim attempt 7 while the trial is at attempt 1)
"${AS[@]}" mkdir "$T/n/r3"
"${AS[@]}" "$B/dehbq" init "$T/n/r3/s" --spec "$T/spec.json" >/dev/null
timeout 20 "${AS[@]}" "$B/dehbq-orchestrator" --once "$T/n/r3/s" 2>>"$T/r3.log"
timeout 20 "${AS[@]}" "$B/dehbq-worker" --study "$T/n/r3/s" --max-trials 1 -- sh -c "$TRAINER" 2>>"$T/r3.log"
r3f=$(ls "$T/n/r3/s/results" | head -1)
r3id=${r3f%%.*}
"${AS[@]}" sh -c "sed 's/\"attempt\":[[:space:]]*1,/\"attempt\": 7,/' '$T/n/r3/s/results/$r3f' >'$T/n/r3/s/results/${r3f%%.a1.*}.a7.${r3f#*.a1.}' && rm '$T/n/r3/s/results/$r3f'"
timeout 20 "${AS[@]}" "$B/dehbq-orchestrator" --once "$T/n/r3/s" 2>>"$T/r3.log"
diag "R3: $(grep "quarantined results/$r3id" "$T/r3.log" | cut -d' ' -f4-)"
check "R3: a result for an attempt never issued is quarantined, not told" \
	eval "grep -q 'quarantined results/$r3id.a7.*never issued' '$T/r3.log' && ! grep -q 'trial=$r3id attempt=7 told' '$T/r3.log'"
# (its claim stays in claimed/ until a result that matches it is told)
check "R3: the trial stays in flight (no archived result; its attempt-1 file is in claimed/)" \
	eval "! ls '$T/n/r3/s/archive/0000' | grep -q '^$r3id\.' && ls '$T/n/r3/s/claimed' | grep -q '^$r3id@'"
chmod -R u+rwX "$T/n" 2>/dev/null
check_no_leftovers
exit 0
