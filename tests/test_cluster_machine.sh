#!/bin/sh
# test_cluster_machine.sh — a Google Cloud machine type named as a pool's
# transport fixes the GPUs of its node, the same way in a cluster file,
# in --pool and in `hetplan comm`, and prices the pool as that machine.
# Facts: GPUs per machine from Google Cloud's "GPU machine types" page
# (a3-highgpu-8g, a3-edgegpu-8g, a3-megagpu-8g: 8 H100; a2-megagpu-16g:
# 16 A100 40GB); exit codes from docs/usage.md (2 a usage error on the
# command line, 3 bad input in a file); prices from data/prices.csv rows
# quoted below. Run from the repository root after `make`.
# Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
set -u
H=${HETPLAN:-./hetplan}
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# only the embedded price snapshot
export XDG_CACHE_HOME="$T/cache" XDG_CONFIG_HOME="$T/config" HETPLAN_PRICES_CACHE=
EST="-m llama3.1-8b --tp 4 --pp 1 --gbs 64 --mbs 1"

pool() { # FILE GPU GPN TRANSPORT [EXTRA JSON]
	printf '{"pools": [{"name": "g", "gpu": "%s", "nodes": 2, "gpus_per_node": %s, "provider": "gcp", "transport": "%s"%s}]}\n' \
		"$2" "$3" "$4" "${5:-}" >"$T/$1"
}

# 1. A file: 4 GPUs a node on an 8-GPU machine type is refused, naming the
# file, the pool and both keys.
pool c4.json H100-SXM 4 a3-highgpu-8g
expect 3 "hetplan: $T/c4.json: pools[0]: pool 'g': transport a3-highgpu-8g is a machine of 8 GPUs; gpus_per_node expected a multiple of 8, got 4 (for another node give nics and nic_gbps)" \
	"$H" estimate -c "$T/c4.json" $EST
# the family alias and A3 Edge (whose NICs the table does not set) alike
pool e4.json H100-SXM 4 a3-edge
expect 3 "transport a3-edge is a machine of 8 GPUs; gpus_per_node expected a multiple of 8, got 4" \
	"$H" estimate -c "$T/e4.json" $EST
pool m8.json A100-SXM4-40GB 8 a2-megagpu-16g
expect 3 "transport a2-megagpu-16g is a machine of 16 GPUs; gpus_per_node expected a multiple of 16, got 8" \
	"$H" estimate -c "$T/m8.json" $EST
# whole machines are fine: 16 GPUs = two a3-highgpu-8g
pool c16.json H100-SXM 16 a3-highgpu-8g
expect 0 "" "$H" estimate -c "$T/c16.json" $EST
# with nics and nic_gbps both given, the name is the fabric only
pool cn.json H100-SXM 4 a3-highgpu-8g ', "nics": 2, "nic_gbps": 200'
expect 0 "" "$H" estimate -c "$T/cn.json" $EST
# one of the two is not enough
pool c1.json H100-SXM 4 a3-highgpu-8g ', "nics": 2'
expect 3 "gpus_per_node expected a multiple of 8, got 4" "$H" estimate -c "$T/c1.json" $EST
# a fabric name fixes no machine
pool cf.json H100-SXM 4 tcpx
expect 0 "" "$H" estimate -c "$T/cf.json" $EST

# 2. --pool: the same rule, a usage error.
expect 2 "hetplan: --pool 2x4xH100-SXM,transport=a3-mega: pool 'h100-sxm': transport a3-mega is a machine of 8 GPUs; GPUS expected a multiple of 8, got 4 (for another node give nics= and nic_gbps=)" \
	"$H" estimate --pool 2x4xH100-SXM,transport=a3-mega $EST
expect 0 "" "$H" estimate --pool 2x4xH100-SXM,transport=a3-mega,nics=4,nic_gbps=200 $EST

# 3. comm asks the same table (cluster_machine_gpus).
expect 2 "hetplan comm: --gpus-per-node: --transport a3-edgegpu-8g is a machine of 8 GPUs; expected a multiple of 8, got 4 (for another node give --nics and --nic-gbps)" \
	"$H" comm --gpu H100-SXM --nodes 2 --gpus-per-node 4 --transport a3-edgegpu-8g --coll allreduce --bytes 1G
expect 0 "" "$H" comm --gpu H100-SXM --nodes 2 --gpus-per-node 16 --transport a3-highgpu-8g --coll allreduce --bytes 1G

# 4. The price: an a2-megagpu-16g pool from its own rows
#   gcp,a2-megagpu-16g,...,8.79698,4.39824,us-central1,us-central1-a
#   gcp,,A100,16,...,46.94253,22.9456,us-central1,us-central1-a
# 8.79698 + 46.94253 = 55.73951 a node.
pool p16.json A100-SXM4-40GB 16 a2-megagpu-16g
"$H" estimate -c "$T/p16.json" -m llama3.1-8b --tp 8 --pp 1 --gbs 64 --mbs 1 --format json >"$T/out" 2>"$T/err" ||
	bad "a2-megagpu-16g estimate: $(cat "$T/err")"
json 'p=d["cost"]["price_sources"][0]; assert abs(p["usd_per_node_hour"] - 55.73951) < 1e-9, p; assert p["source"] == "gcp a2-megagpu-16g us-central1 on-demand; embedded snapshot", p'
# an a3-megagpu-8g pool: the snapshot has no such row; the nearest H100
# offer (a3-highgpu-1g 1.18251 + H100 x 1 4.20076 = 5.38327 a GPU-hour,
# 43.06616 a node of 8: the 1-GPU machine's price x 8) and the text says
# it fell back
pool p8.json H100-SXM 8 a3-megagpu-8g
"$H" estimate -c "$T/p8.json" -m llama3.1-8b --tp 8 --pp 1 --gbs 64 --mbs 1 --format json >"$T/out" 2>"$T/err" ||
	bad "a3-megagpu-8g estimate: $(cat "$T/err")"
json 'p=d["cost"]["price_sources"][0]; assert abs(p["usd_per_node_hour"] - 43.06616) < 1e-9, p; assert p["source"] == "gcp a3-highgpu-1g us-central1 on-demand x 8 (fallback: no a3-megagpu-8g offer); embedded snapshot", p'
"$H" estimate -c "$T/p8.json" -m llama3.1-8b --tp 8 --pp 1 --gbs 64 --mbs 1 >"$T/out" 2>&1
grep -qF 'g $43.066/node-h from gcp a3-highgpu-1g us-central1 on-demand x 8 (fallback: no a3-megagpu-8g offer); embedded snapshot' "$T/out" &&
	ok || bad "text price line: $(grep prices "$T/out")"

# 5. A workspace saves the fabric ("tcpxo"), not the machine type: tcpxo on
# H100-SXM is one machine type, a3-megagpu-8g, and the report's price
# source says the same fallback (the report splits the source at ';').
python3 - "$T" <<'PY' || bad "workspace for the report"
import json, sys
w = json.load(open("tests/data/report/workspace.json"))
w["cluster"] = {"pools": [{"name": "g", "gpu": "H100-SXM", "nodes": 2, "gpus_per_node": 8,
                           "provider": "gcp", "transport": "tcpxo"}]}
json.dump(w, open(sys.argv[1] + "/ws.json", "w"))
PY
if "$H" report "$T/ws.json" -o "$T/r.md" >"$T/out" 2>"$T/err"; then
	grep -qF '| gcp a3-highgpu-1g us-central1 on-demand x 8 (fallback: no a3-megagpu-8g offer) | embedded snapshot, date unknown |' "$T/r.md" &&
		ok || bad "report price source: $(grep -F 'gcp ' "$T/r.md" | head -2)"
else
	bad "report: exit $?: $(cat "$T/err")"
fi

# A machine type fixes the node's GPU as well as its count: A100s on
# a3-highgpu-8g (8 H100 80GB, Google Cloud's "GPU machine types" page) are
# refused, naming the pool, the machine's GPU and the pool's (exit 3 in a
# file, 2 on --pool); with nics and nic_gbps given the name is the fabric
# only, as for a node of another size.
pool ga.json A100-SXM4-40GB 8 a3-highgpu-8g
expect 3 "pool 'g': transport a3-highgpu-8g is a machine of 8 H100-SXM GPUs, not A100-SXM4-40GB" \
	"$H" estimate -c "$T/ga.json" $EST
expect 2 "transport=a3-highgpu-8g: pool 'a100-sxm4-40gb': transport a3-highgpu-8g is a machine of 8 H100-SXM GPUs, not A100-SXM4-40GB" \
	"$H" estimate --pool 2x8xA100-SXM4-40GB,transport=a3-highgpu-8g $EST
pool gan.json A100-SXM4-40GB 8 a3-highgpu-8g ', "nics": 4, "nic_gbps": 200'
expect 0 "" "$H" estimate -c "$T/gan.json" $EST --recompute full
finish cluster_machine
