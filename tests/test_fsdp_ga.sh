#!/bin/sh
# test_fsdp_ga.sh — the ZeRO-3 (FSDP) collectives of one training step with
# gradient accumulation, counted by hand from the framework's code and
# compared with what `hetplan estimate` charges (docs/fsdp-ga.md).
#
# The case: Llama 3.1 70B (80 blocks, hidden 8192, 64 heads, 8 KV heads,
# FFN 28672, vocab 128256, untied), seq 4096, TP 4 inside a node of 4
# H200, FSDP (ZeRO-3) over DP 8 across 8 nodes, one 400 Gb/s NIC a GPU,
# micro-batch 2, global batch 64: 64 / (2 x 8) = 4 micro-batches a step.
# Framework torchtitan @8a2686c4: train_step calls forward_backward_step
# once a micro-batch with no sync context (train.py L494-497), so FSDP2
# reduce-scatters every micro-batch; fully_shard per block with
# reshard_after_forward True without PP (parallelize.py apply_fsdp), so
# each block is gathered in every micro-batch's forward and again in its
# backward (the checkpointed block's recomputed forward runs on the
# backward's gather: FSDP2's pre_forward does nothing in backward);
# parameters gathered in bf16 (mixed_precision_param), gradients
# reduce-scattered in fp32 (mixed_precision_reduce "float32", the only
# value job_config.py L219 allows).
#
# Hand count, per GPU and step. Parameters of the TP shard:
#   per block  8192 x (8192 + 2 x 1024) (QKV) + 8192 x 8192 (output)
#              + 3 x 8192 x 28672 (gated MLP) = 855,638,016, /4 = 213.9M
#   embeddings 2 x 128256 x 8192 = 2,101,346,304, /4 = 525.3M
#   P = (80 x 855,638,016 + 2,101,346,304) / 4 = 17.64e9 (norms aside)
# hetplan gathers the stage in one call per block (80 calls, the
# embeddings spread over them), so one call moves P x 2 / 80 = 441 MB
# (bf16) and one reduce-scatter P x 4 / 80 = 882 MB (fp32):
#   all-gathers      2 a micro-batch x 4 x 80 = 640 calls of 441 MB
#   reduce-scatters  1 a micro-batch x 4 x 80 = 320 calls of 882 MB
#   bytes            8 x 35.3 GB + 4 x 70.6 GB = 564 GB through the NIC
#                    (x 7/8 on the wire for a ring of 8)
# DP time = 640 x t_ag(441 MB) + 320 x t_rs(882 MB), each t from
# `hetplan comm` on 8 ranks, one a node, one NIC each (the collective
# model is tested on its own in test_comm_cli.sh and test_blind_comm.sh;
# what is tested here is the count).
set -u
. tests/lib.sh
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

POOL="8x4xH200-SXM-141GB,intra=nvlink,nics=4,nic_gbps=400"
run() { # NAME GBS [extra args]
	n=$1 g=$2; shift 2
	"$H" estimate --pool "$POOL" -m llama3.1-70b --seq-len 4096 --tp 4 --pp 1 --dp 8 \
		--mbs 2 --gbs "$g" --precision bf16 --recompute full --zero 3 \
		--framework torchtitan --format json "$@" >"$T/$n.json" 2>"$T/$n.err" ||
		{ bad "estimate $n exit $? ($(head -c 200 "$T/$n.err"))"; return 1; }
	ok
}
coll() { # COLLECTIVE BYTES -> seconds
	"$H" comm --collective "$1" --bytes "$2" --gpu H200-SXM-141GB --gpus-per-node 1 \
		--nodes 8 --nics 1 --nic-gbps 400 --format json |
		python3 -c "import json,sys; print(json.load(sys.stdin)['time_us'] / 1e6)"
}

run ga4 64 && run ga1 16 && run ga4_bf16 64 --grad-reduce-fp32 off || { finish test_fsdp_ga; exit 1; }

# P as hetplan holds it: the DP entry's bytes are one whole gather (P x 2).
P=$(python3 -c "import json; d=json.load(open('$T/ga4.json')); print([c for c in d['comm'] if c['dim']=='dp'][0]['bytes'] / 2)")
# The hand count of P above, to 0.1% (norm weights and rounding aside).
python3 -c "import sys; p=$P; h=(80*855638016+2101346304)/4; sys.exit(abs(p/h-1) > 1e-3)" && ok ||
	bad "parameters per GPU $P, hand count $(( (80*855638016+2101346304)/4 ))"

AG=$(python3 -c "print(int($P * 2 / 80))")
RS=$(python3 -c "print(int($P * 4 / 80))")
RS16=$AG
tag=$(coll allgather "$AG") trs=$(coll reducescatter "$RS") trs16=$(coll reducescatter "$RS16")

check() { # NAME MB REDUCE_SECONDS_PER_CALL WHAT
	python3 - "$T/$1.json" "$2" "$tag" "$3" <<'EOF' && ok || bad "$4"
import json, sys
d = json.load(open(sys.argv[1]))
mb, tag, trs = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
c = [x for x in d["comm"] if x["dim"] == "dp"][0]
want = 2 * mb * 80 * tag + mb * 80 * trs
calls = 3 * mb
ok = abs(c["time_s"] / want - 1) < 0.005 and c["calls_per_step"] == calls
print("%s: dp %.4f s, hand count %.4f s (%d gathers + %d reduce-scatters of 80 calls), calls %g (want %d)"
      % (sys.argv[1].rsplit("/", 1)[1], c["time_s"], want, 2 * mb, mb, c["calls_per_step"], calls))
sys.exit(0 if ok else 1)
EOF
}
check ga4 4 "$trs" "GA 4: 8 bf16 gathers and 4 fp32 reduce-scatters a step"
check ga1 1 "$trs" "GA 1: 2 bf16 gathers and 1 fp32 reduce-scatter a step"
check ga4_bf16 4 "$trs16" "GA 4, --grad-reduce-fp32 off: the reduce-scatters in bf16"

# The exposed DP time is at most the DP time, and at GA 4 the step holds
# four micro-batches' compute.
python3 -c "
import json, sys
a = json.load(open('$T/ga4.json')); b = json.load(open('$T/ga1.json'))
c = [x for x in a['comm'] if x['dim'] == 'dp'][0]
sys.exit(not (0 <= c['exposed_s'] <= c['time_s'] and
              abs(a['breakdown_s']['compute'] / b['breakdown_s']['compute'] - 4) < 1e-6))" && ok ||
	bad "exposed DP time within the DP time; compute x4 at GA 4"

finish test_fsdp_ga
