#!/bin/sh
# test_cluster_nics.sh — NICs of a node that is a whole NVLink domain.
# The catalog's GB200 node is a tray of 4 GPUs with 4 NICs (one 400 Gb/s
# ConnectX-7 per GPU) in a domain of 72 (NVL72: 18 trays). Written as one
# node of 72 (2x72xGB200), a rack has the same 18 x 4 = 72 NICs as the
# tray form 36x4xGB200 (nvl_domain 72), so data-parallel traffic between
# the two racks runs over the same 72 NICs a rack either way: Llama 3.1
# 70B at TP 4 on 144 GPUs is DP 36, 18 DP ranks a rack, each rack sending
# its gradient shards over its own 72 x 400 Gb/s; the two forms' DP time
# must be equal. With the rack's NICs given as 4 (the old default: one
# tray's NICs for 72 GPUs) the same traffic has 1/18 of the bandwidth, so
# its DP time must be well above (more than 10x) the 72-NIC one.
# Run from the repository root after `make` built ./hetplan.
# Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
set -u
bin=${HETPLAN:-./hetplan}
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# dp NAME ARGS...: the estimate's DP communication seconds into $tmp/NAME
dp() {
	name=$1
	shift
	if "$bin" estimate "$@" -m llama3.1-70b --tp 4 --pp 1 --gbs 144 --mbs 1 --no-price-book \
		--format json >"$tmp/$name.json" 2>"$tmp/err"; then
		python3 -c 'import json,sys; print(repr(json.load(open(sys.argv[1]))["breakdown_s"]["dp_comm"]))' \
			"$tmp/$name.json" >"$tmp/$name" && ok || bad "$name: no breakdown_s.dp_comm"
	else
		bad "$name: exit $?: $(cat "$tmp/err")"
		echo 0 >"$tmp/$name"
	fi
}

dp rack --pool 2x72xGB200
dp tray --pool 36x4xGB200
dp tray-domain --pool 36x4xGB200,nvl_domain=72
dp rack-4 --pool 2x72xGB200,nics=4
cat >"$tmp/rack.cluster.json" <<'J'
{"name": "nvl72", "pools": [{"name": "gb", "gpu": "GB200", "nodes": 2, "gpus_per_node": 72}]}
J
dp rack-file -c "$tmp/rack.cluster.json"

[ "$(cat "$tmp/rack")" = "$(cat "$tmp/tray")" ] && [ "$(cat "$tmp/rack")" != 0 ] && ok ||
	bad "2x72xGB200 DP $(cat "$tmp/rack") s, 36x4xGB200 $(cat "$tmp/tray") s: expected the same"
[ "$(cat "$tmp/tray")" = "$(cat "$tmp/tray-domain")" ] && ok ||
	bad "36x4xGB200 DP $(cat "$tmp/tray") s, with nvl_domain=72 $(cat "$tmp/tray-domain") s"
[ "$(cat "$tmp/rack")" = "$(cat "$tmp/rack-file")" ] && ok ||
	bad "cluster file of 2 x 72 GB200: DP $(cat "$tmp/rack-file") s, --pool $(cat "$tmp/rack") s"
python3 -c 'import sys; sys.exit(0 if float(sys.argv[2]) > 10 * float(sys.argv[1]) > 0 else 1)' \
	"$(cat "$tmp/rack")" "$(cat "$tmp/rack-4")" && ok ||
	bad "nics=4 on a rack of 72: DP $(cat "$tmp/rack-4") s, expected more than 10 x $(cat "$tmp/rack") s"

# A rack of 72 with one NIC a GPU written out is taken (the limit was 64);
# past one a GPU of the largest node (1024) is refused, naming the key.
"$bin" estimate --pool 2x72xGB200,nics=72 -m llama3.1-70b --tp 4 --pp 1 --gbs 144 --mbs 1 \
	--no-price-book --format json >"$tmp/n72.json" 2>"$tmp/err" && ok || bad "nics=72: $(cat "$tmp/err")"
python3 -c 'import json,sys; print(repr(json.load(open(sys.argv[1]))["breakdown_s"]["dp_comm"]))' \
	"$tmp/n72.json" >"$tmp/n72" 2>/dev/null
[ "$(cat "$tmp/n72")" = "$(cat "$tmp/rack")" ] && ok || bad "nics=72 DP $(cat "$tmp/n72") s, default $(cat "$tmp/rack") s"
"$bin" estimate --pool 2x72xGB200,nics=1025 -m llama3.1-70b --tp 4 --pp 1 --gbs 144 --mbs 1 \
	>"$tmp/o" 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "nics" "$tmp/err" && ok || bad "nics=1025: exit $rc: $(cat "$tmp/err")"

# A node of the usual size keeps the catalog's NICs: an H100 node of 8
# (the catalog's 8 with 8 NICs) and a GB200 tray of 4 are untouched.
dp h100 --pool 2x8xH100-SXM --zero 3 --recompute full
dp h100-8 --pool 2x8xH100-SXM,nics=8 --zero 3 --recompute full
[ "$(cat "$tmp/h100")" = "$(cat "$tmp/h100-8")" ] && ok ||
	bad "2x8xH100-SXM DP $(cat "$tmp/h100") s, with nics=8 $(cat "$tmp/h100-8") s"

# A Google Cloud machine type named as the transport brings its GPU NICs
# (Google's "Networking and GPU machines" page): a3-highgpu-8g has 4 x 200
# Gb/s = 800 Gb/s = 100 GB/s a node for NCCL, where the H100 node's
# catalog default is 8 x 400 = 400 GB/s. Llama 3.1 8B on 2 nodes of 8 at
# DP 16 (ZeRO-1) all-reduces 16 GB of bf16 gradients a step: at 100 GB/s
# a node the ring's network term is 4 x that at 400 GB/s, and the fixed
# per-step latency is the same, so the DP time ratio is just below 4
# (above 3.5). The same pool with nics=4,nic_gbps=200 written out is the
# same plan; a user's nics or nic_gbps wins over the machine type's.
dp8() {
	name=$1
	shift
	if "$bin" estimate "$@" -m llama3.1-8b --tp 1 --pp 1 --gbs 16 --mbs 1 --zero 1 --recompute full \
		--no-price-book --format json >"$tmp/$name.json" 2>"$tmp/err"; then
		python3 -c 'import json,sys; print(repr(json.load(open(sys.argv[1]))["breakdown_s"]["dp_comm"]))' \
			"$tmp/$name.json" >"$tmp/$name" && ok || bad "$name: no breakdown_s.dp_comm"
	else
		bad "$name: exit $?: $(cat "$tmp/err")"
		echo 0 >"$tmp/$name"
	fi
}
dp8 tcpx --pool 2x8xH100-SXM,transport=tcpx
dp8 a3high --pool 2x8xH100-SXM,transport=a3-highgpu-8g
dp8 a3high-given --pool 2x8xH100-SXM,transport=tcpx,nics=4,nic_gbps=200
dp8 a3high-nics8 --pool 2x8xH100-SXM,transport=a3-high,nics=8
dp8 a3high-400 --pool 2x8xH100-SXM,transport=a3-highgpu-8g,nic_gbps=400
[ "$(cat "$tmp/a3high")" = "$(cat "$tmp/a3high-given")" ] && ok ||
	bad "transport=a3-highgpu-8g DP $(cat "$tmp/a3high") s, tcpx with 4 x 200 written $(cat "$tmp/a3high-given") s"
python3 -c 'import sys; r = float(sys.argv[2]) / float(sys.argv[1]); sys.exit(0 if 3.5 < r <= 4.0 else 1)' \
	"$(cat "$tmp/tcpx")" "$(cat "$tmp/a3high")" && ok ||
	bad "a3-highgpu-8g (4 x 200) DP $(cat "$tmp/a3high") s over 8 x 400's $(cat "$tmp/tcpx") s: expected a ratio in (3.5, 4]"
# nics=8 given (8 x 200) and nic_gbps=400 given (4 x 400) are both 1600
# Gb/s: half the 4 x 200 time's network term, the same plan as each other
[ "$(cat "$tmp/a3high-nics8")" = "$(cat "$tmp/a3high-400")" ] && ok ||
	bad "a3-high with nics=8 DP $(cat "$tmp/a3high-nics8") s, with nic_gbps=400 $(cat "$tmp/a3high-400") s: expected the same"
python3 -c 'import sys; r = float(sys.argv[1]) / float(sys.argv[2]); sys.exit(0 if 1.75 < r <= 2.0 else 1)' \
	"$(cat "$tmp/a3high")" "$(cat "$tmp/a3high-nics8")" && ok ||
	bad "a3-high nics=8 DP $(cat "$tmp/a3high-nics8") s: expected about half of 4 x 200's $(cat "$tmp/a3high") s"
# a cluster file's transport reads the same
cat >"$tmp/a3.cluster.json" <<'J'
{"name": "a3", "pools": [{"name": "a3", "gpu": "H100-SXM", "nodes": 2, "transport": "a3-highgpu-8g"}]}
J
dp8 a3high-file -c "$tmp/a3.cluster.json"
[ "$(cat "$tmp/a3high-file")" = "$(cat "$tmp/a3high")" ] && ok ||
	bad "cluster file transport a3-highgpu-8g: DP $(cat "$tmp/a3high-file") s, --pool $(cat "$tmp/a3high") s"

finish cluster_nics
