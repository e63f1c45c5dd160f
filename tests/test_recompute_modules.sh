#!/bin/sh
# test_recompute_modules.sh — the plan key recompute_modules (Megatron-Core's
# --recompute-modules, docs/recompute.md): the memory each module frees and
# the forward it runs again, by hand; the launch flags against Megatron-LM's
# argument list; the errors for bad names and settings.
# Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/cache" XDG_CONFIG_HOME="$T/config"

# --- mlp on Llama 3.1 70B (Hugging Face config.json: 80 layers, hidden
# h = 8,192, intermediate f = 28,672, SwiGLU), TP 8 with sequence
# parallelism, PP 4 (20 layers a stage), micro-batch 1, sequence 8,192,
# 64 micro-batches, 1F1B: stage 1 (layers 20-39) holds pp - 1 = 3
# micro-batches in flight.
# Memory. Megatron-Core checkpoints the dense MLP with its input, the
# residual stream that the fused LayerNormLinear normalises (kept anyway
# as the norm's input), so a layer no longer keeps, per token (bf16, 2 B):
#   the normalised FC1 input, 2 h / TP (SP)   =   2 x 8,192 / 8 =  2,048 B
#   FC1's output, gate and up, 2 x 2 f / TP   = 4 x 28,672 / 8 = 14,336 B
#   SwiGLU's output (FC2's input), 2 f / TP   = 2 x 28,672 / 8 =  7,168 B
# = 23,552 B a token, x 8,192 tokens = 192,937,984 B a layer and
# micro-batch; x 20 layers x 3 in flight = 11,576,279,040 B off stage 1.
# Hardware FLOPs: the MLP forward again, 2 x 3 x h x f = 1,409,286,144
# FLOP a token and layer, x 80 layers x 64 x 8,192 tokens
# = 59,109,745,005,330,432 FLOP a step (5.911e16).
# Time: each of stage 1's 20 layers reruns, for each of 64 micro-batches,
# 1,409,286,144 x 8,192 / 8 = 1.443e12 FLOP on a GPU; at the H100 SXM's
# dense BF16 peak (989.4 TFLOP/s, NVIDIA H100 datasheet) that is at least
# 20 x 64 x 1.443e12 / 989.4e12 = 1.867 s a step, and at half the peak
# (GEMMs this size run at 60-80% of it, plus the activation's bytes)
# 3.73 s: the time added must lie between the two.
P="--pool 4x8xH100-SXM -m llama3.1-70b --tp 8 --pp 4 --mbs 1 --gbs 64 --seq-len 8192"
for mods in none mlp core_attn,mlp; do
	if [ $mods = none ]; then extra=""; else extra="--recompute-modules $mods"; fi
	# shellcheck disable=SC2086
	expect 0 "" $H estimate $P --recompute selective $extra --format json
	cp "$T/out" "$T/m_$mods.json"
done
python3 - "$T" <<'PY' && ok || bad "mlp on a Llama 3.1 70B layer: memory, FLOPs and time by hand"
import json, sys
d = {n: json.load(open("%s/m_%s.json" % (sys.argv[1], n))) for n in ("none", "mlp", "core_attn,mlp")}
st = lambda n: d[n]["memory"][1]
kept = lambda n: st(n)["activations_bytes"] - st(n)["allocator_cache_bytes"]
assert st("mlp")["first_layer"] == 20 and st("mlp")["last_layer"] == 39
freed = kept("none") - kept("core_attn,mlp")
assert abs(freed - 11576279040) < 1e-6 * 11576279040, freed
hw = lambda n: d[n]["hardware_flops_per_step"] - d[n]["model_flops_per_step"]
added = hw("core_attn,mlp") - hw("none")
assert abs(added - 59109745005330432) < 1e-6 * 59109745005330432, added
# mlp alone: the list replaces the default, so no attention core again
assert abs(hw("mlp") - 59109745005330432) < 1e-6 * 59109745005330432, hw("mlp")
rc = lambda n: d[n]["breakdown_s"]["recompute"]
dt = rc("core_attn,mlp") - rc("none")
assert 1.867 <= dt <= 3.73, dt
assert d["mlp"]["plan"]["recompute_modules"] == "mlp"
assert "recompute_modules" not in d["none"]["plan"]
PY
# The estimate's header names the modules.
# shellcheck disable=SC2086
expect 0 "" $H estimate $P --recompute selective --recompute-modules "mlp, core_attn"
head -1 "$T/out" | grep -q "recompute selective (core_attn,mlp)," && ok ||
	bad "estimate header: $(head -1 "$T/out")"

# --- mlp on an MoE layer does nothing: Megatron-Core sets recompute_mlp
# only where the layer's MLP is not an MoELayer (transformer_layer.py
# @d98e8a64 L537-539). Mixtral 8x7B is MoE in every layer, so mlp alone
# keeps what no recomputation keeps and reruns nothing.
X="--pool 4x8xH100-SXM -m mixtral-8x7b --tp 2 --pp 2 --ep 8 --mbs 1 --gbs 64"
# shellcheck disable=SC2086
est_json mx0 $X --recompute none
# shellcheck disable=SC2086
est_json mx1 $X --recompute selective --recompute-modules mlp
python3 - "$T" <<'PY' && ok || bad "mlp on MoE layers frees and reruns nothing"
import json, sys
a, b = (json.load(open("%s/%s.json" % (sys.argv[1], n))) for n in ("mx0", "mx1"))
for i in range(2):
    assert a["memory"][i]["activations_bytes"] == b["memory"][i]["activations_bytes"], i
assert b["breakdown_s"]["recompute"] == 0, b["breakdown_s"]["recompute"]
assert b["hardware_flops_per_step"] == a["hardware_flops_per_step"]
PY

# --- moe_act on DeepSeek-V3 (61 layers, the first 3 dense, hidden 7,168,
# 256 routed experts of width f = 2,048, top-8, MLA), TP 1, PP 8, EP 8,
# micro-batch 1, sequence 4,096. The activation function's output (FC2's
# input) of the 8 routed copies goes: 2 B x 8 x 2,048 = 32,768 B a token,
# x 4,096 tokens = 134,217,728 B an MoE layer and micro-batch. Stage 1
# holds layers 7-14 (8 MoE layers) with pp - 1 = 7 micro-batches in
# flight: 8 x 7 x 134,217,728 = 7,516,192,768 B less. (The plan does not
# fit the GPUs; its memory is still reported, exit 4.)
V="--pool 8x8xH100-SXM -m deepseek-v3 --tp 1 --pp 8 --ep 8 --mbs 1 --gbs 64 --seq-len 4096"
# shellcheck disable=SC2086
est_json dv0 $V --recompute none
# shellcheck disable=SC2086
est_json dv1 $V --recompute selective --recompute-modules moe_act
python3 - "$T" <<'PY' && ok || bad "moe_act on DeepSeek-V3: memory by hand"
import json, sys
a, b = (json.load(open("%s/%s.json" % (sys.argv[1], n))) for n in ("dv0", "dv1"))
sa, sb = a["memory"][1], b["memory"][1]
n = sa["last_layer"] - sa["first_layer"] + 1
assert (sa["first_layer"], n) == (7, 8), (sa["first_layer"], n)   # MoE layers only
kept = lambda s: s["activations_bytes"] - s["allocator_cache_bytes"]
inflight = 8 - 1   # 1F1B, stage 1 of 8
want = 7516192768   # n x inflight x 134,217,728
assert abs(kept(sa) - kept(sb) - want) < 1e-6 * want, (kept(sa) - kept(sb), want, n)
assert b["breakdown_s"]["recompute"] > 0
PY

# mla_up_proj on the same stage: Q, K and V as hetplan's layer count holds
# them, 2 B x (q + 2 kv) a token with q = 128 heads x (128 + 64) = 24,576
# and kv = 128 x 128 = 16,384 (v heads): (2 x 24,576 + 4 x 16,384) x 4,096
# = 469,762,048 B a layer, x 8 x 7 = 26,306,674,688 B. layernorm: the MLA
# input norm and the MoE pre-MLP norm are modules of their own (the other
# norms are fused into TE's LayerNormLinear), 2 x 2 B x 7,168 x 4,096 =
# 117,440,512 B a layer, x 8 x 7 = 6,576,668,672 B.
# shellcheck disable=SC2086
est_json dv2 $V --recompute selective --recompute-modules mla_up_proj
# shellcheck disable=SC2086
est_json dv3 $V --recompute selective --recompute-modules layernorm
python3 - "$T" <<'PY' && ok || bad "mla_up_proj and layernorm on DeepSeek-V3: memory by hand"
import json, sys
d = {n: json.load(open("%s/%s.json" % (sys.argv[1], n))) for n in ("dv0", "dv2", "dv3")}
kept = lambda n: d[n]["memory"][1]["activations_bytes"] - d[n]["memory"][1]["allocator_cache_bytes"]
for n, want in (("dv2", 26306674688), ("dv3", 6576668672)):
    assert abs(kept("dv0") - kept(n) - want) < 1e-6 * want, (n, kept("dv0") - kept(n), want)
PY

# moe: Megatron-Core's checkpoint wraps MoELayer.forward, dispatch and
# combine included (moe/moe_layer.py @d98e8a64 L701-718), so each MoE
# layer's two all-to-alls run a third time before its backward: 6 where
# moe_act (inside the experts) leaves 4, the EP time x 1.5 (the plan has
# the EP overlap off: all exposed).
# shellcheck disable=SC2086
est_json dv4 $V --recompute selective --recompute-modules moe_act --ep-overlap off
# shellcheck disable=SC2086
est_json dv5 $V --recompute selective --recompute-modules moe --ep-overlap off
python3 - "$T" <<'PY' && ok || bad "moe reruns the dispatch and combine"
import json, sys
a, b = (json.load(open("%s/%s.json" % (sys.argv[1], n)))["breakdown_s"]["ep_comm"] for n in ("dv4", "dv5"))
assert a > 0 and abs(b / a - 1.5) < 1e-9, (a, b)
PY

# --- launch: Megatron's flags, every one in the pinned argument list
# (tests/data/megatron_args.txt, Megatron-LM @d98e8a64), the modules
# space-separated (TransformerConfig.recompute_modules is a List[str]:
# nargs "+", megatron/training/argument_utils.py L143-147).
# shellcheck disable=SC2086
expect 0 "" $H launch $P --recompute selective --recompute-modules core_attn,mlp
grep -qx -- "--recompute-granularity selective \\\\" "$T/out" && ok ||
	bad "launch: no --recompute-granularity selective"
grep -qx -- "--recompute-modules core_attn mlp \\\\" "$T/out" && ok ||
	bad "launch: --recompute-modules: $(grep -e '--recompute' "$T/out")"
for f in --recompute-granularity --recompute-modules; do
	grep -qxF -- $f tests/data/megatron_args.txt && ok || bad "$f not in megatron_args.txt"
done
# without the key, no --recompute-modules (Megatron's default core_attn)
# shellcheck disable=SC2086
expect 0 "" $H launch $P --recompute selective
grep -q -- "--recompute-modules" "$T/out" && bad "launch wrote --recompute-modules unasked" || ok
# other frameworks have no such setting: the plan runs on Megatron-Core only
# shellcheck disable=SC2086
expect 0 "does not run this plan as one job: recompute_modules" $H estimate $P \
	--recompute selective --recompute-modules mlp --framework megatron-lm

# --- errors: the flag or the key named, exit 2 (usage) or 3 (input).
# shellcheck disable=SC2086
expect 2 "--recompute-modules: expected a comma list of core_attn" $H estimate $P \
	--recompute selective --recompute-modules mlp,attn
# shellcheck disable=SC2086
expect 2 "--recompute-modules" $H estimate $P --recompute selective --recompute-modules ""
# shellcheck disable=SC2086
expect 3 "recompute_modules mlp needs recompute selective" $H estimate $P \
	--recompute full --recompute-modules mlp
# shellcheck disable=SC2086
expect 3 "recompute_modules mla_up_proj needs a model with multi-latent attention" \
	$H estimate $P --recompute selective --recompute-modules mla_up_proj
# shellcheck disable=SC2086
expect 3 "recompute_modules moe,shared_experts needs an MoE model" $H estimate $P \
	--recompute selective --recompute-modules moe,shared_experts
# the plan file: the key named with its file
# shellcheck disable=SC2086
$H estimate $P --recompute selective --recompute-modules mlp --format json |
	python3 -c "import json,sys; d=json.load(sys.stdin)['plan']; d['recompute_modules']='mlp,ffn'; print(json.dumps(d))" \
	> "$T/bad_plan.json"
# shellcheck disable=SC2086
expect 3 "recompute_modules: expected a comma list of \"core_attn\"" $H launch $P --plan "$T/bad_plan.json"
# plan: only with --recompute selective fixed
expect 2 "--recompute-modules needs --recompute selective" $H plan --pool 4x8xH100-SXM \
	-m llama3.1-70b --gbs 64 --recompute-modules mlp

finish recompute_modules
