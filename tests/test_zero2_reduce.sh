#!/bin/sh
# test_zero2_reduce.sh — DeepSpeed ZeRO-2 reduces the gradients after
# every micro-batch's backward, the other stages and frameworks once a step
# (issue 12, consumer round 23).
#
# DeepSpeed's ZeRO-2 keeps only its partition's accumulated gradients, so
# its gradient hooks reduce in every backward, not only at the accumulation
# boundary (deepspeedai/DeepSpeed @edaa7221 runtime/zero/stage_1_and_2.py
# L1767-1769: reduce_ready_partitions_and_remove_grads reduces when
# "self.partition_gradients or self.is_gradient_accumulation_boundary()";
# runtime/engine.py L2902-2907: "ZeRO stage >= 2 communicates during non
# gradient accumulation boundaries as well"). ZeRO-1 reduces at the
# boundary only, as Megatron-Core's distributed optimizer does.
#
# The case: GPT-2 large (36 layers, hidden 1280, vocabulary 50,257; 774.0M
# parameters) on two RTX 3090 Ti joined by their NVLink bridge (56.25 GB/s
# a direction), DP 2, micro-batch 2, global batch 64: 64 / (2 x 2) = 16
# micro-batches a step, bf16. One reduce-scatter of the 16-bit gradients
# is 774.03M x 2 = 1,548,060,160 bytes; over two ranks a ring sends half
# of them each way, 774,030,080 bytes, which at the bridge's 56.25e9 B/s
# take at least 13.76 ms (no link runs above its rate) and, at hetplan's
# NCCL efficiencies on a bridge (0.5 or better of the wire), at most twice
# that, 27.5 ms. ZeRO-2 adds 15 such reduce-scatters to ZeRO-1's step, so
# the DP time grows by 15 x [13.76, 27.5] ms = [206, 413] ms.
#
# overlap_comm (round 24). DeepSpeed's ZeRO config sets overlap_comm to
# "stage == 3" when the config leaves it out (deepspeed/runtime/zero/
# config.py overlap_comm_valid: v0.7.1 dce3acaa L138-145, @edaa7221
# L383-385), so a DeepSpeed plan that names no --grad-overlap runs its
# ZeRO 1-2 reduce after the backward: every byte of it exposed (exposed
# equal to the DP time, no bucket copies under ZeRO's contiguous buffers),
# and `launch --format deepspeed` writes "overlap_comm": false; with
# --grad-overlap on it writes true and the exposed time falls below the
# DP time. At ZeRO-3 the default is on: exposed below the DP time with no
# flag. The estimate's text says which default it took.
. tests/lib.sh
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT


# est FW ZERO GBS [FLAGS...]: the estimate's DP communication row as
# "time calls bytes exposed"
est() {
	f=$1 z=$2 g=$3
	shift 3
	"$H" estimate --pool 1x2xRTX-3090-Ti,intra=nvlink -m "tests/data/gpt2-large.json" --tp 1 --pp 1 \
		--dp 2 --mbs 2 --gbs "$g" --precision bf16 --zero "$z" --framework "$f" \
		--format json "$@" >"$T/out" 2>"$T/err" || { echo "fail $(head -c 200 "$T/err")"; return; }
	python3 -c "
import json
d = json.load(open('$T/out'))
r = [c for c in d['comm'] if c['dim'] == 'dp'][0]
print(r['time_s'], r['calls_per_step'], r['bytes'], r['exposed_s'])"
}

set -- $(est deepspeed 2 64 --grad-overlap on); ds2_t=$1 ds2_calls=$2 ds2_bytes=$3 ds2_exp=$4
set -- $(est deepspeed 2 64); dsd2_t=$1 dsd2_exp=$4
set -- $(est deepspeed 1 64); dsd1_t=$1 dsd1_exp=$4
set -- $(est deepspeed 3 64); dsd3_t=$1 dsd3_exp=$4
set -- $(est deepspeed 1 64); ds1_t=$1 ds1_calls=$2
set -- $(est deepspeed 1 4); ds1_ga1_t=$1
set -- $(est deepspeed 2 4); ds2_ga1_t=$1
set -- $(est megatron-core 2 64); mc2_t=$1 mc2_calls=$2
set -- $(est megatron-core 2 4); mc2_ga1_t=$1

# 16 reduce-scatters a step under DeepSpeed ZeRO-2, of the 16-bit gradients
[ "$ds2_calls" = 16 ] && ok || bad "deepspeed ZeRO-2: $ds2_calls DP calls a step, want 16"
[ "$ds2_bytes" = 1548060160 ] && ok || bad "deepspeed ZeRO-2: $ds2_bytes bytes, want 1548060160"
# 15 more reduce-scatters than ZeRO-1, each 13.76-27.5 ms (the comment)
python3 -c "
d = ($ds2_t - $ds1_t) / 15
assert 0.01376 <= d <= 0.0275, d" 2>/dev/null && ok ||
	bad "deepspeed ZeRO-2 - ZeRO-1 DP time: ($ds2_t - $ds1_t) / 15 outside 13.76-27.5 ms"
# with one micro-batch ZeRO-2 reduces once, as ZeRO-1 does: the same time
[ "$ds2_ga1_t" = "$ds1_ga1_t" ] && ok || bad "deepspeed at GA 1: ZeRO-2 $ds2_ga1_t s, ZeRO-1 $ds1_ga1_t s"
# overlap_comm: each micro-batch's reduce-scatter runs beside its backward
python3 -c "assert 0 < $ds2_exp < $ds2_t" 2>/dev/null && ok ||
	bad "deepspeed ZeRO-2 exposed $ds2_exp s not below its $ds2_t s"
# ZeRO-1 under DeepSpeed and ZeRO-2 under Megatron-Core reduce once a step:
# the accumulation steps leave their DP time as it is
[ "$ds1_calls" = 1 ] && [ "$ds1_t" = "$ds1_ga1_t" ] && ok ||
	bad "deepspeed ZeRO-1: $ds1_calls calls, $ds1_t s at GA 16 against $ds1_ga1_t s at GA 1"
[ "$mc2_calls" = 1 ] && [ "$mc2_t" = "$mc2_ga1_t" ] && ok ||
	bad "megatron-core ZeRO-2: $mc2_calls calls, $mc2_t s at GA 16 against $mc2_ga1_t s at GA 1"

# DeepSpeed's default below ZeRO-3: overlap_comm off, the reduce exposed
# whole (the same reduce-scatters as with the overlap on)
[ "$dsd2_t" = "$ds2_t" ] && [ "$dsd2_exp" = "$dsd2_t" ] && ok ||
	bad "deepspeed ZeRO-2 default: exposed $dsd2_exp s of $dsd2_t s, want all of it (and $ds2_t s)"
[ "$dsd1_t" = "$ds1_t" ] && [ "$dsd1_exp" = "$dsd1_t" ] && ok ||
	bad "deepspeed ZeRO-1 default: exposed $dsd1_exp s of $dsd1_t s, want all of it"
# ZeRO-3's default is on
python3 -c "assert 0 < $dsd3_exp < $dsd3_t" 2>/dev/null && ok ||
	bad "deepspeed ZeRO-3 default: exposed $dsd3_exp s not below its $dsd3_t s"
# the estimate's text names the default it took, at ZeRO-2 and not at 3
# or with the flag
tx() {
	"$H" estimate --pool 1x2xRTX-3090-Ti,intra=nvlink -m "tests/data/gpt2-large.json" --tp 1 --pp 1 \
		--dp 2 --mbs 2 --gbs 64 --precision bf16 --framework deepspeed "$@" 2>/dev/null |
		grep -c "note: DeepSpeed's zero_optimization.overlap_comm is off"
}
[ "$(tx --zero 2)" = 1 ] && [ "$(tx --zero 3)" = 0 ] && [ "$(tx --zero 2 --grad-overlap on)" = 0 ] &&
	ok || bad "estimate's overlap_comm note: zero 2 $(tx --zero 2), zero 3 $(tx --zero 3), on $(tx --zero 2 --grad-overlap on)"
# launch writes the overlap the estimate assumed
lc() {
	"$H" launch --pool 1x2xRTX-3090-Ti,intra=nvlink -m "tests/data/gpt2-large.json" --tp 1 --pp 1 \
		--dp 2 --mbs 2 --gbs 64 --precision bf16 --framework deepspeed --format deepspeed \
		"$@" 2>/dev/null | python3 -c "
import json, sys
print(str(json.load(sys.stdin)['zero_optimization']['overlap_comm']).lower())"
}
[ "$(lc --zero 2)" = false ] && [ "$(lc --zero 2 --grad-overlap on)" = true ] &&
	[ "$(lc --zero 1)" = false ] && [ "$(lc --zero 3)" = true ] && ok ||
	bad "launch overlap_comm: zero 2 $(lc --zero 2), zero 2 on $(lc --zero 2 --grad-overlap on), zero 1 $(lc --zero 1), zero 3 $(lc --zero 3)"

finish test_zero2_reduce
