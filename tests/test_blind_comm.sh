#!/bin/sh
# test_blind_comm.sh — hetplan's collective model on measurements it never
# saw: tests/data/blind_comm.csv (sources and the scoring rule in
# tests/data/blind_comm_README.md), NVL72 all-reduce across 2 and 20 racks.
#
# For every row it runs
#   hetplan comm --collective allreduce --bytes B --gpu GB200
#                --gpus-per-node 4 --nodes TRAYS --nvl-domain 72
#                --nics 4 --nic-gbps 400 --algo ring|tree --format json
# and scores the higher busbw of ring and tree: the source's script turns
# NVLS off (NCCL_NVLS_ENABLE=0), so NCCL chose between those two. hetplan's
# own choice (--algo auto) is printed next to it, not scored.
#
# What is asserted (facts that hold, not targets):
#  - every row runs (exit 0, JSON with busbw_GBps);
#  - every row whose error is beyond 30% is in KNOWN_MISSES below, a closed
#    list with the error measured when it was written (docs/blind.md gives
#    the diagnosis), so a new miss fails; a listed row back within 30% is
#    printed as "now within 30%".
# The MAPE is printed, not asserted.
# Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
set -u
. tests/lib.sh
HETPLAN=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# ID:ERROR%  busbw beyond 30% (the error when listed); docs/blind.md says why.
# Empty since the per-channel NIC bound, the spine ECMP efficiency and the
# tree pipeline fill (src/comm.c); the six 20-rack rows were +61..+258%.
KNOWN_MISSES="
"

cat >"$T/drive.py" <<'PY'
import csv, json, subprocess, sys

hetplan, path, known_txt = sys.argv[1:4]
known = {t.split(":")[0]: float(t.split(":")[1]) for t in known_txt.split()}

def comm(r, algo):
    cmd = [hetplan, "comm", "--collective", "allreduce", "--bytes", r["msg_bytes"],
           "--gpu", "GB200", "--gpus-per-node", r["gpus_per_node"], "--nodes", r["n_nodes"],
           "--nvl-domain", "72", "--nics", "4", "--nic-gbps", "400", "--algo", algo,
           "--format", "json"]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        return None, "exit %d: %s" % (p.returncode, p.stderr.strip()[:200])
    try:
        return json.loads(p.stdout), None
    except ValueError:
        return None, "no JSON"

res = []
for r in csv.DictReader(open(path)):
    rid = r["id"]
    if r["collective"] != "all_reduce" or r["gpu"] != "GB200" or r["metric"] != "busbw":
        print("FAIL %s: the driver scores GB200 all-reduce busbw rows only" % rid)
        continue
    if int(r["n_nodes"]) * int(r["gpus_per_node"]) != int(r["n_gpus"]):
        print("FAIL %s: n_nodes x gpus_per_node is not n_gpus" % rid)
        continue
    out = {}
    for algo in ("ring", "tree", "auto"):
        d, err = comm(r, algo)
        if d is None:
            print("FAIL %s --algo %s: %s" % (rid, algo, err))
            break
        out[algo] = d
    else:
        print("OK %s runs" % rid)
        meas = float(r["value"])
        best = max(("ring", "tree"), key=lambda a: out[a]["busbw_GBps"])
        pred = out[best]["busbw_GBps"]
        err = 100.0 * (pred - meas) / meas
        group = rid.rsplit("-", 1)[0]
        res.append((group, rid, int(r["n_gpus"]), int(r["msg_bytes"]), meas, pred, best,
                    out["auto"]["busbw_GBps"], out["auto"]["algorithm"], err))
        if abs(err) > 30:
            if rid in known:
                print("OK %s known miss %+.0f%% (listed %+.0f%%)" % (rid, err, known[rid]))
            else:
                print("FAIL %s: %+.1f%% beyond 30%% and not in KNOWN_MISSES" % (rid, err))
        elif rid in known:
            print("NOTE %s now within 30%% (%+.1f%%, listed %+.0f%%): drop it from KNOWN_MISSES" % (rid, err, known[rid]))

print()
print("%-15s %5s %12s %9s %9s %-5s %7s | %9s %-9s" % ("id", "ranks", "bytes", "measured", "hetplan", "algo", "error", "auto", "auto algo"))
for g, rid, n, b, m, p, a, pa, aa, e in res:
    print("%-15s %5d %12d %9.1f %9.1f %-5s %+6.1f%% | %9.1f %-9s" % (rid, n, b, m, p, a, e, pa, aa))
print()
for g in sorted(set(x[0] for x in res)):
    sel = [x for x in res if x[0] == g]
    print("MAPE %-12s %5.1f%%  (%d rows, %d beyond 30%%, mean signed %+.1f%%)" % (
        g, sum(abs(x[9]) for x in sel) / len(sel), len(sel), sum(abs(x[9]) > 30 for x in sel),
        sum(x[9] for x in sel) / len(sel)))
if res:
    print("MAPE %-12s %5.1f%%  (%d rows, %d beyond 30%%)" % (
        "all", sum(abs(x[9]) for x in res) / len(res), len(res), sum(abs(x[9]) > 30 for x in res)))
PY
if ! python3 "$T/drive.py" "$HETPLAN" tests/data/blind_comm.csv "$KNOWN_MISSES" >"$T/report" 2>"$T/pyerr"; then
	bad "blind comm driver failed: $(tail -3 "$T/pyerr")"
fi
cat "$T/report"
report_checks "$T/report"
finish test_blind_comm
