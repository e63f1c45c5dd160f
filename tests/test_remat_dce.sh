#!/bin/sh
# test_remat_dce.sh — full recomputation under JAX's remat (framework.h
# remat_dce, the maxtext row; docs/fp8-b200-maxtext.md section 1): the
# rematerialised forward is dead-code eliminated (jax-ml/jax @492e159a
# jax/_src/ad_checkpoint.py, remat_dce), and a Llama block's backward never
# reads the MLP down projection's output, so the down GEMM is not re-run.
# Megatron's full recompute re-runs the whole layer forward.
# Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

# Llama 3.1 70B (80 layers, hidden 8,192, q 8,192, kv 1,024, gated FFN
# 28,672), sequence 8,192, 8 sequences a step, on 8 H100-SXM at TP 8,
# ZeRO-3, full recompute, TP overlap off on both rows (the one setting
# besides remat_dce in which the two rows differ at this layout).
A="--pool 1x8xH100-SXM -m llama3.1-70b --tp 8 --pp 1 --mbs 1 --gbs 8 --seq 8192 --zero 3"
A="$A --tp-overlap off --recompute full"
for fw in megatron-core maxtext; do
	est_json "$fw" $A --framework "$fw"
done

# By hand, a layer's GEMM FLOPs a token in units of 2 x 8,192:
# QKV 8,192 + 2 x 1,024 = 10,240; out-projection 8,192; gated MLP in
# 2 x 28,672 = 57,344; down 28,672; sum 104,448. The down GEMM's share:
# 28,672 / 104,448 = 27.45%. Its FLOPs a step: 2 x 8,192 x 28,672
# = 469,762,048 a token and layer, x 80 layers x 65,536 tokens
# = 2,462,906,046,218,240, which maxtext's recompute leaves out.
# As a share of the layer forward hetplan counts (GEMMs 2 x 8,192 x
# 104,448 = 1,711,276,032 a token, attention's whole square 4 x 8,192 x
# 8,192 = 268,435,456): 469,762,048 / 1,979,711,488 = 23.73%.
python3 - "$T" <<'PY' >"$T/report"
import json, sys
t = sys.argv[1]
mc = json.load(open(t + "/megatron-core.json"))
mx = json.load(open(t + "/maxtext.json"))
down = 2462906046218240
assert down == 2 * 8192 * 28672 * 80 * 8 * 8192
assert abs(28672 / 104448 - 0.2745) < 5e-4
def check(ok, msg):
    print(("OK " if ok else "FAIL ") + msg)
check(mc["model_flops_per_step"] == mx["model_flops_per_step"],
      "same model FLOPs under both rows (%g, %g)"
      % (mc["model_flops_per_step"], mx["model_flops_per_step"]))
d = mc["hardware_flops_per_step"] - mx["hardware_flops_per_step"]
check(abs(d - down) <= 1e-9 * down,
      "maxtext's hardware FLOPs are megatron-core's less the down GEMMs (%.6g vs %.6g)"
      % (d, down))
rc_mc, rc_mx = mc["breakdown_s"]["recompute"], mx["breakdown_s"]["recompute"]
share = (rc_mc - rc_mx) / rc_mc
# The down GEMM is 23.7% of the forward's FLOPs and 27.5% of its GEMM
# FLOPs; the recompute's time drops by about the former (attention and
# the memory-bound ops stay): between 20% and 30%.
check(0.20 < share < 0.30,
      "maxtext's recompute time is %.1f%% under megatron-core's (%.3f vs %.3f s)"
      % (100 * share, rc_mx, rc_mc))
check(mc["breakdown_s"]["compute"] == mx["breakdown_s"]["compute"],
      "the forward and backward are unchanged (%g, %g s)"
      % (mc["breakdown_s"]["compute"], mx["breakdown_s"]["compute"]))
PY
report_checks "$T/report"

# Without recomputation the two rows estimate the same step.
for fw in megatron-core maxtext; do
	est_json "none_$fw" --pool 1x8xH100-SXM -m llama3.1-70b --tp 8 --pp 1 --mbs 1 --gbs 8 \
		--seq 8192 --zero 3 --tp-overlap off --recompute none --framework "$fw"
done
python3 -c "
import json
a = json.load(open('$T/none_megatron-core.json')); b = json.load(open('$T/none_maxtext.json'))
print('OK' if a['hardware_flops_per_step'] == b['hardware_flops_per_step'] == b['model_flops_per_step'] else 'FAIL', 'no recomputation: no FLOPs beyond the model on either row')
" >"$T/report2"
report_checks "$T/report2"

finish remat_dce
