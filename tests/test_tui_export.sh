#!/bin/sh
# test_tui_export.sh — `e` in the Plans view exports the row selected, in
# the real binary under a private tmux server.
#
# The default workspace (4 nodes of 8 H100-SXM, 8 of 8 A100-80GB,
# Llama-3.1 70B) lists the ranked plans, then the best plan on each pool
# alone. With the last row selected (G: pool a100's best), `e` writes that
# plan: its label and tokens/s are `hetplan plan --format json`'s
# single_pool entry for a100 on the same cluster (the CLI's own parser and
# JSON, not the TUI's), and not ranked plan 1's. A pool's best plan is not
# among the ranked plans the shared .html report details, so `e` to .html
# refuses by name rather than detailing plan 1.
# Run from the repository root; $HETPLAN names the binary (./hetplan).
. tests/tui_lib.sh
TUI_DIR=$tmp

start ex 120 40 "" ""
wait_plans ex || bad "no plans: $(screen ex | tail -1)"
keys ex G
wait_for ex "a100 tp8 pp2" || bad "no per-pool rows: $(screen ex | sed -n 14,16p)"
keys ex e
wait_for ex "Export plan to" || bad "e did not prompt: $(screen ex | tail -1)"
keys ex C-u pool.json Enter
if wait_for ex "exported pool.json" && [ -s "$tmp/pool.json" ]; then ok; else bad "no pool.json: $(screen ex | tail -1)"; fi
keys ex w
wait_for ex "Save workspace to" || bad "w did not prompt"
keys ex C-u ws.json Enter
wait_for ex "saved ws.json" || bad "no ws.json: $(screen ex | tail -1)"
python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))["cluster"], open(sys.argv[2], "w"))' \
	"$tmp/ws.json" "$tmp/cluster.json"
"$HP" plan -c "$tmp/cluster.json" -m llama3.1-70b --gbs 1024 --seq-len 8192 --tokens 2T \
	--format json >"$tmp/cli.json" 2>"$tmp/err" || bad "hetplan plan: $(cat "$tmp/err")"
python3 - "$tmp/pool.json" "$tmp/cli.json" <<'PY' && ok || bad "pool.json is not pool a100's best plan"
import json, sys
e = json.load(open(sys.argv[1]))["estimate"]
cli = json.load(open(sys.argv[2]))
best = [p for p in cli["single_pool"] if p["pool"] == "a100"][0]
assert e["label"] == best["label"], (e["label"], best["label"])
assert abs(e["tokens_per_s"] / best["tokens_per_s"] - 1) < 1e-9, (e["tokens_per_s"], best["tokens_per_s"])
assert e["label"] != cli["plans"][0]["label"], "plan 1 exported"
PY
keys ex e
wait_for ex "Export plan to" || bad "second e did not prompt"
keys ex C-u pool.html Enter
wait_for ex "pool.html: a pool's best plan exports as .md or .json" && ok ||
	bad ".html of a pool's best plan: $(screen ex | tail -1)"
[ ! -e "$tmp/pool.html" ] && ok || bad "pool.html was written"
keys ex q q
wait_for ex "EXITED:0" && ok || bad "quit"

finish test_tui_export
