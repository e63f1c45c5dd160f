#!/bin/sh
# test_tui_tour.sh — what a walk through a mixed cluster across two clouds
# found, at 80x24, in the real binary under a private tmux server:
#   - The Model view's "Tokens to train" with no tokens set reads its
#     default whole in the 40-column workload pane: Llama 3.1 8B's 8.03 B
#     parameters x 20 tokens a parameter (`hetplan plan --help`: --tokens
#     "default: 20 per parameter") = 160.6B, "160.6B (20/parameter)"
#     (it read "160.6B (20 per parame", cut at the pane's edge).
#   - Compare's ] and [ step plan B over plan A's plan: from A #2, B #1
#     (after x), ] gives B #3, not #2 (B on A compared a plan with itself,
#     every row "same"); [ from #3 gives #1. { and } step A likewise.
#   - The Prices view says why a price update failed, wrapped under "last
#     update: ... N failed": the status line's copy is cut at 80 columns
#     inside the source's URL, before the reason, and a source that never
#     loaded has no row of its own. The SkyPilot sources point at port 9
#     of 127.0.0.1 (nothing listens there: "could not connect").
# The cluster: 2 nodes of 8 H100-SXM on aws us-east-1, 2 of 8 A100-40GB
# and 2 of 8 L40S on gcp us-central1.
# Run from the repository root; $HETPLAN names the binary (./hetplan).
. tests/tui_lib.sh
TUI_DIR=$tmp

cat >"$tmp/mix.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "mix", "pools": [
   {"name": "h100", "gpu": "H100-SXM", "nodes": 2, "provider": "aws", "region": "us-east-1", "site": "aws-east"},
   {"name": "a100", "gpu": "A100-40GB", "nodes": 2, "provider": "gcp", "region": "us-central1", "site": "gcp-central"},
   {"name": "l40s", "gpu": "L40S", "nodes": 2, "gpus_per_node": 8, "provider": "gcp", "region": "us-central1", "site": "gcp-central"}]},
 "model": "llama3.1-8b",
 "workload": {"gbs": 256, "seq_len": 4096, "precision": "bf16", "objective": "throughput", "top": 5}}
JSON

start t 80 24 "" "tui mix.json"
wait_ready t || bad "no plans for mix.json: $(screen t | tail -1)"

# the Model view's workload pane
keys t 2
wait_for t "Tokens to train" || bad "no Model view"
screen t | grep -qE '│ Tokens to train +160\.6B \(20/parameter\) *$' && ok ||
	bad "Tokens to train not whole at 80 columns: $(screen t | grep 'Tokens to train')"

# ab: plan A's and B's ranks as the Compare view's first two rows name them
ab() { screen t | sed -n '3,4p' | sed -n 's/^ \([AB]\)  #\([0-9]*\) .*/\1\2/p' | tr '\n' ' '; }
keys t 6
wait_for t "B vs A" || bad "no Compare view"
[ "$(ab)" = "A1 B2 " ] && ok || bad "Compare opens on $(ab), not A1 B2"
keys t x
wait_for t " B  #1 " || bad "x did not swap: $(ab)"
keys t ']'
wait_for t " B  #3 " && ok || bad "] from A #2, B #1: $(ab) (B must pass over A's #2 to #3)"
keys t '['
wait_for t " B  #1 " && ok || bad "[ from B #3: $(ab) (B must pass over A's #2 to #1)"
# A steps over B likewise: A #2 back ({) to #1 is B's, so A goes past it
keys t '{'
wait_gone t " A  #2 " || bad "{ did not move A: $(ab)"
case "$(ab)" in
"A1 B1 ") bad "{ put A on B's plan #1" ;;
*) ok ;;
esac

keys t q

start p 80 24 "" "tui --skypilot-url http://127.0.0.1:9"
wait_ready p || bad "no plans on the default workspace: $(screen p | tail -1)"
keys p 5
wait_for p "Price per GPU-hour" || bad "no Prices view"
keys p r
wait_for p "last update:" || bad "r did not end: $(screen p | sed -n 3,5p)"
# the rows of the Sources section, joined: the first failure and its reason
screen p | sed -n '4,/Price per GPU-hour/p' | tr -s ' \n' '  ' >"$tmp/src.txt"
grep -q 'first failure: skypilot:[a-z]*: http://127\.0\.0\.1:9/.*: could not connect' "$tmp/src.txt" && ok ||
	bad "the Sources section does not say why the update failed: $(cat "$tmp/src.txt")"
keys p q
finish test_tui_tour
