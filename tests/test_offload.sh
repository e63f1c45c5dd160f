#!/bin/sh
# test_offload.sh — the offload key: DeepSpeed's ZeRO-Offload (the
# optimizer on the host CPU), issue 12 (perf_offload.c, docs/model.md
# "Optimizer offload").
#
# The case: GPT-2 large (36 layers, hidden 1280, vocabulary 50,257, 1,024
# positions, tied head) has 774,030,080 parameters (Hugging Face's count
# for gpt2-large: 36 x (12 x 1280^2 + 13 x 1280) = 708,387,840 in the
# layers, 50,257 x 1280 = 64,328,960 token and 1,024 x 1280 = 1,310,720
# position embeddings, 2,560 in the final LayerNorm). On two RTX 3090 Ti
# (PCIe Gen 4) with DP 2 and ZeRO-2 a rank's partition holds P =
# 387,015,040 of them; micro-batch 2 and global batch 64 give m = 16
# micro-batches a step; bf16.
#
# Memory: the fp32 master partition and Adam's two fp32 moments leave the
# GPU: the optimizer term falls by exactly 12 B x P = 4,644,180,480 bytes
# (to 0). The gradients: without offload ZeRO-2 holds the fp32 partition
# (4 B x P) and one unit's whole 16-bit gradient before its reduce (the
# largest unit here is the embedding, token and position tables together,
# U = 64,328,960 + 1,310,720 = 65,639,680: 2 B x U); with it the fp32
# partition's gradient is on the host and the GPU holds DeepSpeed's 16-bit
# buffer of the largest parameter, which hetplan bounds by the same unit
# (2 B x U; DeepSpeed's is the token table alone, 2,621,440 B less)
# beside the unit's gradient: 4 x U = 262,558,720 B, down by 4 x P - 2 x U
# = 1,548,060,160 - 131,279,360 = 1,416,780,800 B. The allocator's slack,
# shown with the activations, is mem_frag - 1 = 0.2 of what is allocated
# and freed in a step, the gradients included under DeepSpeed (no
# contiguous gradient buffer; perf_mem.c): it falls by 0.2 x 1,416,780,800
# = 283,356,160 B. Weights and the rest do not change.
#
# Time, by hand, with the gradient overlap off (DeepSpeed's default at ZeRO
# 1-2: the copies run on the compute stream, all exposed). The host link:
# PCIe Gen4 x16 at 25.6 GB/s a direction (comm.c). The host's memory: 20
# GB/s a GPU (perf_offload.c HOST_MEM_BPS_PER_GPU).
#   - gradient copies: 16 micro-batches each copy the rank's accumulated
#     16-bit gradients to the host (2 B x P), the last 15 first copy them
#     back (2 B x P), and the last also copies the fp32 gradient to the
#     host (4 B x P): to the host 36 x P = 13,932,541,440 B, back 30 x P;
#     (36 + 30) x P / 25.6e9 = 25,542,992,640 / 25.6e9 = 0.997773150 s;
#   - CPU Adam: 28 B a parameter (read gradient, two moments, parameter;
#     write parameter and moments) and the fp32 -> bf16 copy into the
#     pinned buffer (4 + 2 B): 34 x P / 20e9 = 0.657925568 s;
#   - the bf16 partition back to the GPU: 2 x P / 25.6e9 = 0.030235550 s;
#     over the link back in all 32 x P = 12,384,481,280 B.
#   Exposed in all: 1.685934268 s, in place of the GPU's Adam step.
# Host memory a GPU: fp32 master, two moments and fp32 gradients (16 B),
# the pinned bf16 parameter buffer (2 B) and the bf16 accumulated
# gradients (2 B): 20 x P = 7,740,300,800 B; a node of 2 GPUs twice that.
. tests/lib.sh
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

BASE="--pool 1x2xRTX-3090-Ti,intra=nvlink -m tests/data/gpt2-large.json --tp 1 --pp 1 --dp 2 --mbs 2
      --gbs 64 --precision bf16 --zero 2 --framework deepspeed"

# without the key: no offload line, no offload object, no plan key
expect 0 "" "$H" estimate $BASE --format json
cp "$T/out" "$T/none.json"
json "assert 'offload' not in d['breakdown_s'] and 'offload' not in d and 'offload' not in d['plan'], d['breakdown_s']"

expect 0 "" "$H" estimate $BASE --offload optimizer --format json
cp "$T/out" "$T/off.json"
json "
n = json.load(open('$T/none.json'))
P = 774030080 / 2
a, b = n['memory'][0], d['memory'][0]
assert a['optimizer_bytes'] - b['optimizer_bytes'] == 12 * P, (a['optimizer_bytes'], b['optimizer_bytes'])
assert b['optimizer_bytes'] == 0
assert b['grads_bytes'] == 262558720, b['grads_bytes']
assert a['grads_bytes'] - b['grads_bytes'] == 1416780800, (a['grads_bytes'], b['grads_bytes'])
assert abs((a['activations_bytes'] - b['activations_bytes']) - 283356160) < 1, (a['activations_bytes'], b['activations_bytes'])
for k in ('weights_bytes', 'other_bytes'):
    assert a[k] == b[k], k"
json "
o = d['offload']
P = 387015040
assert o['partition_params'] == P, o['partition_params']
assert o['d2h_bytes'] == 13932541440 and o['h2d_bytes'] == 12384481280, o
for k, want in (('grad_copies_exposed_s', 0.997773150), ('cpu_adam_s', 0.657925568),
                ('param_copy_s', 0.030235550), ('exposed_s', 1.685934268)):
    assert abs(o[k] - want) < 1e-6, (k, o[k], want)
assert abs(d['breakdown_s']['offload'] - 1.685934268) < 1e-6, d['breakdown_s']
assert d['breakdown_s']['optimizer'] == 0
assert o['host_bytes_per_gpu'] == 20 * P and o['host_bytes_per_node'] == 40 * P, o"
# the step: the GPU's Adam step gives way to the offload's exposed time
json "
n = json.load(open('$T/none.json'))
want = n['step_time_s'] - n['breakdown_s']['optimizer'] + 1.685934268
assert abs(d['step_time_s'] - want) < 1e-6, (d['step_time_s'], want)
assert d['plan']['offload'] == 'optimizer'"

# With overlap_comm the copies run beside each micro-batch's backward: the
# exposed copies cannot exceed the all-exposed 0.998 s, nor fall below the
# last bucket's share of them: DeepSpeed's 5e8-element bucket is 5e8 /
# 774,030,080 = 0.646 of the parameters, 0.646 x 0.998 = 0.645 s.
expect 0 "" "$H" estimate $BASE --offload optimizer --grad-overlap on --format json
json "
g = d['offload']['grad_copies_exposed_s']
assert 0.6445 <= g <= 0.997773150 + 1e-9, g"

# the text names the host memory and the exposed time
expect 0 "" "$H" estimate $BASE --offload optimizer
if grep -q "offload 1.686" "$T/out" && grep -q "host needs 7.2 GiB a GPU of the fullest stage, 14.4 GiB on the fullest node (its 2 GPUs;" "$T/out"; then
	ok
else
	bad "estimate text lacks the offload line or the host memory note: $(grep -i offload "$T/out")"
fi

# a plan file: "offload": "optimizer", and DeepSpeed's word "cpu"
cat >"$T/plan.json" <<'EOF'
{"mbs": 2, "gbs": 64, "precision": "bf16", "zero": 2, "framework": "deepspeed",
 "offload": "cpu", "replicas": [{"count": 2, "stages": [{"pool": "p", "tp": 1,
 "first_layer": 0, "last_layer": 35}]}]}
EOF
expect 0 "" "$H" estimate --pool 1x2xRTX-3090-Ti,intra=nvlink,name=p -m "tests/data/gpt2-large.json" \
	--plan "$T/plan.json" --format json
json "assert d['plan']['offload'] == 'optimizer' and abs(d['breakdown_s']['offload'] - 1.685934268) < 1e-6"

# refused where the framework cannot run it (exit 3, naming why)
expect 3 "offload optimizer needs --framework deepspeed" "$H" estimate \
	--pool 1x2xRTX-3090-Ti -m "tests/data/gpt2-large.json" --tp 1 --pp 1 --dp 2 --mbs 2 --gbs 64 \
	--zero 1 --framework megatron-core --offload optimizer
grep -qF -- "--optimizer-cpu-offload" "$T/err" && ok || bad "refusal does not name Megatron-Core's flag"
expect 3 "offload optimizer needs zero 1, 2 or 3" "$H" estimate $BASE --zero 0 --offload optimizer
expect 3 "cannot offload" "$H" estimate $BASE --zero 1 --master replicated --offload optimizer
expect 2 "expected none, optimizer or activations" "$H" estimate $BASE --offload nvme

# launch: DeepSpeed's own keys (tests/data/deepspeed_keys.txt, from its
# config-json page) carry it: zero_optimization.offload_optimizer
# {device: cpu, pin_memory: true}; absent without the key
for k in offload_optimizer device pin_memory; do
	grep -qx "$k" tests/data/deepspeed_keys.txt && ok || bad "$k is not a DeepSpeed config key"
done
expect 0 "" "$H" launch $BASE --offload optimizer --format deepspeed
json "
z = d['zero_optimization']
assert z['offload_optimizer'] == {'device': 'cpu', 'pin_memory': True}, z"
expect 0 "" "$H" launch $BASE --format deepspeed
json "assert 'offload_optimizer' not in d['zero_optimization']"

finish test_offload
