#!/bin/sh
# t0210-one-fidelity.sh - a study of one fidelity (issue 39, item 1): no
# budgets needed for plain TPE or GP.
#  (a) dehbq init --space FILE with no budget: fidelity 1 (min = max), the
#      optimiser of such studies by default (gp), and init says so.
#  (b) it runs to the end (lockstep: no timing); every trial at fidelity 1
#      with {budget} and DEHBQ_BUDGET 1; the checker accepts it.
#  (c) --budget 50 --optimizer random: every trial at fidelity 50.
#  (d) the multi-fidelity optimisers refuse such a study at init, in one
#      line naming the optimiser and those that can run it; no study is
#      created.  Half a range (--min-budget alone) is refused too.
#  (e) a spec file without "fidelity" is a study of one fidelity, and
#      runs gp unless it names an optimiser.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 10
write_space "$T/space.json"
ONE='awk -v x="$DEHBQ_P_X" -v b="$DEHBQ_BUDGET" -v a="{budget}" "BEGIN{printf \"{\\\"loss\\\": %.10g, \\\"info\\\": {\\\"b\\\": \\\"%s\\\", \\\"arg\\\": \\\"%s\\\"}}\\n\", (x-0.3)^2, b, a}"'

# (a)
# (--prefetch 1: lockstep runs no worker while the orchestrator batches,
# and gp's default of 0 issues a trial only to a worker that waits)
"$B/dehbq" init "$T/a" --space "$T/space.json" --fevals 12 --lease 600 \
	--poll 1 --prefetch 1 >"$T/a.out" 2>&1
rc=$?
fid=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s["fidelity"]["min"], s["fidelity"]["max"], s["optimizer"]["name"])' "$T/a/study.json" 2>&1)
check "(a) init with no budget: exit 0, fidelity 1 1, optimizer gp (got $fid)" \
	test "$rc" = 0 -a "$fid" = "1 1 gp"
check "(a) ... and init says every trial runs at fidelity 1" \
	grep -q 'one fidelity: every trial runs at fidelity 1 (optimizer gp)' "$T/a.out"

# (b)
lockstep_run "$T/a" 0 "$ONE"
fids=$(cat "$T/a"/archive/*/*.trial.json | sed -n 's/^[[:space:]]*"fidelity":[[:space:]]*\([0-9.e+]*\),*$/\1/p' | sort -u | tr '\n' ' ')
seen=$(cat "$T/a"/archive/*/*.result.json | grep -o '"\(b\|arg\)":[[:space:]]*"[^"]*"' | sed 's/[[:space:]]//g' | sort -u | tr '\n' ' ')
check "(b) the study finishes (lockstep), the checker accepts it" \
	sh -c "test -e '$T/a/FINISHED' -a '$LS_BAD' = 0 && python3 '$DEHBQ_SRC/tests/checkstudy.py' '$T/a' --finished >/dev/null"
check "(b) every trial ran at fidelity 1 (got: $fids), {budget} and DEHBQ_BUDGET 1 ($seen)" \
	test "$fids $seen" = '1  "arg":"1" "b":"1" '

# (c)
"$B/dehbq" init "$T/c" --space "$T/space.json" --fevals 6 --budget 50 \
	--optimizer random --lease 600 --poll 1 >/dev/null 2>&1
lockstep_run "$T/c" 0 "$ONE"
seen=$(cat "$T/c"/archive/*/*.result.json | grep -o '"\(b\|arg\)":[[:space:]]*"[^"]*"' | sed 's/[[:space:]]//g' | sort -u | tr '\n' ' ')
check "(c) --budget 50: 6 trials at fidelity 50 ($seen)" \
	sh -c "test -e '$T/c/FINISHED' && test '$seen' = '\"arg\":\"50\" \"b\":\"50\" ' &&
	test \$(ls '$T/c'/archive/*/*.result.json | wc -l) = 6"

# (d)
refused() {
	"$B/dehbq" init "$T/d" --space "$T/space.json" --fevals 6 "$@" \
		>/dev/null 2>"$T/d.err"
	[ $? = 100 ] && [ ! -e "$T/d" ] && [ "$(wc -l <"$T/d.err")" = 1 ]
}
check "(d) dehb, sh, hyperband, bohb, asha and tpe under asha refuse one fidelity, naming the ones that can" \
	eval 'refused --optimizer dehb &&
	grep -q "the dehb optimizer under hyperband needs a range of fidelities.*one of: .*tpe" "$T/d.err" &&
	refused --optimizer sh && refused --optimizer hyperband &&
	refused --optimizer bohb && refused --scheduler asha --searcher gp &&
	refused --optimizer tpe --multi-fidelity asha &&
	grep -q "tpe optimizer under asha" "$T/d.err"'
check "(d) --min-budget alone is refused" \
	eval 'refused --min-budget 3 && grep -q "give both --min-budget and --max-budget" "$T/d.err"'

# (e)
cat >"$T/e.json" <<EOF
{"format": "dehbq-study/1", "space": "space.json", "seed": 3,
 "optimizer": {"name": "random"}, "termination": {"fevals": 4}}
EOF
"$B/dehbq" init "$T/e" --spec "$T/e.json" >"$T/e.out" 2>&1
check "(e) a spec without fidelity is a study of one fidelity" \
	grep -q 'one fidelity: every trial runs at fidelity 1 (optimizer random)' "$T/e.out"
sed 's/ "optimizer": {"name": "random"},//' "$T/e.json" >"$T/e3.json"
"$B/dehbq" validate "$T/e3.json" >"$T/e3.val" 2>&1
"$B/dehbq" init "$T/e3" --spec "$T/e3.json" >"$T/e3.out" 2>&1
check "(e) ... naming no optimiser, it runs gp (validate and init say so)" \
	sh -c "grep -q 'fidelity 1..1, eta 3, optimizer gp' '$T/e3.val' &&
	grep -q 'one fidelity: every trial runs at fidelity 1 (optimizer gp)' '$T/e3.out'"
sed 's/"random"/"dehb"/' "$T/e.json" >"$T/e2.json"
"$B/dehbq" init "$T/e2" --spec "$T/e2.json" >/dev/null 2>"$T/e2.err"
check "(e) ... and with dehb it is refused, naming the file" \
	sh -c "test $? = 100 && grep -q 'e2.json: fidelity: the dehb optimizer under hyperband needs' '$T/e2.err'"
