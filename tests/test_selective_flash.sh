#!/bin/sh
# test_selective_flash.sh — selective recomputation with flash attention,
# as each framework's code runs it (src/framework.c,
# selective_reruns_flash; docs/model.md "Recomputation"):
#  - Megatron-Core checkpoints the core attention whenever the granularity
#    is selective and "core_attn" is in recompute_modules, its default
#    (NVIDIA/Megatron-LM @d98e8a64 transformer_config.py L1940-1941,
#    attention.py L392-395 and L1555): the fused (flash) attention forward
#    runs a second time in the backward.
#  - Legacy Megatron-LM takes that checkpoint only on its unfused path
#    (megatron/model/transformer.py @e89cce4d52 L793-794: "if not
#    self.use_flash_attn: if self.checkpoint_core_attention"): with flash,
#    selective recomputes nothing.
# Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

# Llama 3.1 8B (32 layers, hidden 4,096), sequence 8,192, GBS 64, on 8
# H100-SXM, TP 1 PP 1 DP 8, bf16, flash attention (the default).
A="--pool 1x8xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --dp 8 --mbs 1 --gbs 64 --zero 1"
for fw in megatron-core megatron-lm; do
	for rc in none selective; do
		est_json "${fw}_$rc" $A --framework $fw --recompute $rc
	done
done

# The attention forward's FLOPs a step, by hand: QK^T and PV are each
# 2 x s^2 x h FLOPs a sequence and layer (hetplan counts the whole square,
# as model_flops does), so 4 x 8192^2 x 4096 x 32 layers x 64 sequences =
# 2,251,799,813,685,248 FLOPs. Megatron-Core's selective run does them
# twice; legacy Megatron-LM's flash path once.
python3 - "$T" <<'PY' >"$T/report"
import json, sys
t = sys.argv[1]
d = {k: json.load(open("%s/%s.json" % (t, k))) for k in
     ("megatron-core_none", "megatron-core_selective", "megatron-lm_none", "megatron-lm_selective")}
attn = 4 * 8192**2 * 4096 * 32 * 64
assert attn == 2251799813685248
def check(ok, msg):
    print(("OK " if ok else "FAIL ") + msg)
mc, ml = d["megatron-core_selective"], d["megatron-lm_selective"]
check(mc["hardware_flops_per_step"] - mc["model_flops_per_step"] == attn,
      "megatron-core selective + flash: hardware FLOPs exceed model FLOPs by the attention forward (%g vs %g)"
      % (mc["hardware_flops_per_step"] - mc["model_flops_per_step"], attn))
check(ml["hardware_flops_per_step"] == ml["model_flops_per_step"],
      "megatron-lm selective + flash: no recomputed FLOPs (%g extra)"
      % (ml["hardware_flops_per_step"] - ml["model_flops_per_step"]))
check(mc["step_time_s"] > d["megatron-core_none"]["step_time_s"],
      "megatron-core: selective + flash takes longer than no recomputation (%g vs %g s)"
      % (mc["step_time_s"], d["megatron-core_none"]["step_time_s"]))
check(ml["step_time_s"] == d["megatron-lm_none"]["step_time_s"],
      "megatron-lm: selective + flash takes what no recomputation does (%g vs %g s)"
      % (ml["step_time_s"], d["megatron-lm_none"]["step_time_s"]))
PY
report_checks "$T/report"

finish selective_flash
