#!/bin/sh
# test_master_none.sh — master none (no fp32 master: the model itself in
# bf16) against the keys that need that master. Megatron-Core's
# --fp8-param-gather keeps FP8 parameters beside the main params the
# distributed optimizer steps, and --main-params-dtype takes fp32 or
# fp16 only (megatron/training/arguments.py @d98e8a64 L3671-3684, as
# src/runs_on.c rules_master cites), so
# fp8_params on with master none is refused, naming both keys (exit 3,
# docs/usage.md), and absent it is off under master none. Run from the
# repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

B="--pool 2x8xH100-SXM -m llama3.1-8b --tp 2 --pp 1 --mbs 1 --gbs 64 --framework megatron-core --zero 1 --precision fp8"
# shellcheck disable=SC2086
expect 3 'fp8_params on needs an fp32 master' $H estimate $B --master none --fp8-params on
# the fp32 master (sharded, the default) keeps it
# shellcheck disable=SC2086
expect 0 "" $H estimate $B --fp8-params on
# absent under master none: the DP gather moves bf16 parameters, as with
# fp8_params off said outright
# shellcheck disable=SC2086
a=$($H estimate $B --master none --format json 2>/dev/null |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["step_time_s"])')
# shellcheck disable=SC2086
b=$($H estimate $B --master none --fp8-params off --format json 2>/dev/null |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["step_time_s"])')
if [ -n "$a" ] && [ "$a" = "$b" ]; then ok; else bad "master none: absent $a s, off $b s"; fi
finish master_none
