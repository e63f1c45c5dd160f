#!/bin/sh
# test_bounds.sh — physical bounds and hand-checked terms of the model:
#   - a collective over several nodes cannot beat the node's NICs: a ring
#     all-reduce passes 2(n-1)/n of the buffer through every node's NICs,
#     so its bus bandwidth is at most the NICs' line rate (nccl-tests'
#     busbw definition). Checked for 2, 4 and 8 GPUs per node on GPUs
#     whose catalog node is 8 (a 4-GPU V100 node, AWS p3.8xlarge, shares
#     no NVLink with the next node);
#   - the tied-embedding gradient sum between the first and the last
#     pipeline stage (Megatron-LM finalize_model_grads; DeepSpeed's
#     ReduceTiedGrads), hand-computed below.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

# 1 NIC of 10 Gb/s = 1.25 GB/s per node.
for gpu in V100-SXM2-16GB H100-SXM A100-SXM4-80GB; do
	for gpn in 2 4 8; do
		for algo in ring tree; do
			bw=$("$H" comm --collective allreduce --bytes 680MiB --gpu $gpu --gpus-per-node $gpn \
				--nodes 4 --nics 1 --nic-gbps 10 --algo $algo --format json |
				python3 -c 'import json,sys; print(json.load(sys.stdin)["busbw_GBps"])')
			python3 -c "import sys; sys.exit(0 if $bw <= 1.25 else 1)" && ok ||
				bad "$gpu $gpn/node $algo all-reduce busbw $bw GB/s over a 1.25 GB/s NIC"
		done
	done
done

# GPT-2 medium (vocab 52256, hidden 1024) on AMP's cluster: 3 nodes of 4
# V100 (1 NIC of 10 Gb/s) and 1 node of 4 T4, pp 4 x dp 4, DeepSpeed, fp16.
# Tied embeddings: after the backward each of the 4 DP ranks of stage 0
# sums its 52256 x 1024 x 2 B = 107.0 MB embedding gradient with its peer
# on the last stage; the 4 pairs share stage 0's 10 Gb/s NIC, which carries
# NCCL over TCP sockets (the default below 50 Gb/s, docs/links.md) at 0.8 x
# 1.25 / 4 = 0.25 GB/s each, and an all-reduce of 2 ranks moves the buffer
# once: 107.0 / 0.25 = 0.428 s more than the same plan with untied embeddings
# (whose output layer is a separate weight on the last stage: no sum).
cat >"$T/c.json" <<'J'
{"name": "amp", "pools": [
 {"name": "v100", "gpu": "V100-SXM2-16GB", "nodes": 3, "gpus_per_node": 4, "intra": "nvlink", "nics": 1, "nic_gbps": 10},
 {"name": "t4", "gpu": "T4", "nodes": 1, "gpus_per_node": 4, "intra": "pcie", "nics": 1, "nic_gbps": 50}]}
J
for tied in true false; do
	cat >"$T/m-$tied.json" <<J
{"name": "gpt2-medium", "layers": 24, "hidden": 1024, "heads": 16, "ffn": 4096, "vocab": 52256,
 "seq_len": 1024, "gated_mlp": false, "norm": "layernorm", "position": "learned", "bias": true,
 "tied_embeddings": $tied}
J
done
cat >"$T/p.json" <<'J'
{"mbs": 1, "gbs": 32, "precision": "fp16", "zero": 0, "framework": "deepspeed", "flash": false, "sp": false,
 "replicas": [{"count": 4, "stages": [
  {"pool": "v100", "first_layer": 0, "last_layer": 4}, {"pool": "v100", "first_layer": 5, "last_layer": 11},
  {"pool": "v100", "first_layer": 12, "last_layer": 17}, {"pool": "t4", "first_layer": 18, "last_layer": 23}]}]}
J
for tied in true false; do
	"$H" estimate -c "$T/c.json" -m "$T/m-$tied.json" --plan "$T/p.json" --format json >"$T/e-$tied.json" 2>/dev/null
done
python3 - "$T" <<'PY' && ok || bad "tied-embedding sum"
import json, sys
t = json.load(open(sys.argv[1] + "/e-true.json"))["breakdown_s"]["dp_comm"]
u = json.load(open(sys.argv[1] + "/e-false.json"))["breakdown_s"]["dp_comm"]
assert 0.36 < t - u < 0.50, (t, u, t - u)
PY

finish bounds
