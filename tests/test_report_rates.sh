#!/bin/sh
# test_report_rates.sh — a price reads the same wherever it is printed:
# unit prices (a node-hour, a GPU-hour) in table_rate's words, a tenth of a
# cent below 10,000 and three figures with a unit from there; an amount an
# hour in table_usd's, cents below $10k (src/table.h). The serve report's
# cost line and the TUI's GPU picker and Cluster view wrote "%.2f" of
# their own ("$55.04/h" a node-hour, "$2.62/GPU-h" for 2.623, "220.16"
# with no "$" in a column headed $/H).
#
# Each expected string is worked by hand:
#   - serve: one node of 8 H100-SXM at the catalog's $6.88 a GPU-hour
#     (data/gpus.json: aws p5.48xlarge / 8) is 8 x 6.88 = 55.04 a
#     node-hour, "$55.040/node-h" (as estimate's prices line), and the
#     plan pays $55.04 an hour; one node at price=12345 is "$12.3k/node-h"
#     and "$12.3k/h";
#   - TUI GPU picker: L40S at the catalog's 2.623 a GPU-hour (aws
#     g6e.12xlarge / 4), "$2.623/GPU-h";
#   - TUI Cluster view: the default workspace's h100 pool, 4 nodes at
#     55.04, is 220.16 an hour: "$220.16" under $/H, as the Plans view's
#     $/H writes an amount an hour.
# Run from the repository root; $HETPLAN names the binary (./hetplan).
. tests/tui_lib.sh
export XDG_CACHE_HOME="$tmp/cache" XDG_CONFIG_HOME="$tmp/cfg" HETPLAN_PRICES_CACHE=

"$HP" serve --pool 2x8xH100-SXM -m llama3.1-8b --isl 512 --osl 128 --rate 5 --no-price-book \
	--tp 1 >"$tmp/s1" 2>&1
grep -qxF 'Cost: whole nodes, as clouds rent them and training is priced: 1 x h100-sxm at $55.040/node-h = $55.04/h (7 GPUs idle)' \
	"$tmp/s1" && ok || bad "serve cost line: $(grep Cost "$tmp/s1")"
"$HP" serve --pool 2x8xH100-SXM -m llama3.1-8b --isl 512 --osl 128 --rate 5 --no-price-book \
	--tp 1 --format md >"$tmp/s1.md" 2>&1
grep -qF '1 x h100-sxm at $55.040/node-h = $55.04/h (7 GPUs idle)' "$tmp/s1.md" && ok ||
	bad "serve md cost line: $(grep -i 'whole nodes' "$tmp/s1.md")"
"$HP" serve --pool 2x8xH100-SXM,price=12345 -m llama3.1-8b --isl 512 --osl 128 --rate 5 \
	--no-price-book --tp 1 >"$tmp/s2" 2>&1
grep -qF ': 1 x h100-sxm at $12.3k/node-h = $12.3k/h (7 GPUs idle)' "$tmp/s2" && ok ||
	bad "serve cost line from \$10k: $(grep Cost "$tmp/s2")"

# the TUI: the default workspace (no file), its Cluster view and the GPU
# picker filtered to L40S
start t 120 40
wait_ready t 600 && ok || bad "no plans at start: $(screen t | tail -2)"
keys t 1
wait_for t "POOL" && ok || bad "1 did not open the Cluster view"
screen t | grep -E '^ h100 ' | grep -qE ' \$220\.16 +fixed ' && ok ||
	bad "Cluster view h100 row: $(screen t | grep -E '^ h100 ')"
keys t a
wait_for t "Add a pool: pick its GPU" && ok || bad "a did not open the GPU picker"
keys t L 4 0 S
wait_for t "Filter: L40S_" && ok || bad "the filter does not show L40S"
screen t | grep -E ' L40S ' | grep -qF '$2.623/GPU-h' && ok ||
	bad "GPU picker L40S row: $(screen t | grep -E ' L40S ')"
keys t Escape
finish report_rates
