#!/bin/sh
# test_perf_cli.sh — the performance model's settings as a user meets them in
# `hetplan estimate` and `hetplan comm`: frameworks and their overlaps,
# interleaving with short first and last stages, fp32/tf32, TP across nodes,
# GB200 NVL72 domains, and Llama 3.1 405B laid out as Meta ran it. Run from
# the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
D=tests/data/cli
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

E="$H estimate --pool 4x8xH100-SXM -m llama3.1-70b --tp 8 --pp 4 --mbs 1 --gbs 64 --zero 1 --format json"

# --- frameworks set the overlaps: Megatron-LM's own flags are opt-in
# (--tp-comm-overlap, --overlap-grad-reduce, --overlap-param-gather), the
# NVIDIA performance recipes turn them on; Megatron-LM of 2021 reduced the
# gradients after the backward; DeepSpeed overlap_comm; FSDP prefetch.
expect 0 "" $E --framework megatron-core
json "p=d['plan']; assert (p['framework'], p['tp_overlap'], p['grad_overlap'], p['param_overlap']) == ('megatron-core', True, True, True), p"
cp "$T/out" "$T/mcore.json"
expect 0 "" $E --framework megatron-lm
json "p=d['plan']; assert (p['framework'], p['tp_overlap'], p['grad_overlap'], p['param_overlap']) == ('megatron-lm', False, False, False), p"
cp "$T/out" "$T/mlm.json"
# DeepSpeed: overlap_comm is off unless the config sets it below ZeRO-3
# (zero/config.py overlap_comm_valid: stage == 3), so this ZeRO-1 plan
# takes it off; --grad-overlap on sets it.
expect 0 "" $E --framework deepspeed
json "p=d['plan']; assert (p['tp_overlap'], p['grad_overlap']) == (False, False), p"
expect 0 "" $E --framework deepspeed --grad-overlap on
json "p=d['plan']; assert (p['tp_overlap'], p['grad_overlap']) == (False, True), p"
expect 0 "" $E --framework torchtitan
json "p=d['plan']; assert (p['tp_overlap'], p['grad_overlap'], p['param_overlap']) == (False, True, True), p"
# --- without --zero, a framework's default ZeRO stage is its code's: torchtitan
# shards with FSDP2 and fsdp_reshard_after_forward "default" (job_config.py
# @8a2686c4) is reshard_after_forward = not pp_enabled (llama3
# parallelize.py @8a2686c4 L288): ZeRO-3 at PP 1, ZeRO-2 at PP 2. hetplan
# estimated ZeRO-1, which FSDP2 cannot run, and said so. Other rows keep
# ZeRO-1 (Megatron-Core's distributed optimizer), apex DDP its only stage 0.
Z="$H estimate --pool 2x8xH100-SXM -m llama3.1-8b --tp 2 --mbs 1 --gbs 64 --format json"
expect 0 "" $Z --pp 1 --framework torchtitan
grep -q "does not run this plan" "$T/err" && bad "torchtitan default zero: $(cat "$T/err")" || ok
# Llama 3.1 8B: 8.03e9 parameters; a TP-2 rank's whole bf16 copy is
# 8.03e9 / 2 x 2 bytes = 8.03 GB (what ZeRO-1 keeps); ZeRO-3 over DP 8 keeps
# an eighth (1.0 GB) plus the layers being gathered (a layer is 0.22e9
# parameters, 0.22 GB a TP rank), so well under half of it.
json "assert d['plan']['zero'] == 3, d['plan']['zero']; w = d['memory'][0]['weights_bytes']; assert 0.9e9 < w < 8.03e9 / 2, w"
expect 0 "" $Z --pp 2 --framework torchtitan
json "assert d['plan']['zero'] == 2, d['plan']['zero']"
grep -q "does not run this plan" "$T/err" && bad "torchtitan pp 2 default zero: $(cat "$T/err")" || ok
expect 0 "" $Z --pp 2 --framework megatron-core
json "assert d['plan']['zero'] == 1, d['plan']['zero']"
# an explicit --zero still wins, and is still said to be unrunnable
expect 0 "ZeRO-1 (FSDP2 shards parameters too" $Z --pp 1 --framework torchtitan --zero 1
json "assert d['plan']['zero'] == 1, d['plan']['zero']"

# An explicit key beats the framework's default, and round-trips.
expect 0 "" $E --framework megatron-core --tp-overlap off
json "p=d['plan']; assert p['tp_overlap'] is False and p['grad_overlap'] is True, p"
python3 -c "import json; json.dump(json.load(open('$T/out'))['plan'], open('$T/p.json','w'))"
expect 0 "" $H estimate --pool 4x8xH100-SXM -m llama3.1-70b --plan "$T/p.json" --format json
json "p=d['plan']; assert p['tp_overlap'] is False and p['framework'] == 'megatron-core', p"
expect 2 "--framework: expected any, megatron-core" $E --framework jax
expect 2 "--tp-overlap: expected on or off" $E --tp-overlap yes
# An overlap hides communication: with the same plan the exposed TP and DP
# time can only shrink, and the collectives' full time is the same.
python3 - "$T/mcore.json" "$T/mlm.json" <<'PY' && ok || bad "overlap does not hide TP/DP time"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert a['breakdown_s']['tp_comm'] < b['breakdown_s']['tp_comm'], (a['breakdown_s'], b['breakdown_s'])
assert a['breakdown_s']['dp_comm'] <= b['breakdown_s']['dp_comm']
assert a['step_time_s'] < b['step_time_s']
PY

# --- precision: fp32 and tf32 run; a dtype the GPU lacks is an error naming it
expect 0 "" $H estimate --pool 1x8xA100-80GB -m gpt-1.7b --tp 1 --pp 1 --mbs 1 --gbs 8 --precision tf32 --format json
json "assert d['plan']['precision'] == 'tf32'"
cp "$T/out" "$T/tf32.json"
expect 0 "" $H estimate --pool 1x8xA100-80GB -m gpt-1.7b --tp 1 --pp 1 --mbs 1 --gbs 8 --precision fp32 --format json
# fp32 on A100 runs at 19.5 TFLOP/s against tf32's 156: the same plan must be
# several times slower, and weights take 4 bytes (1.65B params: 6.6 GB).
python3 - "$T/tf32.json" "$T/out" <<'PY' && ok || bad "fp32 vs tf32"
import json, sys
t, f = (json.load(open(x)) for x in sys.argv[1:])
assert f['step_time_s'] > 3 * t['step_time_s'], (f['step_time_s'], t['step_time_s'])
w = f['memory'][0]['weights_bytes']
assert 6.4e9 < w < 6.8e9, w
PY
# An fp32 (and tf32: TF32 is only the GEMMs' math mode) run keeps 4-byte
# activations, so its TP collectives move 4 bytes an element: Llama 3.1 8B,
# TP 2, mbs 1, seq 8192, hidden 4096: 8192 x 4096 x 4 = 134,217,728 B per
# call (bf16: 67,108,864).
for pr in "tf32 134217728" "bf16 67108864"; do
	expect 0 "" $H estimate --pool 1x8xA100-80GB -m llama3.1-8b --tp 2 --pp 1 --mbs 1 --gbs 8 \
		--precision ${pr% *} --format json
	json "r = [c for c in d['comm'] if c['dim'] == 'tp']; assert r and r[0]['bytes'] == ${pr#* }, r"
done
expect 3 "has no fp8 units" $H launch --pool 1x8xA100-80GB -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 8 --precision fp8
# DeepSpeed's pipeline under sequence parallelism: each TP rank's output is
# its own 1/t shard, which crosses whole (no PartitionedTensor of a shard):
# Llama 3.1 70B, TP 8, seq 8192, hidden 8192, bf16: 8192 x 8192 x 2 / 8 =
# 16,777,216 B per message (partitioning it again would give 2,097,152).
expect 0 "" $H estimate --pool 4x8xH100-SXM,nics=1,nic_gbps=10 -m llama3.1-70b --tp 8 --pp 4 \
	--mbs 1 --gbs 64 --framework deepspeed --format json
json "r = [c for c in d['comm'] if c['dim'] == 'pp']; assert r and r[0]['bytes'] == 16777216, r"

# --- interleaving with one layer less on the first and last stage: Llama 3.1
# 405B, 126 layers on 16 stages of 8 chunks (7, 8 x 14, 7), TP 8, DP 128,
# mbs 1, gbs 2048, seq 8192, on 16,384 H100s (Llama 3 paper, Sec. 3.3).
# Its DP is ZeRO-2-like ("shards optimizer states and gradients, but for
# model shards we do not reshard after forward"), and the paper trained
# 8K sequences "without activation checkpointing". 16 micro-batches, as
# many as stages, all run forward before the first backward, so an 8-layer
# stage holds 63.6 GiB of activations (16 x 8 x 8192 tokens x 65,088 B);
# with the model state (7.1 GiB), the runtime's buffers (CUDA context, NCCL:
# 2.1 GiB) and Megatron-Core's TE userbuffers (2.5 GiB) 75.3 GiB are live,
# under the driver-reported 81,559 MiB (79.65 GiB): it fits, as it ran.
# The caching allocator's reserve (mem_frag 1.2 on what comes and goes,
# 12.7 GiB) is freed before PyTorch reports out of memory, so it makes the
# plan risky (past the 5% headroom), not impossible (docs/memory.md).
expect 0 "" $H estimate --pool 2048x8xH100-SXM,name=h100 -m llama3.1-405b --plan $D/llama405b_meta.json --format json
# Total 88.0 GiB > 79.65 GiB with the reserve: over-gpu (live fits).
json "assert d['fits'] and d['memory_verdict'] == 'over-gpu' and d['gpus'] == 16384 and len(d['memory']) == 16, d['memory_verdict']"
json "m=d['memory']; assert m[0]['last_layer']-m[0]['first_layer'] == 6 and m[1]['last_layer']-m[1]['first_layer'] == 7"
json "assert max(s['total_bytes'] - s['allocator_cache_bytes'] for s in d['memory']) < 81559 * 2**20"
json "assert 72 * 2**30 < d['mem_need_bytes'] < 78 * 2**30, d['mem_need_bytes'] / 2**30"
# With full recomputation it fits with room to spare.
sed 's/"recompute": "none"/"recompute": "full"/' $D/llama405b_meta.json > "$T/405.json"
expect 0 "" $H estimate --pool 2048x8xH100-SXM,name=h100 -m llama3.1-405b --plan "$T/405.json" --format json
json "assert d['memory_verdict'] == 'fits' and max(s['total_bytes'] for s in d['memory']) < 0.95 * 81559 * 2**20"
# ZeRO-1 keeps the fp32 gradients whole (4 B x 3.2B parameters = 11.9 GiB
# more): the live bytes no longer fit.
sed 's/"zero": 2/"zero": 1/' $D/llama405b_meta.json > "$T/405z1.json"
expect 4 "" $H estimate --pool 2048x8xH100-SXM,name=h100 -m llama3.1-405b --plan "$T/405z1.json"
# ... and the text says which lever makes it fit: ZeRO-2, 75.2 GiB live.
grep -q "with --zero 2 it fits: 75.2 GiB on the fullest stage" "$T/out" && ok ||
	bad "no ZeRO-2 hint: $(grep -A1 'DOES NOT FIT' "$T/out")"
# The flags alone give the same split: the layers that 16 stages of 8 leave
# short come off the outermost stages.
expect 0 "" $H estimate --pool 2048x8xH100-SXM -m llama3.1-405b --tp 8 --pp 16 --dp 128 --mbs 1 --gbs 2048 \
	--schedule interleaved:8 --recompute full --format json
json "n=[s['last_layer']-s['first_layer']+1 for s in d['memory']]; assert n == [7] + [8]*14 + [7], n"
# A stage in the middle may not hold a short chunk.
python3 -c "
import json; p = json.load(open('$D/llama405b_meta.json'))
s = p['replicas'][0]['stages']; s[1]['last_layer'] -= 1; s[2]['first_layer'] -= 1
json.dump(p, open('$T/bad405.json', 'w'))"
expect 3 "interleaved:8 needs each stage's layer count to be a multiple of 8" \
	$H estimate --pool 2048x8xH100-SXM,name=h100 -m llama3.1-405b --plan "$T/bad405.json"

# --- TP across nodes: allowed, and it pays the NICs (one 100 Gb/s NIC per
# node here): TP 16 over two nodes is slower than TP 8 inside one.
expect 0 "" $H estimate --pool 2x8xV100-16GB,nics=1,nic_gbps=100 -m gpt-3.6b --tp 16 --pp 1 --mbs 2 --gbs 16 --precision fp16 --recompute full --format json
cp "$T/out" "$T/tp16.json"
expect 0 "" $H estimate --pool 2x8xV100-16GB,nics=1,nic_gbps=100 -m gpt-3.6b --tp 8 --pp 1 --dp 1 --mbs 2 --gbs 16 --precision fp16 --recompute full --format json
python3 - "$T/tp16.json" "$T/out" <<'PY' && ok || bad "TP across nodes is not charged"
import json, sys
a, b = (json.load(open(x)) for x in sys.argv[1:])
ta = [c for c in a['comm'] if c['dim'] == 'tp'][0]
assert 'NIC' in ta['link'], ta
assert a['breakdown_s']['tp_comm'] > 2 * b['breakdown_s']['tp_comm'], (a['breakdown_s'], b['breakdown_s'])
PY

# --- GB200 NVL72: 18 trays of 4 GPUs on one NVLink fabric. An all-reduce
# over the 72 GPUs of a rack runs over NVLink; measured (nccl-tests on a
# CoreWeave GB200 NVL72 rack, tests/data/holdout_comm.csv): busbw 586, 681,
# 758, 839, 835 GB/s at 512 MiB .. 8 GiB. Held to a mean |error| of 10%,
# every point within 15% (the NVLS pipeline fill of a 72-rank loop, comm.c
# NVLS_FILL_LOOPS, sets the ramp).
python3 - "$H" <<'PY' && ok || bad "NVL72 all-reduce busbw"
import json, subprocess, sys
meas = {"512MiB": 586.06, "1GiB": 681.17, "2GiB": 757.78, "4GiB": 839.16, "8GiB": 834.57}
errs = []
for size, m in meas.items():
    out = subprocess.run([sys.argv[1], "comm", "--collective", "allreduce", "--bytes", size,
                          "--gpu", "GB200", "--gpus-per-node", "4", "--nodes", "18",
                          "--format", "json"], capture_output=True, text=True, check=True).stdout
    bus = json.loads(out)["busbw_GBps"]
    errs.append(abs(bus - m) / m)
assert max(errs) < 0.15 and sum(errs) / len(errs) < 0.10, errs
PY
# The pool key: a GB200 pool defaults to its 72-GPU domain; the DP
# all-reduce of 64 replicas stays on NVLink.
expect 0 "" $H estimate --pool 18x4xGB200 -m llama3.1-8b --tp 1 --pp 1 --dp 64 --mbs 1 --gbs 64 --zero 1 --seq-len 4096 --format json
json "c=[c for c in d['comm'] if c['dim']=='dp'][0]; assert 'NIC' not in c['link'], c"
expect 0 "" $H estimate --pool 18x4xGB200,nvl_domain=4 -m llama3.1-8b --tp 1 --pp 1 --dp 64 --mbs 1 --gbs 64 --zero 1 --seq-len 4096 --format json
json "c=[c for c in d['comm'] if c['dim']=='dp'][0]; assert 'NIC' in c['link'], c"
expect 2 "nvl_domain: expected an integer from 1 to 100000, got 'x'" $H estimate --pool 18x4xGB200,nvl_domain=x -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 64

# Pipeline hand-offs that leave the node. TP 1 x PP 4 x DP 4 on two
# 8-GPU H100 nodes: ranks run stage by stage (Megatron's order, pipeline
# slowest), so stages 0-1 fill node 0 and stages 2-3 node 1, and only the
# 1|2 hand-off crosses. Its activation, 2048 tokens x 2304 x 2 bytes =
# 9.44 MB, takes 0.19 ms on one 400 Gb/s NIC (50 GB/s) against 0.02 ms on
# NVLink, so stages 1 and 2 each gain about 0.17 ms per micro-batch over
# the same pipeline at DP 2 on one node; stages 0 and 3 do not change.
expect 0 "" $H estimate --pool 1x8xH100-SXM -m gpt-1.7b --tp 1 --pp 4 --dp 2 --mbs 1 --gbs 64 --format json
cp "$T/out" "$T/pp_one_node.json"
expect 0 "" $H estimate --pool 2x8xH100-SXM -m gpt-1.7b --tp 1 --pp 4 --dp 4 --mbs 1 --gbs 64 --format json
json "
a = [m['time_per_microbatch_s'] for m in json.load(open('$T/pp_one_node.json'))['memory']]
b = [m['time_per_microbatch_s'] for m in d['memory']]
assert a[0] == b[0] and a[3] == b[3], (a, b)
for i in (1, 2):
    assert 0.10e-3 < b[i] - a[i] < 0.30e-3, (i, b[i] - a[i])"

# A hand-off's flows share the node's NICs with the other GPUs of its
# stage that cross at the same time, not with the whole node. Two nodes
# of 4 A100 with one 100 Gb/s IB NIC each; llama3.1-8b's activation,
# 2048 tokens x 4096 x 2 bytes = 16,777,216 bytes. NCCL gets 0.96 of the
# line rate over IB (comm.c NIC_EFF: 12 GB/s per 100 Gb/s), so one flow
# alone on the NIC moves it in 16,777,216 / 12.0e9 = 1.398 ms.
#  - TP 1 x PP 2 x DP 4: each stage is a node, and all 4 GPUs hand off
#    at once through the one NIC, 3.0 GB/s each: 16,777,216 / 3.0e9 =
#    5.592 ms a hand-off, 4 x one flow's (plus NCCL's latency, about
#    0.03 ms).
#  - TP 1 x PP 8 x DP 1: stages 0-3 on node 0 and 4-7 on node 1, one GPU
#    each; only the 3|4 hand-off crosses, one flow on the NIC: 1.398 ms.
#    Stage 3 pays it where stage 2 pays an NVSwitch hand-off (about 0.09
#    ms with latency), so stage 3 is 1.3-1.45 ms slower per micro-batch.
#    Stage 4 pays the same on the receiving side. Charged as one of four
#    flows, the hand-off would take about 5.6 ms.
P2="--pool 2x4xA100-80GB,nics=1,nic_gbps=100,transport=ib -m llama3.1-8b --tp 1 --mbs 1 --gbs 32 --seq-len 2048 --framework megatron-lm --format json"
expect 0 "" $H estimate $P2 --pp 2 --dp 4
json "
c = [c for c in d['comm'] if c['dim'] == 'pp'][0]
one = c['time_s'] / c['calls_per_step']
assert c['bytes'] == 16777216 and 'NIC' in c['link'], c
assert 5.592e-3 <= one <= 5.592e-3 + 0.05e-3, one"
expect 0 "" $H estimate $P2 --pp 8 --dp 1
json "
b = [m['time_per_microbatch_s'] for m in d['memory']]
assert 1.30e-3 <= b[3] - b[2] <= 1.45e-3, b[3] - b[2]
assert abs((b[4] - b[5]) - (b[3] - b[2])) < 1e-9, (b[4] - b[5], b[3] - b[2])"

# A pool's measured intra-node rate (intra_gbyte_s) replaces the catalog's
# link figure. TP 8 on eight RTX A6000 over PCIe, gpt-1.7b (24 layers,
# hidden 2304), mbs 1, seq 2048, fp16, 8 micro-batches: 4 TP all-reduces a
# layer and micro-batch (2 forward, 2 backward) = 768 of 2048 x 2304 x 2 =
# 9,437,184 bytes; a ring moves 2 x 7/8 of them per GPU, so at 1 GB/s each
# takes 16.52 ms and the step's TP time is 768 x 16.52 ms = 12.68 s, plus
# latency (about 0.1 ms a call). 25.6 GB/s is the catalog's own figure for
# a Gen4 x16 slot with peer access (comm.c pcie_eff_Bps): the same step.
E3="$H estimate -m gpt-1.7b --tp 8 --pp 1 --mbs 1 --gbs 8 --seq-len 2048 --format json --pool 1x8xRTX-A6000,intra=pcie"
expect 0 "" $E3
cp "$T/out" "$T/ra6000.json"
expect 0 "" $E3,intra_gbyte_s=25.6
json "assert d['step_time_s'] == json.load(open('$T/ra6000.json'))['step_time_s'], d['step_time_s']"
expect 0 "" $E3,intra_gbyte_s=1
json "
tp = sum(c['time_s'] for c in d['comm'] if c['dim'] == 'tp')
hand = 768 * 2 * 7 / 8 * 9437184 / 1e9
assert hand <= tp <= hand * 1.02, (tp, hand)"
expect 2 "intra_gbyte_s: expected a number from 0.01 to 10000, got '0'" $E3,intra_gbyte_s=0
# The same key in a cluster file.
echo '{"pools": [{"gpu": "RTX-A6000", "nodes": 1, "gpus_per_node": 8, "intra": "pcie", "intra_gbyte_s": 1}]}' > "$T/ca6000.json"
expect 0 "" $H estimate -c "$T/ca6000.json" -m gpt-1.7b --tp 8 --pp 1 --mbs 1 --gbs 8 --seq-len 2048 --format json
json "
tp = sum(c['time_s'] for c in d['comm'] if c['dim'] == 'tp')
assert 12.68 <= tp <= 12.68 * 1.02, tp"
echo '{"pools": [{"gpu": "RTX-A6000", "nodes": 1, "intra_gbyte_s": -1}]}' > "$T/ca6000.json"
expect 3 "intra_gbyte_s" $H estimate -c "$T/ca6000.json" -m gpt-1.7b --tp 8 --pp 1 --mbs 1 --gbs 8

# --- the interface says the same, naming the GPU (run as a person would:
# `hetplan WORKSPACE.json` in tmux, then the Plans view).
if command -v tmux >/dev/null 2>&1; then
	cat > "$T/fp8.json" <<'JSON'
{"version": 1, "cluster": {"name": "a100 lab", "pools": [{"name": "a100", "gpu": "A100-80GB", "nodes": 2}]},
 "model": "llama3.1-8b", "workload": {"gbs": 64, "seq_len": 4096, "tokens": 1e11, "objective": "throughput", "top": 5, "precision": "fp8"}}
JSON
	S=hp-perf-$$
	# no ~/.tmux.conf, and the catalog and price cache of an empty home,
	# as tests/tui_lib.sh has them
	tmux -L "$S" -f /dev/null new-session -d -x 100 -y 30 \
		"env XDG_CONFIG_HOME='$T/tcfg' XDG_CACHE_HOME='$T/tcache' $H $T/fp8.json"
	found=0
	for _ in $(seq 1 60); do
		sleep 0.5
		tmux -L "$S" send-keys 3 2>/dev/null
		if tmux -L "$S" capture-pane -p 2>/dev/null | grep -q "(A100-SXM4-80GB) has no fp8 units"; then
			found=1; break
		fi
	done
	tmux -L "$S" kill-server 2>/dev/null
	[ "$found" = 1 ] && ok || bad "the interface does not show the fp8-on-A100 error"
fi

# --- NCCL over TCP sockets: the node's 5 GB/s ceiling (comm.c
# TCP_NODE_BPS, the socket threads' copies) is shared by every flow of the
# node. TP 8 x DP 2 on two 8-GPU nodes with one NIC: eight DP groups (one
# per TP rank) leave each node at once, each with 1/8 of the node.
# 100 Gb/s NIC: min(12.5 GB/s x 0.8, 5) / 8 = 0.625 GB/s a group;
#  40 Gb/s NIC: min(5 GB/s x 0.8, 5) / 8 = 0.5 GB/s a group;
# so the 3.7 GiB reduce-scatter takes 0.5 / 0.625 = 0.8 of the 40 Gb/s
# time on 100 Gb/s (latency terms are microseconds against seconds). With
# the ceiling applied to a group's share as if it were the whole node,
# each 100 Gb/s group got 1.25 GB/s and the ratio was 0.4.
tcp_dp() {
	$H estimate --pool "2x8xH100-SXM,nics=1,nic_gbps=$1,transport=tcp" -m llama3.1-8b \
		--tp 8 --pp 1 --mbs 1 --gbs 64 --format json |
		python3 -c 'import json,sys; print([c["time_s"] for c in json.load(sys.stdin)["comm"] if c["dim"] == "dp"][0])'
}
t100=$(tcp_dp 100) t40=$(tcp_dp 40)
python3 -c "import sys; r = $t100 / $t40; sys.exit(0 if abs(r - 0.8) < 0.02 else 1)" && ok ||
	bad "TCP node ceiling not shared: dp $t100 s at 100 Gb/s, $t40 s at 40 Gb/s (want ratio 0.8)"

# --- a lone pipeline flow leaves by its own GPU's rail: TP 1 x PP 8 x DP 1
# on two 4-GPU A100 nodes, one stage per GPU, one hand-off crossing.
# With one 100 Gb/s NIC a node or four (one per GPU), that flow has one NIC
# either way, so the step is the same; with every NIC of the node it was
# 4x faster on the four-NIC nodes.
pp1() {
	$H estimate --pool "2x4xA100-80GB,nic_gbps=100,transport=ib,nics=$1" -m llama3.1-8b \
		--tp 1 --pp 8 --dp 1 --mbs 1 --gbs 32 --seq-len 2048 --framework megatron-lm \
		--format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["step_time_s"])'
}
s1=$(pp1 1) s4=$(pp1 4)
[ -n "$s1" ] && [ "$s1" = "$s4" ] && ok || bad "a lone PP flow: $s1 s with 1 NIC, $s4 s with 4"
# ... and the planner's steps are estimate's: its plans at DP 1 and DP 2
# share stage records only where the hand-off's NIC share is the same.
$H plan --pool 4x4xA100-80GB,nics=4,nic_gbps=100,transport=ib -m llama3.1-8b --tp 1 --pp 8 \
	--gbs 32 --seq-len 2048 --objective cost --threads 1 --format json >"$T/ppl.json" 2>/dev/null
python3 - "$T" "$H" <<'PY' && ok || bad "plan and estimate disagree on a PP-over-NIC cluster"
import json, subprocess, sys
t, h = sys.argv[1], sys.argv[2]
plans = json.load(open(t + "/ppl.json"))["plans"]
assert len(plans) >= 4, len(plans)
for i, p in enumerate(plans):
    json.dump(p, open("%s/pp%d.json" % (t, i), "w"))
    r = subprocess.run([h, "estimate", "--pool", "4x4xA100-80GB,nics=4,nic_gbps=100,transport=ib",
                        "-m", "llama3.1-8b", "--plan", "%s/pp%d.json" % (t, i), "--format", "json"],
                       capture_output=True, text=True, check=True)
    e = json.loads(r.stdout)["step_time_s"]
    assert abs(e - p["step_time_s"]) <= 1e-9 * e, (i, p["step_time_s"], e)
PY


# --- fp8 leaves the logits GEMM in bf16: Megatron-Core's output layer is
# tensor_parallel.ColumnParallelLinear, not a Transformer Engine module
# (megatron/core/models/gpt/gpt_model.py), and torchtitan's float8 recipes
# filter "output". So growing the vocabulary adds the same compute time
# under fp8 as under bf16. GPT 1.7B (hidden 2304) on one H100, 8
# micro-batches of 2048 tokens (T = 16384), vocabulary 51200 -> 204800:
# 3 GEMMs x 2 x 16384 x 2304 x 153600 = 3.48e13 FLOP more, at least
# 3.48e13 / 989e12 = 0.035 s at the bf16 dense peak (H100 SXM datasheet).
for v in 51200 204800; do
	python3 - "$v" "$T/v$v.json" <<'PY'
import json, sys
doc = json.load(open("data/models.json"))
m = dict(next(x for x in doc["models"] if x["name"] == "gpt-1.7b"))
m.pop("published_params", None)
m["name"], m["vocab"] = "vocab-" + sys.argv[1], int(sys.argv[1])
json.dump(m, open(sys.argv[2], "w"))
PY
	for pr in bf16 fp8; do
		expect 0 "" $H estimate --pool 1x8xH100-SXM -m "$T/v$v.json" --tp 1 --pp 1 --dp 1 \
			--mbs 1 --gbs 8 --precision $pr --format json
		cp "$T/out" "$T/v$v-$pr.json"
	done
done
python3 - "$T" <<'PY' && ok || bad "fp8's logits GEMM is not at the bf16 rate"
import json, sys
c = {k: json.load(open("%s/v%s.json" % (sys.argv[1], k)))["breakdown_s"]["compute"]
     for k in ("51200-bf16", "51200-fp8", "204800-bf16", "204800-fp8")}
bf = c["204800-bf16"] - c["51200-bf16"]
f8 = c["204800-fp8"] - c["51200-fp8"]
assert bf >= 0.035, bf
assert abs(f8 - bf) <= 0.01 * bf, (bf, f8)
PY
# --- tp_host_sync: AMP's Megatron-LM fork wraps every TP all-reduce in
# timers that call torch.cuda.synchronize() (DachengLi1/AMP @708e87f,
# megatron/mpu/mappings.py _reduce; megatron/global_vars.py _Timer).
# (1) At TP 1 its _reduce returns before the timers: no change at all.
for s in off on; do
	expect 0 "" $H estimate --pool 1x8xA100-SXM4-80GB -m gpt-1.7b --tp 1 --pp 1 --mbs 1 --gbs 8 \
		--framework megatron-lm --tp-host-sync $s --format json
	cp "$T/out" "$T/hs1$s.json"
done
python3 - "$T" <<'PY' && ok || bad "tp_host_sync at TP 1 changes the step"
import json, sys
a, b = (json.load(open("%s/hs1%s.json" % (sys.argv[1], s))) for s in ("off", "on"))
assert a["step_time_s"] == b["step_time_s"] and b["plan"]["tp_host_sync"] is True, (a, b)
PY
# (2) At TP 2, with every kernel of an 18B layer longer than its launch,
# the host's launches no longer hide behind the device: each forward pass
# of a layer adds its host time h, each backward (about twice the
# kernels) 2h. Full recompute runs each layer's forward, and so its TP
# all-reduces and their synchronisations, once more: 4h per layer and
# micro-batch against 3h without, a ratio of 4/3 whatever h is.
for rcm in none full; do for s in off on; do
	expect 0 "" $H estimate --pool 1x8xA100-SXM4-80GB -m gpt-18.4b --tp 2 --pp 2 --mbs 1 --gbs 8 \
		--recompute $rcm --framework megatron-lm --tp-host-sync $s --format json
	cp "$T/out" "$T/hs2$rcm$s.json"
done; done
python3 - "$T" <<'PY' && ok || bad "tp_host_sync at TP 2: 4h with full recompute, 3h without"
import json, sys
t = lambda n: json.load(open("%s/hs2%s.json" % (sys.argv[1], n)))["step_time_s"]
dn, df = t("noneon") - t("noneoff"), t("fullon") - t("fulloff")
assert dn > 0 and abs(df / dn - 4 / 3) < 1e-6, (dn, df)
PY

finish perf_cli
