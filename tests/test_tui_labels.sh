#!/bin/sh
# test_tui_labels.sh — plan labels too wide for the Plans view's column
# stay as distinct as the labels themselves, at every width.
#
# The case (a review's repro): pools of H100-SXM, A100-SXM4-40GB and L40S
# ("a100-sxm4-40gb" is the widest name a label keeps whole) and Mixtral
# 8x7B. Its plans read "h100-sxm tp2 pp4 + a100-sxm4-40gb tp4 pp2 + l40s
# tp4 pp2 46/44 mb" and the like: ten labels that differ only past column
# 38 in some pairs. Cut at the end they read the same at 80 columns (plans
# 3 and 4 of the first report; 1 and 2, 4 and 5, 8 and 9 here); cut in the
# middle around an ellipsis, as the list now does, each row keeps the start
# and the end that tell it from every other row.
#
# Checked: the label cells of the list's rows are pairwise distinct at 80,
# 90, 100 and 120 columns, and at 80 columns in --ascii (where the ellipsis
# is "~", a character pool names may hold); every cut label keeps the
# label's own first word (its first pool); the 80x24 screen is a golden
# (tests/golden/plans-hetero-moe-80x24.txt; UPDATE_GOLDEN=1 rewrites it);
# the Compare view's A and B titles read differently.
# Run from the repository root; $HETPLAN names the binary (./hetplan).
. tests/tui_lib.sh
TUI_DIR=$tmp
G=tests/golden
cat >"$tmp/mix.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "mix",
             "pools": [{"name": "h100-sxm", "gpu": "H100-SXM", "nodes": 2},
                       {"name": "a100-sxm4-40gb", "gpu": "A100-SXM4-40GB", "nodes": 4},
                       {"name": "l40s", "gpu": "L40S", "nodes": 2, "gpus_per_node": 8}]},
 "model": "mixtral-8x7b",
 "workload": {"gbs": 512, "seq_len": 4096, "tokens": 100e9, "top": 10}}
JSON

# distinct NAME: the PLAN cells (from the column under "PLAN" to the one
# before "TOK/S") of the ranked rows are pairwise distinct, and each starts
# with "h100-sxm" (every plan here starts on pool h100-sxm).
distinct() {
	screen "$1" >"$tmp/$1.scr"
	python3 - "$tmp/$1.scr" "$1" <<'PY' && ok || bad "$1: $(cat "$tmp/py")"
import sys, re
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
head = lines[2]
a, b = head.index("PLAN"), head.index("TOK/S")
b = head.rindex(" ", 0, b - 1) if head[b - 1] != " " else b
rows = [l for l in lines[3:] if re.match(r"^ {0,2}\d+ ", l)]
cells = [l[a:b].rstrip() for l in rows]
bad = []
if len(cells) < 10:
    bad.append("%d rows" % len(cells))
for i in range(len(cells)):
    for j in range(i + 1, len(cells)):
        if cells[i] == cells[j]:
            bad.append("rows %d and %d read %r" % (i + 1, j + 1, cells[i]))
for i, c in enumerate(cells):
    if not c.startswith("h100-sxm"):
        bad.append("row %d starts %r" % (i + 1, c[:12]))
if bad:
    open(sys.argv[1].rsplit("/", 1)[0] + "/py", "w").write("; ".join(bad))
    sys.exit(1)
PY
}

for w in 80 90 100 120; do
	start "w$w" $w 24 "" "tui mix.json"
	keys "w$w" 3
	wait_plans "w$w" 300 && ok || bad "w$w: no plans: $(screen "w$w" | tail -3)"
	distinct "w$w"
done

start asc 80 24 "" "tui --ascii mix.json"
keys asc 3
wait_plans asc 300 && ok || bad "asc: no plans"
distinct asc
screen asc | grep -q ' ~ ' && ok || bad "--ascii: no '~' ellipsis between words: $(screen asc | sed -n 4,6p)"

# The Compare view's titles (plans 1 and 2, both wider than 80 columns)
# are cut the same way: both end within the screen and read differently.
start cmp 80 24 "" "tui mix.json"
keys cmp 3
wait_plans cmp 300 && ok || bad "cmp: no plans"
keys cmp j c
wait_for cmp "B vs A" && ok || bad "c did not open Compare"
a=$(screen cmp | grep -E '^ A  #1 ' | sed 's/^ A  #1 //') b=$(screen cmp | grep -E '^ B  #2 ' | sed 's/^ B  #2 //')
[ -n "$a" ] && [ -n "$b" ] && [ "$a" != "$b" ] && ok || bad "Compare titles: A '$a' B '$b'"

# The golden: 80x24, the plans of the repro.
screen w80 >"$tmp/plans-hetero-moe-80x24.txt"
if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
	cp "$tmp/plans-hetero-moe-80x24.txt" "$G/plans-hetero-moe-80x24.txt"
	echo "updated $G/plans-hetero-moe-80x24.txt"
	ok
else
	golden_verdict "$G/plans-hetero-moe-80x24.txt" plans-hetero-moe-80x24 \
		"UPDATE_GOLDEN=1 sh tests/test_tui_labels.sh"
fi
finish tui_labels
