#!/bin/sh
# test_plan_qa.sh — answers of `hetplan plan` and `hetplan estimate` a
# user acts on (a QA sweep's findings): memory headroom ranking, whole
# steps, the reasons given when no layout exists, money in small
# budgets, the framework's ZeRO rules in estimate, plurals.
# Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/cache" XDG_CONFIG_HOME="$T/config"

# --- no layout at all: the reason is the fixed choice that rules them out
# gpt-1.7b: 24 layers, 24 heads (hetplan models); 1 node of 8 GPUs.
P="$H plan --pool 1x8xA100-SXM4-80GB -m gpt-1.7b --gbs 16"
# 24 % 16 = 8: TP 16 divides no head count, and a node has 8 GPUs
expect 4 "no layout on this cluster: --tp 16 does not divide the 24 attention heads; --tp 16 is wider than a node (8 GPUs)" $P --tp 16
# TP 8 divides 24 heads; 2 stages x 8 = 16 GPUs > 8
expect 4 "no layout on this cluster: --pp 2 at TP 8 needs 16 GPUs a replica; the cluster has 8" $P --tp 8 --pp 2
grep -qF "TP must divide" "$T/err" && bad "--tp 8 --pp 2: blames TP: $(cat "$T/err")" || ok
# interleaving needs two stages or more
expect 4 "--schedule interleaved:2 needs --pp 2 or more" $P --pp 1 --schedule interleaved:2
# 24 layers do not split into 5 chunks (24 = 4 x 5 + 4)
expect 4 "interleaved:5 needs the 24 layers of gpt-1.7b in 5 equal chunks" $P --schedule interleaved:5
# --gbs 4: at most 4 micro-batches (mbs 1), not a multiple of pp 8
expect 4 "needs a replica's micro-batches to be a multiple of --pp 8; --gbs 4 gives 4 at most" \
	$H plan --pool 2x8xA100-SXM4-80GB -m gpt-1.7b --gbs 4 --pp 8 --schedule interleaved:2
# 9 is not on the planner's PP ladder (1-8, 10, 12, ...)
expect 4 "--pp 9 is not a depth the planner tries" $P --pp 9

# --- money in a missed budget: cents, never "USD 0"
B="$H plan --pool 1x8xA100-SXM4-80GB -m llama2-7b --gbs 64 --objective budget"
expect 4 "within USD 0.40: the cheapest costs USD " $B --tokens 1e9 --budget 0.4
grep -qF "USD 0:" "$T/err" && bad "budget 0.4 printed as USD 0: $(cat "$T/err")" || ok
# what the budget buys is whole steps of 64 x 4096 = 262,144 tokens: the
# tokens named are the step count times 262,144 (8 steps -> 2.10M)
sed -n 's/.*or \([0-9.]*\)M tokens (\([0-9]*\) steps).*/\1 \2/p' "$T/err" > "$T/buys"
read -r mt st < "$T/buys" && python3 -c "import sys; m, s = float('$mt'), int('$st'); sys.exit(not (s >= 1 and abs(m * 1e6 - s * 262144) < 0.005e6))" &&
	ok || bad "budget 0.4: tokens bought are not whole steps: $(cat "$T/err")"
# a budget under one step's price says so (USD 0.001; a step of 8 A100s
# for seconds costs cents)
expect 4 "within USD 0.001: " $B --tokens 1e6 --budget 0.001
grep -qF "buys not one step" "$T/err" && ok || bad "budget 0.001: $(cat "$T/err")"

# --- precision errors name where the precision came from
# V100 has fp16 and fp32 tensor peaks, no bf16 (catalog: "it has: fp32, fp16")
V='{"name": "v100", "gpu": "V100-SXM2-32GB", "nodes": 1, "gpus_per_node": 8}'
echo "{\"cluster\": {\"name\": \"v\", \"pools\": [$V]}, \"model\": \"llama2-7b\", \"workload\": {\"gbs\": 8, \"precision\": \"bf16\"}}" > "$T/ws.json"
echo "{\"cluster\": {\"name\": \"v\", \"pools\": [$V]}, \"model\": \"llama2-7b\", \"workload\": {\"gbs\": 8}}" > "$T/ws2.json"
expect 3 "$T/ws.json: workload: precision bf16: pool 'v100' (V100-SXM2-32GB) has no bf16 units (it has: fp32, fp16); precision fp16 runs on it" \
	$H report "$T/ws.json" -o "$T/r.md"
grep -qF -- "--precision" "$T/err" && bad "workspace precision error names the flag: $(cat "$T/err")" || ok
expect 3 "$T/ws2.json: workload (no precision key: the default): precision bf16:" $H report "$T/ws2.json" -o "$T/r.md"
# from the flag: the flag
expect 3 "--precision: precision bf16: pool 'g' (V100-SXM2-32GB) has no bf16 units (it has: fp32, fp16); --precision fp16 runs on it" \
	$H plan --pool 1x8xV100-SXM2-32GB,name=g -m llama2-7b --gbs 8
# from a plan file's "precision" key: the file
$H plan --pool 1x8xH100-SXM,name=g -m llama2-7b --gbs 8 --top 1 --format json > "$T/p.json" 2>/dev/null
expect 3 "$T/p.json: precision bf16: pool 'g' (V100-SXM2-32GB) has no bf16 units (it has: fp32, fp16); precision fp16 runs on it" \
	$H estimate --pool 1x8xV100-SXM2-32GB,name=g -m llama2-7b --plan "$T/p.json"

finish plan_qa
