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

# est NAME ARGS... — estimate into $T/NAME.json (exit 0 or 4: a plan that
# does not fit still has its times)
est() {
	n=$1
	shift
	"$H" estimate "$@" --format json > "$T/$n.json" 2>"$T/err"
	rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 4 ] || bad "$n: exit $rc: $(cat "$T/err")"
}

mx="--pool 4x8xH100-SXM -m mixtral-8x7b --tp 1 --ep 8 --mbs 1 --gbs 256"
# shellcheck disable=SC2086
est pp1 $mx --pp 1
# shellcheck disable=SC2086
set -- $(ep "$T/pp1.json")
# M = 256 / (1 x 32) = 8 micro-batches
python3 -c "import sys; t, e = $1, $2; sys.exit(0 if t / 8 * (1 - 1e-9) <= e < t else 1)" && ok ||
	bad "PP 1: exposed $2 s not in [time/8, time) of time $1 s"

for case in "--pp 4|PP 4 without virtual stages" "--pp 1 --recompute full|full recompute" \
	"--pp 1 --framework deepspeed|DeepSpeed"; do
	# shellcheck disable=SC2086
	est no $mx ${case%%|*}
	# shellcheck disable=SC2086
	set -- $(ep "$T/no.json")
	[ "$1" = "$2" ] && ok || bad "${case#*|}: exposed $2 s, expected all of $1 s"
done

ds="--pool 32x8xB200 -m deepseek-v3 --tp 1 --pp 8 --ep 32 --dp 32 --mbs 1 --gbs 4096 --precision fp8"
# shellcheck disable=SC2086
est mc $ds --framework megatron-core
# shellcheck disable=SC2086
est dsp $ds --framework deepspeed
mc=$(ep "$T/mc.json")
dsp=$(ep "$T/dsp.json")
python3 - "$mc" "$dsp" <<'PY' && ok || bad "dedup: megatron-core '$mc' against deepspeed '$dsp'"
import sys
a, b = sys.argv[1].split(), sys.argv[2].split()
r = float(a[0]) / float(b[0])
sys.exit(0 if a[2] == b[2] and 0.4518 <= r <= 0.6 else 1)
PY
finish moe
