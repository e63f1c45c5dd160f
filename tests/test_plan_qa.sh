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

# --- estimate and the framework's rules
E13="$H estimate --pool 1x8xA100-SXM4-40GB -m llama2-13b --tp 1 --pp 1 --mbs 1 --gbs 8 --seq-len 2048"
# apex DDP (pytorch-ddp) replicates the optimizer: ZeRO 0 only (its row's
# zero_stages, runs_on.c), so estimate's default follows it; fp16 runs on it
expect 4 "" $E13 --framework pytorch-ddp --precision fp16 --format json
json "assert d['plan']['zero'] == 0, d['plan']['zero']"
[ -s "$T/err" ] && grep -q "warning" "$T/err" && bad "pytorch-ddp fp16 ZeRO-0 warned: $(cat "$T/err")" || ok
# bf16 is refused by its rules (run_squad.py: --fp16 or fp32): a warning names it
expect 4 "warning: --framework pytorch-ddp does not run this plan as one job: bf16" $E13 --framework pytorch-ddp
# --zero 1 is refused too: the warning names ZeRO
expect 4 "warning: --framework pytorch-ddp does not run this plan as one job: ZeRO-1" $E13 --framework pytorch-ddp --precision fp16 --zero 1
# InternLM's Hybrid Zero shards the optimizer only (ZeRO 0-1): from ZeRO-1
# the hint never offers --zero 2 or 3 (13B does not fit a 40 GB A100 at ZeRO-1)
$E13 --framework internlm > "$T/out" 2>"$T/err"
grep -q "DOES NOT FIT" "$T/out" && ok || bad "internlm 13B: expected DOES NOT FIT"
grep -qE "with --zero [23]" "$T/out" && bad "internlm hint offers ZeRO 2/3: $(grep with "$T/out")" || ok
# a plan that does not fit keeps no headroom, and says none
grep -q "^  memory: does-not-fit" "$T/out" && ok || bad "no memory line"
grep -q "headroom kept" "$T/out" && bad "does-not-fit plan says headroom kept: $(grep memory: "$T/out")" || ok

# --- one GPU: singular, and rows that print alike say how they differ
expect 0 "" $H estimate --pool 1x1xH100-SXM -m gpt-1.7b --tp 1 --pp 1 --mbs 1 --gbs 8
head -1 "$T/out" | grep -q "on 1 GPU, seq" && ok || bad "estimate 1 GPU: $(head -1 "$T/out")"
expect 0 "" $H plan --pool 1x1xH100-SXM -m gpt-1.7b --gbs 8 --top 2
head -1 "$T/out" | grep -q "(1 GPU in 1 pool)" && ok || bad "plan 1 GPU: $(head -1 "$T/out")"
# one data-parallel rank: ZeRO-1 and ZeRO-3 run alike, memory apart
grep -q "^Plans 1 and 2 show the same figures; they differ in ZeRO-1 vs ZeRO-3, the fullest stage's live memory" "$T/out" &&
	ok || bad "plan 1 GPU: twins unexplained: $(sed -n 3,9p "$T/out")"

# --- whole steps: --tokens below one batch trains one step
# gbs 64 x 4096 = 262,144 tokens a step; 1,000 tokens -> 1 step
expect 0 "" $H plan --pool 1x8xA100-SXM4-80GB -m llama2-7b --gbs 64 --tokens 1000 --top 2 --format json
json "assert all(abs(p['time_to_train_s'] - p['step_time_s']) <= 1e-9 * p['step_time_s'] for p in d['plans']), [(p['time_to_train_s'], p['step_time_s']) for p in d['plans']]"

# --- memory headroom: a plan over its GPU never ranks above one within it
for h in 0 0.2; do
	expect 0 "" $H plan --pool 4x8xA100-SXM4-40GB -m llama2-70b --gbs 64 --top 3 --mem-headroom $h
	grep -q "over the GPU with the allocator's reserve" "$T/out" && bad "--mem-headroom $h lists a plan over its GPU" || ok
	grep -q "memory: .*fullest stage .* (10[1-9]%)" "$T/out" && bad "--mem-headroom $h: plan 1 above 100%" || ok
done

# --- over the whole GPU: live tensors fit, the total with the reserve does not
# Llama 3.1 8B (8.03B parameters) at TP 8, DP 1, ZeRO-1, bf16 on one node of
# A100-40GB (40.0 GiB usable): weights 2 B x 8.03e9 / 8 = 1.9 GiB, fp32
# gradients 4 B / 8 = 3.7 GiB, master weights and Adam moments 12 B / 8 =
# 11.2 GiB (DP 1 shards nothing); with 4 x 8192-token micro-batches of
# activations the stage holds 39.2 GiB live (fits) and 43.0 GiB with the
# caching allocator's reserve: more than the GPU, so the verdict is
# over-gpu, not fits-with-risk (which is for a total inside the GPU but
# past the headroom), and estimate still exits 0 (the live bytes fit).
L2="--pool 1x8xA100-SXM4-40GB -m llama3.1-8b --tp 8 --pp 1 --mbs 4 --gbs 64 --zero 1 --recompute none"
# shellcheck disable=SC2086
expect 0 "" $H estimate $L2
grep -qF "memory: over-gpu (fullest stage 43.0 GiB of 40.0 GiB with the allocator's reserve, 39.2 GiB live; does not fit the GPU with the reserve" "$T/out" &&
	ok || bad "estimate over the GPU: $(grep memory: "$T/out")"
# shellcheck disable=SC2086
expect 0 "" $H estimate $L2 --format json
json "m = d['memory'][0]; assert d['memory_verdict'] == 'over-gpu' and m['total_bytes'] > m['capacity_bytes'] >= m['total_bytes'] - m['allocator_cache_bytes'], d['memory_verdict']"
# the planner, fixed to that plan, says the same in its JSON and CSV
# shellcheck disable=SC2086
expect 0 "" $H plan $L2 --format json
json "p = d['plans'][0]; assert p['memory_verdict'] == 'over-gpu', p['memory_verdict']"
# shellcheck disable=SC2086
expect 0 "" $H plan $L2 --format csv
sed -n 2p "$T/out" | grep -q ',over-gpu$' && ok || bad "plan csv verdict: $(sed -n 2p "$T/out")"
# a plan past the headroom but inside its GPU stays fits-with-risk: 70B on
# 32 A100-40GB lists one (total 99% of the GPU, marked !) after safe ones
expect 0 "" $H plan --pool 4x8xA100-SXM4-40GB -m llama3.1-70b --gbs 64 --top 5 --format json
json "r = [p for p in d['plans'] if p['memory_verdict'] == 'fits-with-risk']; assert r and all(max(m['total_bytes'] / m['capacity_bytes'] for m in p['memory']) <= 1 for p in r), [p['label'] for p in r]"

# --- --zero's default is the framework's (man: --zero): apex DDP, what
# pytorch-ddp runs, has no ZeRO (plain all-reduce DDP), so 0; Megatron's
# distributed optimizer makes 1 the default elsewhere
Z="$H estimate --pool 1x8xA100-SXM4-80GB -m gpt-1.7b --tp 1 --pp 1 --mbs 1 --gbs 64 --precision fp16 --format json"
expect 0 "" $Z --framework pytorch-ddp
json "assert d['plan']['zero'] == 0, d['plan']"
expect 0 "" $Z --framework megatron-core
json "assert d['plan']['zero'] == 1, d['plan']"
man -l man/hetplan.1 2>/dev/null | tr -s ' \n' '  ' | grep -qF "ZeRO stage (default: the framework's, 1 for all but --framework pytorch-ddp and pytorch-ddp-2020" &&
	ok || bad "man --zero: the default does not name the framework's"

# --- the report's Pareto table tells apart plans of one layout: Llama 3.1
# 70B on 128 H100 has "h100-sxm tp8 pp3" at several sizes off the ranked
# list; a GPUs column gives each its count, TP 8 x PP 3 x DP: multiples of 24
expect 0 "" $H plan --pool 16x8xH100-SXM -m llama3.1-70b --gbs 512 --top 1 --format md
sed -n '/^## Pareto/,/^## Best/p' "$T/out" > "$T/par"
grep -qF "| time to train | cost to train | plan | GPUs | rank |" "$T/par" && ok || bad "pareto header: $(sed -n 3p "$T/par")"
n=$(grep -c "| h100-sxm tp8 pp3 |" "$T/par")
g=$(grep "| h100-sxm tp8 pp3 |" "$T/par" | awk -F'|' '{print $5 + 0}' | sort -u)
[ "$n" -ge 2 ] && [ "$(echo "$g" | wc -l)" = "$n" ] && [ -z "$(echo "$g" | awk '$1 % 24')" ] &&
	ok || bad "pareto tp8 pp3 rows not told apart by GPUs: $(grep 'tp8 pp3 |' "$T/par")"

# --- rows that print alike but differ in layout say so: Llama 2 7B, fp16,
# on 16 A100-80GB + 16 V100-32GB; plans 1 and 2 (v100 pp2 vs pp1, both
# costed with unfused attention since the V100s run it) print the same tokens/s, $/h and times (plans 3 and 4 did
# while costs printed as "$38k"; with cents and three figures they read
# $38.4k and $38.5k and are told apart); the note used to name only their
# memory, as if the rows were one layout
expect 0 "" $H plan --pool 2x8xA100-SXM4-80GB,name=a100 --pool 2x8xV100-SXM2-32GB,name=v100 -m llama2-7b --gbs 256 --precision fp16 --top 10
grep -qF "Plans 1 and 2 show the same figures; they differ in layout (a100 tp2 pp1 + v100 tp4 pp2 vs a100 tp2 pp1 + v100 tp4 pp1)" "$T/out" &&
	ok || bad "same figures, layouts apart: $(grep '^Plans' "$T/out")"

# --- the detail says how to act on plan 1, and following it gives the same
# plan: -o plans.json, then estimate --plan prints plan 1's step time
# (13.40 s in the detail's step line, as hp_fmt_duration writes it: two
# decimals from 1 to 120 s) and launch writes its two pieces
SMALL="--pool 2x8xA100-SXM4-80GB,name=a100 --pool 2x8xV100-SXM2-32GB,name=v100 -m llama2-7b"
# shellcheck disable=SC2086
expect 0 "" $H plan $SMALL --gbs 256 --precision fp16 --top 2
grep -qF "  to estimate or launch it: add -o plans.json to this command, then run hetplan estimate or launch with the same cluster and -m and --plan plans.json (--rank N for plan N)" "$T/out" &&
	ok || bad "plan detail: no way to act on it"
st=$(sed -n 's/^  step \([0-9.]*\) s:.*/\1/p' "$T/out")
# shellcheck disable=SC2086
expect 0 "" $H plan $SMALL --gbs 256 --precision fp16 --top 2 -o "$T/plans.json"
# shellcheck disable=SC2086
expect 0 "" $H estimate $SMALL --plan "$T/plans.json" --format json
json "assert '%.2f' % d['step_time_s'] == '$st', (d['step_time_s'], '$st')"
# shellcheck disable=SC2086
expect 0 "" $H launch $SMALL --plan "$T/plans.json"
[ "$(grep -c '^# Piece: replica group' "$T/out")" = 2 ] && ok || bad "launch: want 2 pieces: $(grep '^# Piece' "$T/out")"

# --- a batch that does not split over the replicas names the flags, not a
# JSON path (it read "plan flags: replicas[0] gets ..."): 24 A100 at TP 8
# are 3 replicas; 64 / 3 = 21.33 sequences each; mbs 1 x dp 3 = 3
expect 3 "hetplan: --gbs 64 over 3 data-parallel replicas gives 21.3333 sequences each, not a positive multiple of --mbs 1: give a --gbs that is a multiple of 3 (mbs x dp), or another --dp" \
	$H estimate --pool 3x8xA100-SXM4-40GB -m llama3.1-70b --tp 8 --pp 1 --mbs 1 --gbs 64

# --- plan labels keep pools apart (plan_label.h): the default names of
# A100-SXM4-40GB and -80GB pools, a100-sxm4-40gb and a100-sxm4-80gb, take
# 14 columns, what a label gives a pool name, and stay whole. The old
# blind cut at 10 columns read "a100-sxm4-" for both in a pipeline's "A>B"
# (and at 12, "a100-sxm4-40", as if that were the name).
TW="--pool 2x8xA100-SXM4-40GB --pool 2x8xA100-SXM4-80GB -m llama3.1-8b --gbs 256"
# shellcheck disable=SC2086
expect 0 "" $H plan $TW --pp 2 --top 4
grep -qE "^  1\*? +a100-sxm4-[48]0gb>a100-sxm4-[48]0gb pp2" "$T/out" && ok ||
	bad "pipeline label over both A100 pools: $(sed -n 4p "$T/out")"
grep -E "a100-sxm4-[0-9]*[ >]" "$T/out" | grep -qv "^ *stage" &&
	bad "a blind cut left: $(grep -E 'a100-sxm4-[0-9]*[ >]' "$T/out" | head -2)" || ok
# shellcheck disable=SC2086
expect 0 "" $H plan $TW --pp 2 --top 4 --format json
json "import re; ls = [p['label'] for p in d['plans']]; assert all(re.fullmatch(r'a100-sxm4-[48]0gb(>a100-sxm4-[48]0gb)? (tp[0-9]+ )?pp2( \+ .*)?', l) for l in ls), ls"
# longer names that differ only near the end: at 14 columns each is its
# first 14 - 1 - 5 = 8 columns ("a100-sxm"), "~" and its last
# (14 - 1) * 2 / 5 = 5: "ast-1" and "est-1" read apart
expect 0 "" $H plan --pool 2x8xA100-SXM4-40GB,name=a100-sxm4-40gb-us-east-1 \
	--pool 2x8xA100-SXM4-80GB,name=a100-sxm4-40gb-us-west-1 -m llama3.1-8b --gbs 256 --top 2
grep -qF "a100-sxm~ast-1 tp8 pp1 + a100-sxm~est-1 tp" "$T/out" && ok ||
	bad "east/west pools: $(sed -n 4p "$T/out")"

# --- hostile pool names in a report's plan labels go through each
# format's escaping (md: \~, \| and &lt;, html: &lt;, csv: a quoted field
# only when it holds a comma or quote; the short names, 8 head columns
# "<b>a100|", "~", 5 tail "-east", hold neither)
cat > "$T/hostile.json" <<'EOF'
{"version": 1,
 "cluster": {"name": "hostile",
             "pools": [{"name": "<b>a100|40,\"x\"-long-east", "gpu": "A100-SXM4-40GB", "nodes": 2},
                       {"name": "<b>a100|40,\"x\"-long-west", "gpu": "A100-SXM4-80GB", "nodes": 2}]},
 "model": "llama3.1-8b",
 "workload": {"gbs": 256, "seq_len": 8192, "objective": "throughput", "top": 2}}
EOF
for f in md html csv json; do expect 0 "" $H report "$T/hostile.json" -o "$T/h.$f"; done
grep -qF '&lt;b>a100\|\~-east tp8 pp1 + &lt;b>a100\|\~-west tp' "$T/h.md" && ok || bad "md label: $(grep -m1 'Best plan' "$T/h.md")"
grep -qF '&lt;b&gt;a100|~-east tp8 pp1 + &lt;b&gt;a100|~-west tp' "$T/h.html" && ok || bad "html label"
grep -q '^1,<b>a100|~-east tp8 pp1 + <b>a100|~-west tp[0-9]* pp1[^,]*,32,"<b>a100|40,""x""-long-east:16;' "$T/h.csv" && ok ||
	bad "csv label: $(sed -n 2p "$T/h.csv")"
cp "$T/h.json" "$T/out"
json "assert d['plans'][0]['label'].startswith('<b>a100|~-east tp8 pp1 + <b>a100|~-west tp'), d['plans'][0]['label']"

finish plan_qa
