#!/bin/sh
# test_estimate_any.sh — `hetplan estimate` under framework "any" (the
# default) says so when no stock framework runs the plan it estimates.
# Framework "any" is estimated with Megatron-Core's row and flash
# attention on; on a V100 (Volta, sm70) that is a plan nothing runs:
# flash-attn 2 needs Ampere (sm80) or newer (Dao-AILab/flash-attention
# README, "Ampere, Ada, or Hopper GPUs"), so Megatron-Core, Megatron-LM
# and DeepSpeed run unfused attention there, and torchtitan has no
# ZeRO-1 (FSDP2 shards parameters). The planner under "any" never offers
# such a plan; estimate used to cost it in silence. The same plan with
# --attention unfused, or on H100s, draws no such warning.
# Run from the repository root after `make` built ./hetplan.
# Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
set -u
bin=${HETPLAN:-./hetplan}
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
H=$bin
args="-m llama3.1-8b --tp 8 --pp 2 --gbs 64 --mbs 1 --zero 1 --no-price-book"

expect 0 "no stock framework runs this plan" \
	"$H" estimate --pool 2x8xV100-SXM2-32GB --precision fp16 $args
grep -q "flash attention on V100-SXM2-32GB" "$T/err" && ok || bad "V100: no reason named: $(cat "$T/err")"
grep -q "torchtitan: ZeRO-1" "$T/err" && ok || bad "V100: torchtitan's reason missing: $(cat "$T/err")"
# the estimate itself is still written
grep -q "step time" "$T/out" && ok || bad "V100: no estimate on stdout"
"$H" estimate --pool 2x8xV100-SXM2-32GB --precision fp16 --framework any $args >/dev/null \
	2>"$T/err2" && grep -q "no stock framework runs this plan" "$T/err2" && ok ||
	bad "--framework any: no warning: $(cat "$T/err2")"

expect 0 "" "$H" estimate --pool 2x8xV100-SXM2-32GB --precision fp16 --attention unfused $args
[ ! -s "$T/err" ] && ok || bad "V100 unfused: unexpected stderr: $(cat "$T/err")"
expect 0 "" "$H" estimate --pool 2x8xH100-SXM $args
[ ! -s "$T/err" ] && ok || bad "H100: unexpected stderr: $(cat "$T/err")"

finish test_estimate_any
