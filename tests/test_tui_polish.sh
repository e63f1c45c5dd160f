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

finish test_tui_polish
