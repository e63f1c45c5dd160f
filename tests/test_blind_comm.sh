#!/bin/sh
# test_blind_comm.sh — hetplan's collective model on measurements it never
# saw: tests/data/blind_comm.csv (sources and the scoring rules in
# tests/data/blind_comm_README.md).
#
# Two kinds of rows:
#  - BC-NVL72x2 / BC-NVL72x20 (GB200 all-reduce across racks): the row's
#    shape with --gpu GB200 --nvl-domain 72 --nics 4 --nic-gbps 400, scored
#    on the higher busbw of --algo ring and tree (the source's script turns
#    NVLS off); hetplan's own --algo auto is printed next to it.
#  - every row whose notes carry "HETPLAN: <flags>" (round 29): those flags
#    plus --collective, --bytes and --format json, algorithm and protocol on
#    auto, scored on busbw_GBps. A row marked "EXPRESSIBLE: no" is scored and
#    printed but kept out of the MAPE and the 30% check (hetplan cannot
#    describe that system; the gap is the description's, not the model's).
#
# What is asserted (facts that hold, not targets):
#  - every row runs (exit 0, JSON with busbw_GBps);
#  - every scored row whose error is beyond 30% is in KNOWN_MISSES below, a
#    closed list with the error measured when it was written (the round's
#    docs say why), so a new miss fails; a listed row back within 30% is
#    printed as "now within 30%".
# The MAPE (per group, per system kind, per regime) is printed, not asserted.
# Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
set -u
. tests/lib.sh
HETPLAN=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# ID:ERROR%  busbw beyond 30%, with the error measured when the entry was
# written. The NVL72 rows have none since the per-channel NIC bound, the
# spine ECMP efficiency and the tree pipeline fill (src/comm.c;
# docs/blind.md); the round 29 rows below are the first predictions,
# diagnosed one line each in docs/blind-comm-round29.md, except the rows
# through host memory (BC-4090SHM, BC-5090), which carry the errors after
# the SHM host ceiling (SHM_HOST_BPS, src/comm.c; scored post hoc,
# docs/cloud-transport.md): BC-4090SHM-05 came within 30% (+15.1%) and
# left the list; BC-5090 moved from -41/-52% to -84/-87% (28-35 GB/s is
# beyond any SHM path measured; that box likely had P2P). The GCP rows keep
# their first errors: their HETPLAN flags name no transport, so they still
# run as ib (with --transport tcpxo / gcp-rdma: docs/cloud-transport.md).
KNOWN_MISSES="
BC-A3MEGA-02:+89
BC-GKEH200X1-01:+57 BC-GKEH200X1-02:+84 BC-GKEH200X1-03:+30
BC-A4B200AG-01:+1834 BC-A4B200AG-02:+709 BC-A4B200AG-03:+274
BC-4090SHM-01:+106 BC-4090SHM-02:+98 BC-4090SHM-03:+60 BC-4090SHM-04:+71
BC-2080TINVB-01:+109 BC-2080TINVB-02:+91 BC-2080TINVB-03:+96
BC-H100ROCE-01:+108 BC-H100ROCE-02:+105 BC-H100ROCE-03:+231 BC-H100ROCE-04:+234 BC-H100ROCE-05:+204
BC-5090-01:-84 BC-5090-02:-87
"

cat >"$T/drive.py" <<'PY'
import csv, json, os, re, shlex, subprocess, sys, tempfile

hetplan, path, known_txt = sys.argv[1:4]
known = {t.split(":")[0]: float(t.split(":")[1]) for t in known_txt.split()}
COLL = {"all_reduce": "allreduce", "all_gather": "allgather",
        "reduce_scatter": "reducescatter", "alltoall": "alltoall"}

def p2p_config(gpu):
    # A user's $XDG_CONFIG_HOME/hetplan/gpus.json replaces a catalog entry by
    # name: the catalog's own entry for GPU with "p2p" true, for rows whose
    # notes say "P2P:on" (a patched driver the catalog does not assume).
    cat = json.load(open("data/gpus.json"))
    e = dict(next(g for g in cat["gpus"] if g["name"] == gpu))
    e["p2p"] = True
    e.pop("p2p_source", None)
    d = tempfile.mkdtemp()
    os.mkdir(os.path.join(d, "hetplan"))
    json.dump({"gpus": [e]}, open(os.path.join(d, "hetplan", "gpus.json"), "w"))
    return d

def run(args, env=None):
    p = subprocess.run([hetplan, "comm"] + args + ["--format", "json"],
                       capture_output=True, text=True, env=env)
    if p.returncode != 0:
        return None, "exit %d: %s" % (p.returncode, p.stderr.strip()[:200])
    try:
        return json.loads(p.stdout), None
    except ValueError:
        return None, "no JSON"

def field(notes, key):
    m = re.search(r"\b%s:\s*([^;]*)" % key, notes)
    return m.group(1).strip() if m else None

def regime(b):
    return "latency<=1MiB" if b <= 1 << 20 else ("mid" if b < 64 << 20 else "bandwidth>=64MiB")

res = []
for r in csv.DictReader(open(path)):
    rid, notes = r["id"], r["notes"]
    if r["metric"] != "busbw" or r["collective"] not in COLL:
        print("FAIL %s: the driver scores busbw of %s only" % (rid, ", ".join(COLL)))
        continue
    if int(r["n_nodes"]) * int(r["gpus_per_node"]) != int(r["n_gpus"]):
        print("FAIL %s: n_nodes x gpus_per_node is not n_gpus" % rid)
        continue
    base = ["--collective", COLL[r["collective"]], "--bytes", r["msg_bytes"]]
    flags = field(notes, "HETPLAN")
    if flags:
        args = shlex.split(flags)
        if args[args.index("--nodes") + 1] != r["n_nodes"] or \
           args[args.index("--gpus-per-node") + 1] != r["gpus_per_node"]:
            print("FAIL %s: HETPLAN flags disagree with n_nodes / gpus_per_node" % rid)
            continue
        algos = ("auto",)
        kind = field(notes, "KIND") or "?"
        expr = (field(notes, "EXPRESSIBLE") or "yes").split()[0]
    elif r["gpu"] == "GB200":
        args = ["--gpu", "GB200", "--gpus-per-node", r["gpus_per_node"], "--nodes", r["n_nodes"],
                "--nvl-domain", "72", "--nics", "4", "--nic-gbps", "400"]
        algos = ("ring", "tree", "auto")
        kind, expr = "multi-rack NVL72 (IB)", "yes"
    else:
        print("FAIL %s: no HETPLAN flags in notes and not a GB200 rack row" % rid)
        continue
    env = None
    if flags and re.search(r"\bP2P:on\b", notes):
        env = dict(os.environ, XDG_CONFIG_HOME=p2p_config(args[args.index("--gpu") + 1]))
    out = {}
    for algo in algos:
        d, err = run(base + args + ["--algo", algo], env)
        if d is None:
            print("FAIL %s --algo %s: %s" % (rid, algo, err))
            break
        out[algo] = d
    else:
        print("OK %s runs" % rid)
        meas = float(r["value"])
        best = "auto" if algos == ("auto",) else max(("ring", "tree"), key=lambda a: out[a]["busbw_GBps"])
        pred = out[best]["busbw_GBps"]
        err = 100.0 * (pred - meas) / meas
        scored = expr != "no"
        res.append(dict(group=rid.rsplit("-", 1)[0], id=rid, n=int(r["n_gpus"]), b=int(r["msg_bytes"]),
                        coll=COLL[r["collective"]], meas=meas, pred=pred, algo=out[best]["algorithm"],
                        auto=out["auto"]["busbw_GBps"], auto_algo=out["auto"]["algorithm"],
                        err=err, kind=kind, expr=expr, scored=scored))
        if not scored:
            print("NOTE %s not expressible in hetplan: %+.1f%% (not asserted)" % (rid, err))
        elif abs(err) > 30:
            if rid in known:
                print("OK %s known miss %+.0f%% (listed %+.0f%%)" % (rid, err, known[rid]))
            else:
                print("FAIL %s: %+.1f%% beyond 30%% and not in KNOWN_MISSES" % (rid, err))
        elif rid in known:
            print("NOTE %s now within 30%% (%+.1f%%, listed %+.0f%%): drop it from KNOWN_MISSES" % (rid, err, known[rid]))

print()
print("%-16s %-13s %5s %11s %9s %9s %-9s %8s | %9s %-9s" % ("id", "collective", "ranks", "bytes", "measured", "hetplan", "algo", "error", "auto", "auto algo"))
for x in res:
    print("%-16s %-13s %5d %11d %9.2f %9.2f %-9s %+7.1f%%%s | %9.2f %-9s" % (
        x["id"], x["coll"], x["n"], x["b"], x["meas"], x["pred"], x["algo"], x["err"],
        "" if x["scored"] else "*", x["auto"], x["auto_algo"]))
print("(* EXPRESSIBLE: no, kept out of the MAPE)")

def mape(label, sel):
    if sel:
        print("MAPE %-36s %6.1f%%  (%2d rows, %2d beyond 30%%, mean signed %+.1f%%)" % (
            label, sum(abs(x["err"]) for x in sel) / len(sel), len(sel),
            sum(abs(x["err"]) > 30 for x in sel), sum(x["err"] for x in sel) / len(sel)))

sc = [x for x in res if x["scored"]]
print()
for g in sorted(set(x["group"] for x in sc)):
    mape(g, [x for x in sc if x["group"] == g])
print()
for k in sorted(set(x["kind"] for x in sc)):
    mape("kind " + k, [x for x in sc if x["kind"] == k])
print()
for rg in ("latency<=1MiB", "mid", "bandwidth>=64MiB"):
    mape("regime " + rg, [x for x in sc if regime(x["b"]) == rg])
print()
new = [x for x in sc if not x["group"].startswith("BC-NVL72")]
mape("round 29 rows (scored)", new)
mape("all (scored)", sc)
PY
if ! TMPDIR="$T" python3 "$T/drive.py" "$HETPLAN" tests/data/blind_comm.csv "$KNOWN_MISSES" >"$T/report" 2>"$T/pyerr"; then
	bad "blind comm driver failed: $(tail -3 "$T/pyerr")"
fi
cat "$T/report"
report_checks "$T/report"
finish test_blind_comm
