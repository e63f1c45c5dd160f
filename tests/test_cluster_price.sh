#!/bin/sh
# test_cluster_price.sh — a pool's price as the user gives it: an explicit
# 0 (owned hardware) stays 0 and is a known price, from --pool and from a
# cluster file alike; an unset price is the catalog's reference (H100-SXM:
# $6.88 per GPU-hour in data/gpus.json, x 8 GPUs = $55.04 per node-hour).
# Run from the repository root after `make` built ./hetplan.
# Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
set -u
bin=${HETPLAN:-./hetplan}
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# cost NAME WANT_USD_PER_NODE_HOUR WANT_USD_PER_HOUR -- estimate ARGS: the
# estimate's JSON cost block, 2 nodes of 8 H100 at TP 8 (1 node priced per
# replica, 2 replicas).
cost() {
	name=$1 node=$2 hour=$3
	shift 4
	if ! "$bin" estimate "$@" -m llama3.1-8b --tp 8 --pp 1 --gbs 64 --mbs 1 --no-price-book \
		--format json >"$tmp/o.json" 2>"$tmp/err"; then
		bad "$name: exit $?: $(cat "$tmp/err")"
		return
	fi
	python3 - "$tmp/o.json" "$node" "$hour" <<'PY' && ok || bad "$name: $(cat "$tmp/why")"
import json, sys
c = json.load(open(sys.argv[1]))["cost"]
got = (c["price_sources"][0]["usd_per_node_hour"], c["usd_per_hour"])
want = (float(sys.argv[2]), float(sys.argv[3]))
open(sys.argv[1].replace("o.json", "why"), "w").write("got %r, want %r" % (got, want))
sys.exit(0 if got[0] is not None and abs(got[0] - want[0]) < 1e-9 and abs(got[1] - want[1]) < 1e-9 else 1)
PY
}

cost pool-zero 0 0 -- --pool 2x8xH100-SXM,price=0
cost pool-unset 55.04 110.08 -- --pool 2x8xH100-SXM
cost pool-set 10 20 -- --pool 2x8xH100-SXM,price=10
printf '{"pools": [{"name": "own", "gpu": "H100-SXM", "nodes": 2, "price_per_node_hour": 0}]}' \
	>"$tmp/own.json"
cost file-zero 0 0 -- -c "$tmp/own.json"
printf '{"pools": [{"name": "rent", "gpu": "H100-SXM", "nodes": 2}]}' >"$tmp/rent.json"
cost file-unset 55.04 110.08 -- -c "$tmp/rent.json"

# The text says $0.00, not "unknown (a pool has no price)".
"$bin" estimate --pool 2x8xH100-SXM,price=0 -m llama3.1-8b --tp 8 --pp 1 --gbs 64 --mbs 1 \
	>"$tmp/o.txt" 2>&1
grep -q 'cost  *\$0.00/h' "$tmp/o.txt" && ok || bad "text: $(grep cost "$tmp/o.txt")"

# serve: the owned pool's fleet costs $0.00 an hour, a known price.
"$bin" serve --pool 2x8xH100-SXM,price=0 -m llama3.1-8b --isl 512 --osl 128 --rate 5 \
	--format json >"$tmp/s.json" 2>"$tmp/err" || bad "serve: $(cat "$tmp/err")"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["plans"][0]; sys.exit(0 if p["usd_per_hour"] == 0 else 1)' \
	"$tmp/s.json" && ok || bad "serve: usd_per_hour not 0"

# GB200 has an embedded price (data/prices.csv: CoreWeave's gb200-4x, its
# published $42.00 an hour for 4 GPUs = $10.50 per GPU-hour): a plan on 2
# trays of 4 GB200 prices without price= at 8 x 10.50 = $84.00 an hour,
# from the price book (an empty cache, so only the embedded rows count).
XDG_CACHE_HOME="$tmp/cache" XDG_CONFIG_HOME="$tmp/config" HETPLAN_PRICES_CACHE= \
	"$bin" plan --pool 2x4xGB200 -m llama3.1-8b --gbs 64 --top 1 --format json \
	>"$tmp/gb.json" 2>"$tmp/err" || bad "gb200 plan: $(cat "$tmp/err")"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["plans"][0]; sys.exit(0 if p["usd_per_hour"] == 84 else 1)' \
	"$tmp/gb.json" && ok || bad "gb200 plan: usd_per_hour $(grep -m1 -o '"usd_per_hour":[^,]*' "$tmp/gb.json")"

finish cluster_price
