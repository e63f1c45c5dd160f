#!/bin/sh
# test_serve_place.sh — `hetplan serve --place` with --rate: the placement
# buys the machines the rate needs, as the fleet ILP buys replicas.
# The per-replica figure comes from a separate run, the placement on one
# pool of one GPU (`serve --pool 1x1xH100-SXM -m llama3.1-8b --isl 1000
# --osl 200 --offline --place`): one H100 holding all 32 layers serves
# 20.228 req/s (4,045.6 output tokens/s); checked below to 0.01 req/s.
# A rate may load a machine to 0.9 of that (SERVE_MAX_UTIL, the fleet's
# rule without targets): 18.205 req/s a machine. On 4 such machines:
#   --rate 36: ceil(36 / 18.205) = 2 machines (2 x 18.205 = 36.41 >= 36),
#              each loaded to 18 / 20.228 = 89.0%; the catalog reference
#              price of H100-SXM, $6.88 per GPU-hour: $13.76/h.
#   --rate 37: ceil(37 / 18.205) = 3 (36.41 < 37): $20.64/h.
#   --rate 73: 4 x 18.205 = 72.82 < 73: no placement carries it (exit 4),
#              though 4 x 20.228 = 80.91 req/s is the most it serves.
#   --offline: every machine, 80.91 req/s.
# Before --rate was honoured, every rate got all 4 machines.
# Run from the repository root after `make` built ./hetplan.
# Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
set -u
bin=${HETPLAN:-./hetplan}
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# run NAME RC POOL -- ARGS...: serve --place as JSON into $tmp/NAME.json
run() {
	name=$1 want=$2 pool=$3
	shift 4
	"$bin" serve --pool "$pool" -m llama3.1-8b --isl 1000 --osl 200 --place --no-price-book \
		--format json "$@" >"$tmp/$name.json" 2>"$tmp/$name.err"
	rc=$?
	[ "$rc" -eq "$want" ] && ok || bad "$name: exit $rc, want $want: $(cat "$tmp/$name.err")"
}

# check NAME GPUS REQ_S USD_H [LOAD]: plan 1 of $tmp/NAME.json
check() {
	python3 - "$tmp/$1.json" "$2" "$3" "$4" "${5:-}" <<'PY' && ok || bad "$1 (above)"
import json, sys
p = json.load(open(sys.argv[1]))["plans"][0]
gpus, req, usd = int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
got = (p["gpus"], p["requests_per_s"], p["usd_per_hour"])
if got[0] != gpus or abs(got[1] - req) > 0.01 or abs(got[2] - usd) > 1e-9:
    sys.exit("got gpus %r, req/s %r, $/h %r; want %r, %r, %r" % (got + (gpus, req, usd)))
n = sum(i["count"] * i["tp"] for i in p["instances"])
if n != gpus:
    sys.exit("instances hold %d GPUs, the plan says %d" % (n, gpus))
if sys.argv[5]:
    loads = [i["utilisation"] for i in p["instances"]]
    if any(abs(l - float(sys.argv[5])) > 0.001 for l in loads):
        sys.exit("loads %r, want %s" % (loads, sys.argv[5]))
PY
}

run one 0 1x1xH100-SXM -- --offline
check one 1 20.228 6.88
run r36 0 4x1xH100-SXM -- --rate 36
check r36 2 36 13.76 0.890
run r37 0 4x1xH100-SXM -- --rate 37
check r37 3 37 20.64
run offline 0 4x1xH100-SXM -- --offline
check offline 4 80.91 27.52
run r73 4 4x1xH100-SXM -- --rate 73
grep -q "at most 80.91 req/s; loaded to 90% of that (72.82 req/s) it is short of --rate 73" \
	"$tmp/r73.err" && ok || bad "r73 message: $(cat "$tmp/r73.err")"

# A rate past the most (4 x 20.228 = 80.91 req/s) and a latency target
# missed are each named: they read "serves 80.91 req/s (TPOT ...), short
# of the target" alike, a TPOT miss as if it were the rate's. One H100
# holding 32 layers takes far longer than 1 ms a token.
run r100 4 4x1xH100-SXM -- --rate 100
grep -q "the placement serves at most 80.91 req/s, short of --rate 100\$" "$tmp/r100.err" && ok ||
	bad "r100 message: $(cat "$tmp/r100.err")"
run tpot 4 4x1xH100-SXM -- --offline --tpot-p99 0.001
grep -Eq "^hetplan: the placement's TPOT p99 [0-9.]+ ms, over --tpot-p99 0.001 s\$" "$tmp/tpot.err" && ok ||
	bad "tpot message: $(cat "$tmp/tpot.err")"
"$bin" serve --pool 4x1xH100-SXM -m llama3.1-8b --isl 1000 --osl 200 --place --no-price-book \
	--rate 100 2>&1 >/dev/null | grep -Eq "^nearest miss: placement over 4 GPUs, 1 segment, 80.91 req/s, [0-9]+ output tok/s, TTFT p99 .*, TPOT p99 .*\$" &&
	ok || bad "nearest miss line (the GPUs once; one segment, not \"1 segments\")"

# 64 nodes of 8 (512 machines of TP 1 and fewer of TP 2-8) at --rate 10:
# ceil(10 / 18.205) = 1 GPU, priced as its whole node (the catalog's
# $6.88 x 8 = $55.04/h: plans rent whole nodes).
run big 0 64x8xH100-SXM -- --rate 10
check big 1 10 55.04

finish serve_place
