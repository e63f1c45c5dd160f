#!/bin/sh
# test_serve_tui_cuts.sh — the Serve view (7) against the command line
# and the training views (round ux50):
#   1. a latency target of 0 is refused as `hetplan serve --ttft-p99 0`
#      refuses it (no request has a zero latency; "none" is no target,
#      as the flag left out is); "none" still clears it;
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
# back to 2 s (the default)
keys s1 k Enter
wait_for s1 "TTFT p99 (" || bad "Enter on TTFT (3rd) did not prompt"
keys s1 C-u 2 Enter
wait_for s1 " TTFT p99   2 s" || bad "TTFT 2: $(screen s1 | grep 'TTFT p99')"
wait_serving s1 || bad "no serving plans after the edits: $(screen s1 | tail -1)"

keys s1 q q
finish test_serve_tui_cuts
