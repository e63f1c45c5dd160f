#!/bin/sh
# test_tui_polish.sh — small truths of the TUI, each read off the screen
# (tmux send-keys, capture-pane) and each wrong before:
#
#   - A workspace whose serve settings pair an engine with another
#     engine's build ("engine": "sglang", "engine_build": "vllm-v0")
#     opened silent, while `hetplan serve` refuses the pair (exit 2:
#     "--engine-build vllm-v0 is a build of vllm, not sglang") and the
#     Serve view said so only after an edit. The note shows as the
#     workspace opens, in the CLI's words.
#   - The header dropped the pool count two cells before it had to: at
#     76 columns "Llama-3.1 70B, 96 GPUs, 2 pools" (31 cells from column
#     37, hand count: " hetplan 0.1.0 │ default workspace │ ") fits with
#     one blank before "? help" (its last cell is column 74), and read
#     "Llama-3.1 70B, 96 GPUs"; at 75 it has no room and drops.
#   - The Detail's settings line, wrapped at 80 columns ("gbs ..., CP
#     1, EP 1" is wider than 76 cells with an interleaved schedule), put
#     its rest ("CP 1, EP 1") 4 cells in, under the line's second word;
#     the Detail's other wrapped lines keep their indent of 2.
# Run from the repository root; $HETPLAN names the binary (./hetplan).
. tests/tui_lib.sh
TUI_DIR=$tmp

cat >"$tmp/pair.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "one", "pools": [{"name": "h100", "gpu": "H100-SXM", "nodes": 2}]},
 "model": "llama3.1-8b",
 "workload": {"gbs": 256, "seq_len": 4096, "top": 3},
 "serve": {"isl": "1500", "osl": "300", "rate": 10, "ttft_p99_s": 2, "tpot_p99_s": 0.05,
           "engine": "sglang", "engine_build": "vllm-v0"}}
JSON
# the CLI on the same pair: refused, exit 2, and its reason
"$HP" serve -m llama3.1-8b --pool h100:H100-SXM:2 --isl 1500 --osl 300 --rate 10 \
	--engine sglang --engine-build vllm-v0 >/dev/null 2>"$tmp/err"
[ $? = 2 ] && ok || bad "hetplan serve took sglang with vllm-v0's build"
grep -qF "vllm-v0 is a build of vllm, not sglang" "$tmp/err" && ok ||
	bad "hetplan serve's reason changed: $(cat "$tmp/err")"
start p 120 40 "" pair.json
wait_for p "vllm-v0 is a build of vllm, not sglang" && ok ||
	bad "the workspace opened silent on its engine build: $(screen p | tail -1)"
keys p q
wait_for p "EXITED:0" || { keys p q; wait_for p "EXITED:0"; } && ok || bad "quit"

# the default workspace at 76 and 75 columns (under 80: i ignores the size)
for W in 76 75; do
	start h$W $W 24
	wait_for h$W "Terminal too small" || bad "no size warning at $W columns"
	keys h$W i
done
wait_for h76 "Llama-3.1 70B, 96 GPUs, 2 pools ? help" && ok ||
	bad "76 columns dropped the pool count: $(screen h76 | head -1)"
wait_for h75 "Llama-3.1 70B, 96 GPUs " && ok || bad "75 columns: $(screen h75 | head -1)"
screen h75 | head -1 | grep -qF "pools" && bad "75 columns kept a pool count with no room: $(screen h75 | head -1)" || ok

start d 80 24
wait_plans d || bad "no plans: $(screen d | tail -1)"
keys d Enter
wait_for d "EP 1" || bad "no settings line in the Detail: $(screen d | sed -n 3,8p)"
screen d | awk '/EP [0-9]/ { print; exit }' >"$tmp/ep"
# the wrapped rest (the line itself starts "  gbs")
grep -qE '^  [^ ]' "$tmp/ep" && ! grep -q '^  gbs ' "$tmp/ep" && ok ||
	bad "the settings line's rest is not at the line's indent: '$(cat "$tmp/ep")'"
screen d | grep -qE '^  gbs [0-9]+ x [0-9]+, ' && ok || bad "the settings line moved: $(screen d | sed -n 4,8p)"

finish test_tui_polish
