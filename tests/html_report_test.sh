#!/usr/bin/env bash
# The HTML report (--html FILE, index.html under --out) in a real headless
# browser: its scripts run without error, it shows the JSON's numbers, and
# it draws its charts, heatmaps and owner maps. Bad --html paths are
# refused as --json's are.
set -uo pipefail
tool="$1" jacobi="$2"
tmp="${TEST_TMPDIR:-$(mktemp -d)}"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v chromium >/dev/null || fail "chromium not found (tools/setup.sh installs it)"
export HOME="$tmp/home" && mkdir -p "$HOME"

# The page as the browser leaves it once its scripts have run.
render() {  # render PAGE DOM
  timeout 180 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --user-data-dir="$tmp/chromium" --virtual-time-budget=10000 --dump-dom "file://$1" >"$2" 2>"$2.log" ||
    fail "chromium on $1 exited $?: $(tail -5 "$2.log")"
  [ -s "$2" ] || fail "chromium dumped nothing for $1: $(tail -5 "$2.log")"
}

# check PAGE DOM JSON [TEXT]: the page embeds exactly the JSON document, and
# the rendered DOM has no script error, the table of every process count,
# and the charts, heatmaps and owner maps of the largest; TEXT must appear.
check() {
  python3 - "$@" <<'PY' || fail "$1: the rendered report does not match $3"
import html.parser, json, re, sys

page, dom, json_path = sys.argv[1:4]
wanted = sys.argv[4] if len(sys.argv) > 4 else None
expected = json.load(open(json_path, encoding="utf-8"))

# The embedded object is the --json document, number for number.
source = open(page, encoding="utf-8").read()
embedded = re.search(r'<script type="application/json" id="estimate">(.*?)</script>', source, re.S)
assert embedded, "no embedded JSON"
assert json.loads(embedded.group(1)) == expected, "the embedded JSON differs from the --json file"
assert not re.search(r"<(script|img|link|iframe|object)\b[^>]*\s(src|href)=", source), "the page is not self-contained"


class Dom(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids, self.canvases, self.rows, self.text, self.id_text = {}, [], {}, [], {}
        self.table, self.row, self.cell, self.span = None, None, None, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids[a["id"]] = a
        if tag == "span" and "id" in a:
            self.span = a["id"]
            self.id_text[self.span] = ""
        if tag == "canvas":
            self.canvases.append(a)
        if tag == "table":
            self.table = a.get("id")
            self.rows.setdefault(self.table, [])
        if tag == "tr":
            self.row = []
        if tag == "td":
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "span":
            self.span = None
        if tag == "td" and self.row is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        if tag == "tr" and self.row:
            self.rows[self.table].append(self.row)
        if tag == "tr":
            self.row = None

    def handle_data(self, data):
        self.text.append(data)
        if self.span is not None:
            self.id_text[self.span] += data
        if self.cell is not None:
            self.cell += data


d = Dom()
d.feed(open(dom, encoding="utf-8").read())
text = " ".join(d.text)
assert "report-error" not in d.ids, "script error: " + text[:300]
assert "report-done" in d.ids, "the report script did not finish"

# The table: one row per process count with the JSON's numbers.
rows = d.rows.get("procs-table", [])
assert len(rows) == len(expected["procs"]), rows
for row, e in zip(rows, expected["procs"]):
    got = [int(x) for x in row[:5]]
    want = [e["n"], e["total_bytes"], e["p2p_bytes"], e["collective_bytes"], e["messages"]]
    assert got == want, (got, want)
    assert e["distribution"] in row, (e["distribution"], row)

# The largest count in detail.
e = max(expected["procs"], key=lambda x: x["n"])
n = e["n"]
charts = [c for c in d.canvases if "box-sizing" in c.get("style", "")]  # what Chart.js drew
want_charts = 2 + 2 + (1 if e["phase_bytes"] else 0) + (1 if e["sites"] else 0)
assert int(d.ids["report-done"]["data-charts"]) == want_charts == len(charts), (d.ids["report-done"], len(charts))
heatmaps = [c for c in d.canvases if c.get("class") == "heatmap"]
assert len(heatmaps) == 2, heatmaps
assert int(heatmaps[0]["data-procs"]) == n
assert int(heatmaps[0]["data-peak"]) == max(max(r) for r in e["matrix"]), heatmaps[0]
assert int(heatmaps[1]["data-peak"]) == max(max(r) for r in e["messages_matrix"]), heatmaps[1]
step = int(heatmaps[0]["data-label-step"])
assert (step >= 2) if n >= 64 else (step >= 1), f"rank labels every {step} of {n}: they overlap"
assert len([c for c in d.canvases if c.get("class") == "scale"]) == 2, "no colour scales"
owners = [c for c in d.canvases if c.get("class") == "owners"]
arrays = sorted({run[0] for run in e.get("owner_map", [])})
assert sorted(int(c["data-array"]) for c in owners) == arrays, (owners, arrays)
assert all(int(c["data-ranks"]) == n for c in owners), owners
# Per rank and message sizes: sums of what the page read add up to the JSON's totals.
assert int(d.id_text["rank-total"]) == e["p2p_bytes"], d.id_text
assert sum(k for _, k in e["message_sizes"]) == e["p2p_messages"], "JSON: message sizes vs messages"
assert int(d.id_text["histogram-messages"]) == e["p2p_messages"], d.id_text
learned = e.get("learned_iterations", 0)
over = "" if learned == 0 else ", projected from the first " + ("iteration" if learned == 1 else f"{learned} iterations")
assert f"Candidate distributions ({n} processes{over})" in text and "kept" in text
for name in e.get("candidates", {}):
    assert name in text, name
# Each candidate's largest shares; the kept one's are those of its per-process work and bytes
# (when the candidates were costed on the whole run, as the kept one is).
kept = e.get("candidates", {}).get(e.get("distribution"))
if kept is not None and e.get("learned_iterations", 0) == 0:
    for field, shares in (("most_work", e["process_work"]), ("most_data", e["process_memory"])):
        want = max(shares) * len(shares) / sum(shares) if sum(shares) else 0.0
        assert abs(kept[field] - want) <= 1e-3 * want, (field, kept[field], want)
if wanted:
    assert wanted in text, f"no '{wanted}' in the page"
PY
}

# demo: --html and --out's index.html, 2 to 64 processes.
"$tool" demo --n 32 --steps 3 --procs 2,4,16,64 --json "$tmp/est.json" --html "$tmp/report.html" --out "$tmp/out" \
  >"$tmp/demo.out" 2>&1 || fail "demo exited $?: $(cat "$tmp/demo.out")"
grep -q "wrote $tmp/report.html" "$tmp/demo.out" || fail "demo does not say it wrote the page"
[ -s "$tmp/out/index.html" ] || fail "no index.html under --out"
ls "$tmp" "$tmp/out" | grep -q partial && fail "partial files left behind"
render "$tmp/report.html" "$tmp/report.dom"
check "$tmp/report.html" "$tmp/report.dom" "$tmp/est.json" "cartesian 8x8"
render "$tmp/out/index.html" "$tmp/index.dom"
check "$tmp/out/index.html" "$tmp/index.dom" "$tmp/out/estimate.json"

# A learning window shorter than the run: the candidates' costs say so.
"$tool" demo --n 16 --steps 12 --learn_iterations 3 --procs 4 --json "$tmp/learn.json" --html "$tmp/learn.html" \
  >"$tmp/learn.out" 2>&1 || fail "demo with a learning window exited $?: $(cat "$tmp/learn.out")"
grep -q '"learned_iterations": 3' "$tmp/learn.json" || fail "the JSON does not say the candidates were learned on 3 iterations"
render "$tmp/learn.html" "$tmp/learn.dom"
check "$tmp/learn.html" "$tmp/learn.dom" "$tmp/learn.json" "first 3 iterations"

# analyze: a real program, whose "where" names its loop.
"$tool" analyze "$jacobi" --procs 4,9 --json "$tmp/jacobi.json" --html "$tmp/jacobi.html" -- 32 4 \
  >"$tmp/jacobi.out" 2>&1 || fail "analyze exited $?: $(cat "$tmp/jacobi.out")"
render "$tmp/jacobi.html" "$tmp/jacobi.dom"
check "$tmp/jacobi.html" "$tmp/jacobi.dom" "$tmp/jacobi.json" "before the loop at jacobi_swap.c:"

# A source path with what would end or change a <script> element in HTML.
odd="$tmp/odd<!--<script>dir" && mkdir -p "$odd" && cp "$jacobi" "$odd/jacobi_swap.c"
"$tool" analyze "$odd/jacobi_swap.c" --procs 4 --json "$tmp/odd.json" --html "$tmp/odd.html" -- 16 2 \
  >"$tmp/odd.out" 2>&1 || fail "analyze in $odd exited $?: $(cat "$tmp/odd.out")"
grep -qF 'odd<!--<script>dir' "$tmp/odd.json" || fail "the test's path is not in the JSON"
render "$tmp/odd.html" "$tmp/odd.dom"
check "$tmp/odd.html" "$tmp/odd.dom" "$tmp/odd.json" "odd<!--<script>dir/jacobi_swap.c:"

# The checks can fail: a page whose script fails shows the error marker
# and never finishes.
sed 's/const data = JSON.parse(/no_such_function(); &/' "$tmp/report.html" >"$tmp/broken.html"
cmp -s "$tmp/report.html" "$tmp/broken.html" && fail "could not break the page"
render "$tmp/broken.html" "$tmp/broken.dom"
grep -q '<div id="report-error">This report failed to draw: Uncaught ReferenceError: no_such_function' "$tmp/broken.dom" ||
  fail "no error marker on a broken page"
grep -q 'id="report-done"' "$tmp/broken.dom" && fail "a broken page says it finished"
( check "$tmp/broken.html" "$tmp/broken.dom" "$tmp/est.json" ) 2>/dev/null && fail "check passed a broken page"

# Bad --html paths are refused before any work (exit 2), inputs stay intact.
expect_error() {  # expect_error CODE PATTERN CMD...
  local code="$1" pattern="$2"; shift 2
  local err; err=$("$@" 2>&1 >/dev/null); local got=$?
  [ "$got" -eq "$code" ] || fail "'$*' exited $got, want $code: $err"
  grep -q -- "$pattern" <<<"$err" || fail "'$*': no '$pattern' in: $err"
}
cp "$jacobi" "$tmp/source.c"
expect_error 2 "--html: '$tmp/source.c' is an input of this run" "$tool" analyze "$tmp/source.c" --html "$tmp/source.c"
cmp -s "$jacobi" "$tmp/source.c" || fail "--html overwrote the source"
expect_error 2 "--html: '$tmp/out' is a folder" "$tool" demo --html "$tmp/out"
expect_error 2 "--html: folder '$tmp/missing' does not exist" "$tool" analyze "$tmp/source.c" --html "$tmp/missing/r.html"
expect_error 2 "is the --json file too" "$tool" demo --json "$tmp/same" --html "$tmp/./same"
[ -e "$tmp/same" ] && fail "a refused run wrote a file"
expect_error 2 "model: --html is for analyze, estimate and demo" \
  "$tool" model "$tmp/source.c" --sizes 8,12,16 --html "$tmp/m.html" -- '{n}' 2
expect_error 2 "--html needs a value" "$tool" demo --html
# A run that fails leaves an earlier page as it was and no partial page.
echo "earlier" >"$tmp/keep.html"
expect_error 1 "/dev/full" "$tool" demo --n 16 --steps 1 --procs 2 --json /dev/full --html "$tmp/keep.html"
[ "$(cat "$tmp/keep.html")" = "earlier" ] || fail "a failed run replaced the earlier page"
[ -e "$tmp/keep.html.partial" ] && fail "a partial page was left"
# A full device is an error, not a page (written in place, never renamed over).
expect_error 1 "error while writing /dev/full" "$tool" demo --n 16 --steps 1 --procs 2 --html /dev/full
help=$("$tool" help) || fail "help exited $?"
grep -q -- "--html FILE" <<<"$help" && grep -q -- "--html (default: none)" <<<"$help" || fail "help does not document --html"
echo PASS
