#!/bin/sh
# test_wan50.sh — a plan across a WAN: every table says the same links.
# The TUI walk's cluster (16 H100 nodes on aws/us-east-1, 40 A100 40GB
# and 4 L40S nodes on gcp/us-central1; the fabric's default WAN is
# 100 Gb/s, 1 ms: src/cluster.c cluster_init) and smaller ones.
# Run from the repository root after `make`.
# Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
set -u
H=${HETPLAN:-./hetplan}
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# only the embedded price snapshot
export XDG_CACHE_HOME="$T/cache" XDG_CONFIG_HOME="$T/config" HETPLAN_PRICES_CACHE=

# A. A pipeline across the WAN that does not set the step. Group 0: an
# H100 node at site east (layers 0-27) hands off to an L40S node at site
# west (28-31); group 1, two tp-4 stages on the other H100 node, sets the
# pace, so the pp row (the breakdown's pp term) is its hand-off, and the
# links line's "WAN 100G between sites" had no row. Now a second pp row.
# Hand figure: Llama 3.1 8B (hidden 4,096) at seq 8,192, tp 8 with
# sequence parallelism: 8,192 x 4,096 x 2 B / 8 = 8 MiB a send. The 8
# GPUs of the stage send at once over the slower node's NICs, the L40S
# node's 4 x 100 Gb/s: 50 Gb/s = 6.25 GB/s a flow, x 0.96 (NCCL's share
# of IB line rate, src/comm.c NIC_EFF) = 6.0 GB/s; the 8 flows share the
# one WAN link of 12.5 GB/s: 1.5625 GB/s each, the bound:
# 8,388,608 / 1.5625e9 = 5.369 ms + the WAN's 1 ms = 6.37 ms a send; 2
# sends a micro-batch (activation, gradient) x 16 micro-batches (gbs 32,
# half to each group) = 203.8 ms a step (NCCL's own latency adds under
# 1%), half of it exposed. (Before the WAN was shared, each flow had the
# whole link: 76.7 ms.)
cat >"$T/a.json" <<'J'
{"pools": [{"name": "east", "gpu": "H100-SXM", "nodes": 2, "site": "east"},
           {"name": "west", "gpu": "L40S", "nodes": 1, "gpus_per_node": 8, "site": "west"}]}
J
cat >"$T/a-plan.json" <<'J'
{"mbs": 1, "gbs": 32, "precision": "bf16", "recompute": "none", "zero": 1, "schedule": "1f1b",
 "framework": "megatron-core",
 "replicas": [
  {"count": 1, "batch_share": 0.5, "stages": [
    {"pool": "east", "tp": 8, "first_layer": 0, "last_layer": 27, "nodes": [0]},
    {"pool": "west", "tp": 8, "first_layer": 28, "last_layer": 31, "nodes": [0]}]},
  {"count": 1, "batch_share": 0.5, "stages": [
    {"pool": "east", "tp": 4, "first_layer": 0, "last_layer": 15, "nodes": [1]},
    {"pool": "east", "tp": 4, "first_layer": 16, "last_layer": 31, "nodes": [1]}]}]}
J
"$H" estimate -c "$T/a.json" -m llama3.1-8b --plan "$T/a-plan.json" --format json >"$T/out" 2>"$T/err" ||
	bad "WAN pipeline estimate: $(cat "$T/err")"
json 'pp=[c for c in d["comm"] if c["dim"] == "pp"]; assert len(pp) == 2, pp; w=pp[1]; assert w["link"] == "4x100G NIC + WAN 100G" and w["bytes"] == 8388608 and w["sets_step"] is False and w["replica_group"] == 0, w; assert abs(w["time_s"] / 0.2038 - 1) < 0.02, w; assert abs(w["exposed_s"] * 2 - w["time_s"]) < 1e-9, w; assert "WAN" not in pp[0]["link"] and d["breakdown_group"] == 1, (pp[0], d["breakdown_group"])'
"$H" estimate -c "$T/a.json" -m llama3.1-8b --plan "$T/a-plan.json" >"$T/out" 2>&1
grep -q '^  pp  *sendrecv  *8\.0 MiB  *2 4x100G NIC + WAN 100G ' "$T/out" &&
	grep -q "group 0 stage 0's hand-off across the WAN" "$T/out" && ok ||
	bad "no WAN pp row: $(grep -A3 '^  DIM' "$T/out")"

# C. An 8-GPU A100 40GB pool on Google Cloud that names no transport is
# priced per GPU from the snapshot's a2-megagpu-16g offer (16 GPUs). Every
# A2 machine type has no GPUDirect NICs: NCCL runs over sockets on the
# VM's one gVNIC, up to 100 Gb/s a VM (Google Cloud, "Networking and GPU
# machines": A2 up to 100 Gbps; docs/cloud-transport.md "A2 is sockets"),
# and the 8-GPU node is an a2-highgpu-8g. Before, the 16-GPU offer did not
# divide the node and the pool kept InfiniBand over the catalog's
# 8 x 200 Gb/s A100 NICs.
cat >"$T/a2.json" <<'J'
{"pools": [{"name": "a2", "gpu": "A100-40GB", "nodes": 2, "provider": "gcp", "region": "us-central1"}]}
J
"$H" estimate -c "$T/a2.json" -m llama3.1-8b --tp 8 --pp 2 --gbs 64 --mbs 1 --format json \
	>"$T/out" 2>"$T/err" || bad "a2 estimate: $(cat "$T/err")"
json 'assert d["transport"]["a2"] == "tcp", d["transport"]; assert d["cost"]["price_sources"][0]["source"].startswith("gcp a2-"), d["cost"]'
json 'pp=[c for c in d["comm"] if c["dim"] == "pp"]; assert pp and "1x100G NIC" in pp[0]["link"], pp'
"$H" estimate -c "$T/a2.json" -m llama3.1-8b --tp 8 --pp 2 --gbs 64 --mbs 1 >"$T/out" 2>&1
grep -q '^  transport  *a2 tcp$' "$T/out" && ok || bad "a2 transport line: $(grep transport "$T/out")"

# B. ZeRO-1 across two sites: the dp row names the reduce-scatter, and
# its time includes the distributed optimizer's parameter all-gather
# (Megatron-Core's DistributedOptimizer: reduce-scatter of the gradients,
# then all-gather of the updated bf16 parameters). Two 8 x H100 nodes at
# two sites, Llama 3.1 8B at tp 8, dp 2: a GPU gathers its 8.03 B / 8 =
# 1.004 B parameters at 2 bytes, 2.008 GB (Meta's 8,030,261,248
# parameters; TP shards all but the norms). A ring of 2 moves (n-1)/n =
# half of it over the WAN's 100 Gb/s = 12.5 GB/s, which the stage's 8 DP
# groups (one per TP rank) cross at once: 1.5625 GB/s each (the WAN, not
# the 400G NIC, bounds it): 1.004 GB / 1.5625 GB/s = 642.6 ms, plus the
# WAN's 1 ms once per ring step (one step): 643.6 ms. The reduce-scatter
# moves fp32 gradients, twice the bytes: 1,286.1 ms. Before, the table
# and the JSON showed the reduce-scatter alone with both times, and each
# group had the whole WAN (81.3 ms).
cat >"$T/two.json" <<'J'
{"pools": [{"name": "east", "gpu": "H100-SXM", "nodes": 1, "site": "east"},
           {"name": "west", "gpu": "H100-SXM", "nodes": 1, "site": "west"}]}
J
"$H" plan -c "$T/two.json" -m llama3.1-8b --tp 8 --pp 1 --zero 1 --gbs 64 --mbs 1 \
	--framework megatron-core --top 1 -o "$T/two-p.json" >/dev/null 2>&1 || bad "two-site plan"
"$H" estimate -c "$T/two.json" -m llama3.1-8b --plan "$T/two-p.json" --format json >"$T/out" 2>"$T/err" ||
	bad "two-site estimate: $(cat "$T/err")"
json 'c=[c for c in d["comm"] if c["dim"] == "dp"][0]; g=c["includes"]; assert c["collective"] == "reducescatter" and g["collective"] == "allgather", c; assert abs(g["bytes"] / 2.008e9 - 1) < 0.01, g; assert abs(g["time_s"] / 0.6436 - 1) < 0.02, g; assert abs((c["time_s"] - g["time_s"]) / 1.2861 - 1) < 0.02, c'
"$H" estimate -c "$T/two.json" -m llama3.1-8b --plan "$T/two-p.json" >"$T/out" 2>&1
grep -q '^       + allgather .* WAN 100G .* 643\.[0-9] ms' "$T/out" && ok ||
	bad "no all-gather row under dp: $(grep -A1 '^  dp' "$T/out")"

# D. Two stages' DP syncs cross the one WAN together. Two replica groups
# of Llama 3.1 8B, PP 2 x TP 8, one at each site; each stage's DP group
# (2 ranks, one per site) crosses the WAN, 8 groups a stage (one per TP
# rank), and both stages sync at once: with the overlaps off they start
# after the drain, one micro-batch's backward apart (about 40 ms), and a
# sync bound by the WAN lasts seconds. So 16 flows share 12.5 GB/s:
# 0.78125 GB/s each. Stage 0: 16 layers x 218.1M + the 525.3M embedding
# = 4,015M parameters, 501.9M per TP rank (stage 1 the same with the
# output layer). The reduce-scatter of fp32 gradients (2.008 GB, 2 ranks)
# sends half, 1.004 GB, each way: 1.004 / 0.78125 = 1.285 s; the
# all-gather of bf16 parameters (1.004 GB) half of that: 0.6425 s; 1.927 s
# in all (plus a few ms of latency). Before, each stage had the WAN to its
# own 8 groups: half the time, 0.966 s.
cat >"$T/d.json" <<'J'
{"pools": [{"name": "east", "gpu": "H100-SXM", "nodes": 2, "site": "east"},
           {"name": "west", "gpu": "H100-SXM", "nodes": 2, "site": "west"}]}
J
cat >"$T/d-plan.json" <<'J'
{"mbs": 1, "gbs": 32, "precision": "bf16", "recompute": "none", "zero": 1, "schedule": "1f1b",
 "framework": "megatron-core", "grad_overlap": false, "param_overlap": false,
 "replicas": [
  {"count": 1, "batch_share": 0.5, "stages": [
    {"pool": "east", "tp": 8, "first_layer": 0, "last_layer": 15, "nodes": [0]},
    {"pool": "east", "tp": 8, "first_layer": 16, "last_layer": 31, "nodes": [1]}]},
  {"count": 1, "batch_share": 0.5, "stages": [
    {"pool": "west", "tp": 8, "first_layer": 0, "last_layer": 15, "nodes": [0]},
    {"pool": "west", "tp": 8, "first_layer": 16, "last_layer": 31, "nodes": [1]}]}]}
J
"$H" estimate -c "$T/d.json" -m llama3.1-8b --plan "$T/d-plan.json" --format json >"$T/out" 2>"$T/err" ||
	bad "two stages across the WAN: $(cat "$T/err")"
json 'c=[c for c in d["comm"] if c["dim"] == "dp"][0]; g=c["includes"]; assert abs(c["bytes"] / 2.008e9 - 1) < 0.01, c; assert abs(g["time_s"] / 0.6425 - 1) < 0.02, g; assert abs((c["time_s"] - g["time_s"]) / 1.285 - 1) < 0.02, c; assert abs(d["breakdown_s"]["dp_comm"] / 1.927 - 1) < 0.02, d["breakdown_s"]'

finish wan50
