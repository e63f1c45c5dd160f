#!/bin/sh
# test_memory.sh — the memory model's terms against hand calculations and
# measured runs (docs/memory.md). Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
D=tests/data/cli
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh
G=1073741824
MiB=1048576

# --- A small model on a small GPU: GPT of hidden 1536 x 16 layers (vocab
# 50304, seq 2048, 16 heads, FFN 6144) on one V100-SXM2-16GB, micro-batch
# 2, fp16, full recompute. Measured on this run: Megatron-LM 14,362 MiB
# per GPU (DLPerf's table, case DP_1x1x1_2_1536x16, nvidia-smi;
# tests/data/holdout.csv DLPERF-M1) and OneFlow 11,066 MiB (the blind
# rows' BLOF-01). It fits, and the estimate lies between the two, each
# widened by 15%.
cat >"$T/gpt1536.json" <<'EOF'
{"name": "gpt-h1536-l16", "layers": 16, "hidden": 1536, "heads": 16, "kv_heads": 16,
 "ffn": 6144, "gated_mlp": false, "vocab": 50304, "seq_len": 2048,
 "tied_embeddings": true, "norm": "layernorm", "bias": true, "position": "learned",
 "dropout": true}
EOF
expect 0 "" $H estimate --pool 1x1xV100-SXM2-16GB -m "$T/gpt1536.json" --tp 1 --pp 1 --dp 1 \
	--mbs 2 --gbs 2 --precision fp16 --recompute full --framework megatron-lm --format json
json "m=d['memory'][0]; t=m['total_bytes']/$MiB; assert m['fits'] and 0.85*11066 <= t <= 1.15*14362, t"

# --- NCCL's buffers, by hand from NCCL's own constants: one TP 8
# communicator on an H100 NVSwitch node opens 32 ring channels (one per
# 12 GB/s of 450 GB/s, capped at 32), a receive connection each of
# LL 512 KiB + LL128 4,915,200 B + Simple 4 MiB, 10 MiB in cuMem's 2 MiB
# granules: 320 MiB; and NVLS: 16 channels x 2 x (8 steps x 128 KiB) x 8
# ranks = 256 MiB. A one-GPU run opens no communicator, so the two runs'
# fixed memory ("other") differs by 576 MiB.
expect 0 "" $H estimate --pool 1x8xH100-SXM -m gpt-1.7b --tp 1 --pp 1 --dp 1 --mbs 1 --gbs 1 \
	--recompute full --framework megatron-core --tp-overlap off --format json
cp "$T/out" "$T/one.json"
expect 0 "" $H estimate --pool 1x8xH100-SXM -m gpt-1.7b --tp 8 --pp 1 --dp 1 --mbs 1 --gbs 1 \
	--recompute full --framework megatron-core --tp-overlap off --format json
python3 - "$T/one.json" "$T/out" <<'PY' && ok || bad "TP 8 communicator buffers"
import json, sys
a, b = (json.load(open(x))["memory"][0]["other_bytes"] for x in sys.argv[1:])
assert abs((b - a) - 576 * 2**20) < 2**20, (a, b, (b - a) / 2**20)
PY

# --- FP8 parameters, by hand. Llama 3.1 8B: a layer holds q and o
# 4096 x 4096, k and v 4096 x 1024, the gated MLP 3 x 4096 x 14336 and two
# norms of 4096: 2 x 16,777,216 + 2 x 4,194,304 + 176,160,768 + 8,192 =
# 218,112,000 parameters (x 32 layers + 2 x 128,256 x 4,096 embeddings +
# 4,096 = 8,030,261,248, the published 8.03B). At TP 2, PP 4 a middle
# stage holds 8 layers: 872,448,000 parameters a GPU. An fp8 run with FP8
# parameters keeps each as FP8 data plus its FP8 transpose (Transformer
# Engine's Float8Tensor on Hopper): 2 B, 1,744,896,000 B; with bf16
# parameters the 2 B bf16 weight and TE's cached FP8 copy with its
# transpose: 4 B, 3,489,792,000 B; a bf16 run 2 B. The first stage adds
# its embedding shard, 128,256 x 4,096 / 2 = 262,668,288 parameters, in
# bf16 either way: 525,336,576 B.
for f in on off; do
	expect 0 "" $H estimate --pool 1x8xH100-SXM -m llama3.1-8b --tp 2 --pp 4 --dp 1 --mbs 1 \
		--gbs 8 --precision fp8 --fp8-params $f --framework megatron-core --format json
	cp "$T/out" "$T/fp8_$f.json"
done
expect 0 "" $H estimate --pool 1x8xH100-SXM -m llama3.1-8b --tp 2 --pp 4 --dp 1 --mbs 1 \
	--gbs 8 --precision bf16 --framework megatron-core --format json
python3 - "$T/fp8_on.json" "$T/fp8_off.json" "$T/out" <<'PY' && ok || bad "FP8 parameter bytes"
import json, sys
on, off, bf = (json.load(open(x)) for x in sys.argv[1:])
w = lambda d, i: d["memory"][i]["weights_bytes"]
assert on["plan"]["fp8_params"] is True and off["plan"]["fp8_params"] is False, on["plan"]
assert w(on, 1) == 1744896000 and w(off, 1) == 3489792000 and w(bf, 1) == 1744896000, \
    (w(on, 1), w(off, 1), w(bf, 1))
assert w(on, 0) - w(on, 1) == 525336576 and w(off, 0) - w(off, 1) == 525336576, (w(on, 0), w(off, 0))
PY
# The gradient buffer of Megatron-Core's distributed optimizer is in the
# dtype gradients are reduced in (param_and_grad_buffer.py: fp32 with
# grad_reduce_in_fp32, else the parameters' bf16): for the same middle
# stage 872,448,000 x 4 = 3,489,792,000 B, or x 2 = 1,744,896,000 B with
# --grad-reduce-fp32 off (as the MLPerf v5.0 405B submission runs).
for g in on off; do
	expect 0 "" $H estimate --pool 1x8xH100-SXM -m llama3.1-8b --tp 2 --pp 4 --dp 1 --mbs 1 \
		--gbs 8 --precision fp8 --grad-reduce-fp32 $g --framework megatron-core --format json
	cp "$T/out" "$T/g32_$g.json"
done
python3 - "$T/g32_on.json" "$T/g32_off.json" <<'PY' && ok || bad "gradient buffer dtype"
import json, sys
on, off = (json.load(open(x))["memory"][1]["grads_bytes"] for x in sys.argv[1:])
assert on == 3489792000 and off == 1744896000, (on, off)
PY
# fp8_params on is refused outside an fp8 plan with the distributed optimizer.
expect 3 "fp8_params on needs precision fp8" $H estimate --pool 1x8xH100-SXM -m llama3.1-8b \
	--tp 2 --pp 4 --dp 1 --mbs 1 --gbs 8 --precision bf16 --fp8-params on
expect 3 "fp8_params on needs framework megatron-core" $H estimate --pool 1x8xH100-SXM \
	-m llama3.1-8b --tp 2 --pp 4 --dp 1 --mbs 1 --gbs 8 --precision fp8 --fp8-params on \
	--framework deepspeed

# --- Llama 3.1 405B as Meta ran it (tests/data/cli/llama405b_meta.json:
# TP 8, PP 16 x 8 chunks, DP 128 with ZeRO-2, mbs 1, gbs 2048, seq 8192,
# no recompute). A layer keeps 65,088 B per token (perf_mem.c: Llama
# under TE + SP + flash attention, TP 8). With 16 micro-batches per step
# and 16 stages every forward runs before the first backward, so stage 1
# (8 layers) holds 16 x 8 x 8192 x 65,088 B = 68,241,178,624 B (63.6 GiB)
# of activations, before the allocator's slack (at most mem_frag's upper
# bound, 1.3), which is reported apart and does not count against what
# must fit.
expect 0 "" $H estimate --pool 2048x8xH100-SXM,name=h100 -m llama3.1-405b \
	--plan $D/llama405b_meta.json --format json
json "a=d['memory'][1]['activations_bytes']; assert 68241178624 <= a <= 1.3*68241178624, a/$G"
json "s=d['memory'][1]; assert abs(s['activations_bytes'] - s['allocator_cache_bytes'] - 68241178624) < 1e-3 * 68241178624, s"

# --- The same layout in fp8 under Transformer Engine: TE keeps a GEMM's
# input for the weight-gradient GEMM in FP8, 1 B an element (TE v1.13
# module/linear.py saved_inputmat, module/layernorm_linear.py ln_out as
# uint8), while the attention kernel still keeps its bf16 output beside
# the projection's FP8 copy. Per token at TP 8: the QKV and FC1 inputs
# (SP shards of 16,384) and FC2's input (53,248 / 8) lose 1 B each, the
# projection's input (16,384 / 8) gains 1 B: (-16,384 - 16,384 - 53,248 +
# 16,384) / 8 = -8,704 B, so a layer keeps 56,384 B per token and stage 1
# holds 16 x 8 x 8192 x 56,384 = 59,122,909,184 B before the slack.
cp "$T/out" "$T/meta_bf16.json"
python3 - "$D/llama405b_meta.json" "$T/meta_fp8.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["precision"] = "fp8"
json.dump(p, open(sys.argv[2], "w"))
PY
expect 0 "" $H estimate --pool 2048x8xH100-SXM,name=h100 -m llama3.1-405b \
	--plan "$T/meta_fp8.json" --format json
json "s=d['memory'][1]; assert d['plan']['precision'] == 'fp8', d['plan']; assert abs(s['activations_bytes'] - s['allocator_cache_bytes'] - 59122909184) < 1e-3 * 59122909184, s"
# TE's userbuffers for the TP overlap: 10 of 8192 x 16,384 elements each,
# 2 B in bf16; in fp8 the six all-gather buffers hold FP8 data, 1 B (TE
# module/base.py layers_all_gather_overlap, buffer_dtype uint8), so the
# fixed memory drops by 6 x 8192 x 16,384 = 805,306,368 B, nothing else in
# it depending on the precision.
python3 - "$T/meta_bf16.json" "$T/out" <<'PY' && ok || bad "fp8 userbuffers"
import json, sys
a, b = (json.load(open(x))["memory"][1]["other_bytes"] for x in sys.argv[1:])
assert a - b == 805306368, (a, b, a - b)
PY

# --- recompute_layers: full recompute of only some layers of a stage.
# Llama 3.1 8B (hidden 4096, 32 heads of 128, 8 KV heads, FFN 14,336,
# seq 8192) at TP 1, PP 8 on A100s, mbs 1, 64 micro-batches, 1F1B: stage 1
# holds layers 4-7 (4 layers) and 7 micro-batches in flight (pp - 1).
# A layer kept whole (Transformer Engine, flash attention, the terms of
# docs/memory.md) keeps per token 4 x 2h (norm inputs and outputs) +
# 2(q + 2 kv) + 2q + 4 x heads (Q, K, V, the attention output and its
# log-sum-exp) + 2 x 2 ffn + 2 ffn (FC1's output, SwiGLU's output)
# = 32,768 + 12,288 + 8,192 + 128 + 57,344 + 28,672 = 139,392 B; a
# recomputed layer keeps its input, 2h = 8,192 B. Each layer taken out of
# recomputation keeps 131,200 B x 8,192 tokens x 7 micro-batches =
# 7,523,532,800 B more (the allocator's slack aside). So with 1 of 4
# recomputed (Megatron --recompute-method block --recompute-num-layers 1)
# the stage holds 3 x 7,523,532,800 = 22,570,598,400 B more than with all
# 4; 4 or more of 4 is full recompute. The recompute time is 1/4 of full's
# (one layer's forward again, of four alike), and the hardware FLOPs add
# 1/4 of full recompute's extra forward.
for n in 0 1 4 9; do
	if [ $n = 0 ]; then extra=""; else extra="--recompute-layers $n"; fi
	expect 0 "" $H estimate --pool 1x8xA100-SXM4-80GB -m llama3.1-8b --tp 1 --pp 8 --mbs 1 \
		--gbs 64 --recompute full $extra --format json
	cp "$T/out" "$T/rcl$n.json"
done
python3 - "$T" <<'PY' && ok || bad "recompute_layers: memory, recompute time and FLOPs by hand"
import json, sys
d = {n: json.load(open("%s/rcl%d.json" % (sys.argv[1], n))) for n in (0, 1, 4, 9)}
kept = lambda n: d[n]["memory"][1]["activations_bytes"] - d[n]["memory"][1]["allocator_cache_bytes"]
assert d[1]["memory"][1]["first_layer"] == 4 and d[1]["memory"][1]["last_layer"] == 7
assert abs(kept(1) - kept(0) - 22570598400) < 1e-6 * 22570598400, kept(1) - kept(0)
assert kept(4) == kept(0) and kept(9) == kept(0), (kept(4), kept(9), kept(0))
rc = lambda n: d[n]["breakdown_s"]["recompute"]
assert abs(rc(1) - rc(0) / 4) < 1e-9 * rc(0), (rc(1), rc(0))
assert d[4]["step_time_s"] == d[0]["step_time_s"]
hw = lambda n: d[n]["hardware_flops_per_step"] - d[n]["model_flops_per_step"]
assert abs(hw(1) - hw(0) / 4) < 1e-9 * hw(0), (hw(1), hw(0))
assert d[1]["plan"]["recompute_layers"] == 1 and "recompute_layers" not in d[0]["plan"]
PY
# The text says what is recomputed: "recompute full" alone would call the
# plan with 1 of 4 layers recomputed a full recomputation.
expect 0 "" $H estimate --pool 1x8xA100-SXM4-80GB -m llama3.1-8b --tp 1 --pp 8 --mbs 1 \
	--gbs 64 --recompute full --recompute-layers 1
head -1 "$T/out" | grep -q ", recompute full, first 1 layer a stage, ZeRO-1$" && ok ||
	bad "estimate header with recompute_layers 1: $(head -1 "$T/out")"
# Frameworks that recompute every block whatever N says (docs/runnable.md):
# the HF Trainer's --gradient_checkpointing, AutoModel's
# activation_checkpointing, the 2019 Megatron-LM's --checkpoint-activations.
for fw in hf-transformers nemo-automodel; do
	expect 0 "--framework $fw does not run this plan as one job: recompute_layers 2" $H estimate \
		--pool 1x8xA100-SXM4-80GB -m gpt-1.7b --tp 1 --pp 1 --mbs 1 --gbs 8 --recompute full \
		--recompute-layers 2 --framework $fw
done
expect 0 "--framework deepspeed-0.3 does not run this plan as one job: recompute_layers 2" $H estimate \
	--pool 1x8xA100-SXM4-80GB -m gpt-1.7b --tp 1 --pp 1 --mbs 1 --gbs 8 --recompute full \
	--recompute-layers 2 --framework deepspeed-0.3 --precision fp16 --attention unfused
# recompute_layers needs full recompute: the key named, exit 3.
expect 3 "recompute_layers 2 needs recompute full" $H estimate --pool 1x8xA100-SXM4-80GB \
	-m llama3.1-8b --tp 1 --pp 8 --mbs 1 --gbs 64 --recompute selective --recompute-layers 2

# --- NCCL point-to-point across nodes, by hand from NCCL's code. A MoE
# model of 16 experts on 2 nodes of 8 H100 (8 x 400 Gb/s NICs), DP 16.
# EP 8 keeps the all-to-all on the node: a single-node communicator gives
# each of the 7 peers all 32 channels (issue 1685), 7 x 32 x 10 MiB =
# 2,240 MiB. EP 16 spans both nodes: every peer gets p2pnChannelsPerPeer
# = NCCL_NCHANNELS_PER_NET_PEER 2 channels (NCCL src/graph/paths.cc), so
# the 7 node peers hold 7 x 2 x 10 MiB = 140 MiB, and the 8 network peers
# share two pools (net.cc, NCCL_NET_SHARED_BUFFERS) of p2pnChannels 32 x
# 16 steps x 128 KiB = 64 MiB each: 268 MiB. Nothing else of the two
# runs' fixed memory differs: EP 8 holds 1,972 MiB more. (Before this
# term was read from NCCL, EP 16 was counted 7 x 32 x 10 + 8 x 2 x 10 =
# 2,400 MiB, 160 MiB more than EP 8.)
cat >"$T/moe16.json" <<'EOF'
{"name": "moe16-test", "layers": 4, "hidden": 1024, "heads": 8, "kv_heads": 8, "ffn": 4096,
 "gated_mlp": true, "vocab": 32000, "seq_len": 2048, "tied_embeddings": false, "norm": "rmsnorm",
 "bias": false, "position": "rope",
 "moe": {"experts": 16, "top_k": 2, "expert_ffn": 1024, "shared_experts": 0, "dense_layers": 0}}
EOF
for ep in 8 16; do
	expect 0 "" $H estimate --pool 2x8xH100-SXM,nics=8,nic_gbps=400 -m "$T/moe16.json" --tp 1 \
		--pp 1 --dp 16 --ep $ep --mbs 1 --gbs 16 --framework megatron-core --format json
	cp "$T/out" "$T/ep$ep.json"
done
python3 - "$T/ep8.json" "$T/ep16.json" <<'PY' && ok || bad "EP all-to-all NCCL buffers across nodes"
import json, sys
a, b = (json.load(open(x))["memory"][0]["other_bytes"] for x in sys.argv[1:])
assert abs((a - b) - 1972 * 2**20) < 2**20, (a, b, (a - b) / 2**20)
PY

finish memory
