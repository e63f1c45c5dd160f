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

finish wan50
