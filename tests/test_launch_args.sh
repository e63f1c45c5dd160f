#!/bin/sh
# test_launch_args.sh — `hetplan launch` output against the frameworks' own
# argument and key lists, and against the models' published configs.
#   - every Megatron flag hetplan writes is in tests/data/megatron_args.txt
#     (megatron/training/arguments.py at the commit named in its header);
#   - every DeepSpeed key is in tests/data/deepspeed_keys.txt (the
#     "DeepSpeed Configuration JSON" page at the commit in its header);
#   - every torchtitan section.key is in tests/data/torchtitan_keys.txt;
#   - Llama 3.1 70B and Mixtral 8x7B argument sets hold the values of
#     their Hugging Face config.json, typed in below;
#   - a plan that does not fit is refused with exit 4 unless --force;
#   - a heterogeneous plan's pieces add up to the plan's GPUs and batch.
# Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

# flags FILE — the --flags of a Megatron argument file, one a line
flags() {
	grep -v '^#' "$1" | tr ' \t' '\n\n' | grep '^--' | sed 's/\\$//' | sort -u
}

# every generated flag exists in the pinned arguments.py list
known_flags() { # FILE what
	flags "$1" > "$T/flags"
	missing=$(grep -vxF -f tests/data/megatron_args.txt "$T/flags")
	[ -z "$missing" ] && ok || bad "$2: flags not in Megatron-LM arguments.py: $missing"
}

# value FILE FLAG — the value after FLAG (empty for a bare flag)
value() {
	python3 - "$1" "$2" <<'PY'
import sys, shlex
text = open(sys.argv[1]).read()
toks = shlex.split(" ".join(l.rstrip("\\").strip() for l in text.splitlines()
                            if l.strip() and not l.lstrip().startswith("#")))
for i, t in enumerate(toks):
    if t == sys.argv[2]:
        nxt = toks[i + 1] if i + 1 < len(toks) and not toks[i + 1].startswith("--") else ""
        print(nxt)
        sys.exit(0)
print("<absent>")
PY
}

expect() { # FILE 'flag=value ...' what ; flag= for a bare flag
	for kv in $2; do
		k=${kv%%=*} v=${kv#*=}
		got=$(value "$1" "--$k")
		[ "$got" = "$v" ] && ok || bad "$3: --$k = '$got', published '$v'"
	done
}

# --- Llama 3.1 70B (meta-llama/Llama-3.1-70B config.json: 80 layers,
# hidden 8192, intermediate 28672, 64 heads, 8 KV heads, rope_theta
# 500000, rope_scaling llama3 factor 8, rms_norm_eps 1e-5, untied
# embeddings, no biases, attention_dropout 0). 2T tokens at 8192 per
# sequence: 2e12 / 8192 = 244140625 samples, 3814697.27 batches of 64:
# 3814698 whole steps (as plan counts them), 3814698 x 64 = 244140672
# samples, so that Megatron's train_samples // global_batch_size runs
# them all (244140625 // 64 ran 3814697).
$H launch --pool 4x8xH100-SXM -m llama3.1-70b --tp 8 --pp 4 --mbs 1 --gbs 64 --tokens 2T \
	> "$T/l70" 2>"$T/err" && ok || bad "llama 70b launch: $(cat "$T/err")"
known_flags "$T/l70" "llama3.1-70b"
expect "$T/l70" "num-layers=80 hidden-size=8192 ffn-hidden-size=28672 num-attention-heads=64
	group-query-attention= num-query-groups=8 rotary-base=500000 use-rope-scaling=
	rope-scaling-factor=8 normalization=RMSNorm norm-epsilon=1e-05 swiglu=
	untie-embeddings-and-output-weights= disable-bias-linear= attention-dropout=0
	hidden-dropout=0 position-embedding-type=rope seq-length=8192 train-samples=244140672
	tensor-model-parallel-size=8 pipeline-model-parallel-size=4 bf16=" "llama3.1-70b"

# --- Mixtral 8x7B (mistralai/Mixtral-8x7B-v0.1 config.json: 32 layers,
# hidden 4096, intermediate 14336, 32 heads, 8 KV heads, 8 local experts,
# 2 per token, rope_theta 1e6, rms_norm_eps 1e-5, router_aux_loss_coef
# 0.02, untied embeddings).
$H launch --pool 4x8xH100-SXM -m mixtral-8x7b --tp 2 --pp 2 --ep 8 --mbs 1 --gbs 64 \
	> "$T/mx" 2>"$T/err" && ok || bad "mixtral launch: $(cat "$T/err")"
known_flags "$T/mx" "mixtral-8x7b"
expect "$T/mx" "num-layers=32 hidden-size=4096 num-attention-heads=32 num-query-groups=8
	num-experts=8 moe-router-topk=2 moe-ffn-hidden-size=14336 rotary-base=1000000
	norm-epsilon=1e-05 moe-aux-loss-coeff=0.02 moe-router-load-balancing-type=aux_loss
	expert-model-parallel-size=8 swiglu= untie-embeddings-and-output-weights=
	attention-dropout=0 hidden-dropout=0 use-rope-scaling=<absent>" "mixtral-8x7b"

# --- the expert all-to-all overlap. Megatron-Core @d98e8a64
# (megatron/core/transformer/transformer_config.py, L3002-3046) accepts
# --overlap-moe-expert-parallel-comm only with expert parallelism, with
# virtual pipeline stages when the pipeline has more than one stage, and
# without full recompute; --delay-wgrad-compute only beside it (L3074-3077);
# the MoE README asks CUDA_DEVICE_MAX_CONNECTIONS above 1 for it. Mixtral
# 8x7B with EP 8 on 32 H100 (--force: the memory is not the question).
mx="-m mixtral-8x7b --tp 1 --ep 8 --mbs 1 --gbs 64 --force"
# shellcheck disable=SC2086
$H launch --pool 4x8xH100-SXM $mx --pp 4 --schedule interleaved:2 \
	> "$T/ov" 2>"$T/err" && ok || bad "ep overlap launch: $(cat "$T/err")"
known_flags "$T/ov" "ep overlap"
expect "$T/ov" "overlap-moe-expert-parallel-comm= delay-wgrad-compute=" "PP 4 VP 2 EP 8"
# shellcheck disable=SC2086
$H launch --pool 4x8xH100-SXM $mx --pp 1 > "$T/ov1" 2>/dev/null
expect "$T/ov1" "overlap-moe-expert-parallel-comm= delay-wgrad-compute=" "PP 1 EP 8"
# shellcheck disable=SC2086
$H launch --pool 4x8xH100-SXM $mx --pp 4 --schedule interleaved:2 --format slurm > "$T/ovs" 2>&1
grep -qx 'export CUDA_DEVICE_MAX_CONNECTIONS=32' "$T/ovs" && ok ||
	bad "ep overlap: CUDA_DEVICE_MAX_CONNECTIONS is not 32"
for case in "--pp 4|PP 4 without virtual stages" "--pp 1 --recompute full|full recompute" \
	"--pp 1 --framework deepspeed|DeepSpeed" "--pp 1 --ep-overlap off|the plan key off"; do
	# shellcheck disable=SC2086
	$H launch --pool 4x8xH100-SXM $mx ${case%%|*} > "$T/no" 2>"$T/err" ||
		bad "${case#*|}: $(cat "$T/err")"
	expect "$T/no" "overlap-moe-expert-parallel-comm=<absent> delay-wgrad-compute=<absent>" \
		"${case#*|}"
done

# --- FP8 parameters: Megatron-Core keeps an fp8 run's weights in FP8 with
# --fp8-param-gather (megatron/training/arguments.py, the pinned list), a
# flag it accepts only with the distributed optimizer. NVIDIA's FP8
# presets turn it on (Megatron-Bridge mixed_precision.py
# bf16_with_fp8_mixed: fp8_param_gather = True), so the megatron-core
# launch of an fp8 plan carries it; --fp8-params off, a bf16 plan and a
# ZeRO-0 plan do not.
grep -qxF -- --fp8-param-gather tests/data/megatron_args.txt && ok ||
	bad "--fp8-param-gather not in megatron_args.txt"
fp8="-m llama3.1-8b --tp 2 --pp 2 --dp 2 --mbs 1 --gbs 8"
# shellcheck disable=SC2086
$H launch --pool 1x8xH100-SXM $fp8 --precision fp8 > "$T/f8" 2>"$T/err" ||
	bad "fp8 launch: $(cat "$T/err")"
known_flags "$T/f8" "fp8 launch"
expect "$T/f8" "fp8-param-gather= use-distributed-optimizer= fp8-format=hybrid" "fp8 params"
for extra in "--precision fp8 --fp8-params off" "--precision bf16" "--precision fp8 --zero 0"; do
	# shellcheck disable=SC2086
	$H launch --pool 1x8xH100-SXM $fp8 $extra > "$T/f8" 2>"$T/err" ||
		bad "launch $extra: $(cat "$T/err")"
	expect "$T/f8" "fp8-param-gather=<absent>" "$extra"
done

# --- MoE parallel folding (the etp key). Megatron-Core takes the experts'
# TP as --expert-tensor-parallel-size (in the pinned arguments.py list),
# and absent sets it to the model's TP (arguments.py @d98e8a64 L587-588):
# written only where it differs. torchtitan's job config has
# parallelism.expert_tensor_parallel_degree, default 1, not TP
# (job_config.py @8a2686c4 L392), and runs only ETP = TP, or ETP 1 with EP
# a multiple of CP x TP (parallel_dims.py L57-64). DeepSpeed-MoE has no
# expert TP of its own: a denial. Mixtral 8x7B on 8 H100 (--force).
grep -qxF -- --expert-tensor-parallel-size tests/data/megatron_args.txt && ok ||
	bad "--expert-tensor-parallel-size not in megatron_args.txt"
grep -qxF parallelism.expert_tensor_parallel_degree tests/data/torchtitan_keys.txt && ok ||
	bad "parallelism.expert_tensor_parallel_degree not in torchtitan_keys.txt"
fo="--pool 1x8xH100-SXM -m mixtral-8x7b --pp 1 --mbs 1 --gbs 64 --force"
# shellcheck disable=SC2086
$H launch $fo --tp 2 --ep 8 --etp 1 > "$T/fo" 2>"$T/err" || bad "etp 1 launch: $(cat "$T/err")"
known_flags "$T/fo" "etp 1"
expect "$T/fo" "expert-tensor-parallel-size=1 expert-model-parallel-size=8 tensor-model-parallel-size=2" "TP 2 EP 8 ETP 1"
for e in "--ep 4" "--ep 4 --etp 2"; do
	# shellcheck disable=SC2086
	$H launch $fo --tp 2 $e > "$T/fo" 2>/dev/null || bad "$e launch"
	expect "$T/fo" "expert-tensor-parallel-size=<absent>" "TP 2 $e (ETP = TP)"
done
# titan FLAGS WANT DENIED: the TOML's expert_tensor_parallel_degree line
# (or "absent") and whether the denial names the expert TP
titan() {
	# shellcheck disable=SC2086
	$H launch $fo --zero 3 $1 --format torchtitan > "$T/tt" 2>"$T/err" || bad "torchtitan $1"
	got=$(grep '^expert_tensor_parallel_degree' "$T/tt" || echo absent)
	den=no
	grep -q "does not run this plan as planned: expert TP" "$T/err" && den=yes
	[ "$got" = "$2" ] && [ "$den" = "$3" ] && ok ||
		bad "torchtitan $1: '$got', denied $den; want '$2', denied $3"
}
titan "--tp 2 --ep 4" "expert_tensor_parallel_degree = 2" no
titan "--tp 2 --ep 4 --etp 1" absent no
titan "--tp 4 --ep 4 --etp 2" "expert_tensor_parallel_degree = 2" yes
titan "--tp 4 --ep 2 --etp 1" absent yes
# EP 1 with ETP 1 under TP 2: EP 1 is no multiple of CP x TP = 2, so
# torchtitan runs the experts at ETP = TP 2, not the plan's 1: denied.
titan "--tp 2 --ep 1 --etp 1" absent yes
# shellcheck disable=SC2086
$H launch $fo --tp 2 --ep 1 --etp 1 --format deepspeed > /dev/null 2>"$T/err" || bad "deepspeed ep 1 etp 1"
grep -q "DeepSpeed does not run this plan as planned: expert TP 1 unlike TP 2" "$T/err" && ok ||
	bad "deepspeed ep 1 etp 1: no denial: $(cat "$T/err")"
# shellcheck disable=SC2086
$H launch $fo --tp 2 --ep 8 --etp 1 --format deepspeed > /dev/null 2>"$T/err" || bad "deepspeed etp 1"
grep -q "DeepSpeed does not run this plan as planned: expert TP 1 unlike TP 2" "$T/err" && ok ||
	bad "deepspeed etp 1: no denial: $(cat "$T/err")"

# --- The token dispatcher (the moe_dispatch key). Megatron-Core's
# --moe-token-dispatcher-type takes allgather, alltoall or flex, and
# --moe-flex-dispatcher-backend deepep, hybridep or ncclep
# (transformer_config.py @d98e8a64 L891 and L898, made flags by
# arguments.py L2373): alltoall writes the first alone, flex (the
# megatron-core default) the second too, with HybridEP. Both flags are in
# the pinned list. Mixtral 8x7B, EP 8 on 8 H100 (--force).
for f in --moe-token-dispatcher-type --moe-flex-dispatcher-backend; do
	grep -qxF -- "$f" tests/data/megatron_args.txt && ok || bad "$f not in megatron_args.txt"
done
for d in "alltoall|moe-token-dispatcher-type=alltoall moe-flex-dispatcher-backend=<absent>" \
	"flex|moe-token-dispatcher-type=flex moe-flex-dispatcher-backend=hybridep" \
	"|moe-token-dispatcher-type=flex moe-flex-dispatcher-backend=hybridep"; do
	arg=${d%%|*}
	# shellcheck disable=SC2086
	$H launch $fo --tp 1 --ep 8 ${arg:+--moe-dispatch $arg} > "$T/md" 2>"$T/err" ||
		bad "moe_dispatch '$arg' launch: $(cat "$T/err")"
	known_flags "$T/md" "moe_dispatch '$arg'"
	expect "$T/md" "${d#*|}" "moe_dispatch '$arg'"
done
# flex asked of DeepSpeed's launcher: a denial (its MoE sends with an
# all-to-all)
# shellcheck disable=SC2086
$H launch $fo --tp 1 --ep 8 --moe-dispatch flex --format deepspeed > /dev/null 2>"$T/err" ||
	bad "deepspeed flex launch"
grep -q "DeepSpeed does not run this plan as planned: the flex token dispatcher" "$T/err" && ok ||
	bad "deepspeed moe_dispatch flex: no denial: $(cat "$T/err")"
# Megatron-DeepSpeed TP-splits the experts only with
# --enable-expert-tensor-parallelism (its arguments.py: store_true,
# default False): the note names it at TP 2 with ETP = TP, not at TP 1.
# shellcheck disable=SC2086
$H launch $fo --tp 2 --ep 4 --format deepspeed > /dev/null 2>"$T/err" || bad "deepspeed tp 2 ep 4"
grep -q -- "--enable-expert-tensor-parallelism" "$T/err" && ok ||
	bad "deepspeed tp 2 ep 4: no --enable-expert-tensor-parallelism note: $(cat "$T/err")"
# shellcheck disable=SC2086
$H launch $fo --tp 1 --ep 8 --format deepspeed > /dev/null 2>"$T/err" || bad "deepspeed tp 1 ep 8"
grep -q -- "--enable-expert-tensor-parallelism" "$T/err" && bad "deepspeed tp 1: expert TP note" || ok
# Megatron's MoELayer.forward raises in training at TP > 1 without
# sequence parallelism (moe_layer.py @001199898c4b): a plan under another
# framework with --no-sp still gets --sequence-parallel in its Megatron
# config and a sentence saying the plan is not run as planned.
# shellcheck disable=SC2086
$H launch $fo --tp 2 --ep 4 --no-sp --format megatron > "$T/nosp" 2>"$T/err" || bad "megatron tp 2 no-sp"
grep -qxF -- "--sequence-parallel \\" "$T/nosp" && ok || bad "megatron tp 2 no-sp moe: no --sequence-parallel"
grep -q "refuses tensor parallelism above 1 without sequence parallelism" "$T/err" && ok ||
	bad "megatron tp 2 no-sp moe: no denial: $(cat "$T/err")"

# --- more settings: every flag still in the list
i=0
for args in "-m deepseek-v3 --tp 8 --pp 8 --ep 8 --dp 8 --mbs 1 --gbs 1024 --zero 3 --recompute full" \
	"-m llama3.1-8b --tp 4 --pp 4 --dp 2 --mbs 1 --gbs 64 --schedule interleaved:2 --precision fp8" \
	"-m llama3.1-8b --tp 2 --pp 1 --cp 2 --dp 4 --seq-len 16384 --mbs 1 --gbs 64 --zero 2 --recompute selective" \
	"-m qwen2.5-72b --tp 8 --pp 8 --dp 1 --mbs 1 --gbs 64" \
	"-m gpt3-175b --tp 8 --pp 8 --dp 1 --mbs 1 --gbs 64 --precision fp16 --zero 0" \
	"-m llama3.1-8b --tp 2 --pp 4 --dp 8 --mbs 1 --gbs 64 --recompute full --recompute-layers 2"; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	$H launch --pool 64x8xH100-SXM $args --force > "$T/m$i" 2>"$T/err" ||
		bad "launch $args: $(cat "$T/err")"
	known_flags "$T/m$i" "launch $args"
	# shellcheck disable=SC2086
	$H launch --pool 64x8xH100-SXM $args --force --format deepspeed > "$T/d$i" 2>"$T/err" ||
		bad "deepspeed $args: $(cat "$T/err")"
	python3 - "$T/d$i" <<'PY' && ok || bad "DeepSpeed keys not in its config documentation ($args)"
import json, sys
known = {l.strip() for l in open("tests/data/deepspeed_keys.txt") if l.strip() and not l.startswith("#")}
bad = []
def walk(o):
    if isinstance(o, dict):
        for k, v in o.items():
            if k not in known:
                bad.append(k)
            walk(v)
    elif isinstance(o, list):
        for v in o:
            walk(v)
d = json.load(open(sys.argv[1]))
# a heterogeneous plan: hetplan's own wrapper around one config per piece
for cfg in [p["config"] for p in d["pieces"]] if "pieces" in d else [d]:
    walk(cfg)
if bad:
    print("unknown:", bad)
    sys.exit(1)
PY
	# shellcheck disable=SC2086
	$H launch --pool 64x8xH100-SXM $args --force --format torchtitan > "$T/t$i" 2>"$T/err" ||
		bad "torchtitan $args: $(cat "$T/err")"
	python3 - "$T/t$i" <<'PY' && ok || bad "torchtitan keys not in its job config ($args)"
import sys, tomllib
known = {l.strip() for l in open("tests/data/torchtitan_keys.txt") if l.strip() and not l.startswith("#")}
d = tomllib.load(open(sys.argv[1], "rb"))
bad = [f"{s}.{k}" for s, kv in d.items() for k in kv if f"{s}.{k}" not in known]
if bad:
    print("unknown:", bad)
    sys.exit(1)
PY
done

# --- torchtitan runs the plan's pipeline as planned (torchtitan commit
# 8a2686c4, the pinned job config):
#   - n_microbatches = local_batch_size / pipeline_parallel_microbatch_size
#     (distributed/pipeline_parallel.py build_pipeline_schedule) and
#     gradient accumulation = global / (local x DP) (train.py). Llama 3.1
#     70B, TP 8 x PP 4 x DP 4, mbs 1, gbs 1024: the plan pipelines
#     1024 / 4 = 256 micro-batches, so local_batch_size = 256 and one
#     accumulation step (1024 / (256 x 4) = 1); local 1 would give 256
#     schedule calls of one micro-batch, a fill and drain each.
#   - pipeline_parallel_split_points raises "deprecated"
#     (models/llama3/infra/pipeline.py) and layers_per_stage = 20 counts
#     the embedding and output as a layer each: ceil(82 / 20) = 5 stages,
#     not divisible by PP 4, ValueError. The split goes in
#     module_fqns_per_model_part: 4 parts of 20 layers, tok_embeddings
#     first, norm and output last.
#   - interleaved:2 (Interleaved1F1B): 8 parts of 10 layers, part j x 4 + s
#     on rank s.
#   - async TP needs compile.enable and "model" in compile.components
#     (distributed/tensor_parallel.py maybe_enable_async_tp); asked for
#     with --tp-overlap on, since torchtitan's own default, which the
#     format now implies, is off (parallelism.enable_async_tensor_parallel
#     = False in job_config.py).
for case in "1f1b|4|20" "interleaved:2|8|10"; do
	IFS='|' read -r sched parts per <<EOC
$case
EOC
	$H launch --pool 16x8xH100-SXM -m llama3.1-70b --tp 8 --pp 4 --mbs 1 --gbs 1024 \
		--schedule "$sched" --tp-overlap on --format torchtitan > "$T/tt" 2>/dev/null || bad "torchtitan $sched"
	python3 - "$T/tt" "$parts" "$per" <<'PY' && ok || bad "torchtitan pipeline, $sched"
import sys, tomllib
d = tomllib.load(open(sys.argv[1], "rb"))
parts, per = int(sys.argv[2]), int(sys.argv[3])
t, par = d["training"], d["parallelism"]
assert t["local_batch_size"] == 256 and t["global_batch_size"] == 1024, t
assert par["pipeline_parallel_microbatch_size"] == 1, par
assert t["global_batch_size"] // (t["local_batch_size"] * par["data_parallel_shard_degree"]) == 1
assert "pipeline_parallel_split_points" not in par and "pipeline_parallel_layers_per_stage" not in par
fq = par["module_fqns_per_model_part"]
assert len(fq) == parts, len(fq)
want = [[f"layers.{i}" for i in range(j * per, (j + 1) * per)] for j in range(parts)]
want[0].insert(0, "tok_embeddings")
want[-1] += ["norm", "output"]
assert fq == want, fq
assert par["enable_async_tensor_parallel"] is True
assert d["compile"]["enable"] is True and "model" in d["compile"]["components"], d.get("compile")
PY
done
# without TP overlap there is no async TP, and no compile section is needed
$H launch --pool 16x8xH100-SXM -m llama3.1-70b --tp 8 --pp 4 --mbs 1 --gbs 1024 \
	--tp-overlap off --format torchtitan > "$T/tt" 2>/dev/null || bad "torchtitan tp-overlap off"
grep -q "enable_async_tensor_parallel\|^\[compile\]" "$T/tt" && bad "tp-overlap off: async TP or compile written" || ok
# no PP: the micro-batch is the local batch, gradients accumulate over
# 1024 / (2 x 64) = 8 steps (TP 2 x DP 64 on 128 GPUs, mbs 2)
$H launch --pool 16x8xH100-SXM -m llama3.1-8b --tp 2 --pp 1 --mbs 2 --gbs 1024 \
	--format torchtitan > "$T/tt" 2>/dev/null || bad "torchtitan pp 1"
grep -qx "local_batch_size = 2" "$T/tt" && ok || bad "pp 1: $(grep local_batch "$T/tt")"

# --- ZeRO-2/3 comments agree with the arguments: Megatron gets Megatron-FSDP
# (--use-megatron-fsdp, sharding strategy optim_grads / optim_grads_params)
# and torchtitan FSDP2, so no format may say "for ZeRO-3 use DeepSpeed or
# Megatron-Core FSDP" (the header said so above --use-megatron-fsdp, and in
# torchtitan's TOML).
for fmt in megatron torchtitan; do
	$H launch --pool 4x8xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 64 --zero 3 \
		--format $fmt > "$T/z3" 2>/dev/null || bad "zero 3 $fmt"
	grep -q "for ZeRO-3 use" "$T/z3" && bad "$fmt: ZeRO-3 comment contradicts the config" || ok
done
$H launch --pool 4x8xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 64 --zero 3 > "$T/z3" 2>/dev/null
expect "$T/z3" "use-megatron-fsdp= data-parallel-sharding-strategy=optim_grads_params" "zero 3"

# --- DeepSpeed's JSON has no expert-parallel key: an EP plan names where it
# goes (Megatron-DeepSpeed --num-experts, --moe-expert-parallel-size; the
# DeepSpeed MoE tutorial's flags). Mixtral 8x7B: num_local_experts 8 in its
# config.json; EP 4 as planned. The note said TP and PP only.
$H launch --pool 4x8xH100-SXM -m mixtral-8x7b --tp 2 --pp 2 --ep 4 --mbs 1 --gbs 256 \
	--framework deepspeed --format deepspeed --force > /dev/null 2>"$T/dsn" || bad "deepspeed EP launch"
grep -qF -- "--num-experts 8 --moe-expert-parallel-size 4" "$T/dsn" && ok ||
	bad "deepspeed EP 4: no note on where EP goes: $(cat "$T/dsn")"

# --- a plan the format's framework cannot run as planned is said to be so:
# DeepSpeed's pipeline engine has one training schedule, 1F1B
# (deepspeed/runtime/pipe/schedule.py TrainSchedule), so an interleaved:2
# plan's DeepSpeed config runs another schedule than the estimate's; the
# config was written without a word. A plain 1F1B plan gets no such line.
$H launch --pool 16x8xH100-SXM -m llama3.1-70b --tp 8 --pp 4 --mbs 1 --gbs 1024 \
	--schedule interleaved:2 --framework deepspeed --format deepspeed >/dev/null 2>"$T/dn" ||
	bad "deepspeed interleaved launch"
grep -q "DeepSpeed does not run this plan as planned: interleaved schedule" "$T/dn" && ok ||
	bad "deepspeed interleaved: no statement: $(cat "$T/dn")"
$H launch --pool 16x8xH100-SXM -m llama3.1-70b --tp 8 --pp 4 --mbs 1 --gbs 1024 \
	--framework deepspeed --format deepspeed >/dev/null 2>"$T/dn" || bad "deepspeed 1f1b launch"
grep -q "does not run this plan as planned" "$T/dn" && bad "deepspeed 1f1b: $(cat "$T/dn")" || ok
# and in the TOML's comments: torchtitan's FSDP2 has no ZeRO-1
$H launch --pool 16x8xH100-SXM -m llama3.1-70b --tp 8 --pp 4 --mbs 1 --gbs 1024 --zero 1 \
	--format torchtitan > "$T/tn" 2>/dev/null || bad "torchtitan zero 1 launch"
grep -q "^# torchtitan (FSDP2) does not run this plan as planned: ZeRO-1" "$T/tn" && ok ||
	bad "torchtitan ZeRO-1: no statement in the config: $(head -5 "$T/tn")"
# --- no --zero under --framework torchtitan: the stage torchtitan runs
# unasked, so the config is the plan. fsdp_reshard_after_forward "default"
# (torchtitan/config/job_config.py @8a2686c4) is reshard_after_forward =
# not pp_enabled (models/llama3/infra/parallelize.py @8a2686c4 L285-288):
# ZeRO-3 without PP, ZeRO-2 ("never") with it. The launch warned "does not
# run this plan as planned: ZeRO-1" and wrote a ZeRO-2 config.
TT="$H launch --framework torchtitan --pool 2x8xH100-SXM -m llama3.1-8b --tp 2 --mbs 1 --gbs 64 --format torchtitan"
$TT --pp 1 > "$T/tz" 2>"$T/err" || bad "torchtitan default zero launch: $(cat "$T/err")"
grep -qx 'fsdp_reshard_after_forward = "default"' "$T/tz" && grep -qx "data_parallel_shard_degree = 8" "$T/tz" &&
	ok || bad "torchtitan pp 1 default zero: $(grep -e reshard -e shard_degree "$T/tz")"
cat "$T/err" "$T/tz" | grep -q "does not run this plan" && bad "torchtitan pp 1: $(cat "$T/err")" || ok
$TT --pp 2 > "$T/tz" 2>"$T/err" || bad "torchtitan pp 2 launch: $(cat "$T/err")"
grep -qx 'fsdp_reshard_after_forward = "never"' "$T/tz" && ok ||
	bad "torchtitan pp 2 default zero: $(grep reshard "$T/tz")"
cat "$T/err" "$T/tz" | grep -q "does not run this plan" && bad "torchtitan pp 2: $(cat "$T/err")" || ok
# ZeRO-3 asked for with PP: "default" would keep the parameters gathered
# (not pp_enabled is False), so the config names "always"
$TT --pp 2 --zero 3 > "$T/tz" 2>"$T/err" || bad "torchtitan pp 2 zero 3 launch: $(cat "$T/err")"
grep -qx 'fsdp_reshard_after_forward = "always"' "$T/tz" && ok ||
	bad "torchtitan pp 2 zero 3: $(grep reshard "$T/tz")"

# --- tp_host_sync is AMP's Megatron-LM fork's behaviour (a host
# synchronize around each TP all-reduce); no stock framework launch writes
# for has it, so the config runs without it and launch says so, naming the
# key, as for the other estimate-only settings (loss, master).
for fmt in megatron torchtitan deepspeed; do
	$H launch --pool 2x8xH100-SXM -m llama3.1-8b --tp 2 --pp 1 --mbs 1 --gbs 64 --zero 1 \
		--tp-host-sync on --format $fmt --force > "$T/hs" 2>"$T/err" || bad "tp-host-sync $fmt: $(cat "$T/err")"
	cat "$T/err" "$T/hs" | grep -q "tp_host_sync on" && ok || bad "tp-host-sync $fmt: no note naming the key"
done

# --- DeepSpeed's activation_checkpointing section configures
# deepspeed.checkpointing (partitioning, CPU copies) and turns nothing on:
# the model calls deepspeed.checkpointing.checkpoint (DeepSpeed's
# activation-checkpointing API page). A full-recompute plan's notes name
# the model-side switches; the selective note said "the config turns
# checkpointing on" and the full one said nothing.
$H launch --pool 4x8xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 64 --zero 3 \
	--recompute full --framework deepspeed --format deepspeed > /dev/null 2>"$T/dsr" || bad "deepspeed full recompute"
grep -qF -- "--recompute-granularity full --recompute-method uniform --deepspeed-activation-checkpointing" "$T/dsr" &&
	ok || bad "deepspeed full recompute: no model-side switch named: $(cat "$T/dsr")"
grep -q "the config turns checkpointing on" "$T/dsr" && bad "deepspeed: says the config turns checkpointing on" || ok

# --- recompute_layers: only some layers of each stage recomputed.
# Megatron-LM (megatron/core/recompute.py @d98e8a64, the 'block' branch;
# transformer_config.py: "block will recompute the input activations for
# only a set number of transformer layers per pipeline stage"): Llama 3.1
# 8B on PP 4 (8 layers a stage), 2 recomputed: --recompute-granularity
# full --recompute-method block --recompute-num-layers 2 (all three in
# megatron_args.txt, checked by known_flags). torchtitan
# (distributed/activation_checkpoint.py @8a2686c4, _apply_layer_sac:
# block n wrapped when n % K == 0, n counted from 1): 2 of 8 is every
# 4th, mode "selective", selective_ac_option "4"; 3 of 8 has no K
# (8 / 2 = 4 blocks, 8 / 3 = 2), so K = 2 and a comment says 4 are
# recomputed. DeepSpeed: the model-side flags in the note.
RL="--pool 4x8xH100-SXM -m llama3.1-8b --tp 2 --pp 4 --dp 4 --mbs 1 --gbs 64 --recompute full"
# shellcheck disable=SC2086
$H launch $RL --recompute-layers 2 --force > "$T/rl" 2>"$T/err" || bad "megatron recompute-layers: $(cat "$T/err")"
known_flags "$T/rl" "recompute-layers"
expect "$T/rl" "recompute-granularity=full recompute-method=block recompute-num-layers=2" "recompute-layers 2"
# shellcheck disable=SC2086
$H launch $RL --recompute-layers 2 --force --format torchtitan > "$T/rlt" 2>"$T/err" ||
	bad "torchtitan recompute-layers: $(cat "$T/err")"
# shellcheck disable=SC2086
$H launch $RL --recompute-layers 3 --force --format torchtitan > "$T/rlt3" 2>"$T/err" ||
	bad "torchtitan recompute-layers 3: $(cat "$T/err")"
python3 - "$T/rlt" "$T/rlt3" <<'PY' && ok || bad "torchtitan recompute-layers: mode and every-K-th"
import sys, tomllib
a, b = (tomllib.load(open(x, "rb"))["activation_checkpoint"] for x in sys.argv[1:])
assert a == {"mode": "selective", "selective_ac_option": "4"}, a
assert b == {"mode": "selective", "selective_ac_option": "2"}, b
assert "# one layer in 2 is recomputed: 4 of a stage's 8" in open(sys.argv[2]).read()
PY
# shellcheck disable=SC2086
$H launch $RL --recompute-layers 2 --force --format deepspeed --framework deepspeed > /dev/null 2>"$T/dsr" ||
	bad "deepspeed recompute-layers"
grep -qF -- "--recompute-granularity full --recompute-method block --recompute-num-layers 2 --deepspeed-activation-checkpointing" "$T/dsr" &&
	ok || bad "deepspeed recompute-layers: $(cat "$T/dsr")"

# --- a plan that does not fit: 70B, TP 8, ZeRO-0 on 8 x A100-40GB needs
# 16 bytes per parameter of model state alone: 70.6e9 x 16 / 8 = 141 GB
# per GPU against 40 GiB.
$H launch --pool 1x8xA100-40GB -m llama3.1-70b --tp 8 --pp 1 --zero 0 --mbs 1 --gbs 64 \
	> "$T/o" 2>"$T/err"
rc=$?
[ $rc = 4 ] && grep -q "does not fit in GPU memory" "$T/err" && grep -q "GiB" "$T/err" && ok ||
	bad "non-fitting plan: exit $rc, $(cat "$T/err")"
[ ! -s "$T/o" ] && ok || bad "non-fitting plan wrote a config"
$H launch --pool 1x8xA100-40GB -m llama3.1-70b --tp 8 --pp 1 --zero 0 --mbs 1 --gbs 64 --force \
	> "$T/o" 2>"$T/err" && [ -s "$T/o" ] && ok || bad "--force: $(cat "$T/err")"

# --- heterogeneous: pieces add up. TP 4 x PP 5 x DP 7 = 140 GPUs on
# 8-GPU nodes: ceil(140 / 8) = 18 nodes (the pool's 18), 17 x 8 + 4 = 140
# (the script asked for 35 nodes x 4, more nodes than the pool has).
# Each piece trains its share of the plan's samples once: 2T tokens at
# 8192 a sequence = 244140625 samples, ceil(244140625 / 96) = 2543132
# steps, so 7 x 8 = 56 sequences x 2543132 = 142415392 samples on h and
# 5 x 8 = 40 x 2543132 = 101725280 on a (together 244140672 >= 244140625);
# each had been given all 244140625.
cat > "$T/het.json" <<'J'
{"mbs":1,"gbs":96,"zero":1,"replicas":[
 {"count":7,"batch_share":0.08333333333333333,"stages":[
  {"pool":"h","tp":4,"first_layer":0,"last_layer":15},{"pool":"h","tp":4,"first_layer":16,"last_layer":31},
  {"pool":"h","tp":4,"first_layer":32,"last_layer":47},{"pool":"h","tp":4,"first_layer":48,"last_layer":63},
  {"pool":"h","tp":4,"first_layer":64,"last_layer":79}]},
 {"count":5,"batch_share":0.0833333333333333,"stages":[
  {"pool":"a","tp":8,"first_layer":0,"last_layer":39},{"pool":"a","tp":8,"first_layer":40,"last_layer":79}]}]}
J
$H launch --pool 18x8xH100-SXM,name=h --pool 10x8xA100-80GB,name=a -m llama3.1-70b \
	--plan "$T/het.json" --tokens 2T --format slurm > "$T/het.sh" 2>"$T/err" && ok ||
	bad "hetero launch: $(cat "$T/err")"
python3 - "$T/het.sh" <<'PY' && ok || bad "hetero pieces do not add up (above)"
import re, sys
text = open(sys.argv[1]).read()
pieces = text.split("\n#!/bin/bash")[1:]
assert len(pieces) == 2, len(pieces)
worlds, batches, samples = [], [], []
for p in pieces:
    nodes = int(re.search(r"#SBATCH --nodes=(\d+)", p).group(1))
    gpn = int(re.search(r"#SBATCH --gpus-per-node=(\d+)", p).group(1))
    tp = int(re.search(r"--tensor-model-parallel-size (\d+)", p).group(1))
    pp = int(re.search(r"--pipeline-model-parallel-size (\d+)", p).group(1))
    dp = int(re.search(r"x DP (\d+) =", p).group(1))
    gbs = int(re.search(r"--global-batch-size (\d+)", p).group(1))
    samples.append(int(re.search(r"--train-samples (\d+)", p).group(1)))
    world = tp * pp * dp
    # the fewest 8-GPU nodes, the last one holding the rest
    assert nodes == -(-world // 8) and gpn == 8, (nodes, gpn, world)
    last = world - (nodes - 1) * 8
    if last != 8:
        assert "? 8 : %d))" % last in p, "no per-node count for the last node"
    worlds.append(world)
    batches.append(gbs)
# 7 x 4 x 5 = 140 and 5 x 8 x 2 = 80; 96 sequences = 7 x 8 + 5 x 8
assert worlds == [140, 80], worlds
assert sum(batches) == 96, batches
assert samples == [142415392, 101725280], samples
PY
# torchtitan: training.steps is the plan's 2543132 in both pieces (it was
# 244140625 / 56 and / 40 rounded up: 4359655 and 6103516)
$H launch --pool 18x8xH100-SXM,name=h --pool 10x8xA100-80GB,name=a -m llama3.1-70b \
	--plan "$T/het.json" --tokens 2T --format torchtitan > "$T/het.toml" 2>/dev/null ||
	bad "hetero torchtitan launch"
[ "$(grep '^steps = ' "$T/het.toml" | tr '\n' ' ')" = "steps = 2543132 steps = 2543132 " ] && ok ||
	bad "hetero torchtitan steps: $(grep '^steps' "$T/het.toml" | tr '\n' ' ')"

# --- precision flags. Megatron takes --bf16 or --fp16 for mixed precision
# and neither to train in fp32 (megatron/training/arguments.py, the pinned
# list); DeepSpeed's config likewise has a "bf16" or "fp16" block or none.
# A tf32 or fp32 plan writes none (the run keeps fp32 tensors) and says how
# TF32 is switched on. DeepSpeed's pipeline engine partitions a stage's
# output over the TP ranks unless its config says otherwise
# (deepspeed/runtime/config.py get_pipeline_config: pipe_partitioned and
# grad_partitioned default True); under sequence parallelism the output is
# each rank's own shard already, so the config turns both off.
tf="-m llama3.1-8b --tp 2 --pp 2 --dp 2 --mbs 1 --gbs 8"
# shellcheck disable=SC2086
$H launch --pool 1x8xA100-80GB $tf --precision tf32 > "$T/t32" 2>"$T/n32" || bad "tf32 launch: $(cat "$T/n32")"
known_flags "$T/t32" "tf32"
expect "$T/t32" "bf16=<absent> fp16=<absent>" "tf32"
grep -q "allow_tf32 = True" "$T/n32" && ok || bad "tf32: no note on allow_tf32: $(cat "$T/n32")"
for case in "tf32|--precision tf32|None|False" "bf16 SP|--precision bf16|True|False" \
	"bf16 no SP|--precision bf16 --no-sp|True|None"; do
	IFS='|' read -r name args bf part <<EOC
$case
EOC
	# shellcheck disable=SC2086
	$H launch --pool 1x8xA100-80GB $tf $args --framework deepspeed --format deepspeed \
		> "$T/dsc" 2>/dev/null || bad "$name: deepspeed launch"
	python3 - "$T/dsc" "$bf" "$part" <<'PY' && ok || bad "deepspeed config, $name"
import json, sys
d = json.load(open(sys.argv[1]))
bf = d.get("bf16", {}).get("enabled")
part = d.get("pipeline", {}).get("pipe_partitioned")
assert str(bf) == sys.argv[2] and str(part) == sys.argv[3], (bf, part)
assert "fp16" not in d
PY
done

# --- Megatron-FSDP (ZeRO-2/3). megatron/training/arguments.py @d98e8a64,
# validate_args under "if args.use_megatron_fsdp:": L1166-1167 "assert
# os.environ.get('CUDA_DEVICE_MAX_CONNECTIONS') != "1", 'FSDP requires
# CUDA_DEVICE_MAX_CONNECTIONS > 1 or unset.'" and L1169-1170 "assert
# args.ckpt_format == "fsdp_dtensor"". The script exported 1 and no
# checkpoint format (the default, torch_dist). Without FSDP, TP 2 on
# Hopper still needs 1 (L1453-1479, "Using tensor model parallelism or
# context parallelism require setting ... CUDA_DEVICE_MAX_CONNECTIONS to 1").
for z in 2 3; do
	$H launch --pool 2x8xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 256 --zero $z \
		--format slurm > "$T/fsdp" 2>"$T/err" || bad "zero $z slurm: $(cat "$T/err")"
	$H launch --pool 2x8xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 256 --zero $z \
		> "$T/fsdpm" 2>/dev/null || bad "zero $z megatron"
	known_flags "$T/fsdpm" "zero $z"
	expect "$T/fsdp" "use-megatron-fsdp= ckpt-format=fsdp_dtensor" "zero $z"
	grep -q '^export CUDA_DEVICE_MAX_CONNECTIONS=1$' "$T/fsdp" &&
		bad "zero $z: CUDA_DEVICE_MAX_CONNECTIONS=1 under Megatron-FSDP" || ok
done
# Megatron-FSDP overlaps the gradient reduce-scatter whenever it shards
# gradients, whatever the flags (megatron/core/distributed/fsdp/src/
# megatron_fsdp/megatron_fsdp.py @d98e8a64 L331-333, "Default to overlapped
# gradient reduce-scatter when sharding gradients"): a ZeRO-3 plan costed
# without it is said not to run as planned; with it (the default), not.
$H launch --pool 2x8xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 256 --zero 3 \
	--grad-overlap off --param-overlap off > /dev/null 2>"$T/err"
grep -q "Megatron-Core does not run this plan as planned: ZeRO-3 without the gradient-reduce overlap" \
	"$T/err" && ok || bad "zero 3 without grad overlap: $(cat "$T/err")"
$H launch --pool 2x8xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 256 --zero 3 \
	> /dev/null 2>"$T/err"
grep -q "does not run this plan as planned" "$T/err" && bad "zero 3 default: $(cat "$T/err")" || ok
$H launch --pool 2x8xH100-SXM -m llama3.1-8b --tp 2 --pp 1 --mbs 1 --gbs 256 --zero 1 \
	--format slurm > "$T/z1" 2>/dev/null || bad "zero 1 slurm"
grep -q '^export CUDA_DEVICE_MAX_CONNECTIONS=1$' "$T/z1" && ok || bad "zero 1 TP 2: not 1"
expect "$T/z1" "ckpt-format=<absent> use-megatron-fsdp=<absent>" "zero 1"

# --- nodes: 13 GPUs of a pool of 8-GPU nodes fill ceil(13 / 8) = 2 nodes,
# 8 and 5 (the script asked for 13 nodes x 1). torchrun takes a different
# --nproc-per-node on each node: the elastic agent gives each agent the
# global ranks after the running sum of the local world sizes before it
# (torch/distributed/elastic/agent/server/api.py,
# SimpleElasticAgent._assign_worker_ranks). The script is run below with
# stand-ins for srun (one task per node, SLURM_NODEID 0 and 1), scontrol
# and torchrun, which prints its process count.
$H launch --pool 2x8xH100-SXM -m gpt-1.7b --tp 1 --pp 1 --dp 13 --mbs 1 --gbs 13 \
	--format slurm > "$T/n13" 2>"$T/err" || bad "13 GPUs: $(cat "$T/err")"
grep -qx '#SBATCH --nodes=2' "$T/n13" && ok || bad "13 GPUs: $(grep nodes= "$T/n13")"
mkdir -p "$T/bin"
printf '#!/bin/sh\nfor i in 0 1; do SLURM_NODEID=$i "$@"; done\n' > "$T/bin/srun"
printf '#!/bin/sh\necho node0\n' > "$T/bin/scontrol"
printf '#!/bin/sh\nwhile [ "$1" != --nproc-per-node ]; do shift; done\necho "$2"\n' > "$T/bin/torchrun"
chmod +x "$T/bin/srun" "$T/bin/scontrol" "$T/bin/torchrun"
got=$(PATH="$T/bin:$PATH" SLURM_NNODES=2 SLURM_JOB_ID=1 SLURM_JOB_NODELIST=x MEGATRON=/m \
	bash "$T/n13" 2>&1 | tr '\n' ' ')
[ "$got" = "8 5 " ] && ok || bad "13 GPUs: per-node processes '$got', want '8 5 '"
# 12 GPUs at TP 2: 2 nodes of 6 (6 a multiple of TP 2), the same count on each
$H launch --pool 2x8xH100-SXM -m gpt-1.7b --tp 2 --pp 1 --dp 6 --mbs 1 --gbs 12 \
	--format slurm > "$T/n12" 2>/dev/null || bad "12 GPUs"
grep -qx '#SBATCH --nodes=2' "$T/n12" && grep -qx '#SBATCH --gpus-per-node=6' "$T/n12" &&
	grep -q -- '--nproc-per-node 6 ' "$T/n12" && ok || bad "12 GPUs: $(grep -e nodes= -e nproc "$T/n12")"
# 12 GPUs at TP 4 on two 6-GPU nodes: 6 + 6 splits a TP group, 4 + 4 + 4
# needs a third node: refused, naming --tp (exit 2)
$H launch --pool 2x6xH100-SXM -m llama3.1-8b --tp 4 --pp 1 --dp 3 --mbs 1 --gbs 12 \
	--seq-len 2048 > "$T/o" 2>"$T/err"
rc=$?
[ $rc = 2 ] && grep -q -- "--tp 4" "$T/err" && [ ! -s "$T/o" ] && ok ||
	bad "TP 4 on 6-GPU nodes: exit $rc, $(cat "$T/err")"

# --- Megatron-LM 2021-22's MoE layer is SwitchMLP (megatron/model/
# transformer.py @e1c334b0, 2022-12-21, L122-160: "Routes input to one of N
# MLP experts", torch.max over the router's softmax): top-1. Mixtral
# routes each token to 2 experts (config.json num_experts_per_tok 2), so
# its megatron-lm config is said not to run as planned; a top-1 variant
# of it is not. Megatron-Core's row has no such limit.
$H launch --pool 4x8xH100-SXM -m mixtral-8x7b --tp 2 --pp 2 --mbs 1 --gbs 64 \
	--framework megatron-lm --force > /dev/null 2>"$T/mlm"
grep -q "Megatron-LM (2021-22) does not run this plan as planned: its MoE layer (SwitchMLP, --num-experts) routes each token to one expert, and mixtral-8x7b routes to 2" "$T/mlm" &&
	ok || bad "megatron-lm mixtral: $(cat "$T/mlm")"
python3 - "$T/switch.json" <<'PY'
import json, sys
models = json.load(open("data/models.json"))["models"]
m = dict(next(x for x in models if x["name"] == "mixtral-8x7b"))
m["name"] = "switch-8x7b"
m["moe"] = dict(m["moe"], top_k=1)
json.dump(m, open(sys.argv[1], "w"))
PY
$H launch --pool 4x8xH100-SXM -m "$T/switch.json" --tp 2 --pp 2 --mbs 1 --gbs 64 \
	--framework megatron-lm --force > /dev/null 2>"$T/sw" || bad "switch model: $(cat "$T/sw")"
grep -q "SwitchMLP" "$T/sw" && bad "top-1 model under megatron-lm: $(cat "$T/sw")" || ok
$H launch --pool 4x8xH100-SXM -m mixtral-8x7b --tp 2 --pp 2 --mbs 1 --gbs 64 --force \
	> /dev/null 2>"$T/mc"
grep -q "SwitchMLP" "$T/mc" && bad "megatron-core mixtral: $(cat "$T/mc")" || ok

# --- parameter-gather overlap without the gradient-reduce overlap:
# arguments.py @d98e8a64 L1024-1029, "assert args.overlap_grad_reduce,
# 'Must use --overlap-param-gather with --overlap-grad-reduce'". The plan
# costs the gather hidden; the config had dropped --overlap-param-gather
# without a word. Megatron formats refuse it (exit 2, naming both flags);
# both on writes both flags.
$H launch --pool 2x8xH100-SXM -m llama3.1-8b --tp 2 --pp 1 --mbs 1 --gbs 256 --zero 1 \
	--grad-overlap off --param-overlap on > "$T/o" 2>"$T/err"
rc=$?
[ $rc = 2 ] && grep -q -- "--param-overlap on with --grad-overlap off" "$T/err" && [ ! -s "$T/o" ] &&
	ok || bad "param without grad overlap: exit $rc, $(cat "$T/err")"
$H launch --pool 2x8xH100-SXM -m llama3.1-8b --tp 2 --pp 1 --mbs 1 --gbs 256 --zero 1 \
	--grad-overlap on --param-overlap on > "$T/ov" 2>/dev/null || bad "both overlaps"
expect "$T/ov" "overlap-grad-reduce= overlap-param-gather= use-distributed-optimizer=" "both overlaps"

# --- --format torchtitan without --framework runs under torchtitan, with
# its defaults (framework_default_zero: FSDP2, ZeRO-3 at PP 1, ZeRO-2 with
# PP; torchtitan's parallelism.data_parallel_shard_degree -1 shards over
# every DP rank). Llama 3.1 8B on 4 x 8 H100, TP 1 PP 1: DP 32, so
# data_parallel_shard_degree = 32 and no replicate degree above 1; it fits
# sharded (ZeRO-1 was refused, 7.6 GiB over on 79.6), and the config is
# the one --framework torchtitan writes. With PP 2 (ZeRO-2) and with an
# explicit --zero 1 the same holds; stderr says the defaults were implied.
tt_base="--pool 4x8xH100-SXM -m llama3.1-8b --tp 1 --mbs 1 --gbs 64 --format torchtitan"
for v in "--pp 1" "--pp 2" "--pp 1 --zero 1 --force"; do
	# shellcheck disable=SC2086
	$H launch $tt_base $v > "$T/tti" 2>"$T/tti.err" || bad "torchtitan implied ($v): $(cat "$T/tti.err")"
	# shellcheck disable=SC2086
	$H launch $tt_base $v --framework torchtitan > "$T/ttf" 2>/dev/null || bad "torchtitan framework ($v)"
	cmp -s "$T/tti" "$T/ttf" && ok || bad "torchtitan ($v): config differs from --framework torchtitan's"
	grep -q "^hetplan launch: --format torchtitan without --framework: torchtitan's defaults" "$T/tti.err" &&
		ok || bad "torchtitan ($v): no note: $(cat "$T/tti.err")"
	python3 - "$T/tti" <<'PY' && ok || bad "torchtitan implied ($v): keys not in its job config"
import sys, tomllib
known = {l.strip() for l in open("tests/data/torchtitan_keys.txt") if l.strip() and not l.startswith("#")}
d = tomllib.load(open(sys.argv[1], "rb"))
bad = [f"{s}.{k}" for s, kv in d.items() for k in kv if f"{s}.{k}" not in known]
sys.exit("unknown: %r" % bad if bad else 0)
PY
done
$H launch $tt_base --pp 1 > "$T/tti" 2>/dev/null
grep -qx "data_parallel_shard_degree = 32" "$T/tti" && grep -qx "data_parallel_replicate_degree = 1" "$T/tti" &&
	ok || bad "torchtitan implied: $(grep data_parallel "$T/tti")"
# the other formats keep "any" (Megatron's ZeRO-1 distributed optimizer)
$H launch $tt_base --pp 1 --format megatron --force > "$T/ttm" 2>"$T/ttm.err" || bad "megatron any"
grep -q "without --framework" "$T/ttm.err" && bad "megatron format: torchtitan note" || ok

finish launch_args
