#!/bin/sh
# test_tui_pickers.sh — the pickers, the plans list's labels and filter, in
# the real binary under a private tmux server (send-keys, capture-pane):
#   - `8b` + Enter in the model picker loads Llama-3.1 8B (the preset whose
#     name has the word "8b"), not GPT 1T, whose display name "(1008B)"
#     merely contains it; the top match is highlighted before Enter;
#   - that preset's context (8192) fits; GPT 1T's (2048) does not, and the
#     Model view says so and C clamps the sequence length to 2048;
#   - the GPU picker shows V100's fp16 peak (125 TF, datasheet), not 0;
#   - /h100 filters the plans list to plans with h100 in their label, and
#     a text nothing matches says "no match", and that message goes when
#     Esc or a backspace leaves the text that raised it;
#   - no two rows of the default workspace's plans list read the same;
#   - at 80x24 and 120x40 no plan label is cut inside a word;
#   - at 80x24 with labels shorter than the label column's 12-column
#     floor, the RUNS ON column is whole: its heading, and each cell names
#     frameworks whole (runs_on.h's short names), never "mco";
#   - a model JSON file's path typed in the model picker loads that model
#     (its plans are `hetplan plan -m FILE`'s), a file that does not load
#     says why, and a GPU filter nothing matches says so.
# Run from the repository root; $HETPLAN names the binary (./hetplan).
. tests/tui_lib.sh
# The plan labels of the ranked rows on screen (below the header): the
# text from column 9 to the first double space (labels have single ones);
# the Pareto star is one column but three bytes, so it becomes '*'.
labels() {
	screen "$1" | sed 's/★/*/' | awk 'NR >= 4 && /^ *[0-9]+ / { s = substr($0, 9); sub(/  .*/, "", s); print s }'
}

# ---- model picker: 8b + Enter
start m 80 24
wait_ready m || bad "no plans at start: $(screen m | tail -2)"
keys m 2 p
wait_for m "Model preset" && ok || bad "p did not open the model picker"
keys m 8 b
wait_for m "Filter: 8b_" && ok || bad "the filter does not show 8b"
# The first row under the filter is the highlighted one.
first=$(screen m | grep -A1 'Filter: 8b_' | tail -1)
echo "$first" | grep -q 'llama3.1-8b' && ok || bad "top match for 8b is not llama3.1-8b: $first"
keys m Enter
wait_for m "Model: Llama-3.1 8B" && ok || bad "8b + Enter did not load Llama-3.1 8B: $(screen m | sed -n 3p)"
# llama3.1-8b's context is 8192 = the default sequence length: no warning
screen m | grep -q 'C clamps' && bad "a warning for a context that fits" || ok
# gpt-1t: context 2048 < 8192: warned, C clamps
keys m p g p t - 1 t Enter
wait_for m "Model: GPT 1T" && ok || bad "gpt-1t did not load"
wait_for m "sequence 8192 > context 2048: C clamps" && ok || bad "no clamp offer: $(screen m | tail -3)"
keys m C
wait_for m "8192 -> 2048" && ok || bad "C did not clamp: $(screen m | tail -1)"
screen m | grep -q 'Sequence length   2048 tokens' && ok || bad "the field does not read 2048"

# ---- GPU picker: V100 shows its fp16 peak
keys m 1 a
wait_for m "Add a pool: pick its GPU" && ok || bad "a did not open the GPU picker"
keys m V 1 0 0 - S X M 2 - 3
# The unfiltered list may show V100-SXM2-32GB too, with another GPU
# highlighted: wait for the filter, then read the rows and the dtype line.
wait_for m "Filter: V100-SXM2-3_" || bad "the filter does not show V100-SXM2-3"
wait_for m "V100-SXM2-32GB" && ok || bad "no V100-SXM2-32GB in the picker"
screen m | grep 'V100-SXM2-32GB' | grep -q '125 TF fp16' && ok ||
	bad "V100 row: $(screen m | grep 'V100-SXM2-32GB')"
screen m | grep -q 'dense TF: fp32 15.7 fp16 125' && ok || bad "no dtype line for V100"
screen m | grep -q ' W of its ' && bad "the 300 W V100 reads as power-limited" || ok
keys m Escape
# The DGX-1 Max-Q part: held at 163 W of its 300 W (data/gpus.json
# power_limit_w, GEEPAFS Table 2), said under the list as hetplan gpus
# marks it.
keys m 1 a
wait_for m "Add a pool: pick its GPU" || bad "a did not open the GPU picker again"
keys m V 1 0 0 - S X M 2 - L
wait_for m "Filter: V100-SXM2-L_" || bad "the filter does not show V100-SXM2-L"
wait_for m "dense TF: fp32 15.7 fp16 125; 163 W of its 300 W TDP" && ok ||
	bad "no power limit for V100-SXM2-LS: $(screen m | grep 'dense TF')"
keys m Escape

# ---- plans: filter, no match, unique rows, no label cut mid-word
for size in 80x24 120x40; do
	w=${size%x*} h=${size#*x}
	start "p$w" "$w" "$h"
	wait_ready "p$w" || bad "$size: no plans"
	labels "p$w" >"$tmp/labels$w"
	[ -s "$tmp/labels$w" ] && ok || bad "$size: no plan rows"
	# unique
	n=$(wc -l <"$tmp/labels$w"); u=$(sort -u "$tmp/labels$w" | wc -l)
	[ "$n" = "$u" ] && ok || bad "$size: duplicate labels: $(sort "$tmp/labels$w" | uniq -d)"
	# the notation legend is on screen
	screen "p$w" | grep -q 'tp4 pp2: TP 4, 2 stages' && ok || bad "$size: no notation legend"
done
# RUNS ON (issue 18) shows at 120 columns: $/H gives way first.
screen p120 | grep -q 'RUNS ON' && ok || bad "120x40: no RUNS ON column"
# Cut only between words: the text before an ellipsis at 80 columns is a
# whole-word prefix of a full label at 120 columns.
python3 - "$tmp/labels80" "$tmp/labels120" <<'PY' && ok || bad "a label cut mid-word (above)"
import sys
cut = [l.rstrip("\n") for l in open(sys.argv[1]) if "\u2026" in l]
full = [l.rstrip("\n") for l in open(sys.argv[2])]
bad = 0
for c in cut:
    head = c.split("\u2026")[0]
    if not any(f.startswith(head) and f[len(head):len(head) + 1] == " " for f in full):
        print("  cut mid-word:", c); bad = 1
sys.exit(bad)
PY
# /a100> keeps only pipelines that start on a100
keys p80 / a 1 0 0 '>' Enter
wait_for p80 "filter 'a100>'" && ok || bad "/a100> shows no filter line: $(screen p80 | tail -2)"
labels p80 >"$tmp/f"
[ -s "$tmp/f" ] && ! grep -qv 'a100>' "$tmp/f" && ok || bad "/a100> left other rows: $(cat "$tmp/f")"
# /h100: every ranked row names h100; the single-pool a100 row is gone
keys p80 / C-u h 1 0 0 Enter
wait_for p80 "filter 'h100'" && ok || bad "/h100: no filter line"
labels p80 >"$tmp/f"
[ -s "$tmp/f" ] && ! grep -qv 'h100' "$tmp/f" && ok || bad "/h100 left other rows: $(cat "$tmp/f")"
screen p80 | grep -qE '^ +a100 tp[0-9]+ pp[0-9]+ ' && bad "/h100 kept the a100-only row" || ok
# nothing matches: says so
keys p80 / C-u z z z Enter
wait_for p80 "no match for 'zzz'" && ok || bad "no 'no match' for zzz: $(screen p80 | sed -n 4p)"
# an empty search shows all again
keys p80 / C-u Enter
# Until the key is read the screen is zzz's, empty, with its "N plans"
# footer: wait for its "no match" line to go first.
wait_gone p80 "no match for 'zzz'" && wait_ready p80 && labels p80 | grep -q . && ok ||
	bad "an empty search did not restore the list"
# Esc in the prompt shows every plan again, and the "no match" the typed
# text raised goes with it (it stayed in the footer, under the whole list).
keys p80 / C-u q q q
wait_for p80 "filter 'qqq': 0 shown" || bad "/qqq: no filter line: $(screen p80 | sed -n 22,23p)"
keys p80 Escape
wait_gone p80 "Find plan:" || bad "Esc did not close the search prompt"
wait_ready p80 && ok || bad "Esc left the search's 'no match' in the footer: $(screen p80 | tail -1)"
labels p80 | grep -q . && ok || bad "Esc did not show the plans again"
# A backspace to a text that matches: its earlier "no match" goes too.
keys p80 / C-u h 1 0 0 x
wait_for p80 "filter 'h100x': 0 shown" || bad "/h100x: no filter line: $(screen p80 | sed -n 22,23p)"
keys p80 BSpace Enter
wait_for p80 "filter 'h100'" || bad "/h100 after a backspace: no filter line"
wait_ready p80 && ok || bad "the 'no match' of h100x stayed: $(screen p80 | tail -1)"
keys p80 / C-u Enter
wait_gone p80 "filter 'h100'" || bad "an empty search did not clear the h100 filter"
# help explains the notation
keys p80 '?'
wait_for p80 "Plan labels" && ok || bad "? has no Plan labels section"
screen p80 | grep -q 'a100>h100 pp3  one 3-stage pipeline' && ok || bad "help lacks the a>b note"

# ---- an infeasible deadline: the reason once, not twice. Llama-3.1 70B
# on the default 96 GPUs runs at about 53K tokens/s (the plans above), so
# 2e12 tokens need over a year: one day cannot be met.
cat >"$tmp/dl.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "lab", "pools": [{"name": "h100", "gpu": "H100-SXM", "nodes": 4},
                                      {"name": "a100", "gpu": "A100-SXM4-80GB", "nodes": 8}]},
 "model": "llama3.1-70b",
 "workload": {"gbs": 1024, "tokens": 2e12, "objective": "deadline", "deadline_s": 86400}}
JSON
start dl 80 24 "" "tui $tmp/dl.json"
wait_for dl "0 plans" && ok || bad "no '0 plans' for an infeasible deadline: $(screen dl | tail -1)"
n=$(screen dl | grep -ci 'no plan')
[ "$n" = 1 ] && ok || bad "'no plan' shown $n times: $(screen dl | sed -n 3,8p)"

# ---- short labels at 80x24: RUNS ON stays whole
# One pool named h1: labels like "h1 tp1 pp1" (10 columns) are under the
# label column's 12-column floor, which kept every column and pushed RUNS
# ON past column 80 ("RUNS", and "mco" for mcore).
cat >"$tmp/short.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "short", "pools": [{"name": "h1", "gpu": "H100-SXM", "nodes": 2}]},
 "model": "llama3.1-8b",
 "workload": {"gbs": 256, "seq_len": 8192, "top": 3}}
JSON
start sh 80 24 "" "tui $tmp/short.json"
wait_ready sh || bad "no plans for the short labels"
screen sh | sed -n 3p | grep -q 'RUNS ON *$' && ok || bad "the RUNS ON heading is cut: $(screen sh | sed -n 3p)"
# runs_on.h's short names (mcore, mlm, ds, titan) joined by "+", a list
# that does not fit ending in "+" and an ellipsis, or none.
cells=$(screen sh | awk 'NR > 3 && /^ *[0-9]+ / { print $NF }')
[ -n "$cells" ] && ! echo "$cells" | grep -qvE '^((mcore|mlm|ds|titan)(\+(mcore|mlm|ds|titan))*(\+…)?|none)$' && ok ||
	bad "RUNS ON cells cut inside a name: $(echo $cells)"
keys sh q
wait_for sh "EXITED:0" || bad "q did not quit the short-label session"

# ---- a model JSON file from the model picker
# No preset matches a path: Enter reads the file as `-m FILE` does, and the
# plans are the CLI's for that file (plan 1's label, compared as text).
cat >"$tmp/my8b.json" <<'JSON'
{"name": "my-8b", "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn": 14336,
 "vocab": 128256, "seq_len": 8192}
JSON
cat >"$tmp/lab2.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "lab2", "pools": [{"name": "h100", "gpu": "H100-SXM", "nodes": 2}]},
 "model": "llama3.1-70b",
 "workload": {"gbs": 256, "seq_len": 8192, "top": 3}}
JSON
want=$("$HP" plan --pool 2x8xH100-SXM,name=h100 -m "$tmp/my8b.json" --gbs 256 --top 1 --format json |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["plans"][0]["list_label"])')
start mf 80 24 "" "tui $tmp/lab2.json"
wait_ready mf || bad "no plans before the model file"
keys mf 2 p
wait_for mf "Model preset" || bad "p did not open the model picker for a file"
keys mf "$tmp/nothere.json"
wait_for mf "Enter reads it as a model JSON file" && ok || bad "the picker does not offer a file: $(screen mf | sed -n 4,6p)"
keys mf Enter
wait_for mf "nothere.json: no such file" && ok || bad "a missing model file: $(screen mf | tail -1)"
screen mf | grep -q "Model: Llama-3.1 70B" && ok || bad "a missing file changed the model: $(screen mf | sed -n 3p)"
keys mf p "$tmp/my8b.json" Enter
wait_for mf "Model: my-8b" && ok || bad "the model file did not load: $(screen mf | tail -1)"
screen mf | grep -q " 8.03B parameters" && ok || bad "my-8b's size: $(screen mf | grep parameters)"
keys mf 3
wait_plans mf || bad "no plans for the model file"
screen mf | awk 'NR > 3 && $1 == "1"' | grep -qF " $want " && ok ||
	bad "plan 1 for the model file is not the CLI's '$want': $(screen mf | sed -n 4p)"
keys mf 1 Enter j Enter
wait_for mf "Filter:" || bad "Enter on GPU did not open the GPU picker"
keys mf z z z Enter
wait_for mf "no GPU matches 'zzz'" && ok || bad "a GPU nothing matches: $(screen mf | tail -1)"
keys mf q q
wait_for mf "EXITED:0" || bad "q did not quit after the model file"

# ---- the CLI's progress line: on a terminal it is erased at the end
# (whether or not the plan ran long enough to show it); with stderr not a
# terminal there is none.
plan_args="--pool 8x8xH100-SXM --pool 8x8xA100-SXM4-80GB -m llama3.1-70b --gbs 256 --top 3"
"$HP" plan $plan_args >"$tmp/plan.out" 2>"$tmp/plan.err"
[ $? = 0 ] && [ ! -s "$tmp/plan.err" ] && ok || bad "plan wrote to a non-terminal stderr: $(head -2 "$tmp/plan.err")"
$T new-session -d -s prog -x 100 -y 10 "cd '$PWD' && '$HP' plan $plan_args >'$tmp/plan2.out'; echo EXITED:\$?; sleep 30"
wait_for prog "EXITED:0" 1200 && ok || bad "plan in a terminal did not finish: $(screen prog)"
screen prog | grep -q 'planning' && bad "the progress line was left on the screen" || ok
# the same plans either way (the search's own timing line aside)
grep -v '^search:' "$tmp/plan.out" >"$tmp/p1"; grep -v '^search:' "$tmp/plan2.out" >"$tmp/p2"
[ -s "$tmp/p1" ] && cmp -s "$tmp/p1" "$tmp/p2" && ok || bad "plan output differs on a terminal"

finish tui_pickers
