#!/bin/sh
# test_report_labels.sh — plans on three pools with hostile-length names
# (31 bytes, the most a pool name holds) are named by every pool they use,
# each pool distinctly, in the plan table, the Markdown report, the CSV
# and the TUI's Plans view.
#
# The pools: datacenter-west-h1a-row07-rack1 (H100), ...-h1b-... (H100,
# one 25 Gb/s NIC) and ...-a1c-... (A100 40GB). At 14 columns their
# head~tail short names all read "datacen~rack1" (plan_label.h), and head
# and tail must grow to 30 columns before they differ: the labels used to
# run past the layout's 64 bytes and end in "..." ("...>datacenter-west-
# h1a-row07-ra..."), naming the pipeline's last pool by nothing.
# Now a pool whose head~tail clashes shows the word its name does not
# share with the others: "datacenter-west-" and "-row07-rack1" are common,
# "h1a" (3 columns) is its own; the 14 - 3 - 2 = 9 columns left go 3 to
# the tail ((9 * 2) / 5 = 3: "ck1") and 6 to the head ("datace"), so the
# short names are datace~h1a~ck1, datace~h1b~ck1 and datace~a1c~ck1.
#
# Checked, for each ranked plan (the CSV's gpus_by_pool says which pools
# it uses, by their whole names): its label in the CSV, the plan table and
# the Markdown report's ranked table holds the short name of every pool it
# uses and of no other; the JSON's label and list_label end in no "...";
# the TUI's Plans view at 120x40 shows the same in each row (a golden:
# tests/golden/plans-longnames-120x40.txt; UPDATE_GOLDEN=1 rewrites it).
# Run from the repository root; $HETPLAN names the binary (./hetplan).
. tests/tui_lib.sh
TUI_DIR=$tmp
G=tests/golden
export XDG_CACHE_HOME="$tmp/cache" XDG_CONFIG_HOME="$tmp/cfg" HETPLAN_PRICES_CACHE=
cat >"$tmp/ws.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "hostile", "pools": [
   {"name": "datacenter-west-h1a-row07-rack1", "gpu": "H100-SXM", "nodes": 2,
    "price_per_node_hour": 55.04},
   {"name": "datacenter-west-h1b-row07-rack1", "gpu": "H100-SXM", "nodes": 1, "nics": 1,
    "nic_gbps": 25, "price_per_node_hour": 30},
   {"name": "datacenter-west-a1c-row07-rack1", "gpu": "A100-SXM4-40GB", "nodes": 2,
    "price_per_node_hour": 20}]},
 "model": "llama3.1-70b",
 "workload": {"gbs": 512, "tokens": 1e11, "top": 8}}
JSON
python3 -c "
import json; d = json.load(open('$tmp/ws.json'))
json.dump(d['cluster'], open('$tmp/c.json', 'w'))
assert all(len(p['name']) == 31 for p in d['cluster']['pools'])" && ok || bad "fixture"

for f in csv md json; do
	"$HP" report "$tmp/ws.json" -o "$tmp/r.$f" 2>"$tmp/err" && ok || bad "report -o r.$f: $(cat "$tmp/err")"
done
"$HP" plan -c "$tmp/c.json" -m llama3.1-70b --gbs 512 --tokens 100B --top 8 >"$tmp/plan.txt" \
	2>"$tmp/err" && ok || bad "plan: $(cat "$tmp/err")"

start tui 120 40 "" "tui ws.json"
keys tui 3
# (wait_plans wants "#" and "PLAN" side by side: here the t column of
# the pool on tcp sits between them)
wait_for tui "TOK/S" 600 && wait_ready tui 600 && ok || bad "no plans in the TUI: $(screen tui | tail -3)"
screen tui >"$tmp/plans-longnames-120x40.txt"

python3 - "$tmp" <<'PY' >"$tmp/py.out" 2>&1 || bad "the checks stopped: $(tail -3 "$tmp/py.out")"
import csv, html, json, re, sys
t = sys.argv[1]
short = {"datacenter-west-h1a-row07-rack1": "datace~h1a~ck1",
         "datacenter-west-h1b-row07-rack1": "datace~h1b~ck1",
         "datacenter-west-a1c-row07-rack1": "datace~a1c~ck1"}

def check(cond, msg):
    print("OK" if cond else "FAIL", msg)

rows = list(csv.DictReader(open(t + "/r.csv", newline="")))
check(len(rows) >= 3, f"{len(rows)} ranked plans")
used = [{kv.rsplit(":", 1)[0] for kv in r["gpus_by_pool"].split(";")} for r in rows]
check(any(len(u) > 1 for u in used), "a plan over two pools or more")

def names_every_pool(view, rank, label, pools):
    want = {short[p] for p in pools}
    shown = {s for s in short.values() if s in label}
    check(shown == want and "..." not in label,
          f"{view} plan {rank}: {label!r} names {sorted(shown)}, uses {sorted(want)}")

for r, u in zip(rows, used):
    names_every_pool("csv", r["rank"], r["label"], u)

plan = open(t + "/plan.txt").read().split("\n")
cells = [l[5:] for l in plan if re.match(r"^ +\d+[* ] ", l)]
for k, (u, c) in enumerate(zip(used, cells)):
    names_every_pool("plan table", k + 1, c.split("  ")[0], u)

# the ranked table ("| rank | plan | ..."), its cells unescaped
text = open(t + "/r.md").read()
ranked = text[text.index("\n| rank | plan |"):].split("\n\n")[0].split("\n")[3:]
md = [html.unescape(l.split("|")[2].replace("\\~", "~")).strip() for l in ranked]
check(len(md) == len(used), f"Markdown ranked rows {len(md)}, CSV rows {len(used)}")
for k, (u, c) in enumerate(zip(used, md)):
    names_every_pool("markdown", k + 1, c, u)

d = json.load(open(t + "/r.json"))
for p in d["plans"]:
    check(not p["label"].endswith("...") and not p["list_label"].endswith("..."),
          f"json plan {p['rank']}: {p['label']!r} / {p['list_label']!r}")

scr = open(t + "/plans-longnames-120x40.txt").read().split("\n")
head = scr[2]
a, b = head.index("PLAN"), head.index("TOK/S")
tui = [l[a:b].rstrip() for l in scr[3:] if re.match(r"^ {0,2}\d+ ", l)]
check(len(tui) == len(used), f"TUI rows {len(tui)}, CSV rows {len(used)}")
for k, (u, c) in enumerate(zip(used, tui)):
    names_every_pool("TUI Plans", k + 1, c, u)
PY
while read -r verdict what; do
	case $verdict in OK) ok ;; *) bad "$what" ;; esac
done <"$tmp/py.out"

if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
	cp "$tmp/plans-longnames-120x40.txt" "$G/plans-longnames-120x40.txt"
	echo "updated $G/plans-longnames-120x40.txt"
	ok
else
	golden_verdict "$G/plans-longnames-120x40.txt" plans-longnames-120x40 \
		"UPDATE_GOLDEN=1 sh tests/test_report_labels.sh"
fi
finish report_labels
