#!/bin/sh
# t0150: dehbq report.  A finished study with failures (one of them
# reports hostile text) gives one self-contained HTML page: every section
# is there (the importance section too, issue 39), nothing is fetched
# from elsewhere, the failures and the best agree with dehbq trials and
# dehbq best, and hostile text is escaped.
# Then a real browser (headless Chromium) loads it: it renders, the DOM
# has every section and its charts, no script runs, and the console is
# clean.
. "${DEHBQ_SRC:-.}/tests/lib.sh"
plan 14

cat >"$T/trainer.sh" <<'TR'
#!/bin/sh
case $DEHBQ_TRIAL_ID in
*3) echo '<script>alert(1)</script> & "quoted"'; exit 0 ;;
*7) echo 'trainer: failing on purpose' >&2; exit 3 ;;
esac
awk -v x="$DEHBQ_P_X" -v l="$DEHBQ_P_LAYERS" -v b="$DEHBQ_BUDGET" 'BEGIN{
 printf "{\"loss\": %.10g, \"cost\": %s}\n", (x-0.3)^2 + l/100 + 1/b, b }'
TR
chmod +x "$T/trainer.sh"
mkspec "$T/spec.json" 40
"$B/dehbq" init "$T/s" --spec "$T/spec.json" >/dev/null
bg "$B/dehbq-orchestrator" "$T/s" 2>"$T/orch.log"
for i in 1 2; do
	bg "$B/dehbq-worker" --study "$T/s" --idle-exit 20 -- "$T/trainer.sh" 2>>"$T/workers.log"
done
wait_for 60 test -e "$T/s/FINISHED"
check "the study finishes" test -e "$T/s/FINISHED"

"$B/dehbq" report "$T/s" -o "$T/r.html" >"$T/out"
check "report exits 0 and says what it wrote" \
	sh -c "test $? = 0 && grep -q 'wrote .*r.html (40 evaluations)' '$T/out'"
"$B/dehbq" report "$T/s" 2>"$T/err"
check "report without -o exits 100 with the usage" \
	sh -c "test $? = 100 && grep -q 'usage: dehbq report' '$T/err'"
nfail=$("$B/dehbq" trials "$T/s" --state failed --format csv | tail -n +2 | wc -l)
best=$("$B/dehbq" best "$T/s" | sed 's/.*"id":"\([0-9]*\)".*/\1/')
check "the page has every section, the failures ($nfail) and the best ($best)" python3 -c '
import sys
from html.parser import HTMLParser
want = ["summary", "progress", "evaluations", "parameters", "importance",
        "parallel", "workers", "failures", "brackets"]
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.ids = []; s.svg = 0; s.bad = []
    def handle_starttag(s, t, a):
        a = dict(a)
        if t == "section": s.ids.append(a.get("id"))
        if t == "svg": s.svg += 1
        if t in ("script", "link", "iframe", "img") or "src" in a or \
           (a.get("href") or "").startswith(("http", "//")):
            s.bad.append((t, a))
text = open(sys.argv[1]).read()
p = P(); p.feed(text)
assert p.ids == want, p.ids
assert p.svg >= 6, p.svg
assert not p.bad, p.bad
assert "Failures (%s)" % sys.argv[2] in text, "failure count"
assert "trial %s, fidelity 9" % sys.argv[3] in text, "best"
' "$T/r.html" "$nfail" "$best"
check "... with at least two failures, one of them the hostile report" \
	test "$nfail" -ge 2
check "... hostile text is escaped, never markup" \
	sh -c "grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' '$T/r.html' &&
	       ! grep -q '<script' '$T/r.html'"
check "... nothing needs the network (no http URL but SVG's namespace)" \
	sh -c "! grep -o 'https\\?://[^\"]*' '$T/r.html' | grep -v '^http://www.w3.org/2000/svg\$' | grep -q ."
check "-o - writes the same page to stdout (up to its timestamp)" \
	sh -c "\"$B/dehbq\" report '$T/s' -o - | grep -v '^<p>written ' >'$T/a' &&
	       grep -v '^<p>written ' '$T/r.html' >'$T/b' && cmp -s '$T/a' '$T/b'"

# an empty study: a page that says so
mkspec "$T/spec2.json" 4
"$B/dehbq" init "$T/e" --spec "$T/spec2.json" >/dev/null
"$B/dehbq" report "$T/e" -o "$T/e.html" >/dev/null
check "a study with no result yet gives a page that says so" \
	grep -q 'no successful evaluation yet' "$T/e.html"

# a real browser
if [ -z "$CHROME" ]; then
	for i in 1 2 3 4 5; do skip "no chromium (apt-get install chromium)"; done
	exit 0
fi
cr --dump-dom "file://$T/r.html" >"$T/dom.html"
check "chromium loads the page" test -s "$T/dom.html"
check "... its DOM has every section, with charts" python3 -c '
import sys, re
d = open(sys.argv[1]).read()
for s in ["summary", "progress", "evaluations", "parameters", "importance",
          "parallel", "workers", "failures", "brackets"]:
    assert re.search(r"<section id=\"%s\"" % s, d), s
assert d.count("<svg") >= 6 and d.count("<circle") >= 20
# the importance section: a bar per parameter (3) per fidelity charted
imp = d.split("<section id=\"importance\"")[1].split("</section>")[0]
assert imp.count("class=\"imp\"") >= 3 and imp.count("class=\"imp\"") % 3 == 0, imp[:300]
' "$T/dom.html"
check "... and no script element" sh -c "! grep -q '<script' '$T/dom.html'"
cr --screenshot="$T/r.png" --window-size=1200,2400 "file://$T/r.html" >/dev/null
check "... renders a screenshot" \
	sh -c "test \$(wc -c <'$T/r.png') -gt 20000 && head -c 8 '$T/r.png' | od -c | grep -q 'P   N   G'"
check "... with a clean console" \
	sh -c "! grep -E 'CONSOLE|Uncaught|Refused' '$T/chrome.log'"
