#!/bin/sh
# test_act_offload.sh — offload activations: Megatron-Core's
# --cpu-offloading-num-layers N (plan keys offload, offload_layers;
# perf_offload.c, perf_mem.c, docs/memory.md "Activation offload").
#
# The case: a Llama-style model of 4 layers, hidden 2048, 16 heads and 16
# KV heads (head 128), SwiGLU FFN 8192, vocabulary 32,000, sequence 2048,
# on one A100 PCIe 80GB (PCIe Gen4 x16, 25.6 GB/s a direction, comm.c),
# TP 1, PP 1, DP 1, micro-batch 1, global batch 8 (m = 8 micro-batches),
# bf16, megatron-core.
#
# One layer's saved activations, per token, in bf16 (the tensors TE marks
# for offload: the GEMM inputs and attention's saved tensors): the two
# RMSNorm inputs and their normalised outputs 4 x 2h = 16,384; Q, K, V
# after RoPE 2 x (2048 + 2 x 2048) = 12,288; the attention output 2 x 2048
# = 4,096; its fp32 log-sum-exp 4 x 16 = 64; FC1's output 2 x 2 x 8192 =
# 32,768 and SwiGLU's output 2 x 8192 = 16,384: 81,984 B a token, x 2048
# tokens = 167,903,232 B a layer and micro-batch.
#
# N = 3 of 4 layers (the most Megatron-Core takes: N < num_layers): TE's
# guide says num_layers - 1 "leaves only 1 activation set on GPU at a time
# — compute and transfers cannot overlap" (cpu_offloading.rst @d0067d0d).
# Every copy is exposed, each way: c = 167,903,232 / 25.6e9 = 0.006558720
# s; 3 c = 0.019676160 s forward and as much backward a micro-batch;
# 8 x 2 x 3 c = 0.314818560 s a step, added to the step.
# Memory: the GPU keeps 4 - 3 = 1 layer's worth: the live activations
# fall by 3 x 167,903,232 = 503,709,696 B and the allocator's slack by 0.2
# of that (mem_frag - 1, perf_mem.c), 100,741,939.2 B: the total by
# 604,451,635.2 B. Host: 503,709,696 B (one micro-batch's 3 layers).
#
# N = 1 on a GH200 (NVLink-C2C, 900 GB/s bidirectional: 450e9 a direction,
# one GPU a Grace): c = 167,903,232 / 450e9 = 0.373 ms. Layer 0's copy
# must end before layer 3's forward (L - N + 0), after layers 1 and 2:
# each at least 2 x 2048 x (4 x 2048^2 + 3 x 2048 x 8192) = 274.9 GFLOP
# at the GH200's 989 TFLOP/s dense bf16 peak = 0.278 ms, 0.556 ms for
# two > 0.373: hidden; its reload starts before layer 2's backward (L - 1
# - N + 0) and is needed at layer 0's, after the backward of layers 2 and
# 1 (twice their forward each): hidden. Exposed 0.
. tests/lib.sh
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

cat >"$T/m.json" <<'JSON'
{"name": "tiny4", "layers": 4, "hidden": 2048, "heads": 16, "kv_heads": 16, "ffn": 8192,
 "vocab": 32000, "seq_len": 2048, "gated_mlp": true, "norm": "rmsnorm", "position": "rope",
 "tied_embeddings": false, "bias": false}
JSON
BASE="--pool 1x1xA100-PCIe-80GB -m $T/m.json --tp 1 --pp 1 --dp 1 --mbs 1 --gbs 8
      --precision bf16 --zero 1 --framework megatron-core"

expect 0 "" "$H" estimate $BASE --format json
cp "$T/out" "$T/none.json"
json "assert 'offload' not in d and 'offload' not in d['breakdown_s'] and 'offload_layers' not in d['plan']"

expect 0 "" "$H" estimate $BASE --offload activations --offload-layers 3 --format json
json "
o = d['offload']
assert o['kind'] == 'activations' and o['layers'] == 3, o
assert o['layer_bytes'] == 167903232, o['layer_bytes']
assert o['host_link_bytes_per_s'] == 25.6e9, o
c = 167903232 / 25.6e9
for k in ('forward_exposed_s_per_microbatch', 'backward_exposed_s_per_microbatch'):
    assert abs(o[k] - 3 * c) < 1e-9, (k, o[k], 3 * c)
assert abs(o['exposed_s'] - 0.314818560) < 1e-9, o['exposed_s']
assert o['d2h_bytes'] == o['h2d_bytes'] == 8 * 3 * 167903232, o
assert o['host_bytes_per_gpu'] == 503709696 and o['host_bytes_per_node'] == 503709696, o
assert abs(d['breakdown_s']['offload'] - 0.314818560) < 1e-9, d['breakdown_s']
assert d['plan']['offload'] == 'activations' and d['plan']['offload_layers'] == 3, d['plan']"
json "
n = json.load(open('$T/none.json'))
assert abs(d['step_time_s'] - (n['step_time_s'] + 0.314818560)) < 1e-9, (d['step_time_s'], n['step_time_s'])
a, b = n['memory'][0], d['memory'][0]
assert abs((a['total_bytes'] - b['total_bytes']) - 604451635.2) < 1, a['total_bytes'] - b['total_bytes']
assert abs((a['allocator_cache_bytes'] - b['allocator_cache_bytes']) - 100741939.2) < 1
for k in ('weights_bytes', 'grads_bytes', 'optimizer_bytes', 'other_bytes'):
    assert a[k] == b[k], k"

# the fast link: hidden behind the compute
expect 0 "" "$H" estimate --pool 1x1xGH200-96GB -m "$T/m.json" --tp 1 --pp 1 --dp 1 --mbs 1 \
	--gbs 8 --precision bf16 --zero 1 --framework megatron-core --offload activations \
	--offload-layers 1 --format json
json "
o = d['offload']
assert o['host_link_bytes_per_s'] == 450e9, o
assert o['exposed_s'] == 0 and 'offload' not in d['breakdown_s'], (o, d['breakdown_s'])"

# the text: the breakdown's offload line and the host memory
expect 0 "" "$H" estimate $BASE --offload activations --offload-layers 3
if grep -q "  offload 0.315" "$T/out" &&
	grep -q "cpu-offloading-num-layers 3): the host needs 480.4 MiB a GPU" "$T/out"; then
	ok
else
	bad "estimate text lacks the offload line or the host note: $(grep -i offload "$T/out")"
fi

# a plan file carries both keys
cat >"$T/plan.json" <<'JSON'
{"mbs": 1, "gbs": 8, "precision": "bf16", "zero": 1, "framework": "megatron-core",
 "offload": "activations", "offload_layers": 3,
 "replicas": [{"count": 1, "stages": [{"pool": "p", "tp": 1, "first_layer": 0, "last_layer": 3}]}]}
JSON
expect 0 "" "$H" estimate --pool 1x1xA100-PCIe-80GB,name=p -m "$T/m.json" --plan "$T/plan.json" \
	--format json
json "assert abs(d['offload']['exposed_s'] - 0.314818560) < 1e-9, d['offload']"

# refused as Megatron-Core refuses it (transformer_config.py @d98e8a64
# L1884-1899), exit 3, naming the flag
expect 3 "must be below the model's 4 layers" "$H" estimate $BASE --offload activations \
	--offload-layers 4
expect 3 "offload_layers between 1 and 3" "$H" estimate $BASE --offload activations
expect 3 "no support for Pipeline parallelism with CPU offloading" "$H" estimate \
	--pool 1x2xA100-PCIe-80GB -m "$T/m.json" --tp 1 --pp 2 --dp 1 --mbs 1 --gbs 8 \
	--framework megatron-core --offload activations --offload-layers 1
expect 3 "does not work when activation recomputation is enabled" "$H" estimate $BASE \
	--recompute selective --offload activations --offload-layers 1
expect 3 "offload activations needs --framework megatron-core" "$H" estimate \
	--pool 1x1xA100-PCIe-80GB -m "$T/m.json" --tp 1 --pp 1 --dp 1 --mbs 1 --gbs 8 \
	--framework torchtitan --offload activations --offload-layers 1
expect 3 "offload_layers 2 needs offload activations" "$H" estimate $BASE --offload-layers 2
grep -qF -- "--cpu-offloading-num-layers" "$T/err" && ok || bad "refusal does not name the flag"

# launch: the flag as Megatron-LM spells it (tests/data/megatron_args.txt,
# from arguments.py @d98e8a64), absent without the key; the formats of
# other frameworks refuse the plan (exit 2)
grep -qxF -- --cpu-offloading-num-layers tests/data/megatron_args.txt && ok ||
	bad "--cpu-offloading-num-layers not in megatron_args.txt"
expect 0 "" "$H" launch $BASE --offload activations --offload-layers 3 --format megatron
grep -q -- "--cpu-offloading-num-layers 3" "$T/out" && ok || bad "megatron launch lacks the flag"
expect 0 "" "$H" launch $BASE --format megatron
grep -q -- "--cpu-offloading" "$T/out" && bad "flag written without the key" || ok
for f in deepspeed torchtitan; do
	expect 2 "format $f has no setting for it" "$H" launch $BASE --offload activations \
		--offload-layers 3 --format $f
done
# estimate's memory levers: a Megatron-Core plan that does not fit is
# offered the fewest offloaded layers that fit with the 5% headroom kept.
# Llama 3.1 70B on GB200 at TP 1, mbs 2, seq 8192, ZeRO 3, no recompute
# needs 194.9 GiB more than the GPU; the lever's count N fits (verdict
# "fits", headroom kept) and N - 1 does not: the fewest, as offered. The
# catalog's tray (960 GB host) cannot hold N = 55 layers' pinned copies, so
# the lever is tried here on a host of 1200 GB (host_mem_gb); the host
# side's refusal is test_host_mem.sh's.
L70="--pool 16x4xGB200,host_mem_gb=1200 -m llama3.1-70b --gbs 256 --mbs 2 --seq-len 8192 --tp 1 --pp 1
 --zero 3 --framework megatron-core --recompute none"
# shellcheck disable=SC2086
"$H" estimate $L70 >"$T/hint" 2>&1
n=$(sed -n 's/.*with --offload activations --offload-layers \([0-9]*\) it fits.*/\1/p' "$T/hint")
if [ -n "$n" ]; then
	ok
	# shellcheck disable=SC2086
	v1=$("$H" estimate $L70 --offload activations --offload-layers "$n" --format json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["memory_verdict"])')
	# shellcheck disable=SC2086
	v0=$("$H" estimate $L70 --offload activations --offload-layers $((n - 1)) --format json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["memory_verdict"])')
	if [ "$v1" = fits ] && [ "$v0" != fits ]; then ok; else
		bad "offered $n layers: verdict $v1 at $n, $v0 at $((n - 1))"; fi
else
	bad "no activation-offload lever offered: $(grep -i 'with --\|fit' "$T/hint")"
fi

finish act_offload
