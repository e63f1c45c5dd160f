#!/bin/sh
# test_moe_seq.sh — Megatron's older MoE path in `hetplan estimate` and
# `hetplan launch`: the moe_grouped_gemm key (off: SequentialMLP) and
# moe_dispatch allgather (MoEAllGatherTokenDispatcher), against what
# Megatron-LM's code says (NVIDIA/Megatron-LM @f1f03922, 2024-10-28, the
# commit MegaScale-MoE's baseline ran; docs/moe-seq.md):
#  - token_dispatcher.py MoEAllGatherTokenDispatcher.token_permutation
#    all-gathers each rank's T / tp tokens' hidden states over the TP x EP
#    group, then reduce-scatters them back in token_unpermutation; the
#    top-k indices and probabilities are all-gathered too. No all-to-all.
#  - experts.py SequentialMLP.forward: with one local expert it runs that
#    expert on the whole input (no split, no loop, no cat), the same
#    GEMMs and launches as a grouped GEMM of one.
#  - arguments.py @f1f03922 L1896 `--moe-grouped-gemm` (store_true), L1904
#    `--moe-token-dispatcher-type` choices allgather, alltoall,
#    alltoall_seq (and at d98e8a64 allgather, alltoall, flex:
#    transformer_config.py L891); both flags are in
#    tests/data/megatron_args.txt (d98e8a64).
# Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh


# --- The allgather dispatcher's bytes. Mixtral 8x7B (hidden 4,096, 8
# experts, top-2, 32 layers, sequence 4,096), TP 1, EP 8, MBS 1, one
# micro-batch per replica (GBS 8 over DP 8), bf16. Each rank all-gathers
# the 4,096 tokens of each of the 8 ranks of its TP x EP group:
# 4,096 x 8 x 4,096 x 2 B = 268,435,456 B of hidden states, reduce-
# scattered back the same size. Per MoE layer four collectives forward
# (indices, probabilities and hidden states gathered, the result
# reduce-scattered) and four backward: 32 x 2 x 4 = 256 a step, on a
# group of 8 in one node. No all-to-all: no "ep" row.
mx="--pool 1x8xH100-SXM -m mixtral-8x7b --pp 1 --mbs 1 --gbs 8 --framework megatron-core"
# shellcheck disable=SC2086
est_json ag1 $mx --tp 1 --dp 8 --ep 8 --moe-dispatch allgather
python3 - "$T/ag1.json" <<'PY' && ok || bad "allgather at TP 1, EP 8: gathered bytes, calls, group or an ep row"
import json, sys
d = json.load(open(sys.argv[1]))
tp = [c for c in d["comm"] if c["dim"] == "tp"]
ep = [c for c in d["comm"] if c["dim"] == "ep"]
ok = (len(tp) == 1 and tp[0]["bytes"] == 268435456 and tp[0]["calls_per_step"] == 256 and
      tp[0]["group"] == 8 and tp[0]["group_nodes"] == 1 and tp[0]["collective"] == "allgather"
      and not ep and d["breakdown_s"]["ep_comm"] == 0)
sys.exit(0 if ok else 1)
PY
# TP 2, EP 4, DP 4: the group is TP x EP = 8 ranks; each rank holds
# 4,096 / 2 tokens and gathers 8 ranks' worth: 2,048 x 8 x 4,096 x 2 B =
# 134,217,728 B (T x EP rows: 4,096 x 4).
# shellcheck disable=SC2086
est_json ag2 $mx --tp 2 --dp 4 --ep 4 --moe-dispatch allgather
python3 - "$T/ag2.json" <<'PY' && ok || bad "allgather at TP 2, EP 4: gathered bytes or group"
import json, sys
d = json.load(open(sys.argv[1]))
tp = [c for c in d["comm"] if c["dim"] == "tp"]
sys.exit(0 if len(tp) == 1 and tp[0]["bytes"] == 134217728 and tp[0]["group"] == 8 else 1)
PY
# The same plan with the all-to-all dispatcher has an ep row and sends
# each rank's 2,048 tokens x 2 copies: 2,048 x 2 x 4,096 x 2 B =
# 33,554,432 B an all-to-all (docs/moe.md).
# shellcheck disable=SC2086
est_json a2a2 $mx --tp 2 --dp 4 --ep 4 --moe-dispatch alltoall
python3 - "$T/a2a2.json" <<'PY' && ok || bad "alltoall at TP 2, EP 4: all-to-all bytes"
import json, sys
d = json.load(open(sys.argv[1]))
ep = [c for c in d["comm"] if c["dim"] == "ep"]
sys.exit(0 if len(ep) == 1 and ep[0]["bytes"] == 33554432 else 1)
PY

# --- SequentialMLP. One local expert (EP 8 of 8 experts): Megatron runs
# that expert on the whole input, so the step is the grouped GEMM's to
# the last digit. (Each plan names the key, so each writes it.)
# shellcheck disable=SC2086
est_json g1 $mx --tp 1 --dp 8 --ep 8 --moe-grouped-gemm on
# shellcheck disable=SC2086
est_json s1 $mx --tp 1 --dp 8 --ep 8 --moe-grouped-gemm off
python3 - "$T/g1.json" "$T/s1.json" <<'PY' && ok || bad "SequentialMLP with one local expert differs from a grouped GEMM of one"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
sys.exit(0 if a["step_time_s"] == b["step_time_s"] and a["plan"]["moe_grouped_gemm"] is True
         and b["plan"]["moe_grouped_gemm"] is False else 1)
PY
# Eight local experts at TP 8, EP 1: each expert's fc1 is 1,024 rows
# (4,096 tokens x 2 / 8) x 3,584 columns (2 x 14,336 / 8) x 4,096. In
# 128 x 256 tiles that is 8 x 14 = 112 tiles, one wave filling 112 of an
# H100's 132 SMs (85%); the eight as one batch are 896 tiles, 6.8 waves
# (97% of the SMs busy). fc2 (1,024 x 4,096 x 1,792): 8 x 16 = 128
# tiles, 97% alone. One at a time the experts' GEMMs cannot be faster
# than batched, and the loop adds two launches per expert beyond the
# grouped path's SwiGLU (and a cat): compute grows, by well under the
# 1/0.85 = 1.18 of the worst GEMM (the attention and the other GEMMs do
# not change).
# shellcheck disable=SC2086
est_json g8 $mx --tp 8 --dp 1 --gbs 1 --moe-grouped-gemm on
# shellcheck disable=SC2086
est_json s8 $mx --tp 8 --dp 1 --gbs 1 --moe-grouped-gemm off
python3 - "$T/g8.json" "$T/s8.json" <<'PY' && ok || bad "SequentialMLP at 8 local experts: compute not above grouped, or by too much"
import json, sys
a, b = (json.load(open(f))["breakdown_s"]["compute"] for f in sys.argv[1:3])
sys.exit(0 if a < b < 1.18 * a else 1)
PY

# --- The plan JSON: both keys written where the plan sets them, read
# back to the same step; absent from a plan that names neither (the
# framework's default, grouped GEMMs and flex, is not written).
python3 - "$T/ag1.json" "$T/g1.json" "$T/p.json" <<'PY' && ok || bad "moe_dispatch allgather in the plan JSON"
import json, sys
a, g = (json.load(open(f)) for f in sys.argv[1:3])
ok = a["plan"]["moe_dispatch"] == "allgather" and "moe_dispatch" not in g["plan"]
json.dump(dict(a["plan"], moe_grouped_gemm=False), open(sys.argv[3], "w"))
sys.exit(0 if ok else 1)
PY
"$H" estimate --pool 1x8xH100-SXM -m mixtral-8x7b --plan "$T/p.json" --format json > "$T/rt.json" 2>"$T/err"
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 4 ] || bad "plan round trip: exit $rc: $(cat "$T/err")"
# shellcheck disable=SC2086
est_json both $mx --tp 1 --dp 8 --ep 8 --moe-dispatch allgather --moe-grouped-gemm off
python3 - "$T/rt.json" "$T/both.json" <<'PY' && ok || bad "plan JSON round trip of moe_dispatch allgather, moe_grouped_gemm off"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
ok = (a["step_time_s"] == b["step_time_s"] and a["plan"]["moe_dispatch"] == "allgather"
      and a["plan"]["moe_grouped_gemm"] is False)
sys.exit(0 if ok else 1)
PY

# --- Refusals: the allgather dispatcher is Megatron-Core's (DeepSpeed-MoE
# dispatches with an all-to-all); the keys take no non-default value on
# a dense model.
# shellcheck disable=SC2086
expect 3 "moe_dispatch allgather is Megatron-Core's allgather token dispatcher; deepspeed has none" \
	"$H" estimate --pool 1x8xH100-SXM -m mixtral-8x7b --pp 1 --tp 1 --dp 8 --ep 8 --mbs 1 \
	--gbs 8 --framework deepspeed --moe-dispatch allgather
expect 3 "moe_grouped_gemm off given for a dense model" "$H" estimate --pool 1x8xH100-SXM \
	-m llama3.1-8b --tp 1 --pp 1 --dp 8 --mbs 1 --gbs 8 --moe-grouped-gemm off
expect 3 "moe_dispatch allgather given for a dense model" "$H" estimate --pool 1x8xH100-SXM \
	-m llama3.1-8b --tp 1 --pp 1 --dp 8 --mbs 1 --gbs 8 --moe-dispatch allgather

# --- launch: the Megatron flags match the plan. Off: no
# --moe-grouped-gemm (store_true at f1f03922 and d98e8a64); allgather:
# --moe-token-dispatcher-type allgather. Default: --moe-grouped-gemm.
# Both flag names are in the pinned arguments list. (--force: the plan is
# over the memory; its flags are what is read.)
lx="--pool 1x8xH100-SXM -m mixtral-8x7b --tp 2 --pp 1 --ep 4 --mbs 1 --gbs 64 --tokens 1B --force"
# shellcheck disable=SC2086
"$H" launch $lx --moe-dispatch allgather --moe-grouped-gemm off > "$T/l_old" 2>"$T/err" ||
	bad "launch allgather, grouped off: $(cat "$T/err")"
# shellcheck disable=SC2086
"$H" launch $lx > "$T/l_new" 2>"$T/err" || bad "launch default: $(cat "$T/err")"
if grep -q -- "--moe-token-dispatcher-type allgather" "$T/l_old" &&
	! grep -q -- "--moe-grouped-gemm" "$T/l_old" && grep -q -- "--moe-grouped-gemm" "$T/l_new" &&
	! grep -q -- "allgather" "$T/l_new"; then ok; else bad "launch: MoE flags do not match the plan"; fi
# DeepSpeed's launcher: its MoE dispatches with an all-to-all, so a plan
# costed with the allgather dispatcher is denied there (runs_on.c).
# shellcheck disable=SC2086
"$H" launch $lx --moe-dispatch allgather --format deepspeed > /dev/null 2>"$T/err" ||
	bad "deepspeed allgather launch: $(cat "$T/err")"
grep -q "DeepSpeed does not run this plan as planned: the allgather token dispatcher" "$T/err" &&
	ok || bad "deepspeed moe_dispatch allgather: no denial: $(cat "$T/err")"
for f in --moe-grouped-gemm --moe-token-dispatcher-type; do
	grep -qxF -- "$f" tests/data/megatron_args.txt && ok || bad "$f not in megatron_args.txt"
done

# torchtitan: its GroupedExperts loops over the experts when the model's
# MoEArgs.use_grouped_mm is False (torchtitan/models/moe/moe.py
# @003edbe5, default True), a model-flavor field: the pinned job config
# has no key naming it, so the launch says where to set it (the TOML's
# [model] section and a note) with grouped GEMMs off, and nothing with
# them on.
grep -qi "grouped_mm\.\(use\|enable\)\|use_grouped_mm" tests/data/torchtitan_keys.txt &&
	bad "torchtitan_keys.txt has a grouped-GEMM switch: write it instead of the note" || ok
tx="--pool 2x8xH100-SXM -m deepseek-v3 --tp 1 --pp 2 --ep 8 --mbs 1 --gbs 64 --tokens 1B --force"
tx="$tx --framework torchtitan --format torchtitan"
# shellcheck disable=SC2086
"$H" launch $tx --moe-grouped-gemm off > "$T/t_off" 2>"$T/err" || bad "torchtitan off: $(cat "$T/err")"
python3 - "$T/t_off" <<'PY' && ok || bad "torchtitan, grouped GEMMs off: no use_grouped_mm line in [model]"
import sys
sec = None
for line in open(sys.argv[1]):
    s = line.strip()
    if s.startswith("[") and s.endswith("]"):
        sec = s
    elif sec == "[model]" and s.startswith("#") and "use_grouped_mm=False" in s:
        sys.exit(0)
sys.exit(1)
PY
grep -q "use_grouped_mm=False" "$T/err" && ok || bad "torchtitan, grouped GEMMs off: no note"
# shellcheck disable=SC2086
"$H" launch $tx > "$T/t_on" 2>"$T/err" || bad "torchtitan default: $(cat "$T/err")"
grep -q "use_grouped_mm" "$T/t_on" "$T/err" && bad "torchtitan, grouped GEMMs on: a use_grouped_mm line" || ok

finish test_moe_seq
