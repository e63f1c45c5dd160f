#!/bin/sh
# test_tui_commrows.sh — the Detail view's communication table lists every
# row `hetplan estimate --format json` lists for the same plan, driven as
# a user drives it (tmux send-keys, capture-pane):
#   - the dp row's "+ allgather" at ZeRO-1/2 (the JSON's "includes": the
#     updated parameters gathered back after the reduce-scatter), and
#   - the second pp row, a replica group's pipeline hand-off across the
#     WAN that does not set the step (the JSON's "sets_step": false),
# each with its dimension, collective, bytes, group, link, algorithm,
# protocol, time, exposed time and calls equal to the JSON's to the
# printed precision, and the note under the table naming what the row is
# (for the WAN row, the group and stage the JSON names). Before the TUI
# read the report's row list (report_comm_rows) its Detail showed neither
# row: fewer rows than the JSON, and this test failed on the count.
#
# The "same plan" is the Detail's own `e` .json export, estimated with
# `hetplan estimate --plan` on the workspace's cluster.
#
# A mixed cluster across two clouds: 2 nodes of 8 H100-SXM on aws
# us-east-1, 2 of 8 A100-40GB and 2 of 8 L40S on gcp us-central1 (two
# sites, so a pipeline or DP group over both crosses the WAN).
#   A. Llama 3.1 70B, gbs 512 x 8192, top 10, at 200x50 (the wide table):
#      the ranked plan whose estimate has a WAN hand-off row (the planner's
#      own `plan --format json` names it).
#   B. Llama 3.1 8B, gbs 256 x 4096, plan #1 (ZeRO-1 across H100 and L40S)
#      at 80x24 (the narrow table: link, protocol and calls on a row of
#      their own under each row).
# Run from the repository root; $HETPLAN names the binary (./hetplan).
. tests/tui_lib.sh
TUI_DIR=$tmp

cluster='{"name": "mix", "pools": [
   {"name": "h100", "gpu": "H100-SXM", "nodes": 2, "provider": "aws", "region": "us-east-1", "site": "aws-east"},
   {"name": "a100", "gpu": "A100-40GB", "nodes": 2, "provider": "gcp", "region": "us-central1", "site": "gcp-central"},
   {"name": "l40s", "gpu": "L40S", "nodes": 2, "gpus_per_node": 8, "provider": "gcp", "region": "us-central1", "site": "gcp-central"}]}'
echo "$cluster" >"$tmp/cluster.json"
# ws FILE MODEL GBS SEQ: the workspace
ws() {
	cat >"$tmp/$1" <<JSON
{"version": 1, "cluster": $cluster, "model": "$2",
 "workload": {"gbs": $3, "seq_len": $4, "precision": "bf16", "objective": "throughput", "top": 10}}
JSON
}
ws a.json llama3.1-70b 512 8192
ws b.json llama3.1-8b 256 4096
hp() { env XDG_CONFIG_HOME="$tmp/cfg" XDG_CACHE_HOME="$tmp/cache" "$HP" "$@"; }

# check S MODEL WHAT: the screen's communication rows and notes against
# $tmp/S-est.json; WHAT is "wan" or "gather", the row the case is about.
check() {
	screen "$1" >"$tmp/$1.txt"
	python3 - "$tmp/$1.txt" "$tmp/$1-est.json" "$3" <<'PY' && ok || bad "case $1: Detail's communication table vs hetplan estimate --plan (screen in $tmp/$1.txt)"
import json, re, sys
scr = open(sys.argv[1]).read().split("\n")
est = json.load(open(sys.argv[2]))
what = sys.argv[3]
errs = []
# the rows the JSON lists, in its order; a gather under its dp row
want = []
for c in est["comm"]:
    want.append((c["dim"], c["collective"], c["bytes"], c["group"], c["link"], c["algorithm"],
                 c["protocol"], c["time_s"], c["exposed_s"], c["calls_per_step"]))
    g = c.get("includes")
    if g:
        want.append(("", "+ " + g["collective"], g["bytes"], c["group"], c["link"], g["algorithm"],
                     g["protocol"], g["time_s"], g["exposed_s"], 1))
if what == "wan" and not any(c.get("sets_step") is False for c in est["comm"]):
    errs.append("precondition: the plan's estimate has no WAN hand-off row")
if what == "gather" and not any("includes" in c for c in est["comm"]):
    errs.append("precondition: the plan's estimate has no parameter gather")
try:
    top = next(i for i, l in enumerate(scr) if "Communication per step" in l)
except StopIteration:
    sys.exit("no Communication section on the screen")
body = scr[top + 2:]
wide = re.compile(r"^  (\w*) +(\+ \w+|\w+) +([\d.]+ \w+) +(\d+)  (.+?) +(\w+) +(\w+) +"
                  r"([\d.]+ \w+) +([\d.]+ \w+) +([\d.]+[KMB]?)$")
narrow = re.compile(r"^  (\w*) +(\+ \w+|\w+) +([\d.]+ \w+) +(\d+)  (\w+) +([\d.]+ \w+) +([\d.]+ \w+)$")
over = re.compile(r"^      over (.+), (\w+) protocol, ([\d.]+[KMB]?) calls?$")
rows = []
i = 0
while i < len(body):
    l = body[i].rstrip()
    m = wide.match(l)
    if m:
        rows.append(m.groups())
    else:
        m = narrow.match(l)
        if m:
            o = over.match(body[i + 1].rstrip()) if i + 1 < len(body) else None
            if not o:
                errs.append("narrow row without its 'over' row: %r" % l)
            else:
                d, coll, b, grp, algo, t, x = m.groups()
                rows.append((d, coll, b, grp, o.group(1), algo, o.group(2), t, x, o.group(3)))
                i += 1
    i += 1
UNIT = {"B": 1, "KiB": 1024, "MiB": 1024**2, "GiB": 1024**3, "TiB": 1024**4,
        "us": 1e-6, "ms": 1e-3, "s": 1, "min": 60, "h": 3600, "d": 86400, "y": 365 * 86400}
def near(text, v):
    # the printed figure holds v to half its last digit
    num, u = text.split()
    step = 10 ** -len(num.split(".")[1]) if "." in num else 1
    return abs(float(num) - v / UNIT[u]) <= step / 2 + 1e-9
def count(text, v):
    k = {"K": 1e3, "M": 1e6, "B": 1e9}.get(text[-1], 1)
    num = text.rstrip("KMB")
    step = 10 ** -len(num.split(".")[1]) if "." in num else 1
    return abs(float(num) - v / k) <= step / 2 + 1e-9
if len(rows) != len(want):
    errs.append("rows: screen %d, hetplan estimate %d: %r" % (len(rows), len(want), rows))
for r, w in zip(rows, want):
    d, coll, b, grp, link, algo, proto, t, x, calls = r
    if (d, coll, int(grp), link, algo, proto) != (w[0], w[1], w[3], w[4], w[5], w[6]):
        errs.append("row %r: hetplan estimate %r" % (r, w))
    if not near(b, w[2]) or not near(t, w[7]) or not near(x, w[8]) or not count(calls, w[9]):
        errs.append("figures %r: hetplan estimate bytes %g time %g exposed %g calls %g" %
                    (r, w[2], w[7], w[8], w[9]))
notes = " ".join(l.strip() for l in body)
for c in est["comm"]:
    if c.get("sets_step") is False:
        s = "group %d stage %d's hand-off across the WAN, which does not set the step" % (
            c["replica_group"], c["stage"])
        if s not in notes:
            errs.append("no note %r" % s)
    if "includes" in c and "+ %s: the updated parameters gathered back" % c["includes"]["collective"] not in notes:
        errs.append("no note on the dp row's gather")
if errs:
    print("\n".join(errs))
    sys.exit(1)
PY
}

# detail S RANK: the Plans view's plan RANK in the Detail view, scrolled
# to its end, exported with e and estimated with `hetplan estimate
# --plan` (MODEL in $2) into $tmp/S-est.json.
detail() {
	down=1
	while [ $down -lt "$2" ]; do
		keys "$1" j
		down=$((down + 1))
	done
	keys "$1" Enter
	wait_for "$1" " #$2 " || bad "case $1: no Detail of plan #$2: $(screen "$1" | sed -n 3p)"
	keys "$1" G
	keys "$1" e
	wait_for "$1" "Export plan to" || bad "case $1: e did not prompt: $(screen "$1" | tail -1)"
	keys "$1" C-u "$tmp/$1-exp.json" Enter
	wait_for "$1" "exported $tmp/$1-exp.json" || bad "case $1: no export: $(screen "$1" | tail -1)"
	python3 -c 'import json, sys
json.dump(json.load(open(sys.argv[1]))["plan"], open(sys.argv[2], "w"))' \
		"$tmp/$1-exp.json" "$tmp/$1-plan.json" || bad "case $1: the export has no plan"
	hp estimate -c "$tmp/cluster.json" -m "$3" --plan "$tmp/$1-plan.json" --format json \
		>"$tmp/$1-est.json" 2>"$tmp/err" || bad "case $1: hetplan estimate --plan: $(cat "$tmp/err")"
}

# A: the ranked plan with a WAN hand-off row, by the planner's own JSON
hp plan -c "$tmp/cluster.json" -m llama3.1-70b --gbs 512 --seq 8192 --top 10 --format json \
	>"$tmp/a-plans.json" 2>"$tmp/err" || bad "hetplan plan A: $(cat "$tmp/err")"
rank=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(next(p["rank"] for p in d["plans"] if any(c.get("sets_step") is False for c in p["comm"])))' \
	"$tmp/a-plans.json" 2>/dev/null)
if [ -z "$rank" ]; then
	bad "case A: no ranked plan with a WAN hand-off row (the case no longer exercises the row)"
else
	start a 200 50 "" "tui a.json"
	wait_ready a || bad "no plans for a.json: $(screen a | tail -1)"
	detail a "$rank" llama3.1-70b
	wait_for a "Communication per step" || bad "case A: no Communication section"
	check a llama3.1-70b wan
fi

# B: plan #1's dp row and its gather at 80x24
start b 80 24 "" "tui b.json"
wait_ready b || bad "no plans for b.json: $(screen b | tail -1)"
detail b 1 llama3.1-8b
wait_for b "Communication per step" || bad "case B: no Communication section"
check b llama3.1-8b gather
# no line wider than the terminal
python3 -c 'import sys; sys.exit(any(len(l.rstrip("\n")) > 80 for l in open(sys.argv[1], encoding="utf-8")))' "$tmp/b.txt" && ok || bad "case B: a line over 80 columns"

finish test_tui_commrows
