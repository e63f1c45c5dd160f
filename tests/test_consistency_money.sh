#!/bin/sh
# test_consistency_money.sh — one dollar amount, one text, in every view:
# `hetplan plan`'s table, `hetplan estimate`, the Markdown report and the
# TUI's Plans and Detail views (all through table_usd, src/table.c; its
# rule is checked figure by figure in test_consistency_money.c).
#
# The cluster: 2 nodes of 8 H100-SXM at the embedded $55.04 a node-hour
# (aws p5.48xlarge), so every plan on all 16 GPUs costs 2 x 55.04 =
# $110.08 an hour. Llama 3.1 8B, batch 128 x 8192:
#   - 50B tokens: plan 1's cost to train is above $10k, written to three
#     figures ("$10.0k": the CLI table wrote "$10k", the report "$10.0k");
#   - 40B tokens: below $10k, written in cents; the TUI's 6-column COST
#     column at 80 columns drops them (the one narrow-screen rounding), its
#     8 columns at 120 keep them.
# The expected texts come from plan's JSON numbers and the rule, never
# from one of the views.
# Unit prices take table_rate's rule (three decimals; the plan table wrote
# $/1M tokens to two where estimate, the reports and the TUI's Detail
# wrote three, and the TUI's Prices view $/GPU-hour to two where `hetplan
# prices` wrote three): plan 1's $ per 1M tokens in plan's table, estimate,
# the Markdown report and the TUI's Plans and Detail views; the A10's
# cheapest $/GPU-hour in `hetplan prices` and the TUI's Prices view.
# Run from the repository root after `make`.
. tests/tui_lib.sh
H=$HP
TUI_DIR=$tmp

# rate V: table_rate's text for V below 10,000 (three decimals)
rate() { python3 -c "print('%.3f' % float('$1'))"; }

# usd V: the rule's text for V (cents below $10k, else 3 figures + unit)
usd() {
	python3 -c "
v = float('$1')
if v < 9999.995:
    print('\$%.2f' % v)
else:
    v /= 1e3; u = 0
    while v >= 999.5 and u < 3:
        v /= 1e3; u += 1
    print('\$%.*f%s' % (2 if v < 9.995 else 1 if v < 99.95 else 0, v, 'kMBT'[u]))"
}

for tok in 50 40; do
	P="--pool 2x8xH100-SXM,name=h100 -m llama3.1-8b --gbs 128 --tokens ${tok}B --top 3"
	"$H" plan $P --format json >"$tmp/p$tok.json" 2>"$tmp/err" || bad "plan $tok: $(cat "$tmp/err")"
	cost=$(python3 -c "import json; print(json.load(open('$tmp/p$tok.json'))['plans'][0]['cost_to_train_usd'])")
	uh=$(python3 -c "import json; print(json.load(open('$tmp/p$tok.json'))['plans'][0]['usd_per_hour'])")
	want_c=$(usd "$cost") want_h=$(usd "$uh")
	# $ per 1M tokens = $/h / (tokens/s x 3600 s) x 1e6
	um=$(python3 -c "import json; p = json.load(open('$tmp/p$tok.json'))['plans'][0]; print(p['usd_per_hour'] / (3600 * p['tokens_per_s']) * 1e6)")
	want_m=$(rate "$um")
	[ "$want_h" = '$110.08' ] && ok || bad "$tok: \$/h is $want_h, want 2 x \$55.04 = \$110.08"
	case $tok in
	50) case $want_c in '$10.'[0-9]'k') ok ;; *) bad "50B: cost $want_c, want about \$10.xk" ;; esac ;;
	40) case $want_c in '$8'[0-9][0-9][0-9].[0-9][0-9]) ok ;; *) bad "40B: cost $want_c, want \$8xxx.xx" ;; esac ;;
	esac

	# plan's table: row 1 holds both
	"$H" plan $P >"$tmp/t" 2>/dev/null
	row=$(grep -E '^ +1\*? ' "$tmp/t")
	echo "$row" | grep -qF -- " $want_h " && ok || bad "plan table $tok: no $want_h: $row"
	echo "$row" | grep -qF -- " $want_c " && ok || bad "plan table $tok: no $want_c: $row"
	echo "$row" | grep -qF -- " \$$want_m " && ok || bad "plan table $tok: no \$$want_m (\$/1M): $row"

	# estimate of plan 1: the $/h
	"$H" estimate --pool 2x8xH100-SXM,name=h100 -m llama3.1-8b --plan "$tmp/p$tok.json" >"$tmp/e" 2>&1
	grep -qF -- "cost             $want_h/h, \$$want_m per 1M tokens" "$tmp/e" && ok ||
		bad "estimate $tok: $(grep cost "$tmp/e"), want $want_h/h, \$$want_m per 1M tokens"

	# the Markdown report: the summary's cost and the plans table
	"$H" plan $P --format md >"$tmp/r.md" 2>/dev/null
	grep -F "Cost to train" "$tmp/r.md" | grep -qF -- "$want_c" && ok ||
		bad "report $tok: summary lacks $want_c: $(grep -F 'Cost to train' "$tmp/r.md")"
	grep -qF -- "$want_h" "$tmp/r.md" && ok || bad "report $tok: no $want_h"
	grep -qF -- "(\$$want_m per million tokens)" "$tmp/r.md" && ok || bad "report $tok: no \$$want_m per million tokens"

	# the TUI at 120x40: Plans row 1 (8-column money cells), then Detail
	cat >"$tmp/w$tok.json" <<JSON
{"version": 1,
 "cluster": {"name": "two", "pools": [{"name": "h100", "gpu": "H100-SXM", "nodes": 2}]},
 "model": "llama3.1-8b",
 "workload": {"gbs": 128, "seq_len": 8192, "tokens": ${tok}e9, "top": 3}}
JSON
	start "b$tok" 120 40 "" "tui w$tok.json"
	keys "b$tok" 3
	wait_plans "b$tok" && ok || bad "TUI $tok: no plans"
	row=$(screen "b$tok" | grep -E '^ +1 ')
	echo "$row" | grep -qF -- " $want_h " && ok || bad "TUI Plans 120 $tok: no $want_h: $row"
	echo "$row" | grep -qF -- " $want_c " && ok || bad "TUI Plans 120 $tok: no $want_c: $row"
	echo "$row" | grep -qF -- " $want_m " && ok || bad "TUI Plans 120 $tok: no $want_m (\$/1M): $row"
	keys "b$tok" Enter
	wait_for "b$tok" "Layout: replicas x pipeline stages" && ok || bad "TUI $tok: no Detail"
	screen "b$tok" | grep -qF -- "$want_h/h" && ok || bad "TUI Detail $tok: no $want_h/h"
	screen "b$tok" | grep -qF -- "$want_c" && ok || bad "TUI Detail $tok: no $want_c"
	screen "b$tok" | grep -qF -- "\$$want_m per 1M tokens" && ok || bad "TUI Detail $tok: no \$$want_m per 1M tokens"
	# 80x24: COST is 6 columns; cents go, the dollars stay
	start "s$tok" 80 24 "" "tui w$tok.json"
	keys "s$tok" 3
	wait_plans "s$tok" && ok || bad "TUI 80 $tok: no plans"
	# (table_usd drops the decimals by rounding: "$%.0f")
	narrow=$want_c
	[ "${#want_c}" -gt 6 ] && narrow=$(python3 -c "print('\$%.0f' % float('$cost'))")
	screen "s$tok" | grep -E '^ +1 ' | grep -qF -- " $narrow" && ok ||
		bad "TUI Plans 80 $tok: no $narrow: $(screen "s$tok" | grep -E '^ +1 ')"
done
# The price book: the A10's cheapest offer a GPU-hour (one offer in the
# embedded snapshot), from prices' JSON and the rule, in `hetplan prices`
# and in the TUI's Prices view (its CHEAPEST column).
"$H" prices --gpu A10 --format json >"$tmp/pr.json" 2>"$tmp/err" || bad "prices --format json: $(cat "$tmp/err")"
ug=$(python3 -c "import json; d = json.load(open('$tmp/pr.json')); d = d.get('offers', d) if isinstance(d, dict) else d; print(min(o['usd_per_gpu_hour'] for o in d))")
want_g=$(rate "$ug")
"$H" prices --gpu A10 >"$tmp/pr.txt" 2>/dev/null
grep -E '^A10 ' "$tmp/pr.txt" | grep -qF -- " $want_g " && ok || bad "prices: no $want_g: $(grep -E '^A10 ' "$tmp/pr.txt")"
start pr 120 40 "" "tui w40.json"
keys pr 5
wait_for pr "Price per GPU-hour, USD" && ok || bad "TUI: no Prices view"
screen pr | grep -E '^ A10 ' | grep -qF -- " $want_g " && ok ||
	bad "TUI Prices: no $want_g: $(screen pr | grep -E '^ A10 ')"
finish consistency_money
