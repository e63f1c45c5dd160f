#!/bin/sh
# test_moe.sh — the expert all-to-all's schedule and dispatch in `hetplan
# estimate`, against what Megatron-Core's and DeepEP's code say they do
# (docs/moe.md). Each case reads the "ep" row of the JSON comm table:
# time_s (every all-to-all of the step) and exposed_s (what the step waits
# for).
#  - Megatron-Core's combined 1F1B without pipelining (Megatron-LM
#    @d98e8a64, pipeline_parallel/combined_1f1b.py) runs the first
#    micro-batch's forward and the last one's backward with no partner:
#    of the 4 M all-to-alls per layer of M micro-batches, 4 are exposed
#    whatever the compute, so exposed >= time / M; and the rest can hide,
#    so exposed < time when the layer's compute is longer than its
#    all-to-all (Mixtral 8x7B, EP 8 inside one H100 node: 14,336-wide
#    experts over 900 GB/s NVLink).
#  - transformer_config.py refuses the overlap without virtual stages
#    when PP > 1 and with full recompute; DeepSpeed's MoE runs the
#    all-to-all in line: exposed == time.
#  - DeepEP sends a token once per destination node (its README's normal
#    kernels). DeepSeek-V3 (256 experts, 8 per token) with EP 32 over 4
#    B200 nodes of 8: the NCCL all-to-all sends 8 x 3/4 = 6 copies across
#    nodes per token; DeepEP 3 x (1 - C(192,8)/C(256,8)) = 3 x 0.9036 =
#    2.711, a share of 0.4518. The network leg dominates (B200: 900 GB/s
#    NVLink against one 400 Gb/s NIC per GPU), so the megatron-core row's
#    all-to-all time is between 0.4518 and 0.6 of DeepSpeed's (same bytes,
#    calls and links; 1f1b, so neither overlaps).
#  - MoE parallel folding (the etp key): expert weights per GPU, the
#    expert optimizer shard, the EP group's nodes, the plan JSON and the
#    validity rules, each with its hand calculation or source below.
#  - The token dispatcher (the moe_dispatch key): the two cost models'
#    bytes by hand, the plan JSON, the refusals (below).
# Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

# ep FILE — "time_s exposed_s calls" of the ep row of an estimate's JSON
ep() {
	python3 - "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
r = [c for c in d["comm"] if c["dim"] == "ep"]
print("%r %r %d" % (r[0]["time_s"], r[0]["exposed_s"], r[0]["calls_per_step"]) if r else "none")
PY
}


mx="--pool 4x8xH100-SXM -m mixtral-8x7b --tp 1 --ep 8 --mbs 1 --gbs 256"
# shellcheck disable=SC2086
est_json pp1 $mx --pp 1
# shellcheck disable=SC2086
set -- $(ep "$T/pp1.json")
# M = 256 / (1 x 32) = 8 micro-batches
python3 -c "import sys; t, e = $1, $2; sys.exit(0 if t / 8 * (1 - 1e-9) <= e < t else 1)" && ok ||
	bad "PP 1: exposed $2 s not in [time/8, time) of time $1 s"

for case in "--pp 4|PP 4 without virtual stages" "--pp 1 --recompute full|full recompute" \
	"--pp 1 --framework deepspeed|DeepSpeed"; do
	# shellcheck disable=SC2086
	est_json no $mx ${case%%|*}
	# shellcheck disable=SC2086
	set -- $(ep "$T/no.json")
	[ "$1" = "$2" ] && ok || bad "${case#*|}: exposed $2 s, expected all of $1 s"
done

# The plan key ep_overlap off: Megatron-Core runs the all-to-all in line
# (Megatron-Bridge's H100 FP8 Qwen3-30B recipe sets moe_a2a_overlap False,
# perf_recipes/qwen/h100/qwen3_moe.py @067f987df0:92): exposed == time on
# the PP 1 layout whose default hides most of it (above), and the plan
# JSON says "ep_overlap": false; on is refused outside megatron-core (exit
# 3, naming the key and the framework).
# shellcheck disable=SC2086
est_json off $mx --pp 1 --ep-overlap off
# shellcheck disable=SC2086
set -- $(ep "$T/off.json")
[ "$1" = "$2" ] && ok || bad "--ep-overlap off: exposed $2 s, expected all of $1 s"
python3 -c "import json,sys; sys.exit(0 if json.load(open('$T/off.json'))['plan']['ep_overlap'] is False else 1)" &&
	ok || bad "--ep-overlap off: plan JSON ep_overlap is not false"
python3 -c "import json,sys; sys.exit(0 if json.load(open('$T/pp1.json'))['plan']['ep_overlap'] is True else 1)" &&
	ok || bad "megatron-core default: plan JSON ep_overlap is not true"
# shellcheck disable=SC2086
"$H" estimate $mx --pp 1 --framework deepspeed --ep-overlap on > /dev/null 2>"$T/err"
rc=$?
[ $rc -eq 3 ] && grep -q "ep_overlap on needs framework megatron-core.*deepspeed" "$T/err" && ok ||
	bad "--ep-overlap on under deepspeed: exit $rc: $(cat "$T/err")"

ds="--pool 32x8xB200 -m deepseek-v3 --tp 1 --pp 8 --ep 32 --dp 32 --mbs 1 --gbs 4096 --precision fp8"
# shellcheck disable=SC2086
est_json mc $ds --framework megatron-core
# shellcheck disable=SC2086
est_json dsp $ds --framework deepspeed
mc=$(ep "$T/mc.json")
dsp=$(ep "$T/dsp.json")
python3 - "$mc" "$dsp" <<'PY' && ok || bad "dedup: megatron-core '$mc' against deepspeed '$dsp'"
import sys
a, b = sys.argv[1].split(), sys.argv[2].split()
r = float(a[0]) / float(b[0])
sys.exit(0 if a[2] == b[2] and 0.4518 <= r <= 0.6 else 1)
PY
# The MoE block's launches and host wait (perf_compute.c moe_ops, docs/moe.md
# "Kernels and host waits"). Facts from the frameworks' code:
#  - Transformer Engine's GroupedLinear runs one cuBLASLt GEMM per local
#    expert (general_grouped_gemm -> nvte_multi_stream_cublas_gemm, a loop
#    of cublas_gemm calls, each with its own descriptors and algorithm
#    heuristic: NVIDIA/TransformerEngine @5c62f728
#    transformer_engine/common/gemm/cublaslt_gemm.cu), fc1 and fc2
#    forward; backward a data and a weight gradient GEMM for each: 2 x 3 = 6
#    launches per expert per layer and micro-batch. When the host, not the
#    GPU, sets the pace (hidden 256: each kernel is shorter than its
#    launch), 8 more experts per GPU add 2 layers x 8 x 6 launches of
#    host_op_s (data/calibration.json) to compute + overhead.
#  - Megatron-Core's dropless dispatch waits on the host once per MoE
#    layer forward and never in the backward (fused_a2a.py
#    HybridEPDispatch: non_blocking only with a token bound;
#    token_dispatcher.py MoEAlltoAllTokenDispatcher: one sync point);
#    after the wait the device is idle until the host has issued the next
#    kernel. With the GPU setting the pace (hidden 4,096, seq 4,096), the
#    same 4-layer model with every layer MoE against every layer dense
#    differs in overhead by 4 layers x 4 micro-batches x host_op_s.
hop=$(python3 -c "import json; print(repr([c['value'] for c in json.load(open('data/calibration.json'))['constants'] if c['name'] == 'host_op_s'][0]))")
mk() { # mk FILE EXPERTS DENSE_LAYERS HIDDEN FFN SEQ LAYERS (heads of 128)
	printf '{"name":"t","layers":%s,"hidden":%s,"heads":%s,"kv_heads":2,"ffn":%s,"vocab":1024,"seq_len":%s,"gated_mlp":true,"norm":"rmsnorm","position":"rope","tied_embeddings":false,"bias":false,"moe":{"experts":%s,"top_k":2,"expert_ffn":%s,"shared_experts":0,"dense_layers":%s}}\n' \
		"$7" "$4" $(($4 / 128)) "$5" "$6" "$2" "$5" "$3" >"$1"
}
co() { # co FILE: compute + overhead of the step, and its overhead
	python3 -c "import json,sys; b = json.load(open(sys.argv[1]))['breakdown_s']; print(repr(b['compute'] + b['overhead']), repr(b['overhead']))" "$1"
}
mk "$T/m_e8.json" 8 0 256 256 256 2
mk "$T/m_e16.json" 16 0 256 256 256 2
est_json e8 --pool 1x1xH100-SXM -m "$T/m_e8.json" --tp 1 --pp 1 --mbs 1 --gbs 1
est_json e16 --pool 1x1xH100-SXM -m "$T/m_e16.json" --tp 1 --pp 1 --mbs 1 --gbs 1
a=$(co "$T/e8.json")
b=$(co "$T/e16.json")
python3 -c "import sys; d = ${b%% *} - ${a%% *}; w = 2 * 8 * 6 * $hop; sys.exit(0 if abs(d - w) <= 1e-9 * w else 1)" && ok ||
	bad "8 more local experts: compute + overhead $a -> $b, expected + 96 x host_op_s $hop"
# torchtitan runs each expert weight as one torch._grouped_mm over every
# local expert (GroupedExperts, use_grouped_mm default True:
# pytorch/torchtitan @71213cf1 torchtitan/models/common/moe.py): the same
# host-bound pair costs the same.
est_json t8 --pool 1x1xH100-SXM -m "$T/m_e8.json" --tp 1 --pp 1 --mbs 1 --gbs 1 --framework torchtitan
est_json t16 --pool 1x1xH100-SXM -m "$T/m_e16.json" --tp 1 --pp 1 --mbs 1 --gbs 1 --framework torchtitan
a=$(co "$T/t8.json")
b=$(co "$T/t16.json")
python3 -c "import sys; d = ${b%% *} - ${a%% *}; sys.exit(0 if abs(d) <= 1e-9 * ${a%% *} else 1)" && ok ||
	bad "torchtitan, 8 more local experts: compute + overhead $a -> $b, expected no change"
mk "$T/m_moe.json" 8 0 4096 14336 4096 4
mk "$T/m_dense.json" 8 4 4096 14336 4096 4
est_json moe --pool 1x1xH100-SXM -m "$T/m_moe.json" --tp 1 --pp 1 --mbs 1 --gbs 4
est_json dense --pool 1x1xH100-SXM -m "$T/m_dense.json" --tp 1 --pp 1 --mbs 1 --gbs 4
a=$(co "$T/dense.json")
b=$(co "$T/moe.json")
python3 -c "import sys; d = ${b#* } - ${a#* }; w = 4 * 4 * $hop; sys.exit(0 if abs(d - w) <= 1e-9 * w else 1)" && ok ||
	bad "one host wait per MoE layer forward: overhead $a (dense) -> $b (MoE), expected + 16 x host_op_s $hop"

# --- MoE parallel folding: the plan key etp (Megatron-Core
# --expert-tensor-parallel-size; docs/moe.md "Parallel folding").
# A 2-layer model, hidden 1,024, 8 experts (2 per token) of width 512,
# gated: one expert holds 3 x 1,024 x 512 = 1,572,864 parameters. On 16
# H100 with TP 2, EP 8 (DP 8) each GPU holds 8 / 8 = 1 expert per layer:
#   ETP 2 (the default, = TP): 1,572,864 / 2 x 2 layers = 1,572,864
#     parameters, 3,145,728 bytes of bf16 weights;
#   ETP 1: 1,572,864 x 2 layers = 3,145,728 parameters, 6,291,456 bytes;
# so the weights grow by 3,145,728 bytes and nothing else moves in them.
# The distributed optimizer shards the experts' 12 bytes a parameter over
# expert DP = TP x DP / (ETP x EP): 16 / 16 = 1 at ETP 2, 16 / 8 = 2 at
# ETP 1, i.e. 1,572,864 x 12 / 1 = 3,145,728 x 12 / 2 = 18,874,368 bytes
# either way: the optimizer bytes do not move.
printf '{"name":"fold","layers":2,"hidden":1024,"heads":8,"kv_heads":2,"ffn":512,"vocab":1024,"seq_len":1024,"gated_mlp":true,"norm":"rmsnorm","position":"rope","tied_embeddings":false,"bias":false,"moe":{"experts":%s,"top_k":2,"expert_ffn":512,"shared_experts":0,"dense_layers":0}}\n' 8 >"$T/fold8.json"
sed 's/"experts":8/"experts":32/' "$T/fold8.json" >"$T/fold32.json"
fold="--pool 2x8xH100-SXM -m $T/fold8.json --tp 2 --pp 1 --ep 8 --mbs 1 --gbs 64"
# shellcheck disable=SC2086
est_json f2 $fold
# shellcheck disable=SC2086
est_json f1 $fold --etp 1
python3 - "$T/f2.json" "$T/f1.json" <<'PY' && ok || bad "etp 1 against etp = tp: expert weights +3,145,728 B, optimizer unchanged"
import json, sys
a, b = (json.load(open(f))["memory"][0] for f in sys.argv[1:])
sys.exit(0 if b["weights_bytes"] - a["weights_bytes"] == 3145728 and
         b["optimizer_bytes"] == a["optimizer_bytes"] else 1)
PY
# --etp 2 is the default written out: the same estimate, and the plan JSON
# omits the key at its default and carries it when set.
# shellcheck disable=SC2086
est_json fe $fold --etp 2
python3 - "$T/f2.json" "$T/fe.json" "$T/f1.json" <<'PY' && ok || bad "etp = tp differs from the default, or plan JSON etp wrong"
import json, sys
a, b, c = (json.load(open(f)) for f in sys.argv[1:])
sys.exit(0 if a["step_time_s"] == b["step_time_s"] and a["memory"] == b["memory"] and
         "etp" not in a["plan"] and b["plan"]["etp"] == 2 and c["plan"]["etp"] == 1 else 1)
PY
# JSON round trip: the plan JSON of the ETP 1 estimate, fed back as
# --plan, gives the same plan and step time.
python3 -c "import json,sys; json.dump(json.load(open(sys.argv[1]))['plan'], open(sys.argv[2], 'w'))" \
	"$T/f1.json" "$T/f1plan.json"
est_json f1rt --pool 2x8xH100-SXM -m "$T/fold8.json" --plan "$T/f1plan.json"
python3 - "$T/f1.json" "$T/f1rt.json" <<'PY' && ok || bad "etp 1 plan JSON round trip"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
sys.exit(0 if a["plan"] == b["plan"] and a["step_time_s"] == b["step_time_s"] else 1)
PY
# The EP group's ranks (Megatron-Core's expert grid, parallel_state.py
# @d98e8a64: expert TP innermost, then EP): at ETP 1 an EP group of 8
# is 8 consecutive ranks, one node of 8; at ETP = TP 2 its ranks stride 2,
# so it spans 2 nodes. EP 32 at ETP 1 and TP 2 (DP 16 < EP 32, the
# Qwen3 235B recipe's folding) spans 4 nodes of 8.
fold32="--pool 4x8xH100-SXM -m $T/fold32.json --tp 2 --pp 1 --mbs 1 --gbs 64"
for case in "--ep 8|2" "--ep 8 --etp 1|1" "--ep 32 --etp 1|4"; do
	# shellcheck disable=SC2086
	est_json g $fold32 ${case%%|*}
	python3 - "$T/g.json" "${case#*|}" <<'PY' && ok || bad "${case%%|*}: EP group not over ${case#*|} nodes"
import json, sys
r = [c for c in json.load(open(sys.argv[1]))["comm"] if c["dim"] == "ep"]
sys.exit(0 if r and r[0]["group_nodes"] == int(sys.argv[2]) else 1)
PY
done
# The expert-DP group's ranks (the same grid: expert DP outside ETP x
# EP, so it strides etp x ep ranks, tp x ep at the default etp = tp). On
# 4 nodes of 8 with TP 2, DP 16 and 32 experts:
#   EP 8, ETP 2 (default): expert DP = 16 / 8 = 2, stride 2 x 8 = 16:
#     its 2 ranks on 2 nodes; per GPU 32 / 8 = 4 experts at half width;
#   EP 16, ETP 1: expert DP = 2 x 16 / 16 = 2, stride 16: 2 nodes; per
#     GPU 32 / 16 = 2 whole experts.
# The same expert bytes per GPU, reduced over the same 2 ranks on 2
# nodes, beside the same dense DP group of 16: the dp row's time is the
# same.
# shellcheck disable=SC2086
est_json d1 $fold32 --ep 8
# shellcheck disable=SC2086
est_json d2 $fold32 --ep 16 --etp 1
python3 - "$T/d1.json" "$T/d2.json" <<'PY' && ok || bad "expert DP over 2 nodes: dp time at ep 8 etp 2 differs from ep 16 etp 1"
import json, sys
a, b = ([c for c in json.load(open(f))["comm"] if c["dim"] == "dp"][0] for f in sys.argv[1:])
sys.exit(0 if a["bytes"] == b["bytes"] and abs(a["time_s"] - b["time_s"]) <= 1e-9 * b["time_s"] else 1)
PY
# Shared experts in a folded layer: Megatron-Core's SharedExpertMLP runs
# on the attention's TP group and gathers / scatters its own input and
# output. At ETP 1 the routed experts have no TP collectives, and with
# every layer MoE (dense_layers 0) a layer's TP units are the attention's
# (1) without shared experts and attention + shared experts (2) with one:
# the tp row's time doubles, same bytes per unit (T x hidden).
sed 's/"shared_experts":0/"shared_experts":1/' "$T/fold8.json" >"$T/fold8s.json"
est_json s0 --pool 2x8xH100-SXM -m "$T/fold8.json" --tp 2 --pp 1 --ep 8 --etp 1 --mbs 1 --gbs 64
est_json s1 --pool 2x8xH100-SXM -m "$T/fold8s.json" --tp 2 --pp 1 --ep 8 --etp 1 --mbs 1 --gbs 64
python3 - "$T/s0.json" "$T/s1.json" <<'PY' && ok || bad "folded shared experts: tp time not twice the attention's alone"
import json, sys
a, b = ([c for c in json.load(open(f))["comm"] if c["dim"] == "tp"][0] for f in sys.argv[1:])
sys.exit(0 if a["bytes"] == b["bytes"] and abs(b["time_s"] - 2 * a["time_s"]) <= 1e-9 * b["time_s"] else 1)
PY
# TP 1 with ETP 2: the comm table's tp row is the expert TP group's. Its
# unit moves T x hidden x 2 B x ETP / TP = 1,024 x 1,024 x 2 x 2 =
# 4,194,304 bytes over 2 ranks in one node; per micro-batch 2 MoE layers x
# (1 unit forward + 1 backward) x 2 collectives (gather, reduce-scatter)
# = 8, and 64 / (1 x 16) = 4 micro-batches: 32 a step.
est_json e2 --pool 2x8xH100-SXM -m "$T/fold8.json" --tp 1 --pp 1 --ep 8 --etp 2 --mbs 1 --gbs 64
python3 - "$T/e2.json" <<'PY' && ok || bad "tp 1 etp 2: no tp row for the expert TP group"
import json, sys
r = [c for c in json.load(open(sys.argv[1]))["comm"] if c["dim"] == "tp"]
sys.exit(0 if r and r[0]["group"] == 2 and r[0]["group_nodes"] == 1 and
         r[0]["bytes"] == 4194304 and r[0]["calls_per_step"] == 32 and r[0]["time_s"] > 0 else 1)
PY
# Under Megatron-Core's AlltoAll dispatcher (--moe-dispatch alltoall) the
# expert TP group gathers what the all-to-all delivered: top_k copies of
# each rank's tokens (token_dispatcher.py at core_r0.10.0 = 7ee599a25c,
# MoEAlltoAllTokenDispatcher.token_permutation: gather_from_sequence_
# parallel_region after all_to_all). The unit: 1,024 tokens x 2 copies x
# 1,024 x 2 B x ETP 2 / TP 1 = 8,388,608 bytes, the calls as above.
est_json e2a --pool 2x8xH100-SXM -m "$T/fold8.json" --tp 1 --pp 1 --ep 8 --etp 2 --mbs 1 --gbs 64 --moe-dispatch alltoall
python3 - "$T/e2a.json" <<'PY' && ok || bad "tp 1 etp 2 alltoall: the expert TP unit is not top_k copies"
import json, sys
r = [c for c in json.load(open(sys.argv[1]))["comm"] if c["dim"] == "tp"]
sys.exit(0 if r and r[0]["bytes"] == 8388608 and r[0]["calls_per_step"] == 32 else 1)
PY
# The same gather runs in line: plain NCCL calls, not Transformer Engine's
# userbuffers overlap (docs/moe-gap.md). A lower bound from the link
# alone, for the Grok-1 proxy rows' layout (BLDG54-01: 8 layers, hidden
# 6,144, 8 experts top-2, TP 4, CP 2, EP 8, 128 micro-batches of 8,192 /
# 2 = 4,096 tokens): each MoE layer and micro-batch gathers and
# reduce-scatters 4,096 x 2 x 6,144 x 2 B = 100,663,296 bytes over 4 ranks
# forward and again backward; a ring moves 3/4 of it through each GPU's
# 450 GB/s NVLink: 4 x 0.75 x 100,663,296 / 450e9 = 0.671 ms, x 8 layers x
# 128 = 0.687 s a step exposed at least. Under the flex dispatcher hetplan
# keeps its earlier charge, issued beside the GEMMs: less exposed.
printf '{"name":"grokp","layers":8,"hidden":6144,"heads":48,"kv_heads":8,"ffn":32768,"vocab":128256,"seq_len":8192,"gated_mlp":true,"norm":"rmsnorm","position":"rope","tied_embeddings":false,"bias":false,"moe":{"experts":8,"top_k":2,"expert_ffn":32768,"shared_experts":0,"dense_layers":0}}\n' >"$T/grokp.json"
grok="--pool 8x8xH100-SXM,nics=8,nic_gbps=400 -m $T/grokp.json --tp 4 --pp 1 --dp 8 --cp 2 --mbs 1 --gbs 1024 --ep 8"
# shellcheck disable=SC2086
est_json ga $grok --moe-dispatch alltoall
# shellcheck disable=SC2086
est_json gf $grok --moe-dispatch flex
python3 - "$T/ga.json" "$T/gf.json" <<'PY' && ok || bad "alltoall expert TP gather: under the NVLink bound or not above flex"
import json, sys
a, f = (json.load(open(x))["breakdown_s"]["tp_comm"] for x in sys.argv[1:])
sys.exit(0 if a >= 4 * 0.75 * 100663296 / 450e9 * 8 * 128 and a > f else 1)
PY
# Refused, exit 3, naming the key: ETP x EP must divide TP x DP (2 x 16 =
# 32 GPUs here, and 2 x 32 = 64 does not), ETP must divide the expert
# width 512 (3 does not), ETP below TP needs sequence parallelism
# (Megatron-Core's MoELayer raises without it in training), and a dense
# model takes no ETP other than its TP (as it takes no EP above 1).
# shellcheck disable=SC2086
expect 3 "etp 2 x ep 32 must divide tp x cp x dp = 32" "$H" estimate $fold32 --ep 32 --etp 2
# shellcheck disable=SC2086
expect 3 "etp 3 does not divide the expert FFN width 512" "$H" estimate $fold32 --ep 8 --etp 3
# shellcheck disable=SC2086
expect 3 "etp 1 below tp 2 needs sequence parallelism" "$H" estimate $fold32 --ep 8 --etp 1 --no-sp
# shellcheck disable=SC2086
expect 3 "ep 32 must divide dp x cp = 16" "$H" estimate $fold32 --ep 32
# Megatron's MoELayer.forward raises in training whenever the TP group
# has more than one rank and sequence parallelism is off (moe_layer.py
# @001199898c4b: "During training, performance may degrade if MoE and
# tensor parallelism are enabled without also enabling sequence
# parallelism"), at ETP = TP too; TP 1 has no TP group to refuse.
# shellcheck disable=SC2086
expect 3 "runs MoE layers at tp 2 without sequence parallelism" "$H" estimate $fold --no-sp \
	--framework megatron-core
# shellcheck disable=SC2086
expect 3 "drop --no-sp" "$H" estimate $fold --no-sp --framework megatron-lm --ep 1
expect 0 "" "$H" estimate --pool 2x8xH100-SXM -m "$T/fold8.json" --tp 1 --pp 1 --ep 8 --mbs 1 \
	--gbs 64 --no-sp --framework megatron-core
expect 3 "etp 1 given for a dense model" "$H" estimate --pool 2x8xH100-SXM -m llama3.1-8b \
	--tp 2 --pp 1 --mbs 1 --gbs 64 --etp 1
expect 0 "" "$H" estimate --pool 2x8xH100-SXM -m llama3.1-8b --tp 2 --pp 1 --mbs 1 --gbs 64 --etp 2
# --- The token dispatcher: the plan key moe_dispatch (Megatron-Core
# --moe-token-dispatcher-type alltoall|flex; docs/moe.md "Token
# dispatcher"). A 2-layer model, hidden 1,024, 16 experts (2 per token),
# sequence 4,096, micro-batch 2, on 2 nodes of 8 H100 with TP 1, EP 16
# (DP 16): each rank routes 2 x 4,096 = 8,192 tokens, and one dispatch
# sends 8,192 x 2 copies x 1,024 x 2 B = 33,554,432 bytes per rank,
# 16 calls a step (2 layers x 2 micro-batches x dispatch and combine, x 2
# for the backward). The experts sit 8 per node, so a token's copy goes
# to the other node with probability 1/2:
#   alltoall: 2 x 1/2 = 1 copy per token leaves the node, 16,777,216 B of
#     the 33,554,432 per rank;
#   flex: one copy per other node holding any of its 2 experts:
#     1 - C(8,2)/C(16,2) = 1 - 28/120 = 0.76667 copies per token, a share
#     of 0.76667 of the all-to-all's: 12,862,532 B.
# The NVLink leg (900 GB/s against a 50 GB/s NIC) hides under the network
# leg, so flex's EP time is between 0.7667 and 0.85 of alltoall's (same
# bytes and calls; latency and efficiency keep it above the share).
printf '{"name":"disp","layers":2,"hidden":1024,"heads":8,"kv_heads":2,"ffn":512,"vocab":1024,"seq_len":4096,"gated_mlp":true,"norm":"rmsnorm","position":"rope","tied_embeddings":false,"bias":false,"moe":{"experts":16,"top_k":2,"expert_ffn":512,"shared_experts":0,"dense_layers":0}}\n' >"$T/disp.json"
disp="--pool 2x8xH100-SXM -m $T/disp.json --tp 1 --pp 1 --ep 16 --mbs 2 --gbs 64"
# shellcheck disable=SC2086
est_json da $disp --moe-dispatch alltoall
# shellcheck disable=SC2086
est_json df $disp --moe-dispatch flex
# shellcheck disable=SC2086
est_json dd $disp
# shellcheck disable=SC2086
est_json ds $disp --framework deepspeed
python3 - "$T/da.json" "$T/df.json" "$T/dd.json" "$T/ds.json" <<'PY' && ok || bad "moe_dispatch: alltoall against flex bytes, calls or time"
import json, sys
a, f, d, s = (json.load(open(x)) for x in sys.argv[1:])
ea, ef, ed, es = ([c for c in j["comm"] if c["dim"] == "ep"][0] for j in (a, f, d, s))
r = ef["time_s"] / ea["time_s"]
sys.exit(0 if ea["bytes"] == ef["bytes"] == 33554432 and ea["calls_per_step"] == ef["calls_per_step"] == 16
         and 0.7667 <= r <= 0.85
         # the megatron-core default is flex, DeepSpeed's NCCL all-to-all
         and ed["time_s"] == ef["time_s"] and es["time_s"] == ea["time_s"] else 1)
PY
# The plan JSON carries the key only when set; fed back as --plan it
# gives the same plan and step time.
python3 - "$T/da.json" "$T/dd.json" "$T/daplan.json" <<'PY' && ok || bad "moe_dispatch in the plan JSON"
import json, sys
a, d = (json.load(open(x)) for x in sys.argv[1:3])
json.dump(a["plan"], open(sys.argv[3], "w"))
sys.exit(0 if a["plan"]["moe_dispatch"] == "alltoall" and "moe_dispatch" not in d["plan"] else 1)
PY
est_json dart --pool 2x8xH100-SXM -m "$T/disp.json" --plan "$T/daplan.json"
python3 - "$T/da.json" "$T/dart.json" <<'PY' && ok || bad "moe_dispatch alltoall plan JSON round trip"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
sys.exit(0 if a["plan"] == b["plan"] and a["step_time_s"] == b["step_time_s"] else 1)
PY
# Refused, exit 3: flex under a framework without it (framework.c rows
# deepspeed, torchtitan, megatron-lm: ep_dispatch_dedup 0), a dispatcher
# other than the default for a dense model (as ep above 1 is), and a name
# Megatron-LM's list had but hetplan does not cost (alltoall_seq,
# arguments.py @f1f03922 L1905; allgather is costed: test_moe_seq.sh).
for fw in deepspeed torchtitan megatron-lm; do
	# shellcheck disable=SC2086
	expect 3 "moe_dispatch flex needs a framework with a flex dispatcher (DeepEP or HybridEP: megatron-core, nemo-automodel)" "$H" estimate $disp \
		--framework $fw --moe-dispatch flex
	grep -qF "$fw has none" "$T/err" && ok || bad "flex under $fw: message lacks the framework"
done
expect 3 "moe_dispatch alltoall given for a dense model" "$H" estimate --pool 2x8xH100-SXM \
	-m llama3.1-8b --tp 2 --pp 1 --mbs 1 --gbs 64 --moe-dispatch alltoall
# shellcheck disable=SC2086
expect 2 "--moe-dispatch" "$H" estimate $disp --moe-dispatch alltoall_seq
# The expert grid ignores the attention's CP: Megatron-Core builds it
# with cp 1 (parallel_state.py initialize_model_parallel,
# expert_decoder_rank_generator: order tp-ep-dp-pp, tp = etp), so at TP 1
# an EP group of 8 is 8 consecutive ranks: one 8-GPU node, NVSwitch only,
# whatever CP is. With CP 2 the old layout strode tp x cp = 2 ranks and
# put the group on two nodes.
"$H" estimate --pool 4x8xH100-SXM -m mixtral-8x7b --tp 1 --pp 1 --cp 2 --ep 8 --mbs 1 \
	--gbs 256 --seq-len 8192 > "$T/cpep.txt" 2>"$T/err"
grep -E "^  ep +alltoall .* 8 NVSwitch +p2p" "$T/cpep.txt" > /dev/null && ok ||
	bad "cp 2 ep 8: the EP group leaves the node: $(grep '^  ep' "$T/cpep.txt")"
# --- MoE models under the dense-only rows. DeepLearningExamples' BERT
# (pytorch-ddp, -2020), InternLM's trainer @01e7fd61, llm.c's GPT-2 and
# DeepSpeedExamples' 2019 Megatron-LM (deepspeed-0.3) have an MLP and no
# router: Mixtral (8 experts) runs on none of them, at EP 1 too, whether
# estimate's --framework, the plan key or plan's --framework names them
# (exit 3, the message naming the framework and the model). The plan
# below is one each row's other rules take (TP 1, PP 1, ZeRO 0, fp16,
# unfused attention, no recomputation), so the model is the only reason.
DN="--pool 1x8xH100-SXM -m mixtral-8x7b --tp 1 --pp 1 --mbs 1 --gbs 64 --zero 0 --precision fp16 --attention unfused --recompute none"
for fw in pytorch-ddp pytorch-ddp-2020 internlm llm.c deepspeed-0.3; do
	# shellcheck disable=SC2086
	expect 3 "framework $fw runs dense models only" "$H" estimate $DN --framework $fw
	grep -qF "model mixtral-8x7b has 8 experts" "$T/err" && ok || bad "$fw: message lacks the model: $(cat "$T/err")"
	expect 3 "framework $fw runs dense models only" "$H" plan --pool 1x8xH100-SXM -m mixtral-8x7b --gbs 64 --framework $fw
	# a dense model under the same row and flags is not refused for it
	# shellcheck disable=SC2086
	"$H" estimate --pool 1x8xH100-SXM -m gpt-1.7b --tp 1 --pp 1 --mbs 1 --gbs 64 --zero 0 --precision fp16 \
		--attention unfused --recompute none --framework $fw >/dev/null 2>"$T/err"
	grep -qF "dense models only" "$T/err" && bad "$fw refuses a dense model: $(cat "$T/err")" || ok
done
printf '{"mbs": 1, "gbs": 64, "precision": "fp16", "zero": 0, "flash": false, "framework": "pytorch-ddp", "replicas": [{"count": 8, "stages": [{"pool": "a", "first_layer": 0, "last_layer": 31}]}]}' >"$T/ddp_moe.json"
expect 3 "ddp_moe.json: framework pytorch-ddp runs dense models only" "$H" estimate \
	--pool 1x8xH100-SXM,name=a -m mixtral-8x7b --plan "$T/ddp_moe.json"
# the rows with MoE layers still take it (megatron-core at EP 1)
# shellcheck disable=SC2086
"$H" estimate $DN --framework megatron-core >/dev/null 2>"$T/err"
grep -qF "dense models only" "$T/err" && bad "megatron-core refuses Mixtral" || ok

finish moe
