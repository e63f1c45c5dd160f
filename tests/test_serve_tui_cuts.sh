#!/bin/sh
# test_serve_tui_cuts.sh — the Serve view (7) against the command line
# and the training views (round ux50):
#   1. a latency target of 0 is refused as `hetplan serve --ttft-p99 0`
#      refuses it (no request has a zero latency; "none" is no target,
#      as the flag left out is); "none" still clears it;
#   2. at 80 columns a plan label wider than the PLAN column keeps whole
#      words around an ellipsis, as the Plans view cuts its labels, where
#      it was cut mid-word and ended in "~".
# Run from the repository root; $HETPLAN names the binary (./hetplan).
. tests/tui_lib.sh
TUI_DIR=$tmp

if ! command -v tmux >/dev/null 2>&1; then
	echo "test_serve_tui_cuts: tmux missing (make deps-test)"
	echo "test_serve_tui_cuts: 0 passed, 1 failed"
	exit 1
fi

# ---- 1. 0 is no target on neither side: the CLI refuses it (exit 2) ...
$HP serve --pool 1x8xH100-SXM -m llama3.1-8b --rate 1 --ttft-p99 0 >/dev/null 2>"$tmp/cli.err"
[ $? = 2 ] && grep -q "ttft-p99: expected seconds above 0, at most 3600" "$tmp/cli.err" && ok ||
	bad "serve --ttft-p99 0: $(cat "$tmp/cli.err")"
$HP serve --pool 1x8xH100-SXM -m llama3.1-8b --rate 1 --tpot-p99 0 >/dev/null 2>"$tmp/cli.err"
[ $? = 2 ] && grep -q "tpot-p99: expected seconds above 0, at most 60" "$tmp/cli.err" && ok ||
	bad "serve --tpot-p99 0: $(cat "$tmp/cli.err")"

# ... and so does the Serve view, with the same bounds (TPOT in ms there:
# 60 s = 60000 ms)
start s1 80 24
wait_for s1 " plans" || bad "the TUI did not start: $(screen s1 | tail -2)"
keys s1 7
wait_for s1 "Serving Llama-3.1 70B" || bad "7 did not open the Serve view"
wait_serving s1 || bad "no serving plans: $(screen s1 | tail -1)"
# TTFT p99 is the fifth field
keys s1 j j j j Enter
wait_for s1 "TTFT p99 (" && ok || bad "Enter on TTFT did not prompt"
keys s1 C-u 0 Enter
wait_for s1 "TTFT p99: expected seconds above 0, at most 3600, or none; got '0'" && ok ||
	bad "TTFT 0 accepted: $(screen s1 | tail -1)"
keys s1 Enter
wait_for s1 "TTFT p99 (" || bad "Enter on TTFT did not prompt again"
keys s1 C-u none Enter
wait_for s1 " TTFT p99   none" && ok || bad "TTFT none: $(screen s1 | grep 'TTFT p99')"
keys s1 j Enter
wait_for s1 "TPOT p99 (" || bad "Enter on TPOT did not prompt"
keys s1 C-u 0 Enter
wait_for s1 "TPOT p99: expected milliseconds above 0, at most 60000, or none; got '0'" && ok ||
	bad "TPOT 0 accepted: $(screen s1 | tail -1)"
keys s1 Escape
# back to 2 s (the default) for part 2's plans
keys s1 k Enter
wait_for s1 "TTFT p99 (" || bad "Enter on TTFT (3rd) did not prompt"
keys s1 C-u 2 Enter
wait_for s1 " TTFT p99   2 s" || bad "TTFT 2: $(screen s1 | grep 'TTFT p99')"
wait_serving s1 || bad "no serving plans after the edits: $(screen s1 | tail -1)"

# ---- 2. the plan labels at 80 columns: exported whole (e), shown cut
keys s1 e
wait_for s1 "Export serving plans to" || bad "e did not prompt"
keys s1 C-u serve.json Enter
wait_for s1 " to serve.json" || bad "no serve.json written: $(screen s1 | tail -1)"
screen s1 >"$tmp/shot.txt"
python3 - "$tmp/serve.json" "$tmp/shot.txt" <<'PY' && ok || bad "plan labels: $(grep -E '^ +[0-9]+ ' "$tmp/shot.txt" | head -3)"
import json, re, sys
labels = [p["label"] for p in json.load(open(sys.argv[1]))["plans"]]
lines = open(sys.argv[2]).read().splitlines()
h = next(i for i, l in enumerate(lines) if re.match(r"^ +# PLAN ", l))
head = lines[h]
rows = []
for l in lines[h + 1:]:          # the plan rows, up to the Launch section
    if not re.match(r"^ +[0-9]+ \S", l):
        break
    rows.append(l)
assert rows, "no plan rows"
width = head.index("GPUS") - head.index("PLAN") - 1     # the PLAN column
cut = 0
for row in rows:
    rank = int(row.split()[0])
    cell = row[head.index("PLAN"):head.index("PLAN") + width].rstrip()
    full = labels[rank - 1]
    assert "~" not in cell, "cut blindly: %r" % cell
    if cell == full:
        continue
    cut += 1
    # whole words of the label, one ellipsis, and nothing else
    assert cell.count("\u2026") == 1, cell
    words = full.split()
    a, _, b = cell.partition("\u2026")
    hw, tw = a.split(), b.split()
    assert hw == words[:len(hw)] and (not tw or tw == words[len(words) - len(tw):]), (cell, full)
assert cut, "no label was cut at 80 columns: %r" % rows
PY
keys s1 q q
finish test_serve_tui_cuts
