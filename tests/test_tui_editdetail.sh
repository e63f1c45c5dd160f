#!/bin/sh
# test_tui_editdetail.sh — the edited plan's Detail view (d in the Edit
# plan view), driven as a user drives it (tmux send-keys, capture-pane),
# its numbers read off the screen and checked against `hetplan estimate
# --plan` of the same plan: the plan object of the view's own `e` .json
# export, the cluster and model of the workspace saved with `w` (the
# workspace writer, not the export's copy of the inputs).
#
# The default workspace (4 nodes of 8 H100-SXM, 8 of 8 A100-80GB, Llama
# 3.1 70B). Its plan #1 is edited to recompute full and tp_overlap off,
# two keys that move the step time (recompute adds a part to the step, TP
# overlap exposes the TP collectives) and the activations' memory. Then:
#   - the Detail's title names plan #1 and the two changed keys with their
#     new values, exactly the keys whose values differ between plan #1's
#     and the edited plan's exported plan objects;
#   - its step time, tokens/s, each stage's memory and the fullest stage,
#     the step parts, and each collective's bytes, time and exposed time
#     equal the CLI's JSON to the printed precision, and the step time the
#     CLI's text word for word;
#   - Esc goes back to the editor with the two keys still changed (*) and
#     the same edited figures;
#   - a refused plan (fp8 on the A100 pool) gets no Detail: the message
#     line says why, as e does, and the editor stays;
#   - Compare with plan #1 as A and the edited plan as B shows the
#     editor's two columns.
# At 120x40 (UTF-8) and at 80x24 (--ascii), with golden screens.
#
# Run from the repository root; $HETPLAN names the binary (./hetplan).
# UPDATE_GOLDEN=1 rewrites tests/golden/editdetail-*.txt.
. tests/tui_lib.sh
. tests/tui_edit_lib.sh
G=tests/golden
# the footer of the edited Detail scrolled to its top and to its end (or
# showing every row)
TOP='(rows 1-[0-9]+ of [0-9]+| edited plan) *$'
END='(rows [0-9]+-([0-9]+) of \2| edited plan) *$'


# marked S KEY: KEY's row carries the * mark.
marked() { screen "$1" | grep -qE "^\*$2 "; }
# export S FILE: e, the file's name, and the message that it is whole.
export_to() {
	keys "$1" e
	wait_for "$1" "Export plan to" || bad "e did not prompt: $(screen "$1" | tail -1)"
	keys "$1" C-u "$2" Enter
	wait_for "$1" "exported $2" || bad "no export to $2: $(screen "$1" | tail -1)"
}
# metric_cols S SEP: the editor's metric rows (planner and edited columns) as
# "NAME|PLANNER|EDITED" lines, for the Compare check.
metric_cols() {
	screen "$1" | python3 -c '
import re, sys
sep = sys.argv[1]
names = ("GPUs", "tokens/s", "MFU", "step time", "$/hour", "$ per 1M tokens", "time to train",
         "cost to train", "memory headroom", "bubble", "exposed comm", "power")
VAL = re.compile(r"(?:^|(?<= ))(?:-(?= |$)|[+-]?\$?\d[\d.]*(?:[KMB%]| (?:s|ms|us|min|h|d|y|kW|pts)\b)?)")
for l in sys.stdin:
    r = l.split(sep, 1)[1] if sep and sep in l else l
    r = r.strip()
    n = next((n for n in names if r.startswith(n + " ")), None)
    if n:
        v = VAL.findall(r[len(n):])
        print("%s|%s|%s" % (n, v[0], v[1]))' "$2"
}

# check S TAG: the edited Detail's top and bottom screens against `hetplan
# estimate --plan` of the exported plan on the saved workspace.
check() {
	s=$1 tag=$2
	keys "$s" g
	wait_status "$s" "$TOP" 300 || bad "g: $(screen "$s" | tail -1)"
	screen "$s" >"$tmp/top-$tag.txt"
	keys "$s" G
	wait_status "$s" "$END" 300 || bad "G: $(screen "$s" | tail -1)"
	screen "$s" >"$tmp/end-$tag.txt"
	# eight rows up from the end: at 80x24 the step's parts sit between
	# the top and the end screens (the communication table's gather row
	# and its note moved them up)
	first=$(tail -1 "$tmp/end-$tag.txt" | sed -n 's/.*rows \([0-9]*\)-.*/\1/p')
	if [ -n "$first" ] && [ "$first" -gt 9 ]; then
		keys "$s" k k k k k k k k
		wait_status "$s" "rows $((first - 8))-" 300 || bad "k: $(screen "$s" | tail -1)"
	fi
	screen "$s" >"$tmp/mid-$tag.txt"
	python3 - "$tmp" "$tag" <<'PY' && ok || bad "the edited Detail ($tag) vs hetplan estimate --plan"
import json, re, sys
tmp, tag = sys.argv[1:]
top = open("%s/top-%s.txt" % (tmp, tag)).read().split("\n")
end = open("%s/end-%s.txt" % (tmp, tag)).read().split("\n")
mid = open("%s/mid-%s.txt" % (tmp, tag)).read().split("\n")
js = json.load(open(tmp + "/est.json"))
txt = open(tmp + "/est.txt").read()
errs = []
UNIT_S = {"us": 1e-6, "ms": 1e-3, "s": 1, "min": 60, "h": 3600}
UNIT_B = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40}
def near(what, shown, want, units):
    """shown: "18.50 s"; equal to want to its printed precision."""
    m = re.fullmatch(r"([\d.]+) (\S+)", shown.strip())
    if not m or m.group(2) not in units:
        errs.append("%s: cannot read %r" % (what, shown))
        return
    num, unit = m.group(1), units[m.group(2)]
    dec = len(num.split(".")[1]) if "." in num else 0
    if abs(float(num) * unit - want) > 0.5 * 10 ** -dec * unit * 1.0001:
        errs.append("%s: screen %r, hetplan estimate %.6g" % (what, shown, want))
DUR = r"[\d.]+ (?:us|ms|s|min|h)"
BYT = r"[\d.]+ (?:B|KiB|MiB|GiB|TiB)"
# the summary line: tokens/s and step
summ = next((l for l in top if "tokens/s  MFU" in l), None)
if not summ:
    errs.append("no summary line")
else:
    m = re.search(r"step (%s)" % DUR, summ)
    near("step", m.group(1), js["step_time_s"], UNIT_S)
    cli = re.search(r"^  step time +(.+?)\s*$", txt, re.M).group(1)
    if m.group(1) != cli:
        errs.append("step: screen %r, hetplan estimate's text %r" % (m.group(1), cli))
    m = re.search(r"MFU ([\d.]+)%", summ)
    if abs(float(m.group(1)) - 100 * js["mfu"]) > 0.05001:
        errs.append("MFU: screen %s%%, hetplan estimate %.4f" % (m.group(1), js["mfu"]))
# the memory table: each stage's row, G<group> S<stage>
rows = {}
for l in end:
    m = re.match(r"\s+G(\d+) S(\d+)\s.*?(%s) / (%s)\s+(\d+)%%" % (BYT, BYT), l)
    if m:
        rows[(int(m.group(1)), int(m.group(2)))] = m.group(3, 4, 5)
if len(rows) != len(js["memory"]):
    errs.append("memory rows: screen %d, hetplan estimate %d" % (len(rows), len(js["memory"])))
for st in js["memory"]:
    r = rows.get((st["replica_group"], st["stage"]))
    if not r:
        errs.append("no memory row G%d S%d" % (st["replica_group"], st["stage"]))
        continue
    near("G%d S%d used" % (st["replica_group"], st["stage"]), r[0], st["total_bytes"], UNIT_B)
    near("G%d S%d capacity" % (st["replica_group"], st["stage"]), r[1], st["capacity_bytes"], UNIT_B)
# the fullest stage, as the memory line under the title names it
full = max(js["memory"], key=lambda st: st["total_bytes"] / st["capacity_bytes"])
text = " ".join(l.strip() for l in top)
m = re.search(r"fullest stage (%s) of (%s)" % (BYT, BYT), text)
if not m:
    errs.append("no memory line: %r" % text[:300])
else:
    near("fullest stage", m.group(1), full["total_bytes"], UNIT_B)
    near("fullest stage capacity", m.group(2), full["capacity_bytes"], UNIT_B)
# the step's parts: "█ compute    2.1 min 97%" (any glyph)
labels = {"compute": "compute", "recompute": "recompute", "TP comm": "tp_comm", "PP p2p": "pp_comm",
          "DP sync": "dp_comm", "bubble": "bubble", "optimizer": "optimizer"}
seen = set()
for l in mid + end:
    for lab, key in labels.items():
        for m in re.finditer(r"(?:^|\s)\S %s +(%s) +\d+%%" % (re.escape(lab), DUR), l):
            near("part " + lab, m.group(1), js["breakdown_s"][key], UNIT_S)
            seen.add(key)
for key in ("compute", "recompute", "tp_comm"):
    if key not in seen:
        errs.append("step part %s not on the screen" % key)
if not js["breakdown_s"]["recompute"] > 0:
    errs.append("recompute full: breakdown_s.recompute is %g" % js["breakdown_s"]["recompute"])
# the communication table: each dimension's row
for c in js["comm"]:
    l = next((l for l in end if re.match(r"\s+%s\s+%s\s" % (c["dim"], c["collective"]), l)), None)
    if not l:
        errs.append("no comm row %s %s" % (c["dim"], c["collective"]))
        continue
    near("%s bytes" % c["dim"], re.search(BYT, l).group(0), c["bytes"], UNIT_B)
    d = re.findall(DUR, l)
    if len(d) != 2:
        errs.append("comm row %r: times %r" % (l, d))
        continue
    near("%s time" % c["dim"], d[0], c["time_s"], UNIT_S)
    near("%s exposed" % c["dim"], d[1], c["exposed_s"], UNIT_S)
if errs:
    print("\n".join(errs))
    sys.exit(1)
PY
}

# run S W H ARGS SEP: the walk in a session of W x H.
run() {
	s=$1 sep=$5
	start "$s" "$2" "$3" "" "$4"
	wait_ready "$s" || bad "no plans at $2x$3: $(screen "$s" | tail -3)"
	# plan #1 as A, and its plan object
	keys "$s" a
	export_to "$s" "$tmp/plan1-$s.json"
	keys "$s" E
	wait_for "$s" "What if: #1 " && ok || bad "E did not open the editor: $(screen "$s" | sed -n 3p)"
	[ -f "$tmp/rows" ] || screen "$s" >"$tmp/rows"
	# the key in the footer and in ? of the editor and of the edited Detail
	screen "$s" | tail -1 | grep -qF " d detail " && ok || bad "the footer lacks d: $(screen "$s" | tail -1)"
	keys "$s" '?'
	wait_for "$s" "Keys in the Edit plan view" || bad "? in the editor"
	screen "$s" | grep -qE "^   d +Detail view of the edited plan" && ok || bad "? lacks d"
	keys "$s" Escape d '?'
	wait_for "$s" "Keys in the Edited plan detail view" && ok || bad "? in the edited Detail"
	screen "$s" | grep -qE "^   Esc h Left Bksp Back to the plan editor" && ok ||
		bad "? in the edited Detail: $(screen "$s" | grep Bksp)"
	keys "$s" '?'
	wait_gone "$s" "Keys in the Edited plan detail view" || bad "? did not close the help"
	# d with nothing changed: the Detail says so
	wait_for "$s" "Edited plan: what if on #1 " && ok || bad "d did not show the Detail: $(screen "$s" | sed -n 3,4p)"
	screen "$s" | grep -qF "no key changed: the planner's plan" && ok || bad "unchanged plan: $(screen "$s" | sed -n 4p)"
	keys "$s" Escape
	wait_for "$s" "What if: #1 " || bad "Esc did not go back"

	cycle "$s" recompute full
	cycle "$s" tp_overlap off
	wait_for "$s" "fullest stage" || bad "no estimate after the edits: $(screen "$s" | sed -n 16,22p)"
	metric_cols "$s" "$sep" >"$tmp/cols-$s"

	keys "$s" d
	wait_for "$s" "Edited plan: what if on #1 " && ok || bad "d did not show the Detail"
	# the changed keys: those whose plan objects differ, with the new values
	export_to "$s" "$tmp/edited-$s.json"
	screen "$s" >"$tmp/title.txt"
	python3 - "$tmp/plan1-$s.json" "$tmp/edited-$s.json" "$tmp/title.txt" <<'PY' && ok || bad "the changed keys in the title"
import json, re, sys
a, b = (json.load(open(f))["plan"] for f in sys.argv[1:3])
diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
scr = " ".join(l.strip() for l in open(sys.argv[3]).read().split("\n")[2:8])
m = re.search(r"\* (\d+) keys? changed: (.*?)(?:  | \d[\d.]*K? tokens/s|$)", scr)
assert m, scr
named = dict(re.findall(r"(\w+) (\S+) \(was [^)]*\)", m.group(2)))
assert sorted(named) == diff and int(m.group(1)) == len(diff), (named, diff, scr)
def word(v):
    return {True: "on", False: "off"}.get(v, str(v))
for k in diff:
    assert named[k] == word(b[k]), (k, named[k], b[k])
PY
	# the plan object alone: the plan file hetplan estimate --plan reads
	python3 -c 'import json, sys
json.dump(json.load(open(sys.argv[1]))["plan"], open(sys.argv[2], "w"))' \
		"$tmp/edited-$s.json" "$tmp/plan.json"
	env XDG_CONFIG_HOME="$tmp/cfg" XDG_CACHE_HOME="$tmp/cache" "$HP" estimate -c "$tmp/cluster.json" \
		-m "$model" --plan "$tmp/plan.json" --format json >"$tmp/est.json" 2>"$tmp/err" ||
		bad "hetplan estimate --plan: $(cat "$tmp/err")"
	env XDG_CONFIG_HOME="$tmp/cfg" XDG_CACHE_HOME="$tmp/cache" "$HP" estimate -c "$tmp/cluster.json" \
		-m "$model" --plan "$tmp/plan.json" >"$tmp/est.txt" 2>&1
	check "$s" "$s"
	keys "$s" g
	wait_status "$s" "$TOP" 300
	golden "editdetail-$2x$3" "$s"
	keys "$s" G
	wait_status "$s" "$END" 300
	golden "editdetail-$2x$3-end" "$s"

	# Esc: the editor as it was
	keys "$s" Escape
	wait_for "$s" "What if: #1 " && ok || bad "Esc did not go back to the editor"
	[ "$(val "$s" recompute)" = full ] && [ "$(val "$s" tp_overlap)" = off ] && ok ||
		bad "the edits did not survive: $(val "$s" recompute) $(val "$s" tp_overlap)"
	marked "$s" recompute && marked "$s" tp_overlap && ok || bad "the * marks are gone"
	metric_cols "$s" "$sep" | cmp -s - "$tmp/cols-$s" && ok || bad "the edited figures changed after d, Esc"

	# a refused plan: no Detail, the message line says why, the editor stays
	cycle "$s" precision fp8
	wait_for "$s" "no estimate:" || bad "fp8 on the A100 pool kept an estimate"
	keys "$s" d
	wait_for "$s" "the edited plan has no estimate (the view says why): no Detail to show" && ok ||
		bad "d on a refused plan: $(screen "$s" | tail -1)"
	screen "$s" | grep -qF "Edited plan: what if" && bad "d showed a Detail of a refused plan" || ok
	cycle "$s" precision bf16

	# Compare: A plan #1, B the edited plan, as the editor's columns
	keys "$s" b
	wait_for "$s" "edited plan marked B" || bad "b in the editor"
	keys "$s" 6
	wait_for "$s" "B  edited " && ok || bad "6 did not compare the edited plan: $(screen "$s" | sed -n 3,4p)"
	screen "$s" | grep -qE "^ A  #1 " && ok || bad "A is not plan #1: $(screen "$s" | sed -n 3p)"
	# every metric row the editor showed (at 80x24 its last rows give way
	# to the memory line and the step scale), the first five at least
	metric_cols "$s" "" >"$tmp/cmp-$s"
	[ "$(wc -l <"$tmp/cols-$s")" -ge 5 ] && [ -z "$(grep -vxF -f "$tmp/cmp-$s" "$tmp/cols-$s")" ] && ok || {
		bad "Compare's A and B differ from the editor's planner and edited columns:"
		diff "$tmp/cols-$s" "$tmp/cmp-$s" | head -10
	}
	keys "$s" q q
	wait_for "$s" "EXITED:0" && ok || bad "q did not quit"
}

# the workspace as `w` saves it, and the CLI's inputs from it
start ws 120 40
wait_ready ws || bad "no plans: $(screen ws | tail -3)"
keys ws w
wait_for ws "Save workspace to" || bad "w did not prompt"
keys ws C-u "$tmp/ws.json" Enter
wait_for ws "saved $tmp/ws.json" || bad "w did not save: $(screen ws | tail -1)"
keys ws q
wait_for ws "EXITED:0" || bad "q did not quit"
python3 -c 'import json, sys
w = json.load(open(sys.argv[1]))
json.dump(w["cluster"], open(sys.argv[2], "w"))
m = w["model"]
if isinstance(m, str):
    print(m)
else:
    json.dump(m, open(sys.argv[3], "w")); print(sys.argv[3])' \
	"$tmp/ws.json" "$tmp/cluster.json" "$tmp/model.json" >"$tmp/model" || bad "cannot read the saved workspace"
model=$(cat "$tmp/model")

run big 120 40 "" "│"
run small 80 24 "--ascii" "|"

# ---- the key in the tables that the man page's KEYS section is generated
# from (test_tui.sh compares the two)
"$HP" tui --list-keys >"$tmp/keys"
grep -qP "^Edit plan\td\t" "$tmp/keys" && ok || bad "--list-keys lacks d in Edit plan"
grep -qP "^Edited plan detail\tEsc h Left Bksp\tBack to the plan editor" "$tmp/keys" && ok ||
	bad "--list-keys lacks the edited Detail's back key"
grep -qE '^\.B d$' man/hetplan.1 && grep -qF '.SS "Edited plan detail view"' man/hetplan.1 && ok ||
	bad "man/hetplan.1 KEYS lacks d or the edited Detail view"
finish test_tui_editdetail
