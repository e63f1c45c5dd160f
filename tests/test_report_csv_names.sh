#!/bin/sh
# test_report_csv_names.sh — the CSV's per-pool list cells read back to the
# pools they name, whatever the pool names hold.
#
# gpus_by_pool and transports are "POOL:X;POOL:X" (docs/reports.md). The
# rule a reader follows: parse the CSV (RFC 4180), split the cell on ';',
# then each item at its last ':' (a GPU count or a transport name holds
# none). So a pool name may hold ':', ',' and '"' (the CSV quotes the
# cell), and may not hold ';': hetplan refuses such a name where a cluster
# is read (a cluster file, --pool, a workspace), naming the file and field.
# Run from the repository root after `make`.
# Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

# Two pools with hostile names: a colon, a comma and a quote in one, two
# colons in the other; one on EFA (32 x 100 Gb/s, AWS p5), one on IB.
cat >"$T/c.json" <<'EOF'
{"name": "hostile", "pools": [
 {"name": "dc:1,\"h100\"", "gpu": "H100-SXM", "nodes": 2, "transport": "efa", "nics": 32, "nic_gbps": 100},
 {"name": "a:b:c", "gpu": "A100-80GB", "nodes": 2}]}
EOF
A="-c $T/c.json -m llama3.1-8b --gbs 256 --seq-len 4096 --top 5"
# shellcheck disable=SC2086
expect 0 "" $H plan $A --format csv
cp "$T/out" "$T/p.csv"
# shellcheck disable=SC2086
expect 0 "" $H plan $A --format json
python3 - "$T/p.csv" "$T/out" <<'PY' && ok || bad "CSV pool lists do not read back to the pools"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
plans = json.load(open(sys.argv[2]))["plans"]
assert rows and len(rows) == len(plans), (len(rows), len(plans))
names = {'dc:1,"h100"', "a:b:c"}
seen = set()
for r, p in zip(rows, plans):
    def items(cell):
        return [tuple(it.rsplit(":", 1)) for it in cell.split(";")]
    gp = items(r["gpus_by_pool"])
    tr = items(r["transports"])
    # the pools the plan uses, in the cluster's order, with their counts
    assert [(k, int(v)) for k, v in gp] == list(p["gpus_used"].items()), (gp, p["gpus_used"])
    assert sum(int(v) for _, v in gp) == int(r["gpus"]), (gp, r["gpus"])
    # each pool's transport: the cluster file's efa, the default ib
    want = {'dc:1,"h100"': "efa", "a:b:c": "ib"}
    assert tr == [(k, want[k]) for k, _ in gp], tr
    assert {k for k, _ in gp} <= names, gp
    seen |= {k for k, _ in gp}
assert seen == names, seen   # both hostile names made it into some plan
PY
# the raw file quotes the cells that hold the comma and the quote (RFC 4180)
grep -q '"dc:1,""h100"":' "$T/p.csv" && ok || bad "CSV: the hostile name's cell is not quoted: $(sed -n 2p "$T/p.csv")"

# ';' in a pool name is refused everywhere a cluster is read.
printf '{"pools": [{"name": "h;1", "gpu": "H100-SXM", "nodes": 1}]}\n' >"$T/semi.json"
expect 3 "$T/semi.json: pools[0].name: expected no ';' (CSV reports list pools as POOL:X;POOL:X), got \"h;1\"" \
	$H plan -c "$T/semi.json" -m llama3.1-8b --gbs 8 --format csv
expect 2 "--pool.name: expected no ';' (CSV reports list pools as POOL:X;POOL:X), got \"a;b\"" \
	$H plan --pool '1x8xH100-SXM,name=a;b' -m llama3.1-8b --gbs 8
printf '{"version": 1, "cluster": {"pools": [{"name": "x;y", "gpu": "H100-SXM", "nodes": 1}]}, "model": "llama3.1-8b"}\n' >"$T/ws.json"
expect 3 "$T/ws.json: cluster: pools[0].name: expected no ';'" $H report "$T/ws.json" -o "$T/r.csv"
[ -e "$T/r.csv" ] && bad "report wrote a CSV for a refused workspace" || ok
# the second pool is checked too, and a name that only looks alike passes
printf '{"pools": [{"name": "a", "gpu": "H100-SXM", "nodes": 1}, {"name": "b;", "gpu": "H100-SXM", "nodes": 1}]}\n' >"$T/semi2.json"
expect 3 "pools[1].name: expected no ';'" $H plan -c "$T/semi2.json" -m llama3.1-8b --gbs 8
printf '{"pools": [{"name": "a\\u037eb", "gpu": "H100-SXM", "nodes": 1}]}\n' >"$T/greek.json"
expect 0 "" $H plan -c "$T/greek.json" -m llama3.1-8b --gbs 8 --top 1 --format csv

finish report_csv_names
