#!/bin/sh
# test_plan_recomp.sh — the planner's partial recomputation post-pass
# (src/search.c, search_recompute_layers; docs/planner.md "Partial
# recomputation"): a ranked plan under recompute full gets the least
# recompute_layers N that still fits with the memory headroom, unless the
# framework asked for cannot run it.
# Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/cache" XDG_CONFIG_HOME="$T/config"

# --- the hand case. Llama 3.1 8B (32 layers, hidden 4096, 32 heads, 8 KV
# heads, FFN 14,336) at sequence 16,384 on one node of 8 A100-SXM4-80GB,
# TP 1, PP 8, micro-batch 1, ZeRO-1, 1F1B, 64 micro-batches. Per token a
# layer kept whole holds 139,392 B and a recomputed one its input, 8,192 B
# (docs/memory.md "Activations of a Llama layer"; tests/test_memory.sh
# adds the terms up), so each layer taken out of recomputation on a stage
# with f micro-batches in flight keeps 131,200 x 16,384 x f B more, and
# 1.2 times that with the caching allocator's slack (mem_frag 1.2,
# data/calibration.json). Stage 0 holds f = 8 (the pipeline depth):
# 17,196,646,400 B live, 20,635,975,680 B with the slack, a layer.
# The headroom (5%) leaves 0.95 x 85,899,345,920 = 81,604,378,624 B.
P="$H plan --pool 1x8xA100-SXM4-80GB -m llama3.1-8b --tp 1 --pp 8 --mbs 1 --zero 1
	--schedule 1f1b --gbs 64 --seq-len 16384"
# Without recomputation no layer split keeps the headroom: the planner's
# last pass lists a plan over its GPU with the allocator's reserve.
expect 0 "" $P --recompute none --format json
json "assert d['plans'][0]['memory_verdict'] == 'over-gpu', d['plans'][0]['memory_verdict']"
# Free recompute: plan 1 recomputes only some layers of each stage.
expect 0 "" $P -o "$T/plans.json"
json_file() { cp "$1" "$T/out"; json "$2"; }
json_file "$T/plans.json" "p = d['plans'][0]; assert p['recompute'] == 'full' and p['recompute_layers'] >= 1 and p['memory_verdict'] == 'fits', (p['recompute'], p.get('recompute_layers'))"
# --recompute full fixes full recomputation of every layer.
expect 0 "" $P --recompute full --format json
json "p = d['plans'][0]; assert p['recompute'] == 'full' and 'recompute_layers' not in p, p.get('recompute_layers')"

# The same plan estimated at N = 3, 4 and 5 of stage 0's 5 layers and
# with the key absent (0: full), from the planner's own file. N = 1 and 2
# do not fit at all (exit 4).
for n in 0 1 2 3 4 5; do
	python3 - "$T/plans.json" "$T/n$n.json" $n <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p = d["plans"][0]
n = int(sys.argv[3])
if n:
    p["recompute_layers"] = n
else:
    p.pop("recompute_layers", None)
d["plans"] = [p]
json.dump(d, open(sys.argv[2], "w"))
PY
	case $n in
	1 | 2) expect 4 "does not fit in GPU memory" $H estimate --pool 1x8xA100-SXM4-80GB \
		-m llama3.1-8b --plan "$T/n$n.json" --format json ;;
	*) expect 0 "" $H estimate --pool 1x8xA100-SXM4-80GB -m llama3.1-8b --plan "$T/n$n.json" \
		--format json
	   cp "$T/out" "$T/e$n.json" ;;
	esac
done
python3 - "$T" <<'PY' && ok || bad "recompute_layers: the least N that fits, by hand"
import json, sys
T = sys.argv[1]
plan = json.load(open(T + "/plans.json"))["plans"][0]
e = {n: json.load(open("%s/e%d.json" % (T, n))) for n in (0, 3, 4, 5)}
st0 = lambda n: e[n]["memory"][0]
assert st0(0)["first_layer"] == 0 and st0(0)["last_layer"] == 4, st0(0)
live, slack = 131200 * 16384 * 8, 1.2 * 131200 * 16384 * 8
assert live == 17196646400 and abs(slack - 20635975680) < 1
assert st0(0)["capacity_bytes"] == 85899345920
limit = 0.95 * 85899345920
# stage 0's total at N: full's plus (5 - N) layers kept whole (N = 5: full)
full = st0(0)["total_bytes"]
for n in (3, 4, 5):
    want = full + (5 - n) * slack
    assert abs(st0(n)["total_bytes"] - want) < 1e-6 * want, (n, st0(n)["total_bytes"], want)
# N = 4 keeps one layer whole on stage 0 and is within the headroom there;
# N = 3 keeps two and is not: 4 is the least N (the other stages hold 4
# layers or fewer and fewer micro-batches in flight: within it at 4)
assert full + slack <= limit < full + 2 * slack, (full, limit)
assert all(s["total_bytes"] <= limit for s in e[4]["memory"])
assert plan["recompute_layers"] == 4, plan["recompute_layers"]
# faster than full recomputation, and the planner's numbers are the estimate's
assert e[4]["step_time_s"] < e[0]["step_time_s"], (e[4]["step_time_s"], e[0]["step_time_s"])
assert abs(plan["step_time_s"] - e[4]["step_time_s"]) < 1e-9 * plan["step_time_s"]
PY
# Megatron-Core's launch writes the block method with the chosen N.
expect 0 "" $H launch --pool 1x8xA100-SXM4-80GB -m llama3.1-8b --plan "$T/plans.json" \
	--framework megatron-core
grep -q -- "--recompute-method block" "$T/out" && grep -q -- "--recompute-num-layers 4" "$T/out" \
	&& ok || bad "launch: no --recompute-method block --recompute-num-layers 4"

# --- a framework that cannot run recompute_layers keeps full recomputation.
# DeepSpeed's pipeline engine recomputes nothing with the block method
# (runs_on.c), so at PP 4 its plan stays full; Megatron-LM runs the same
# layout (8 layers a stage, CP 1) with some layers kept, and faster.
Q="$H plan --pool 1x8xA100-SXM4-80GB -m llama3.1-8b --tp 1 --pp 4 --mbs 1 --zero 1
	--schedule 1f1b --gbs 64 --seq-len 32768 --format json"
expect 0 "" $Q --framework megatron-lm
cp "$T/out" "$T/mlm.json"
json "p = d['plans'][0]; assert p['recompute'] == 'full' and p['recompute_layers'] >= 1, p.get('recompute_layers')"
expect 0 "" $Q --framework deepspeed
json "p = d['plans'][0]; m = json.load(open('$T/mlm.json'))['plans'][0]; assert p['recompute'] == 'full' and 'recompute_layers' not in p and 'deepspeed' in p['runs_on'], p.get('recompute_layers'); assert p['replicas'] == m['replicas'] and m['step_time_s'] < p['step_time_s'], (p['replicas'], m['replicas'])"

finish plan_recomp
