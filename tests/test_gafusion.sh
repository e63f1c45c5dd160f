#!/bin/sh
# test_gafusion.sh — the plan key grad_accum_fusion (Megatron's
# --no-gradient-accumulation-fusion).
#
# Facts checked:
#  A. the step-time difference of `estimate` off against on equals a hand
#     calculation of the separate main_grad add: GEMM weights per GPU x
#     bytes per weight x micro-batches / HBM bandwidth;
#  B. with the grad buffer in bf16 (grad_reduce_fp32 off) the add moves
#     2 + 2 + 2 = 6 bytes a weight where fp32 main grads take 2 + 4 + 4 = 10;
#  C. a plan file's "grad_accum_fusion": false costs as the flag does;
#  D. frameworks without the setting refuse it, naming the key;
#  E. `hetplan launch` writes --no-gradient-accumulation-fusion when off
#     and not when on or absent, and in another framework's format says
#     that framework does not run the plan as planned;
#  F. a bad value is a usage error naming the flag.
set -u
. tests/lib.sh
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# Llama 2 7B (catalog llama2-7b: 32 layers, hidden 4096, SwiGLU FFN 11008,
# vocab 32000, untied output) at TP 8, PP 1, DP 1 on one 8 x A100 SXM4 80GB
# node, micro-batch 1, global batch 8: 8 micro-batches.
BASE="--pool 1x8xA100-SXM-80GB -m llama2-7b --tp 8 --pp 1 --dp 1 --mbs 1 --gbs 8 --seq-len 2048 --zero 1"
step() {   # NAME ARGS...: step_time_s of `estimate ARGS` into $T/NAME
	name=$1; shift
	# shellcheck disable=SC2086
	if "$H" estimate $BASE "$@" --format json >"$T/$name.json" 2>"$T/err"; then
		python3 -c "import json; print(json.load(open('$T/$name.json'))['step_time_s'])" >"$T/$name"
		ok
	else
		bad "estimate $* failed: $(head -c 300 "$T/err")"
		echo 0 >"$T/$name"
	fi
}
near() {   # WHAT GOT WANT: |GOT / WANT - 1| <= 0.5%
	if python3 -c "import sys; g, w = $2, $3; sys.exit(abs(g / w - 1) > 0.005)"; then ok
	else bad "$1: got $2, want $3 (hand calculation)"; fi
}

# A. Hand calculation. GEMM weights per layer 4 x 4096^2 (q, k, v, o) +
# 3 x 4096 x 11008 (gate, up, down) = 67,108,864 + 135,266,304 =
# 202,375,168; 32 layers 6,476,005,376; the output layer 32000 x 4096 =
# 131,072,000; all 6,607,077,376, over TP 8: 825,884,672 a GPU. A bf16 run
# with fp32 main grads moves 2 (read bf16 grad) + 4 (read main_grad) + 4
# (write main_grad) = 10 B a weight per micro-batch (Megatron-Core
# distributed_data_parallel.py @d98e8a64 L578
# param.main_grad.add_(param.grad.data)): 8.2588e9 B, x 8 micro-batches
# 6.6071e10 B. A100 SXM4 80GB HBM 2.039 TB/s (NVIDIA datasheet) at
# hetplan's Ampere fraction 0.753582 (data/calibration.json ampere.hbm):
# 1.53655e12 B/s, so 0.043000 s. (The layers' RMSNorm weights, 262,144 in
# all, are within the 0.5% tolerance.)
WANT10=$(python3 -c "print(825884672 * 10 * 8 / (2.039e12 * 0.753582279375))")
for fw in megatron-core megatron-lm; do
	step on_$fw --framework $fw --grad-accum-fusion on
	step off_$fw --framework $fw --grad-accum-fusion off
	step dflt_$fw --framework $fw
	near "$fw off - on" "$(cat "$T/off_$fw") - $(cat "$T/on_$fw")" "$WANT10"
	# absent is Megatron's default, on (arguments.py @d98e8a64 L2944-2948,
	# store_false)
	near "$fw default = on" "$(cat "$T/dflt_$fw")" "$(cat "$T/on_$fw")"
done

# B. bf16 grad buffer: 2 + 2 + 2 = 6 B a weight, 6/10 of A's figure.
step on16 --framework megatron-core --grad-reduce-fp32 off --grad-accum-fusion on
step off16 --framework megatron-core --grad-reduce-fp32 off --grad-accum-fusion off
near "bf16 main_grad off - on" "$(cat "$T/off16") - $(cat "$T/on16")" "$WANT10 * 6 / 10"

# C. The plan file's key.
cat >"$T/plan.json" <<'EOF'
{"mbs":1,"gbs":8,"seq_len":2048,"zero":1,"framework":"megatron-core","grad_accum_fusion":false,
 "replicas":[{"count":1,"stages":[{"pool":"p","tp":8,"first_layer":0,"last_layer":31}]}]}
EOF
if "$H" estimate --pool 1x8xA100-SXM-80GB,name=p -m llama2-7b --plan "$T/plan.json" \
	--format json >"$T/pf.json" 2>"$T/err"; then
	near "plan file off" "$(python3 -c "import json; print(json.load(open('$T/pf.json'))['step_time_s'])")" \
		"$(cat "$T/off_megatron-core")"
	python3 -c "import json,sys; sys.exit(json.load(open('$T/pf.json'))['plan'].get('grad_accum_fusion') is not False)" \
		&& ok || bad "estimate's plan JSON lacks grad_accum_fusion false"
else
	bad "estimate --plan with grad_accum_fusion false failed: $(head -c 300 "$T/err")"
fi

# D. No such setting in DeepSpeed's engine or torchtitan (FSDP2 grads
# accumulate in param.grad): exit 3 naming the key.
for fw in deepspeed torchtitan; do
	expect 3 "grad_accum_fusion needs framework megatron-core or megatron-lm" \
		"$H" estimate $BASE --framework $fw --grad-accum-fusion off
done

# E. launch
L="$H launch $BASE --framework megatron-core"
$L --grad-accum-fusion off >"$T/l_off" 2>/dev/null
grep -q -- "--no-gradient-accumulation-fusion" "$T/l_off" && ok || bad "launch off lacks the flag"
$L --grad-accum-fusion on >"$T/l_on" 2>/dev/null
grep -q -- "--no-gradient-accumulation-fusion" "$T/l_on" && bad "launch on writes the flag" || ok
$L >"$T/l_dflt" 2>/dev/null
grep -q -- "--no-gradient-accumulation-fusion" "$T/l_dflt" && bad "launch default writes the flag" || ok
grep -q -- "--micro-batch-size 1" "$T/l_off" && ok || bad "launch off wrote no Megatron arguments"

# A plan that names no framework (any) launched in another framework's
# format: the config is written with the note that its framework has no
# such setting (runs_on.c rules_code_keys).
for fmt in torchtitan deepspeed; do
	"$H" launch --pool 1x8xA100-SXM-80GB -m llama3.1-8b --tp 1 --pp 1 --dp 8 --mbs 1 --gbs 8 \
		--zero 3 --grad-accum-fusion off --format $fmt >/dev/null 2>"$T/l_$fmt"
	grep -q "does not run this plan as planned: grad_accum_fusion off" "$T/l_$fmt" && ok ||
		bad "launch --format $fmt: no note on grad_accum_fusion off: $(head -c 300 "$T/l_$fmt")"
done

# F. Hostile values.
expect 2 "grad-accum-fusion" "$H" estimate $BASE --grad-accum-fusion maybe
expect 2 "grad-accum-fusion" "$H" estimate $BASE --grad-accum-fusion ""
printf '{"mbs":1,"gbs":8,"grad_accum_fusion":"sometimes","replicas":[{"stages":[{"pool":"p","tp":8,"first_layer":0,"last_layer":31}]}]}' >"$T/bad.json"
expect 3 "grad_accum_fusion" "$H" estimate --pool 1x8xA100-SXM-80GB,name=p -m llama2-7b --plan "$T/bad.json"

finish test_gafusion
