#!/bin/sh
# test_moe_step.sh — the optimizer step of a MoE plan under the
# distributed optimizer. Megatron-Core shards each expert parameter over
# its expert data-parallel group (expert_data_parallel_size = world /
# (etp x ep x pp), parallel_state.py @d98e8a64) and each dense one over
# the DP x CP group, so the stage's GPUs hold one copy of the experts'
# optimizer state between them whatever EP is: a GPU of tp x cp x dp
# holds E / (tp x cp x dp) of the stage's E expert parameters at EP 1, 4
# and 8 alike, and the step over them takes the same time. hetplan had
# divided the experts by DP x CP only, so EP 8 stepped an eighth of them.
# Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/cache" XDG_CONFIG_HOME="$T/config"

for ep in 1 4 8; do
	$H estimate --pool 4x8xH100-SXM -m mixtral-8x7b --tp 1 --pp 4 --ep $ep --mbs 1 --gbs 256 \
		--recompute full --format json > "$T/ep$ep.json" 2>"$T/err"
	rc=$?
	[ $rc = 0 ] || [ $rc = 4 ] && ok || bad "EP $ep: exit $rc: $(cat "$T/err")"
done
python3 - "$T" <<'PY' && ok || bad "the optimizer step depends on EP"
import json, sys
t = [json.load(open("%s/ep%d.json" % (sys.argv[1], ep))) for ep in (1, 4, 8)]
opt = [d["breakdown_s"]["optimizer"] for d in t]
assert opt[0] > 0 and all(abs(o - opt[0]) <= 1e-9 * opt[0] for o in opt), opt
# the optimizer state per GPU (12 bytes a parameter: fp32 master and two
# moments) is the same too: one copy over the stage's GPUs
mem = [[s["optimizer_bytes"] for s in d["memory"]] for d in t]
assert all(abs(a - b) <= 1e-9 * b for m in mem for a, b in zip(m, mem[0])), mem
PY

finish moe_step
