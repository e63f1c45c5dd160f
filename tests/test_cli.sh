#!/bin/sh
# test_cli.sh — the batch CLI as a user meets it: exit codes, messages that
# name the file/field/flag, JSON keys, heterogeneous plans. Run from the
# repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
D=tests/data/cli
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh


E="$H estimate --pool 2x8xH100-SXM -m llama3.1-8b"

# --- --list-fields: the settings tables -------------------------------------
# The plan key added in 2b2382b is there with the flag its estimate --help
# shows, in every format; a format hetplan does not have is a usage error.
expect 0 "" $H --list-fields
grep -q '^plan  *grad_reduce_fp32  *--grad-reduce-fp32  *boolean' "$T/out" && ok ||
	bad "--list-fields: no grad_reduce_fp32 row: $(head -2 "$T/out")"
expect 0 "" $H --list-fields=json
json "e = [x for x in d if x['key'] == 'zero'][0]; assert (e['table'], e['flag'], e['values']) == ('plan', 'zero', '0 to 3'), e"
expect 0 "" $H --list-fields=md
grep -qxF '<!-- fields: workload -->' "$T/out" && ok || bad "--list-fields=md: no workload region"
expect 0 "" $H --list-fields=man
grep -qxF '.\" BEGIN fields: plan-flags' "$T/out" && ok || bad "--list-fields=man: no plan-flags region"
expect 2 "hetplan: --list-fields: expected table, json, md or man, got 'html'" $H --list-fields=html
$H estimate --help | grep -qF -- '[--grad-reduce-fp32 on|off]' && ok ||
	bad "estimate --help lacks [--grad-reduce-fp32 on|off]"

# --- good runs -------------------------------------------------------------
expect 0 "" $H --version
expect 0 "" $H --help
# Every command `hetplan --help` lists answers --help with its synopsis
# (the command table's usage) on stdout and exit 0; the TUI's synopsis
# opens `hetplan --help` itself, as the program with no command is the TUI.
$H --help >"$T/help" 2>&1
head -1 "$T/help" | grep -q '^usage: hetplan \[tui\] \[WORKSPACE.json\]' && ok || bad "hetplan --help: first line $(head -1 "$T/help")"
for c in $(sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p' "$T/help"); do
	$H "$c" --help >"$T/out" 2>"$T/err"; rc=$?
	want="usage: hetplan $c"; [ "$c" = tui ] && want="usage: hetplan [tui]"
	if [ "$rc" = 0 ] && head -1 "$T/out" | grep -qF "$want" && [ ! -s "$T/err" ]; then ok; else
		bad "$c --help: exit $rc, first line '$(head -1 "$T/out")'"; fi
done
[ "$(sed -n '/^commands:/,/^$/p' "$T/help" | grep -c '^  [a-z]')" = 11 ] && ok ||
	bad "hetplan --help lists $(sed -n '/^commands:/,/^$/p' "$T/help" | grep -c '^  [a-z]') commands, want 11"
expect 0 "" $H gpus
expect 0 "" $H gpus --format json
# Every entry of the embedded data/gpus.json is listed, each once.
json "n = [g['name'] for g in json.load(open('data/gpus.json'))['gpus']]; assert [g['name'] for g in d] == n and len(set(n)) == len(n) >= 52 and 'H100-SXM' in n"
# The DGX-1 Max-Q V100 runs at 163 W of its 300 W (data/gpus.json
# power_limit_w, GEEPAFS Table 2): every format of hetplan gpus says so,
# and no other part carries a limit.
json "m = {g['name']: g for g in d}; assert m['V100-SXM2-LS']['tdp_w'] == 300 and m['V100-SXM2-LS']['power_limit_w'] == 163 and m['V100-SXM2-32GB']['power_limit_w'] is None"
$H gpus >"$T/gpus.txt" 2>&1
grep -q '^V100-SXM2-LS .* 300\*  fp32 fp16$' "$T/gpus.txt" && ok || bad "gpus: the LS row lacks 300*: $(grep LS "$T/gpus.txt")"
[ "$(tail -1 "$T/gpus.txt")" = "* held below its TDP (catalog power_limit_w): V100-SXM2-LS 163 W" ] && ok ||
	bad "gpus: no power-limit note: $(tail -1 "$T/gpus.txt")"
[ "$(grep -c '\*' "$T/gpus.txt")" = 2 ] && ok || bad "gpus: more than one part marked: $(grep '\*' "$T/gpus.txt")"
$H gpus --format csv >"$T/gpus.csv"
[ "$(head -1 "$T/gpus.csv" | tr ',' '\n' | tail -1)" = power_limit_w ] && ok || bad "gpus csv: last column is not power_limit_w"
[ "$(grep '^V100-SXM2-LS,' "$T/gpus.csv" | tr ',' '\n' | tail -1)" = 163 ] && ok || bad "gpus csv: LS power_limit_w is not 163"
expect 0 "" $H models --format json
json "m = {x['name']: x for x in d}; assert m['llama3.1-405b']['params'] == 405853388800"
expect 0 "" $H models --format csv
expect 0 "" $E --tp 1 --pp 1 --mbs 1 --gbs 64 --recompute full --format json
json "
for k in ('step_time_s','tokens_per_s','mfu','hfu','model_tflops_per_gpu','breakdown_s','memory','cost','energy','comm','plan'):
    assert k in d, k
for k in ('compute','recompute','tp_comm','pp_comm','dp_comm','ep_comm','cp_comm','bubble','optimizer'):
    assert k in d['breakdown_s'], k
for k in ('weights_bytes','grads_bytes','optimizer_bytes','activations_bytes','total_bytes','capacity_bytes','fits'):
    assert k in d['memory'][0], k
assert 'usd_per_hour' in d['cost'] and 'usd_per_million_tokens' in d['cost']
assert 'power_kw' in d['energy'] and 'joules_per_token' in d['energy']
# 16 GPUs, gbs 64 x 8192 tokens: tokens/s * step = 524288 exactly
assert abs(d['tokens_per_s'] * d['step_time_s'] - 64 * 8192) < 1e-3
assert d['gpus'] == 16 and d['plan']['replicas'][0]['count'] == 16
"
# The printed plan feeds back into --plan and gives the same step time.
python3 -c "import json; d=json.load(open('$T/out')); json.dump(d['plan'], open('$T/plan.json','w'))"
cp "$T/out" "$T/first.json"
expect 0 "" $E --plan "$T/plan.json" --format json
json "a=json.load(open('$T/first.json')); assert a['step_time_s'] == d['step_time_s'], (a['step_time_s'], d['step_time_s'])"

# Op-level selective checkpointing and the eager loss round-trip through the
# printed plan; bad values are refused with the accepted ones.
expect 0 "" $E --tp 1 --pp 1 --mbs 1 --gbs 64 --recompute selective-op --loss eager --zero 3 --format json
json "assert d['plan']['recompute'] == 'selective-op' and d['plan']['loss'] == 'eager'"
python3 -c "import json; d=json.load(open('$T/out')); json.dump(d['plan'], open('$T/plan_op.json','w'))"
cp "$T/out" "$T/op.json"
expect 0 "" $E --plan "$T/plan_op.json" --format json
json "a=json.load(open('$T/op.json')); assert a['memory'][0]['total_bytes'] == d['memory'][0]['total_bytes']"
expect 2 "--loss: expected fused, eager or chunked" $E --tp 1 --pp 1 --mbs 1 --gbs 64 --loss blocked
expect 2 "selective-op" $E --tp 1 --pp 1 --mbs 1 --gbs 64 --recompute some
printf '{"loss":"blocked","replicas":[{"count":16,"stages":[{"pool":"h100-sxm","tp":1,"first_layer":0,"last_layer":31}]}]}' >"$T/badloss.json"
expect 3 'loss: expected "fused", "eager" or "chunked"' $E --mbs 1 --gbs 64 --plan "$T/badloss.json"

# DeepSpeed's first BF16 optimizer (master "replicated"): Llama-3.1 8B has
# P = 8,030,261,248 parameters, all on one stage at tp1/pp1, dp 16. Sharded
# (default): grads 4P, optimizer 12P/16 = 0.75P. Replicated: bf16 + fp32
# grads 6P, fp32 master 4P + moments 8P/16 = 4.5P: 12.5P = 93 GiB with the
# weights, more than an H100 holds (exit 4, the JSON still printed).
expect 4 "does not fit" $E --tp 1 --pp 1 --mbs 1 --gbs 64 --recompute full --master replicated --format json
json "
P = 8030261248; s = d['memory'][0]
assert s['grads_bytes'] == 6 * P and s['optimizer_bytes'] == 4.5 * P, (s['grads_bytes'], s['optimizer_bytes'])
assert d['plan']['master'] == 'replicated'
"
python3 -c "import json; d=json.load(open('$T/out')); json.dump(d['plan'], open('$T/plan_rep.json','w'))"
cp "$T/out" "$T/rep.json"
expect 4 "" $E --plan "$T/plan_rep.json" --format json
json "a=json.load(open('$T/rep.json')); assert a['memory'][0]['total_bytes'] == d['memory'][0]['total_bytes']"
expect 0 "" $E --tp 1 --pp 1 --mbs 1 --gbs 64 --recompute full --format json
json "
P = 8030261248; s = d['memory'][0]
assert s['grads_bytes'] == 4 * P and s['optimizer_bytes'] == 0.75 * P and 'master' not in d['plan']
"
expect 2 "--master: expected sharded, replicated or none" $E --tp 1 --pp 1 --mbs 1 --gbs 64 --master full
expect 3 'master "replicated" needs zero 0 or 1' $E --tp 1 --pp 1 --mbs 1 --gbs 64 --master replicated --zero 2
printf '{"master":"whole","replicas":[{"count":16,"stages":[{"pool":"h100-sxm","tp":1,"first_layer":0,"last_layer":31}]}]}' >"$T/badmaster.json"
expect 3 'master: expected "sharded", "replicated" or "none"' $E --mbs 1 --gbs 64 --plan "$T/badmaster.json"

# Heterogeneous plan: H100 replicas run the whole model on TP8; A100-40GB
# replicas need two stages; shares 0.3125 x 2 + 0.1875 x 2 = 1.
expect 0 "" $H estimate -c $D/mixed.json -m llama3.1-70b --plan $D/hetero_plan.json --format json
json "
assert d['gpus'] == 16 + 32, d['gpus']
st = d['memory']; assert len(st) == 6
assert st[0]['gpu'] == 'H100-SXM' and st[2]['gpu'] == 'A100-SXM4-40GB'
assert st[2]['last_layer'] == 19 and st[5]['first_layer'] == 60
assert [s['replica_group'] for s in st] == [0, 0, 1, 1, 1, 1]
# capacity is the GPU's: 40 GB A100 vs 80 GB H100
assert st[2]['capacity_bytes'] < st[0]['capacity_bytes']
"
# The memory line names the fullest stage's TOTAL as the table prints it
# (the largest TOTAL / capacity row, the allocator's reserve included) and
# its live bytes (JSON total_bytes - allocator_cache_bytes); it gave the
# live bytes alone, smaller than the table's TOTAL beside it.
$H estimate -c $D/mixed.json -m llama3.1-70b --plan $D/hetero_plan.json > "$T/est.txt" 2>/dev/null &&
$H estimate -c $D/mixed.json -m llama3.1-70b --plan $D/hetero_plan.json --format json > "$T/est.json" 2>/dev/null &&
python3 - "$T/est.txt" "$T/est.json" <<'PY' && ok || bad "estimate memory line: $(tail -1 "$T/est.txt")"
import json, re, sys
txt = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
w = max(d["memory"], key=lambda s: s["total_bytes"] / s["capacity_bytes"])
gib = lambda b: "%.1f GiB" % (b / 2**30)
line = [l for l in txt.splitlines() if l.strip().startswith("memory:")][0]
want = "fullest stage %s of %s with the allocator's reserve, %s live" % (
    gib(w["total_bytes"]), gib(w["capacity_bytes"]),
    gib(w["total_bytes"] - w["allocator_cache_bytes"]))
assert want in line, (want, line)
# and that TOTAL is the one the table shows for the stage
assert re.search(r"\b%s yes of" % re.escape(gib(w["total_bytes"])), txt), txt
PY
# --rank picks a plan of a --plan file; without one it was ignored and the
# flags' plan estimated or launched as if it were the one asked for.
expect 2 "--rank picks a plan of a --plan file" $E --tp 1 --pp 1 --mbs 1 --gbs 64 --rank 2
expect 2 "--rank picks a plan of a --plan file" $H launch --pool 2x8xH100-SXM -m llama3.1-8b \
	--tp 1 --pp 1 --mbs 1 --gbs 64 --rank 2
# Does not fit: 70B on one node with no sharding -> exit 4 with the overflow.
expect 4 "does not fit" $H estimate --pool 1x8xH100 -m llama3.1-70b --tp 1 --pp 1 --mbs 1 --gbs 8 --zero 0

# --- bad input -------------------------------------------------------------
expect 2 "-m MODEL is required" $H estimate --pool 1x8xH100 --tp 1 --pp 1 --mbs 1 --gbs 8
expect 2 "--tp: expected a positive integer, got '-2'" $E --tp -2 --pp 1 --mbs 1 --gbs 8
expect 2 "--tp: expected a positive integer, got '1e99'" $E --tp 1e99 --pp 1 --mbs 1 --gbs 8
# a number past what an int holds is worded as one just past the range
# (gbs: 1 to 1e8 sequences, src/plan.c), not as a malformed one
expect 2 "--gbs: expected an integer from 1 to 100000000, got '99999999999999'" $E --tp 1 --pp 1 --mbs 1 --gbs 99999999999999
expect 2 "--gbs: expected an integer from 1 to 100000000, got '100000001'" $E --tp 1 --pp 1 --mbs 1 --gbs 100000001
expect 2 "--precision: expected fp32, tf32, bf16, fp16 or fp8" $E --tp 1 --pp 1 --mbs 1 --gbs 8 --precision fp64
# A precision the GPU has no units for is an error naming the GPU, never a
# silent fallback (A100 has no FP8 tensor cores; V100 has no bf16).
expect 3 "pool 'a100-sxm4-80gb' (A100-SXM4-80GB) has no fp8 units" $H estimate --pool 1x8xA100-80GB -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 8 --precision fp8
expect 3 "(V100-SXM2-32GB) has no bf16 units (it has: fp32, fp16)" $H estimate --pool 1x8xV100 -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 8 --precision bf16
expect 3 "has no bf16 units" $H plan --pool 1x8xV100 -m llama3.1-8b --gbs 8 --precision bf16
# bf16 is the default: a user who named no precision is told the one that
# runs (the T4 datasheet: fp16 65 TFLOP/s on its tensor cores, no bf16).
expect 3 "(T4) has no bf16 units (it has: fp32, fp16); --precision fp16 runs on it" \
	$H plan --pool 4x4xT4 -m gpt-1.7b --gbs 64
expect 0 "" $H estimate --pool 1x8xA100-80GB -m gpt-1.7b --tp 1 --pp 1 --mbs 1 --gbs 8 --precision tf32
expect 0 "" $H estimate --pool 1x8xV100 -m gpt-1.7b --tp 1 --pp 1 --mbs 1 --gbs 8 --precision fp32
expect 2 "--schedule: expected 1f1b or interleaved:V" $E --tp 1 --pp 1 --mbs 1 --gbs 8 --schedule zigzag
expect 2 "unknown option" $E --tp 1 --pp 1 --mbs 1 --gbs 8 --frobnicate
expect 2 "hetplan estimate: --mbs: missing value" $E --tp 1 --pp 1 --mbs
expect 2 "hetplan estimate: unknown option '--frobnicate' (try --help)" $E --frobnicate
# A cluster holds at most 16 pools (HP_MAX_POOLS, src/cluster.h): the 17th
# --pool is a usage error before anything is built.
P17=$(for i in $(seq 17); do printf ' --pool 1x8xH100-SXM'; done)
expect 2 "hetplan estimate: --pool: at most 16 pools" $H estimate $P17 -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
expect 2 "-m MODEL is required" $H estimate --pool 1x8xH100-SXM --tp 1 --pp 1 --mbs 1 --gbs 8
expect 2 "give a cluster: -c CLUSTER.json or --pool SPEC" $H estimate -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
expect 2 "--pool: expected NODESxGPUSxGPU" $H estimate --pool 16xH100 -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
expect 3 "unknown GPU 'H1000' (closest: H100" $H estimate --pool 2x8xH1000 -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
expect 3 "unknown model 'llama9-70b'" $E -m llama9-70b --tp 1 --pp 1 --mbs 1 --gbs 8
expect 3 "tp 3 does not divide the 32 attention heads" $E --tp 3 --pp 1 --dp 1 --mbs 1 --gbs 8
# Both the shape and the batch wrong: TP 3 does not divide llama3.1-8b's 32
# heads, and 1001 / 5 replicas = 200.2 sequences is no whole micro-batch.
# The heads come first (fixing the batch alone would meet them next);
# the gbs message only once the shape is right (--tp 1: 1001 / 16 = 62.56).
# From flags the message names the flag typed (--tp), not a plan key.
expect 3 "hetplan: --tp 3 does not divide the 32 attention heads of llama3.1-8b" $E --tp 3 --pp 1 --dp 5 --mbs 1 --gbs 1001
grep -q "gbs" "$T/err" && bad "tp 3 and gbs 1001: the batch named too: $(cat "$T/err")" || ok
expect 3 "hetplan: --tp 3 does not divide the 32 attention heads" $H launch --pool 2x8xH100-SXM -m llama3.1-8b --tp 3 --pp 1 --dp 5 --mbs 1 --gbs 1001
# The same order from a plan file, whose replica groups take unequal
# shares (the shape is checked in plan_validate, not on an evened copy):
# H100 group at TP 3 (32 heads: 32 / 3 is no whole number) with 0.6 of
# gbs 7 = 4.2 sequences, no whole micro-batch of 1. The message names the
# file and the key's JSON path; estimate and launch say the same.
HET="$H estimate --pool 1x8xH100-SXM --pool 1x8xA100-80GB -m llama3.1-8b"
printf '{"mbs": 1, "gbs": 7, "replicas": [{"count": 1, "batch_share": 0.6, "stages": [{"pool": "h100-sxm", "tp": 3, "first_layer": 0, "last_layer": 31}]}, {"count": 1, "batch_share": 0.4, "stages": [{"pool": "a100-sxm4-80gb", "tp": 4, "first_layer": 0, "last_layer": 31}]}]}' >"$T/shape.json"
expect 3 "hetplan: $T/shape.json: replicas[0].stages[0].tp 3 does not divide the 32 attention heads of llama3.1-8b" $HET --plan "$T/shape.json"
grep -q "sequences" "$T/err" && bad "tp 3 and 4.2 sequences: the batch named too: $(cat "$T/err")" || ok
expect 3 "hetplan: $T/shape.json: replicas[0].stages[0].tp 3 does not divide the 32 attention heads of llama3.1-8b" \
	$H launch --pool 1x8xH100-SXM --pool 1x8xA100-80GB -m llama3.1-8b --plan "$T/shape.json" --format slurm
# shape fixed (TP 4): now the batch, 0.6 x 7 = 4.2 sequences
sed 's/"tp": 3/"tp": 4/' "$T/shape.json" >"$T/shape2.json"
expect 3 "hetplan: $T/shape2.json: replicas[0] gets 4.2 sequences per step, not a positive multiple of the micro-batch 1 (gbs 7, dp 2)" $HET --plan "$T/shape2.json"
# every stage key from flags names its flag: TP against the KV heads
# (mixtral-8x22b: 48 heads, 8 KV heads; 12 divides 48, is above 8 and no
# multiple of it) and the nodes (gpt-1.7b's 24 heads at TP 12 on 8-GPU
# nodes), cp against the sequence (8192 / 3), the micro-batch above the
# global batch, interleaving's layer split (32 layers on 3 stages: 11, 11,
# 10) and its micro-batch count (6 / 1 = 6, not a multiple of 4)
expect 3 "hetplan: --tp 12 is neither a divisor nor a multiple of the 8 KV heads of mixtral-8x22b" $H estimate --pool 3x8xH100-SXM -m mixtral-8x22b --tp 12 --pp 1 --dp 1 --mbs 1 --gbs 8
expect 3 "hetplan: --tp 12 spans nodes of pool 'h100-sxm' but is not a multiple of its 8 GPUs per node" $H estimate --pool 3x8xH100-SXM -m gpt-1.7b --tp 12 --pp 1 --dp 1 --mbs 1 --gbs 8
expect 3 "hetplan: --cp 3 does not divide the sequence length 8192" $E --tp 1 --pp 1 --cp 3 --mbs 1 --gbs 16
expect 3 "hetplan: --mbs 9 must be between 1 and the global batch --gbs 8" $E --tp 1 --pp 1 --mbs 9 --gbs 8
expect 3 "hetplan: --schedule interleaved:2 needs each stage's layer count to be a multiple of 2 (the first and last stage may hold one less); at --pp 3 stage 1 holds 11 (layers 11-21)" \
	$E --tp 1 --pp 3 --dp 1 --mbs 1 --gbs 16 --schedule interleaved:2
expect 3 "hetplan: --schedule interleaved needs the micro-batch count of replicas[0] (6 sequences / --mbs 1 = 6) to be a multiple of --pp 4" \
	$E --tp 1 --pp 4 --dp 1 --mbs 1 --gbs 6 --schedule interleaved:2
# both: the layer split named first, the micro-batch count after
expect 3 "at --pp 3 stage 1 holds 11" $E --tp 1 --pp 3 --dp 1 --mbs 1 --gbs 7 --schedule interleaved:2
expect 3 "--gbs 1001 over 16 data-parallel replicas gives 62.5625 sequences each" $E --tp 1 --pp 1 --mbs 1 --gbs 1001
expect 3 "--pp: 40 pipeline stages for a model of 32 layers" $E --tp 1 --pp 40 --dp 1 --mbs 1 --gbs 8
# TP may span nodes (its collectives then cross the NICs) but must tile them.
expect 0 "" $E --tp 16 --pp 1 --dp 1 --mbs 1 --gbs 8
expect 3 "tp 12 spans nodes of pool" $H estimate --pool 3x8xH100-SXM -m gpt-1.7b --tp 12 --pp 1 --dp 1 --mbs 1 --gbs 8
expect 3 "needs 32 GPUs of pool" $E --tp 8 --pp 4 --dp 1 --mbs 1 --gbs 8
# 64 / 16 = 4 sequences a replica, not a multiple of mbs 3; mbs x dp = 48
expect 3 "--gbs 64 over 16 data-parallel replicas gives 4 sequences each, not a positive multiple of --mbs 3: give a --gbs that is a multiple of 48" $E --tp 1 --pp 1 --dp 16 --mbs 3 --gbs 64

printf '{"pools": [{"gpu": "H100", "nodes": -4}]}' >"$T/c1.json"
expect 3 "c1.json: pools[0].nodes: expected a positive integer, got -4" $H estimate -c "$T/c1.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
printf '{"pools": [{"gpu": "H100", "nodes": 2}, {"gpu": "A100", "nodes": 1e12}]}' >"$T/c2.json"
expect 3 "pools[1].nodes: expected a positive integer, got 1000000000000" $H estimate -c "$T/c2.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
printf '{"pools": [{"gpu": "H100", "nodes": 2,}]}' >"$T/c3.json"
expect 3 "c3.json: line 1, column" $H estimate -c "$T/c3.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
printf '{"pools": [{"nodes": 2}]}' >"$T/c4.json"
expect 3 "pools[0].gpu: missing, expected a string" $H estimate -c "$T/c4.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
printf '{"pools": [{"gpu": "L40S", "nodes": 2, "intra": "nvswitch"}]}' >"$T/c5.json"
expect 3 "L40S has no NVLink" $H estimate -c "$T/c5.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
# The network transport: ib, efa, tcp or a Google Cloud fabric, in cluster JSON and --pool.
printf '{"pools": [{"gpu": "H100", "nodes": 2, "transport": "roce"}]}' >"$T/c6.json"
expect 3 'pools[0].transport: expected "ib", "efa", "tcp", "opa", "tcpx", "tcpxo" or "gcp-rdma" (or a Google Cloud machine type such as "a3-megagpu-8g"), got "roce"' $H estimate -c "$T/c6.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
expect 2 "transport: expected ib, efa, tcp, opa, tcpx, tcpxo or gcp-rdma (or a Google Cloud machine type such as a3-megagpu-8g), got 'roce'" $H estimate --pool 2x8xH100-SXM,transport=roce -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
expect 0 "" $H estimate --pool 2x8xH100-SXM,transport=efa -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 64 --zero 3
printf '{"pools": [{"gpu": "H100", "nodes": 2, "transport": "efa"}]}' >"$T/c7.json"
expect 0 "" $H estimate -c "$T/c7.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 64 --zero 3
: >"$T/empty.json"
expect 3 "empty file" $H estimate -c "$T/empty.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
expect 3 "No such file" $H estimate -c "$T/missing.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
printf '{"name": "x", "layers": 0, "hidden": 4096, "heads": 32, "ffn": 11008, "vocab": 32000}' >"$T/m1.json"
expect 3 "m1.json: layers: expected an integer from 1 to 100000, got 0" $H estimate --pool 1x8xH100 -m "$T/m1.json" --tp 1 --pp 1 --mbs 1 --gbs 8
printf '{"name": "x", "layers": 2, "hidden": 4096, "heads": 30, "ffn": 11008, "vocab": 32000}' >"$T/m2.json"
expect 3 "heads: 30 does not divide hidden 4096" $H estimate --pool 1x8xH100 -m "$T/m2.json" --tp 1 --pp 1 --mbs 1 --gbs 8
printf '{"mbs": 1, "gbs": 8, "replicas": [{"stages": [{"pool": "nope", "first_layer": 0, "last_layer": 31}]}]}' >"$T/p1.json"
expect 3 "replicas[0].stages[0].pool: no pool named \"nope\"" $E --plan "$T/p1.json"
printf '{"mbs": 1, "gbs": 8, "replicas": [{"stages": [{"pool": "h100-sxm", "first_layer": 0, "last_layer": 20}]}]}' >"$T/p2.json"
expect 3 "covers layers 0-20" $E --plan "$T/p2.json"
expect 3 "covers layers" $E --plan "$T/p2.json"
printf '{"mbs": 1, "gbs": 8, "replicas": [{"batch_share": 0.5, "stages": [{"pool": "h100-sxm", "first_layer": 0, "last_layer": 31}]}]}' >"$T/p3.json"
expect 3 "batch shares add up to 0.5" $E --plan "$T/p3.json"
expect 2 "unknown command 'plann'" $H plann

# --pool's text keys are taken whole or refused naming the limit (the
# cluster header's sizes: provider 24, region 32, site 64 bytes with the
# NUL); a cut value could end inside a character.
P24=aaaaaaaaaaaaaaaaaaaaaaaa
expect 2 "--pool 1x8xH100-SXM,provider=$P24: provider: expected printable UTF-8 text of at most 23 bytes, got '$P24'" \
	$H estimate --pool "1x8xH100-SXM,provider=$P24" -m gpt-1.7b --tp 1 --pp 1 --mbs 1 --gbs 8
expect 2 "site: expected printable UTF-8 text of at most 63 bytes" \
	$H estimate --pool "1x8xH100-SXM,site=$P24$P24$P24" -m gpt-1.7b --tp 1 --pp 1 --mbs 1 --gbs 8
expect 0 "" $H estimate --pool "1x8xH100-SXM,provider=aaaaaaaaaaaaaaaaaaaaaaa,region=eu-west-1" \
	-m gpt-1.7b --tp 1 --pp 1 --mbs 1 --gbs 8

# --- every framework row can be named (issue 12) ---------------------------
# InternLM 7B's trainer at InternLM/InternLM @01e7fd61 (the internlm row):
# configs/7B_sft.py sets zero_overlap_communication True (gradient reduce
# and parameter broadcasts overlapped), that code has no TP communication
# overlap, and hybrid_zero_optim.py's reduce_tensor all-reduces each
# gradient bucket over the DP group in the parameters' dtype (bf16 here).
# Hand calculation for llama3.1-8b (Meta's 8,030,261,248 parameters:
# embedding and output 2 x 128256 x 4096 = 1,050,673,152; per layer
# q 4096^2 + k, v 2 x 4096 x 1024 + o 4096^2 = 41,943,040, MLP 3 x 4096 x
# 14336 = 176,160,768, two norms 8,192: 218,112,000 x 32 = 6,979,584,000;
# final norm 4,096): InternLM all-reduces 2 B x 8,030,261,248 =
# 16,060,522,496 bytes a step, where Megatron-Core's distributed optimizer
# reduce-scatters fp32 gradients under bf16 (arguments.py), 4 B each =
# 32,121,044,992 bytes.
IL="$H estimate --pool 2x8xA100-SXM4-80GB,nics=4,nic_gbps=100 -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 64 --zero 1 --recompute full --format json"
expect 0 "" $IL --framework internlm
json "p = d['plan']; assert (p['framework'], p['tp_overlap'], p['grad_overlap'], p['param_overlap'], p['grad_reduce_fp32']) == ('internlm', False, True, True, False), p"
json "c = [x for x in d['comm'] if x['dim'] == 'dp']; assert [(x['collective'], x['bytes'], x['group']) for x in c] == [('allreduce', 16060522496, 16)], c"
cp "$T/out" "$T/il.json"
python3 -c "import json; json.dump(json.load(open('$T/il.json'))['plan'], open('$T/il.plan.json', 'w'))"
expect 0 "" $IL --framework megatron-core
json "c = [x for x in d['comm'] if x['dim'] == 'dp']; assert [(x['collective'], x['bytes'])  for x in c] == [('reducescatter', 32121044992)], c"
# names ignore case, as the stock ones do
expect 0 "" $IL --framework InternLM
json "assert d['plan']['framework'] == 'internlm', d['plan']"
# The printed plan reads back (estimate --plan) naming the same row and
# giving the same step; a hand-written plan file may name any row.
expect 0 "" $H estimate --pool 2x8xA100-SXM4-80GB,nics=4,nic_gbps=100 -m llama3.1-8b --plan "$T/il.plan.json" --format json
python3 -c "
import json; a = json.load(open('$T/il.json')); b = json.load(open('$T/out'))
assert b['plan']['framework'] == 'internlm' and b['step_time_s'] == a['step_time_s'], (b['plan']['framework'], a['step_time_s'], b['step_time_s'])" && ok ||
	bad "internlm plan file round trip"
printf '{"mbs": 4, "gbs": 32, "precision": "fp16", "framework": "pytorch-ddp-2020", "replicas": [{"count": 8, "stages": [{"pool": "v", "first_layer": 0, "last_layer": 23}]}]}' >"$T/ddp.json"
# no "zero" key: the row's own, 0 (apex DDP replicates the optimizer), at
# which 1.65B parameters x (2 + 4 + 12) bytes = 29.7 GB of weights,
# gradients and Adam state leave 4.4 GB of the V100's 34.1 GB, less than
# four sequences' activations (6.5 GB at one): exit 4
expect 4 "does not fit" $H estimate --pool 1x8xV100-SXM2-32GB,name=v -m gpt-1.7b --plan "$T/ddp.json" --format json
json "p = d['plan']; assert (p['framework'], p['grad_overlap'], p['tp_overlap'], p['zero']) == ('pytorch-ddp-2020', True, False, 0), p"
# llm.c's train_gpt2.cu @f1e2ace (the llm.c row): -z 1 reduce-scatters the
# bf16 gradients (llmc/zero.cuh, ncclReduceScatter of floatX) on its NCCL
# stream during the backward and all-gathers the parameters after the
# update; no TP. Hand count of gpt-1.7b (24 layers, hidden 2304, FFN
# 9216, vocab 51200, 2,048 learned positions, biases, LayerNorm, tied):
# embedding 117,964,800 + positions 4,718,592 + 24 x (QKV 15,932,160 +
# projection 5,310,720 + MLP 21,242,880 + 21,235,968 + norms 9,216 =
# 63,730,944) + final norm 4,608 = 1,652,230,656 parameters; 2 bytes each
# = 3,304,461,312 bytes reduce-scattered over 8 ranks.
LC="$H estimate --pool 1x8xA100-SXM4-80GB -m gpt-1.7b --tp 1 --pp 1 --mbs 4 --gbs 64 --zero 1 --precision bf16 --format json"
expect 0 "" $LC --framework llm.c
json "p = d['plan']; assert (p['framework'], p['tp_overlap'], p['grad_overlap'], p['param_overlap'], p['grad_reduce_fp32']) == ('llm.c', False, True, False, False), p"
json "c = [x for x in d['comm'] if x['dim'] == 'dp']; assert [(x['collective'], x['bytes'], x['group']) for x in c] == [('reducescatter', 3304461312, 8)], c"
expect 0 "" $LC --framework LLMC
json "assert d['plan']['framework'] == 'llm.c', d['plan']"
# DeepSpeed 0.3 with DeepSpeedExamples' 2019 Megatron-LM (the deepspeed-0.3
# row) has no fused attention kernel, so `plan` builds unfused-attention
# plans for it and finds one where llm.c does: 8 A100-80GB hold gpt-1.7b
# (1.65e9 parameters, 16 bytes each with Adam = 26 GB) at TP 1. Its
# ZeRO 0-1 paths overlap neither DP collective: stage1.py @7d4d742
# all-gathers the updated partitions after optimizer.step(), and the
# overlapping gradient reduce belongs to ZeRO-2 (engine.py).
DS3="$H plan --pool 1x8xA100-SXM4-80GB -m gpt-1.7b --gbs 64 --precision fp16 --framework deepspeed-0.3 --top 3 --format json"
expect 0 "" $DS3
json "p = d['plans']; assert p and all((x['framework'], x['flash'], x['tp_overlap'], x['grad_overlap'], x['param_overlap']) == ('deepspeed-0.3', False, False, False, False) and x['zero'] in (0, 1) for x in p), [(x['framework'], x['flash'], x['zero']) for x in p]"
# a choice the row's rules refuse for every plan (bf16: DeepSpeed 0.3's
# fp16 optimizer or fp32 only) is named as such, not as memory or layout,
# with the first refused plan's reason, the same for 1 and 3 threads
for th in 1 3; do
expect 4 "no plan fits: --framework deepspeed-0.3's rules refuse " $H plan --pool 1x8xA100-SXM4-80GB -m gpt-1.7b --gbs 64 --precision bf16 --framework deepspeed-0.3 --threads $th
grep -qE "rules refuse ([0-9]+) of the \1 candidate plans for gpt-1.7b that reach them \(first: bf16 \(DeepSpeed 0.3 runs fp16 or fp32\)\)" "$T/err" && ok ||
	bad "bf16 under deepspeed-0.3, --threads $th: not every plan refused for bf16: $(cat "$T/err")"
done
# with --pp 2 every candidate has a pipeline, which the 2019 code lacks:
# all of them refused (N of N), the first for its pipeline
expect 4 "no plan fits: --framework deepspeed-0.3's rules refuse " $H plan --pool 1x8xA100-SXM4-80GB -m gpt-1.7b --gbs 64 --precision fp16 --framework deepspeed-0.3 --pp 2
grep -qE "rules refuse ([0-9]+) of the \1 candidate plans for gpt-1.7b that reach them \(first: PP " "$T/err" && ok ||
	bad "--pp 2 under deepspeed-0.3: not every candidate refused: $(cat "$T/err")"
# the 2019 Megatron-LM has TP but no sequence parallelism (the row's
# no_sp): `plan` builds SP-off plans for it, so --tp 2 finds one
expect 0 "" $H plan --pool 1x8xA100-SXM4-80GB -m gpt-1.7b --gbs 64 --framework deepspeed-0.3 --precision fp16 --tp 2 --top 3 --format json
json "p = d['plans']; assert p and all((x['framework'], x['sp']) == ('deepspeed-0.3', False) and all(s['tp'] == 2 for r in x['replicas'] for s in r['stages']) for x in p), p"
D3="$H estimate --pool 1x8xA100-SXM4-80GB -m gpt-1.7b --tp 1 --pp 1 --mbs 4 --gbs 64 --precision fp16 --attention unfused --framework deepspeed-0.3"
expect 3 "param_overlap on cannot run under framework deepspeed-0.3" $D3 --zero 1 --param-overlap on
expect 3 "grad_overlap on is not possible under framework deepspeed-0.3 (its code runs ZeRO 0-1" $D3 --zero 1 --grad-overlap on
expect 0 "" $D3 --zero 1 --param-overlap off --format json
json "assert (d['plan']['param_overlap'], d['plan']['framework']) == (False, 'deepspeed-0.3'), d['plan']"
# Bad names: exit 2 (a flag) or 3 (a file), naming the flag or the key and
# every row's name.
ALL="any, megatron-core, megatron-lm, deepspeed, torchtitan, pytorch-ddp, pytorch-ddp-2020, internlm, llm.c, deepspeed-0.3, nemo-automodel, hf-transformers, hf-deepspeed or maxtext"
expect 2 "hetplan estimate: --framework: expected $ALL, got 'internlm2'" $IL --framework internlm2
expect 2 "hetplan plan: --framework: expected $ALL, got 'jax'" $H plan --pool 1x8xH100-SXM -m llama3.1-8b --gbs 64 --framework jax
expect 2 "hetplan launch: --framework: expected $ALL, got ''" $H launch --pool 1x8xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8 --framework ''
LONG=$(python3 -c "print('x' * 5000)")
expect 2 "--framework: expected $ALL, got 'xxxx" $IL --framework "$LONG"
expect 2 "--framework: expected $ALL" $IL --framework "$(printf 'internlm\033[2J')"
grep -q "$(printf '\033')" "$T/err" && bad "--framework echoed a raw escape" || ok
printf '{"mbs": 1, "gbs": 8, "framework": "pytorch", "replicas": [{"stages": [{"pool": "h100-sxm", "first_layer": 0, "last_layer": 31}]}]}' >"$T/fw.json"
expect 3 "fw.json: framework: expected \"any\", \"megatron-core\", \"megatron-lm\", \"deepspeed\", \"torchtitan\", \"pytorch-ddp\", \"pytorch-ddp-2020\", \"internlm\", \"llm.c\", \"deepspeed-0.3\", \"nemo-automodel\", \"hf-transformers\", \"hf-deepspeed\" or \"maxtext\", got \"pytorch\"" $E --plan "$T/fw.json"
# --help names the rows from the table, the estimate-only ones apart
# (framework.h: pytorch-ddp, pytorch-ddp-2020, internlm, llm.c, deepspeed-0.3, nemo-automodel, hf-transformers, hf-deepspeed and maxtext are the rows
# after FW_COUNT)
$H plan --help | grep -qF "estimate-only, planned and estimated but not launched: pytorch-ddp, pytorch-ddp-2020, internlm, llm.c, deepspeed-0.3, nemo-automodel, hf-transformers, hf-deepspeed, maxtext." && ok ||
	bad "plan --help does not list the estimate-only frameworks"
# completions offer every name
$H completion bash | grep -qF 'compgen -W "any megatron-core megatron-lm deepspeed torchtitan pytorch-ddp pytorch-ddp-2020 internlm llm.c deepspeed-0.3 nemo-automodel hf-transformers hf-deepspeed maxtext"' && ok ||
	bad "bash completion lacks the framework names"

# A pool's counts: 0 is not a count, and one too large names the limit.
expect 2 "--pool 0x8xH100-SXM: NODES expected a count of at least 1, got '0'" \
	$H estimate --pool 0x8xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
expect 2 "--pool 2x0xH100-SXM: GPUS expected a count of at least 1, got '0'" \
	$H estimate --pool 2x0xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
expect 2 "NODES is too large (a cluster holds at most 16777216 GPUs)" \
	$H estimate --pool 99999999999x8xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
# A pool name starts every plan label: spaces around it are refused.
printf '{"pools": [{"gpu": "H100-SXM", "nodes": 2, "name": " "}]}' > "$T/blank.json"
expect 3 'pools[0].name: expected no spaces at its start or end, got " "' \
	$H estimate -c "$T/blank.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 16

# The same with the spaces Unicode has besides ASCII's (PropList.txt
# White_Space: U+00A0 no-break, U+2003 em, U+3000 ideographic) and a
# zero-width space, and characters of Unicode's Default_Ignorable_Code_Point
# set (DerivedCoreProperties.txt 14.0: U+200E LEFT-TO-RIGHT MARK, U+3164
# HANGUL FILLER, U+FE0F VARIATION SELECTOR-16): each reads as the name
# without it, so each is refused, the message naming the code point it does
# not show.
for sp in 'h100\302\240:U+00A0 at its end' '\342\200\203h100:U+2003 at its start' \
	'h100\343\200\200:U+3000 at its end' 'h100\342\200\213:U+200B at its end' \
	'h100\342\200\216:U+200E at its end' '\343\205\244h100:U+3164 at its start' \
	'h100\357\270\217:U+FE0F at its end'; do
	printf '{"pools": [{"gpu": "H100-SXM", "nodes": 2, "name": "'"${sp%%:*}"'"}]}' > "$T/blank.json"
	expect 3 "pools[0].name: expected no spaces at its start or end, got" \
		$H estimate -c "$T/blank.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 16
	grep -qF "(${sp#*:})" "$T/err" && ok || bad "blank pool name: $(cat "$T/err")"
done
expect 2 '--pool.name: expected no spaces at its start or end, got "h100'"$(printf '\302\240')"'" (U+00A0 at its end)' \
	$H estimate --pool "2x8xH100-SXM,name=h100$(printf '\302\240')" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 16
# One inside a name is a name like any other.
expect 0 "" $H estimate --pool "2x8xH100-SXM,name=h$(printf '\302\240')100" -m llama3.1-8b --tp 2 --pp 1 \
	--mbs 1 --gbs 16

# The same rule in a cluster file and --pool: nvl_domain 12 over nodes of 8.
printf '{"pools": [{"gpu": "H100-SXM", "nodes": 2, "nvl_domain": 12}]}' > "$T/nvl.json"
expect 3 'pools[0].nvl_domain: expected a multiple of gpus_per_node (8), got 12' \
	$H estimate -c "$T/nvl.json" -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 16
expect 2 '--pool.nvl_domain: expected a multiple of gpus_per_node (8), got 12' \
	$H estimate --pool 2x8xH100-SXM,nvl_domain=12 -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 16
# A domain smaller than the node (4 of 8) was raised to 8 without a word.
printf '{"pools": [{"gpu": "H100-SXM", "nodes": 2, "nvl_domain": 4}]}' > "$T/nvl.json"
expect 3 'pools[0].nvl_domain: expected a multiple of gpus_per_node (8), got 4' \
	$H estimate -c "$T/nvl.json" -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 16

# Wide characters: U+65E5 U+672C (CJK) and U+1F680 (an emoji) are
# East_Asian_Width W, two columns each on a terminal, so "日本h100" takes 8
# columns and "a🚀" 3. The columns are measured here with Python's
# unicodedata (W and F count two), not with hetplan's own table: in the
# plan list each row's RUNS ON cell starts in the header's RUNS ON column,
# and in a stage row the GPU name starts where it does in the other pool's.
cat > "$T/cols.py" <<'PY'
import sys, unicodedata
def cols(s):
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in s)
lines = open(sys.argv[1], encoding="utf-8").read().splitlines()
head = [l for l in lines if l.startswith("  #  plan")][0]
want = cols(head[:head.index("RUNS ON")])
rows = [l for l in lines if l[:3].strip().isdigit() and " none " in l]
assert rows, "no plan rows"
for r in rows:
    assert cols(r[:r.index(" none ") + 1]) == want, (r, want)
stages = [l for l in lines if l.startswith("    stage ")]
starts = {cols(l[:l.index(g)]) for l in stages for g in ("H100-SXM", "A100-SXM4-80GB") if g in l}
assert len(stages) >= 2 and len(starts) == 1, stages
PY
expect 0 "" $H plan --pool "2x8xH100-SXM,name=日本h100" --pool "2x8xA100-SXM4-80GB,name=a🚀" \
	-m llama2-7b --gbs 64 --top 3
python3 "$T/cols.py" "$T/out" 2>"$T/pyerr" && ok || bad "wide pool names misalign the plan table: $(tail -1 "$T/pyerr")"
# The same in estimate's stage table: the POOL column is 14 terminal
# columns, so "日本h100" (8 columns, 10 bytes) takes 6 spaces of padding,
# then the space and TP (8, "%3d"). Padding by bytes gave 4.
expect 0 "" $H estimate --pool '1x8xH100-SXM,name=日本h100' -m llama3.1-8b --tp 8 --pp 1 \
	--mbs 1 --gbs 8
grep -q '^  0     0     日本h100         8 0-31 ' "$T/out" && ok ||
	bad "estimate POOL column by bytes: $(grep '日本' "$T/out")"

# --- models and completion --help: a description, every option of the
# command's getopt table (as --list-options prints it) and the exit
# statuses, as every other command's help has; not the synopsis alone.
for c in models completion; do
	expect 0 "" $H $c --help
	cp "$T/out" "$T/help_$c"
	[ "$(wc -l <"$T/help_$c")" -ge 6 ] && ok || bad "$c --help is $(wc -l <"$T/help_$c") lines"
	grep -q "^Exit status: 0 ok, 2 usage" "$T/help_$c" && ok || bad "$c --help lacks the exit statuses"
	$H --list-options | awk -v c="$c" '$1 == c { print $2 }' >"$T/opts_$c"
	[ -s "$T/opts_$c" ] && ok || bad "--list-options has no $c options"
	while read -r o; do
		grep -q -- "$o\b" "$T/help_$c" && ok || bad "$c --help does not name $o"
	done <"$T/opts_$c"
done

# --- a pool's transport in estimate (text and JSON) ---------------------------
# docs/cloud-transport.md's table: a3-megagpu-8g is tcpxo, A3_HIGH (case
# and '_' ignored) tcpx, a3-ultragpu-8g gcp-rdma; the text names each pool
# not on ib, the JSON every pool the plan uses; a 25 Gb/s NIC defaults to
# tcp (below 50 Gb/s, docs/links.md), 200 Gb/s to ib (no text line).
for tv in a3-megagpu-8g:tcpxo A3_HIGH:tcpx a3-ultragpu-8g:gcp-rdma tcpxo:tcpxo; do
	t=${tv%%:*} tw=${tv#*:}
	$H estimate --pool "2x8xH100-SXM,name=g,nics=8,nic_gbps=200,transport=$t" -m llama3.1-8b \
		--tp 8 --pp 1 --mbs 1 --gbs 64 >"$T/out" 2>"$T/err"
	[ "$(grep '^  transport ' "$T/out")" = "  transport        g $tw" ] && ok ||
		bad "estimate transport=$t: text '$(grep transport "$T/out")', want g $tw"
	expect 0 "" $H estimate --pool "2x8xH100-SXM,name=g,nics=8,nic_gbps=200,transport=$t" -m llama3.1-8b \
		--tp 8 --pp 1 --mbs 1 --gbs 64 --format json
	json "assert d['transport'] == {'g': '$tw'}, d['transport']"
done
expect 0 "" $H estimate --pool 2x8xH100-SXM,name=i,nics=8,nic_gbps=200 -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 64
grep -q '^  transport ' "$T/out" && bad "estimate names the default ib: $(grep transport "$T/out")" || ok
expect 0 "" $H estimate --pool 2x8xH100-SXM,name=i,nics=8,nic_gbps=200 -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 64 --format json
json "assert d['transport'] == {'i': 'ib'}, d['transport']"
expect 0 "" $H estimate --pool 2x8xH100-SXM,name=e,nics=1,nic_gbps=25 -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 64 --format json
json "assert d['transport'] == {'e': 'tcp'}, d['transport']"
expect 2 "hetplan: --pool 2x8xH100-SXM,transport=a3-: transport: expected ib, efa, tcp, opa, tcpx, tcpxo or gcp-rdma (or a Google Cloud machine type such as a3-megagpu-8g), got 'a3-'" \
	$H estimate --pool 2x8xH100-SXM,transport=a3- -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 64
# plan's detail of plan 1 names them too: three pools on Google Cloud's
# three fabrics (a3-megagpu-8g tcpxo, TCPX, gcp_rdma: docs/cloud-transport.md),
# plan 1 on all of them (every pool at batch 512), and a pool on ib says
# nothing.
cat >"$T/gcp3.json" <<'JSON'
{"pools": [{"name": "mega", "gpu": "H100-SXM", "nodes": 4, "nics": 8, "nic_gbps": 200, "transport": "a3-megagpu-8g"},
           {"name": "hi", "gpu": "H100-SXM", "nodes": 2, "nics": 4, "nic_gbps": 200, "transport": "TCPX"},
           {"name": "ultra", "gpu": "H200-SXM", "nodes": 2, "nics": 8, "nic_gbps": 400, "transport": "gcp_rdma"}]}
JSON
$H plan -c "$T/gcp3.json" -m llama3.1-8b --gbs 512 --top 1 >"$T/out" 2>"$T/err"
[ "$(grep '^  transport:' "$T/out")" = "  transport: mega tcpxo, hi tcpx, ultra gcp-rdma" ] && ok ||
	bad "plan: transport line '$(grep transport "$T/out")'"
$H plan --pool 2x8xH100-SXM,nics=8,nic_gbps=200 -m llama3.1-8b --gbs 64 --top 1 >"$T/out" 2>"$T/err"
grep -q '^  transport:' "$T/out" && bad "plan names the default ib: $(grep transport "$T/out")" || ok

finish cli
