#!/bin/sh
# test_report_cli.sh — `hetplan report` as a user meets it: every format from a
# workspace, the documented JSON keys and CSV columns, an HTML page that
# fetches nothing and renders in headless Chromium to a picture that is not
# blank, bad input, and the accuracy figures the reports quote. Run from the
# repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
W=tests/data/report/workspace.json
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

for f in md html json csv; do
	expect 0 "" $H report $W -o "$T/r.$f"
done
expect 0 "" $H report $W -o "$T/r.out" --format json --rank 2

# --- JSON: the documented keys, exactly --------------------------------------
python3 - "$T/r.json" "$T/r.out" <<'PY' && ok || bad "JSON keys"
import json, sys
d = json.load(open(sys.argv[1]))
top = {"schema_version", "generator", "generated_at", "inputs", "chosen", "plans", "pareto",
       "single_pool", "search", "accuracy"}   # and "serving" with a serve section (below)
assert top <= set(d) <= top | {"why", "nearest"}, set(d) ^ top
assert d["schema_version"] == 1 and d["generator"]["name"] == "hetplan"
assert set(d["inputs"]) == {"cluster", "model", "workload", "prices"}
assert set(d["inputs"]["workload"]) == {"gbs", "seq_len", "tokens", "precision", "objective",
                                        "deadline_s", "budget_usd", "top"}
assert d["inputs"]["workload"]["gbs"] == 1024 and d["inputs"]["workload"]["tokens"] == 2e12
for p in d["inputs"]["prices"]:
    assert set(p) == {"pool", "gpu", "usd_per_node_hour", "usd_per_gpu_hour", "source", "date"}
assert set(d["search"]) == {"candidates", "evaluated", "pruned", "lp_solves", "seconds", "fw_checked",
                          "fw_denied", "cancelled"}
plan_keys = {"rank", "label", "list_label", "step_time_s", "tokens_per_s", "mfu", "hfu", "usd_per_hour",
             "usd_per_million_tokens", "time_to_train_s", "cost_to_train_usd", "gpus_used",
             "networks", "mbs", "gbs", "precision",
             "recompute", "zero", "schedule", "cp", "ep", "sp", "flash", "framework", "tp_overlap",
             "grad_overlap", "param_overlap", "grad_reduce_fp32", "fp8_params", "ep_overlap", "replicas", "links", "breakdown_group",
             "breakdown_s", "memory", "comm", "optimality", "pareto", "runs_on", "runs_on_why",
             "memory_verdict", "mem_need_bytes", "mem_capacity_bytes"}
assert 1 <= len(d["plans"]) <= 8
for i, p in enumerate(d["plans"]):
    # seq_len and loss are there when the plan states them
    assert plan_keys <= set(p) <= plan_keys | {"seq_len", "loss"}, set(p) ^ plan_keys
    assert p["rank"] == i + 1
    for r in p["replicas"]:
        assert {"batch_share", "stages"} <= set(r)
        for s in r["stages"]:
            assert set(s) == {"pool", "gpu", "tp", "first_layer", "last_layer", "nodes"}, s
    assert set(p["breakdown_s"]) == {"compute", "recompute", "tp_comm", "pp_comm", "dp_comm",
                                     "ep_comm", "cp_comm", "bubble", "optimizer", "overhead"}
    assert abs(p["tokens_per_s"] * p["step_time_s"] - 1024 * 8192) < 1e-3 * 1024 * 8192
    assert p["optimality"]["status"] in ("optimal", "within-gap", "heuristic")
for p in d["pareto"]:
    assert plan_keys <= set(p) <= plan_keys | {"seq_len", "loss"}
assert d["chosen"] == 1
assert json.load(open(sys.argv[2]))["chosen"] == 2
assert len(d["accuracy"]) >= 3
PY
python3 -m json.tool "$T/r.json" >/dev/null && ok || bad "json.tool rejects the report"

# Every plan entry is an `estimate --plan` input (cluster and model from the
# report's own inputs) and gives the same step time.
python3 - "$T" <<'PY' && ok || bad "could not split the report"
import json, sys
t = sys.argv[1]; d = json.load(open(t + "/r.json"))
json.dump(d["inputs"]["cluster"], open(t + "/cluster.json", "w"))
json.dump(d["inputs"]["model"], open(t + "/model.json", "w"))
json.dump(d["plans"][0], open(t + "/plan1.json", "w"))
open(t + "/step1", "w").write(repr(d["plans"][0]["step_time_s"]))
PY
$H estimate -c "$T/cluster.json" -m "$T/model.json" --plan "$T/plan1.json" --format json >"$T/est.json" 2>"$T/err" &&
	python3 -c "import json; e=json.load(open('$T/est.json')); s=float(open('$T/step1').read()); assert abs(e['step_time_s']-s) <= 1e-9*s, (e['step_time_s'], s)" &&
	ok || bad "plan 1 through estimate: $(head -c 300 "$T/err")"

# --- CSV: the documented header, one row per plan ----------------------------
python3 - "$T/r.csv" "$T/r.json" <<'PY' && ok || bad "CSV rows"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
cols = ("rank,label,gpus,gpus_by_pool,transports,tp,pp,dp,cp,ep,mbs,gbs,precision,recompute,zero,"
        "schedule,"
        "step_time_s,tokens_per_s,mfu,hfu,usd_per_hour,usd_per_million_tokens,time_to_train_s,"
        "cost_to_train_usd,optimality,pareto,fits,gap,runs_on,memory_verdict").split(",")
assert rows[0] == cols, rows[0]
plans = json.load(open(sys.argv[2]))["plans"]
assert len(rows) == 1 + len(plans), (len(rows), len(plans))
for r, p in zip(rows[1:], plans):
    assert len(r) == len(cols)
    c = dict(zip(cols, r))
    assert int(c["rank"]) == p["rank"]
    assert abs(float(c["step_time_s"]) - p["step_time_s"]) <= 1e-5 * p["step_time_s"]
PY

# --- Markdown: the sections a reader needs -----------------------------------
for s in '## Summary' '## Inputs' 'price source' '## Top plans' '### Layout' '### Step time' \
	'### Memory per GPU' '### Communication' '### Cost to train' '## Assumptions and limits' \
	'## Accuracy of the model'; do
	grep -qF -- "$s" "$T/r.md" && ok || bad "Markdown lacks '$s'"
done

# --- HTML: self-contained, escaped, renders -----------------------------------
if grep -Eiq "(src|href)[[:space:]]*=[[:space:]]*[\"']?[[:space:]]*(https?:)?//|url\\(|@import|<link|<script" "$T/r.html"; then
	bad "HTML references an outside resource: $(grep -Eio "(src|href)=[^ >]*|url\\([^)]*\\)|@import[^;]*|<link[^>]*|<script" "$T/r.html" | head -3)"
else ok; fi
grep -qF 'Lab &lt;east&gt; &amp; &quot;west&quot;' "$T/r.html" && ok || bad "cluster name not escaped"
grep -qF 'Lab <east>' "$T/r.html" && bad "raw cluster name in HTML" || ok
grep -qF '@media print' "$T/r.html" && ok || bad "no print styles"
[ "$(grep -o '<svg' "$T/r.html" | wc -l)" -ge 4 ] && ok || bad "fewer than 4 charts"

CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$CHROME" ]; then
	echo "skipped: no chromium (tools/deps.sh installs it on Debian)"
else
	# No network: in a network namespace of its own when the system allows
	# one, and in any case every host resolves to nothing and the proxy is a
	# closed port, so a page that needed a fetch would render without it.
	NET=""
	if command -v unshare >/dev/null 2>&1 && unshare -rn true 2>/dev/null; then
		NET="unshare -rn"
	fi
	HOME="$T" $NET "$CHROME" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--user-data-dir="$T/chrome" --no-first-run --disable-background-networking \
		--host-resolver-rules="MAP * ~NOTFOUND" --proxy-server="127.0.0.1:9" \
		--screenshot="$T/shot.png" --window-size=1280,2000 "file://$T/r.html" \
		>"$T/chrome.log" 2>&1
	if [ -s "$T/shot.png" ]; then
		ok
		set -- $(python3 tests/tools/png_stats.py "$T/shot.png")
		# A blank page has one or two colours and no ink; the report has text,
		# four charts in a dozen colours and tables.
		[ "$1" = 1280 ] && [ "$2" = 2000 ] && ok || bad "screenshot is ${1}x$2"
		[ "$3" -ge 50 ] && ok || bad "screenshot has only $3 distinct colours"
		python3 -c "import sys; sys.exit(0 if float('$4') > 0.03 else 1)" && ok ||
			bad "screenshot is nearly blank ($4 of pixels have ink)"
		[ -n "${HETPLAN_SHOT:-}" ] && cp "$T/shot.png" "$HETPLAN_SHOT"
	else
		bad "chromium wrote no screenshot: $(tail -3 "$T/chrome.log")"
	fi
fi

# --- the accuracy figures the reports quote are the README's ----------------
# (src/report.c keeps them in one table; the README's are regenerated by the
# accuracy tests, so a refit that changes them must change the table too.)
python3 - README.md "$T/r.md" <<'PY' && ok || bad "report accuracy table differs from README.md / docs/comm-accuracy.md (tools/accuracy_update.py)"
import re, sys
readme, md = open(sys.argv[1]).read() + open("docs/comm-accuracy.md").read(), open(sys.argv[2]).read()
def num(pattern):
    m = re.search(pattern, readme)
    assert m, "README lacks " + pattern
    return m.groups()
n, mean, mx = num(r"CONF:high step-time rows: (\d+), mean \|error\| ([\d.]+)%, max ([\d.]+)%")
assert f"| {n} | {mean}% | - | {mx}% |" in md, ("CONF:high", n, mean, mx)
n, mean = num(r"other step-time rows: (\d+), mean \|error\| ([\d.]+)%")
assert f"| {n} | {mean}% | - | - |" in md, ("other", n, mean)
n, mean, mx = num(r"memory rows: (\d+) held to \+-15%, mean \|error\| ([\d.]+)%, max ([\d.]+)%")
assert f"| {n} | {mean}% | - | {mx}% |" in md, ("memory", n, mean, mx)
n, med, mx = num(r">=64MiB busbw: (\d+) rows, median \|err\| ([\d.]+)%, max \|err\| ([\d.]+)%")
assert f"| {n} | - | {med}% | {mx}% |" in md, (">=64MiB", n, med, mx)
n, med = num(r"1-64MiB: +(\d+) rows, median \|err\| ([\d.]+)%")
assert f"| {n} | - | {med}% | - |" in md, ("1-64MiB", n, med)
PY

# --- nothing fits: exit 4, and the report says why ---------------------------
expect 4 "no plan fits" $H report tests/data/report/nofit.json -o "$T/nofit.html"
grep -q '<h2>No plan fits</h2>' "$T/nofit.html" && ok || bad "no-fit HTML lacks its heading"
expect 4 "" $H report tests/data/report/nofit.json -o "$T/nofit.json"
python3 -c "
import json; d = json.load(open('$T/nofit.json'))
assert d['plans'] == [] and d['chosen'] is None and 'GPU memory' in d['why'], d['why']
" && ok || bad "no-fit JSON"

# --- bad input: messages, codes, nothing half-written ------------------------
expect 2 "give a workspace" $H report -o "$T/x.md"
expect 2 "-o FILE is required" $H report $W
expect 2 "cannot tell the format from the name" $H report $W -o "$T/x.txt"
expect 2 "--format: expected md, html, json or csv, got 'pdf'" $H report $W -o "$T/x.md" --format pdf
expect 2 "--rank: expected a positive integer" $H report $W -o "$T/x.md" --rank 0
expect 2 "--rank 99: the planner found" $H report $W -o "$T/x.md" --rank 99
# ... the same user mistake as launch's and estimate's --rank past a plan
# file's plans, so the same exit status (2, usage; man EXIT STATUS): the
# report's JSON is such a file, with as many plans as the planner found.
n=$(python3 -c "import json, sys; print(len(json.load(open(sys.argv[1]))['plans']))" "$T/r.json")
ws_args=$(python3 -c "
import json, sys
w = json.load(open(sys.argv[1]))
print(' '.join('--pool %dx%dx%s' % (p.get('nodes', 1), p.get('gpus_per_node', 8), p['gpu'])
               for p in w['cluster']['pools']), '-m', w['model'])" $W)
expect 2 "--rank $((n + 1)): the file has $n plans" $H launch $ws_args --plan "$T/r.json" --rank $((n + 1))
expect 2 "--rank $((n + 1)): the file has $n plans" $H estimate $ws_args --plan "$T/r.json" --rank $((n + 1))
expect 3 "No such file" $H report "$T/none.json" -o "$T/x.md"
printf '{"cluster": {"pools": [{"gpu": "H100", "nodes": 2}]}, "model": "llama3.1-8b",}' >"$T/bad.json"
expect 3 "bad.json: line 1, column" $H report "$T/bad.json" -o "$T/x.md"
echo "keep me" >"$T/keep.md"
expect 3 "" $H report "$T/bad.json" -o "$T/keep.md"
[ "$(cat "$T/keep.md")" = "keep me" ] && ok || bad "a failed run touched the old file"
expect 1 "" $H report $W -o "$T/no/such/dir/r.md"
[ ! -e "$T/no/such/dir/r.md" ] && [ -z "$(ls "$T" | grep '\.tmp\.')" ] && ok || bad "half-written file left"

# --- RUNS ON in both human reports (a column and its legend)
grep -q "| rank | plan | runs on |" "$T/r.md" && grep -q "needs a heterogeneity-aware runtime" "$T/r.md" &&
	ok || bad "Markdown report lacks the runs-on column"
grep -q "<th>runs on</th>" "$T/r.html" && ok || bad "HTML report lacks the runs-on column"

# --- a workspace with a "serve" section: the report plans it too, and its
# serving part is what `hetplan serve` answers for the same inputs (the
# JSON "serving" object equals `serve --format json`'s but for the wall
# time of the search; the Markdown and HTML parts carry the same plan).
cat >"$T/wss.json" <<'EOF2'
{"cluster": {"name": "lab", "pools": [{"name": "h100", "gpu": "H100-SXM", "nodes": 4,
  "gpus_per_node": 8}]}, "model": "llama3.1-8b", "workload": {"gbs": 256},
 "serve": {"rate": 20, "isl": "1000", "osl": "200", "ttft_p99_s": 1, "tpot_p99_s": 0.05}}
EOF2
for f in md html json; do
	expect 0 "" $H report "$T/wss.json" -o "$T/s.$f"
done
expect 0 "" $H serve --pool 4x8xH100-SXM,name=h100 -m llama3.1-8b --rate 20 --isl 1000 --osl 200 \
	--ttft-p99 1 --tpot-p99 0.05 --format json -o "$T/serve.json"
python3 - "$T/s.json" "$T/serve.json" "$T/s.md" "$T/s.html" "$T/r.json" <<'PY' && ok || bad "report's serving part"
import json, sys
rep, srv = json.load(open(sys.argv[1]))["serving"], json.load(open(sys.argv[2]))
for d in (rep, srv):
    for k in ("seconds", "solver_seconds"):
        d["search"].pop(k)
assert rep == srv, (rep, srv)
md, page = open(sys.argv[3]).read(), open(sys.argv[4]).read()
p = srv["plans"][0]
assert "\n## Serving Llama-3.1 8B\n" in md
assert "| 1 | %s | %d |" % (p["label"], p["gpus"]) in md
for i in p["instances"]:
    assert "\n" + i["launch"] + "\n" in md and i["launch"] in page
assert page.count("<section>") == page.count("</section>")
# a workspace without one has no serving part
assert "serving" not in json.load(open(sys.argv[5]))
PY

# --- isl and osl may be JSON numbers (as --isl 1500 is): the same report as
# the strings above; a fraction or a negative number is still refused,
# naming the key (exit 3, man page EXIT STATUS).
sed 's/"isl": "1000", "osl": "200"/"isl": 1000, "osl": 200/' "$T/wss.json" >"$T/wsn.json"
expect 0 "" $H report "$T/wsn.json" -o "$T/n.json"
python3 - "$T/s.json" "$T/n.json" <<'PY' && ok || bad "numeric isl/osl: same serving part"
import json, sys
a, b = (json.load(open(p))["serving"] for p in sys.argv[1:])
for d in (a, b):
    for k in ("seconds", "solver_seconds"):
        d["search"].pop(k)
assert a == b
PY
sed 's/"isl": "1000"/"isl": 1000.5/' "$T/wss.json" >"$T/wsf.json"
expect 3 "isl" $H report "$T/wsf.json" -o "$T/f.json"
sed 's/"osl": "200"/"osl": -200/' "$T/wss.json" >"$T/wsm.json"
expect 3 "osl" $H report "$T/wsm.json" -o "$T/m.json"

# --- the CSV report carries the serving plans too (md, html and json do):
# after the training plans and one blank line, the rows `hetplan serve
# --format csv` writes for the same inputs, byte for byte (the pool name,
# with a comma and a quote, is in neither: serving labels name GPUs).
cat >"$T/wsc.json" <<'EOF2'
{"cluster": {"name": "lab", "pools": [{"name": "h,1\"00", "gpu": "H100-SXM", "nodes": 4,
  "gpus_per_node": 8}]}, "model": "llama3.1-8b", "workload": {"gbs": 256},
 "serve": {"rate": 20, "isl": "1000", "osl": "200", "ttft_p99_s": 1, "tpot_p99_s": 0.05}}
EOF2
expect 0 "" $H report "$T/wsc.json" -o "$T/s.csv"
python3 -c "import json,sys; json.dump(json.load(open(sys.argv[1]))['cluster'], open(sys.argv[2], 'w'))" "$T/wsc.json" "$T/wsc-cluster.json"
expect 0 "" $H serve -c "$T/wsc-cluster.json" -m llama3.1-8b --rate 20 --isl 1000 --osl 200 \
	--ttft-p99 1 --tpot-p99 0.05 --format csv -o "$T/serve.csv"
sed '1,/^$/d' "$T/s.csv" >"$T/s-serve.csv"
head -1 "$T/s.csv" | grep -q '^rank,label,gpus,gpus_by_pool,' && ok || bad "csv report: training header first"
cmp -s "$T/s-serve.csv" "$T/serve.csv" && ok || bad "csv report's serving rows differ from serve --format csv: $(diff "$T/s-serve.csv" "$T/serve.csv" | head -5)"
head -1 "$T/s-serve.csv" | grep -qx 'rank,label,how,gpus,output_tokens_per_s,requests_per_s,usd_per_hour,usd_per_million_output_tokens,ttft_mean_s,ttft_p50_s,ttft_p99_s,tpot_mean_s,tpot_p50_s,tpot_p99_s,fits' &&
	ok || bad "csv report: serving header: $(head -1 "$T/s-serve.csv")"

# --- -o naming the workspace itself (by another path too) is refused
# before anything is written: the workspace stays as it was
cp "$T/wsc.json" "$T/self.json"
expect 2 "that is the workspace being reported on" $H report "$T/self.json" -o "$T/./self.json"
cmp -s "$T/wsc.json" "$T/self.json" && ok || bad "report -o its own workspace changed it"

# Markdown markup in names shows as text: a cluster named
# "[docs](https://example.invalid) *now*" must not become a link and
# emphasis in the report's title (CommonMark 2.4: each of [ ] * escaped
# with a backslash is the character itself).
python3 - "$W" "$T/mdw.json" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
w["cluster"]["name"] = "[docs](https://example.invalid) *now*"
json.dump(w, open(sys.argv[2], "w"))
PY
expect 0 "" $H report "$T/mdw.json" -o "$T/mdw.md"
grep -qxF '# Training plan: Llama-3.1 70B on \[docs\](https://example.invalid) \*now\*' "$T/mdw.md" && ok ||
	bad "md: markup in a cluster name is live: $(head -1 "$T/mdw.md")"

# A workspace whose objective is deadline (or budget) with no deadline_s
# (budget_usd): an invalid workspace (exit 3, the man page's EXIT STATUS)
# naming the key; it was exit 2 with plan's flag names ("--objective
# deadline needs --deadline"), which a report has none of.
for ob in deadline:deadline_s budget:budget_usd; do
	python3 - "$W" "$T/ob.json" "${ob%%:*}" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))
w["workload"]["objective"] = sys.argv[3]
json.dump(w, open(sys.argv[2], "w"))
PY
	expect 3 "ob.json: workload.${ob#*:}: the objective ${ob%%:*} needs one" $H report "$T/ob.json" -o "$T/ob.md"
done
[ -e "$T/ob.md" ] && bad "a report was written for a workspace without its bound" || ok

finish report_cli
