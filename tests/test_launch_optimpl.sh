#!/bin/sh
# test_launch_optimpl.sh — what `hetplan launch` writes or says for the
# plan keys a format has no switch for: optimizer_impl (docs/optimizer.md)
# in each format, master none in an HF Trainer script, grad_reduce_fp32
# off in a torchtitan TOML. Facts from
# the frameworks' own argument lists: torchtitan's [optimizer]
# implementation takes "fused", "foreach", "for-loop"
# (torchtitan/config/job_config.py @6404b932, class Optimizer); the HF
# Trainer's --optim takes adamw_torch_fused / adamw_torch (training_args.py
# @00349ae8); Megatron-LM has no argument choosing the Adam implementation
# (--optimizer adam|sgd; megatron/core/optimizer/__init__.py @d086a2e3
# builds Transformer Engine's FusedAdam, else apex's), and a DeepSpeed
# config without an "optimizer" section leaves the optimizer to the
# training script (Megatron-DeepSpeed: apex FusedAdam). So a foreach or
# loop plan written as Megatron or DeepSpeed configs runs fused, and the
# launch notes must say so, naming the key.
# Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

B="--pool 2x8xH100-SXM -m llama3.1-8b --tp 2 --pp 1 --mbs 1 --gbs 64 --zero 1"
for f in megatron slurm deepspeed; do
	fw=megatron-core
	[ "$f" = deepspeed ] && fw=deepspeed
	for impl in foreach loop; do
		# shellcheck disable=SC2086
		expect 0 "optimizer_impl $impl" $H launch $B --framework $fw --optimizer-impl $impl \
			--format $f
	done
	# the fused plan: nothing to say
	# shellcheck disable=SC2086
	$H launch $B --framework $fw --optimizer-impl fused --format $f >"$T/out" 2>"$T/err"
	if grep -q "optimizer_impl" "$T/err"; then bad "$f fused: a note about optimizer_impl"; else ok; fi
done
# Under ZeRO-Offload the host's DeepSpeedCPUAdam steps whatever the key
# (the estimate is the same for fused and loop): no note
# shellcheck disable=SC2086
$H launch $B --framework deepspeed --offload optimizer --optimizer-impl loop --format deepspeed \
	>"$T/out" 2>"$T/err"
if grep -q "optimizer_impl" "$T/err"; then bad "deepspeed offload loop: a note"; else ok; fi
# torchtitan writes the key itself: no note, the TOML's value
for impl in foreach:foreach loop:for-loop; do
	# shellcheck disable=SC2086
	$H launch $B --zero 3 --framework torchtitan --optimizer-impl ${impl%%:*} --format torchtitan \
		>"$T/out" 2>"$T/err"
	if grep -q "optimizer_impl" "$T/err"; then bad "torchtitan ${impl%%:*}: a note"; else ok; fi
	if grep -qx "implementation = \"${impl#*:}\"" "$T/out"; then ok
	else bad "torchtitan ${impl%%:*}: no implementation = \"${impl#*:}\""; fi
done
# master none in an HF Trainer script: the note speaks of the Trainer
# (the model's own dtype; run_clm.py's --dtype, examples/pytorch/
# language-modeling/run_clm.py @00d481d1), not of Megatron and DeepSpeed
HF="--pool 2x8xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 64 --zero 0 --recompute full"
# shellcheck disable=SC2086
expect 0 "master none: the model itself in bf16" $H launch $HF --framework hf-transformers \
	--master none --format hf-trainer --force
if grep -q "Megatron and DeepSpeed keep one" "$T/err"; then bad "hf-trainer master none: Megatron's note"
else ok; fi
# grad_reduce_fp32 off at ZeRO 3 on torchtitan: mixed_precision_reduce
# takes "float32" only (torchtitan/config/configs.py @b5bcd76c L102), so
# the TOML keeps float32 and the notes name the key; on (the default):
# no note
TT="--pool 2x8xH100-SXM -m llama3.1-8b --tp 2 --pp 1 --mbs 1 --gbs 64 --zero 3 --framework torchtitan"
# shellcheck disable=SC2086
expect 0 "grad_reduce_fp32 off" $H launch $TT --grad-reduce-fp32 off --format torchtitan
grep -qx 'mixed_precision_reduce = "float32"' "$T/out" && ok || bad "torchtitan: no float32 reduce"
# shellcheck disable=SC2086
$H launch $TT --format torchtitan >"$T/out" 2>"$T/err"
if grep -q "grad_reduce_fp32" "$T/err"; then bad "torchtitan default reduce: a note"; else ok; fi
finish launch_optimpl
