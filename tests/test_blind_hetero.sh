#!/bin/sh
# test_blind_hetero.sh — hetplan's step time on heterogeneous training
# trials it never saw.
#
# tests/data/blind_hetero.csv holds 30 real trials of AMP's heterogeneous
# cluster (12 V100 + 4 T4, GPT-2 medium-class, DeepSpeed pipeline) and 17
# of Sailor's MIT cluster (RTX 3090, Titan RTX, RTX 2080 Ti; OPT-350M-shaped,
# fp32, Megatron-DeepSpeed), each set recorded and committed before any
# prediction (tests/data/blind_hetero_README.md).
# For every row a driver below writes the cluster (the row's `pools`), the
# model and a plan (replicas and stages from the row's `placement` and
# `partition`), runs
#   hetplan estimate -c CLUSTER -m MODEL --plan PLAN --format json
# and compares step_time_s with the measured seconds per iteration. It
# prints every row, the time per DeepSpeed pipeline slot (measured and
# hetplan's, for the diagnosis in docs/blind.md), the MAPE, and AMP's own
# cost model's MAPE on the same rows (its estimate is printed beside each
# trial in the source).
#
# What is asserted (facts that hold, not targets):
#  - every row parses and hetplan estimates it and says it fits (exit 0:
#    these runs ran), or is listed below as not fitting (ID:dnf:GIB);
#  - every row whose error is beyond 30% is in KNOWN_MISSES below, a closed
#    list with the error when listed and its reason in docs/blind.md
#    ("Heterogeneous trials"). A listed row back within 30% is printed as
#    "now within 30%" (drop it from the list).
# The MAPE is printed, not asserted.
#
# Then the same driver runs tests/data/blind_hetero_homog.csv, AMP's 47
# homogeneous trials (16 T4, same code and model), a development set seen
# while diagnosing the rows above (not blind): every row must estimate and
# fit; its errors are printed only.
set -u
. tests/lib.sh
HETPLAN=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# Sailor's MIT rows use Titan RTX and RTX 2080 Ti as the Sailor files
# describe them (no NVLink bridge, 25 Gb/s): those entries are read as a
# user catalog (docs/formats.md "User catalog files"), replacing the
# built-in ones of the same names, in a config folder of the test's own,
# so a user's ~/.config/hetplan plays no part either.
mkdir -p "$T/cfg/hetplan"
cp tests/data/blind_hetero_gpus.json "$T/cfg/hetplan/gpus.json"
XDG_CONFIG_HOME="$T/cfg"
export XDG_CONFIG_HOME

# ID:ERROR%  a step time beyond 30% (the error when listed); the reason of
# each is in docs/blind.md (AMP) and docs/blind-round8.md (Sailor).
# ID:dnf:GIB  hetplan says the run does not fit (exit 4), GiB over on the
# fullest stage when listed; the run did fit. Keep the list closed.
# Eighth round (Sailor's MIT runs, first prediction): BLSLB rows with a
# pipeline boundary on the RTX 3090 node's 1 GbE link are too slow in
# hetplan (pp_comm 64-179 s against measured steps of 54-84 s), the DP-only
# rows too fast (TP 8 across PCIe consumer GPUs: measured 1.9-2.4 s per
# micro-batch, hetplan 0.35 s); BLSLA rows (Titan RTX + RTX 2080 Ti, TP 4,
# fp32) too fast in compute and TP; BLSLB-02, BLSLA-05/09 run in 5.5-8.7
# GiB measured (the files' max_mem) where hetplan's fp32 unfused-attention
# activations put them over. The sailor round (DeepSpeed's partitioned
# pipeline transfers, the RTX 2080 Ti without PCIe P2P;
# docs/blind-round8-sailor.md) brought BLSLB-03 and BLSLA-01, -04, -07,
# -08 within 30% and dropped them; then the fp32 run's 4-byte TP
# all-reduce and its unfused scale/mask/softmax passes (perf_comm.c,
# perf_compute.c) brought the step times of BLSLB-02, -06 and BLSLA-02,
# -05, -09 within 30% (their time entries dropped; BLSLB-02, BLSLA-05 and
# -09 still do not fit and keep their dnf entries). The errors listed are
# those at the end of the round (the AMP rows moved with the pipeline
# change, BLSLB-04 and -07 changed sides); a listed row whose error
# changes sign fails. Round 10 (dspipe, docs/blind-round10-dspipe.md):
# DeepSpeed at ZeRO 0 reduces after the backward, and an fp32 run's
# gradients cross as fp32 (4 bytes, where hetplan moved 2): BLSLB-04,
# -07 and -08 within 30% and dropped; BLSLB-05 -32.8%.
# Round 11 (hetero, docs/blind-round11-hetero.md): the Sailor pools state
# Sailor's measured intra-node rate (pool key intra_gbyte_s, post hoc):
# BLSLB-05 -32.8% -> +16.8% (dropped); the RTX 3090 node's TP, now at its
# measured 1.33 GB/s, no longer hides the pipeline hand-offs over that
# node's 1 GbE link, which hetplan charges in full: BLSLB-04 -28.7% ->
# +49.7%, -06 -0.8% -> +35.4%, -07 -25.3% -> +46.4% (listed).
# Round 12 (ppshare, docs/blind-round12-ppshare.md): a cross-node
# pipeline hand-off shares its node's NICs with its stage's GPUs on the
# node only: BLAMP-05 -62.1% -> -62.8%, -10 -56.0% -> -57.5% (listed,
# still within their entries); no row joins or leaves the list.
# Round 16 (docs/blind-round16-bias.md): the Sailor rows (ARCH:gpt-untied,
# rule R2) run no dropout, as Sailor's OPT layer does not: their 1-byte
# dropout masks and the fp32 score dropout's activations leave the
# estimate, so BLSLB-02, BLSLA-05 and -09 now fit (dnf entries dropped),
# and the step times fall: BLSLA -3.7% -> -8.8% mean signed, BLSLB +20.8%
# -> +18.9%.
# Round 20 (docs/blind-round20-pcie.md): AMP's rows at TP 2-4
# lean ~10 points more "too fast" than at TP 1 (BLAMP signed +8.6% TP 1,
# -16.8% TP 2, -18.6% TP 4) because AMP's Megatron-LM fork times every TP
# all-reduce with timers that call torch.cuda.synchronize() at start and
# stop (DachengLi1/AMP @708e87f, megatron/mpu/mappings.py _reduce and
# megatron/global_vars.py _Timer), not because of the g4dn's transport.
# hetplan has no key for a host that synchronises at each TP collective;
# nothing changed, so no entry below moved.
# Round 22 (model22, docs/blind-round20-pcie.md "Built"): the plan key
# tp_host_sync states that fork's behaviour, and the driver sets it on
# AMP's rows (R1; post hoc: the mechanism was found on these rows). At
# TP > 1 a layer then costs host + device time: BLAMP-18 -30% -> -23%
# (dropped); BLAMP-05 -63% -> -56%, -08 -40% -> -34%, -10 -57% -> -53%,
# -19 -57% -> -50% (listed at their new errors). Sailor's rows unchanged.
KNOWN_MISSES="
BLSLB-04:+50
BLSLB-06:+35
BLSLB-07:+46
BLAMP-05:-56
BLAMP-08:-34
BLAMP-10:-53
BLAMP-19:-50
"

cat >"$T/drive.py" <<'PY'
import csv, json, re, subprocess, sys

hetplan, path, tmp, known_txt = sys.argv[1:5]
# "seen": a development set, printed; no row is held to 30%
seen = len(sys.argv) > 5 and sys.argv[5] == "seen"
known, known_dnf = {}, {}
for tok in known_txt.split():
    f = tok.split(":")
    if len(f) == 3 and f[1] == "dnf":
        known_dnf[f[0]] = float(f[2])
    else:
        known[f[0]] = float(f[1])

def tag(notes, key):
    m = re.search(key + r":\s*([A-Za-z0-9.\-]+)", notes)
    return m.group(1) if m else None

def pools_of(spec):
    # "NAME:NODESxGPUSxGPU[,key=value...];..." -> cluster pools, and the
    # GPU count of each in rank order.
    out, sizes = [], []
    for p in spec.split(";"):
        name, rest = p.split(":", 1)
        parts = rest.split(",")
        nodes, gpn, gpu = parts[0].split("x", 2)
        d = dict(name=name, gpu=gpu, nodes=int(nodes), gpus_per_node=int(gpn))
        for kv in parts[1:]:
            k, v = kv.split("=")
            d[k] = int(v) if v.isdigit() else float(v) if re.match(r"^[0-9]*\.[0-9]+$", v) else v
        out.append(d)
        sizes.append((name, int(nodes) * int(gpn)))
    return out, sizes

def pool_of_rank(sizes, g):
    for name, n in sizes:
        if g < n:
            return name
        g -= n
    return None

def layers_of(r, part, s):
    # The transformer layers of stage s, from the partition's entries.
    L = int(r["n_layers"])
    if tag(r["notes"], "ENTRIES") == "sailor":
        # Sailor's entries: 0 embedding, 1..L the layers, L+1 the LM head.
        return max(part[s], 1) - 1, min(part[s + 1], L + 1) - 2
    # DeepSpeed's AMP entries: 0 embedding, 1 a transpose, 2..25 the layers.
    return max(part[s], 2) - 2, min(part[s + 1], 26) - 3

def stages_plan(r, part):
    # placement "stages:P/P/...|P/P/...": the pool of every stage, one
    # list per DP replica (Sailor's tmp_per_stage); equal replicas merge.
    tp, pp, dp = int(r["tp"]), int(r["pp"]), int(r["dp"])
    reps = [x.split("/") for x in r["placement"][len("stages:"):].split("|")]
    if len(reps) != dp or any(len(x) != pp for x in reps):
        raise ValueError("placement lists %d replicas for dp %d, pp %d" % (len(reps), dp, pp))
    groups = []
    for sig in reps:
        for g in groups:
            if g[0] == sig:
                g[1] += 1
                break
        else:
            groups.append([sig, 1])
    return replicas_of(groups, r, part, pp, tp)

def replicas_of(groups, r, part, pp, tp):
    # [pool of each stage], count -> the plan's replica groups
    return [dict(count=count, stages=[dict(pool=sig[s], tp=tp, first_layer=layers_of(r, part, s)[0],
                                           last_layer=layers_of(r, part, s)[1]) for s in range(pp)])
            for sig, count in groups]

def plan_of(r, sizes):
    tp, pp, dp = int(r["tp"]), int(r["pp"]), int(r["dp"])
    part = [int(x) for x in r["partition"].split(",")]
    if len(part) != pp + 1:
        raise ValueError("partition has %d entries for pp %d" % (len(part), pp))
    # R1 (AMP): fp16 with an fp32 all-reduce; R2 (Sailor): fp32 throughout.
    prec = "fp32" if r["precision"].lower().startswith("fp32") else "fp16"
    common = dict(mbs=int(r["micro_batch"]), gbs=int(r["global_batch"]), precision=prec,
                  zero=int(r["zero_stage"] or 0), framework=tag(r["notes"], "FW"),
                  flash=False, sp=False)
    if prec == "fp16":
        common["grad_reduce_fp32"] = True
    # R1 (AMP): AMP's Megatron-LM v1.1.5 fork times every TP all-reduce
    # with timers that call torch.cuda.synchronize() at start and stop
    # (DachengLi1/AMP @708e87f, megatron/mpu/mappings.py _reduce,
    # megatron/global_vars.py _Timer): tp_host_sync. Sailor's code has no
    # such timers (R2, ENTRIES:sailor): absent.
    if tag(r["notes"], "ENTRIES") != "sailor":
        common["tp_host_sync"] = True
    if r["placement"].startswith("stages:"):
        return dict(common, replicas=stages_plan(r, part))
    if not r["placement"].startswith("deepspeed-rank-order"):
        raise ValueError("unknown placement " + r["placement"])
    # DeepSpeed's topology (pipe, data, model): rank = st*dp*tp + d*tp + t.
    groups = []
    for d in range(dp):
        sig = []
        for st in range(pp):
            lo, hi = st * dp * tp + d * tp, st * dp * tp + d * tp + tp - 1
            a, b = pool_of_rank(sizes, lo), pool_of_rank(sizes, hi)
            if a != b:
                raise ValueError("a TP group spans pools %s and %s" % (a, b))
            sig.append(a)
        if groups and groups[-1][0] == sig:
            groups[-1][1] += 1
        else:
            groups.append([sig, 1])
    return dict(common, replicas=replicas_of(groups, r, part, pp, tp))

res = []
for r in csv.DictReader(open(path)):
    rid = r["id"]
    meas = float(r["value"])
    m = re.search(r"p_cost[^0-9]*predicted ([0-9.]+) s|predicted ([0-9.]+) s \(p_cost", r["notes"])
    amp = float(m.group(1) or m.group(2)) if m else None
    try:
        pools, sizes = pools_of(r["pools"])
        if sum(n for _, n in sizes) != int(r["n_gpus"]):
            raise ValueError("pools hold %d GPUs, n_gpus %s" % (sum(n for _, n in sizes), r["n_gpus"]))
        plan = plan_of(r, sizes)
    except (ValueError, KeyError) as e:
        print("FAIL %s: %s" % (rid, e))
        continue
    arch = tag(r["notes"], "ARCH")
    if arch not in ("gpt", "gpt-untied"):
        print("FAIL %s: ARCH tag is not gpt or gpt-untied" % rid)
        continue
    # R1 (blind_hetero_README.md): Megatron-LM v1.1.5 GPT-2; R2: Sailor's
    # Megatron-DeepSpeed OPT, the same block with an untied LM head and no
    # dropout (opt_model.py @e8a93f77e6 runs none: tests/test_blind_train.sh,
    # "gpt-untied").
    model = dict(name=rid.lower(), layers=int(r["n_layers"]), hidden=int(r["hidden"]),
                 heads=int(r["n_heads"]), kv_heads=int(r["n_kv_heads"]), ffn=int(r["ffn_hidden"]),
                 vocab=int(r["vocab"]), seq_len=int(r["seq_len"]), gated_mlp=False,
                 norm="layernorm", position="learned", tied_embeddings=(arch == "gpt"), bias=True,
                 dropout=(arch == "gpt"))
    f = {}
    for k, obj in (("cluster", dict(name="amp", pools=pools)), ("model", model), ("plan", plan)):
        f[k] = "%s/%s.%s.json" % (tmp, rid, k)
        json.dump(obj, open(f[k], "w"))
    p = subprocess.run([hetplan, "estimate", "-c", f["cluster"], "-m", f["model"],
                        "--plan", f["plan"], "--format", "json"], capture_output=True, text=True)
    try:
        est = json.loads(p.stdout)
        pred = est["step_time_s"]
        bd = est["breakdown_s"]
        fixed = bd["dp_comm"] + bd["optimizer"] + bd["overhead"]
    except Exception:
        print("FAIL %s: hetplan estimate exit %d, no JSON: %s" % (rid, p.returncode, p.stderr.strip()[:200]))
        continue
    if p.returncode == 0:
        print("OK %s estimates and fits" % rid)
        if rid in known_dnf:
            print("NOTE %s now fits: drop %s:dnf from KNOWN_MISSES" % (rid, rid))
    elif p.returncode == 4 and rid in known_dnf and not seen:
        print("OK %s known miss: does not fit (%s; listed %.1f GiB over)" % (
            rid, p.stderr.strip().split("(")[-1].rstrip(")"), known_dnf[rid]))
    else:
        print("FAIL %s: hetplan estimate exit %d: %s" % (rid, p.returncode, p.stderr.strip()[:200]))
    err = 100.0 * (pred - meas) / meas
    aerr = 100.0 * (amp - meas) / meas if amp else float("nan")
    lay = "TP%s PP%s DP%s mbs%s" % (r["tp"], r["pp"], r["dp"], r["micro_batch"])
    # DeepSpeed's TrainSchedule runs m + p - 1 slots of one forward and one
    # backward per stage; the step less hetplan's DP, optimizer and per-step
    # overhead over them is the time per slot (docs/blind.md, AMP section).
    slots = int(r["global_batch"]) // (int(r["micro_batch"]) * int(r["dp"])) + int(r["pp"]) - 1
    slot = (1e3 * (meas - fixed) / slots, 1e3 * (pred - fixed) / slots)
    res.append((rid, lay, meas, pred, err, aerr, slot, bd))
    if seen:
        pass
    elif abs(err) > 30:
        if rid in known:
            if (err > 0) != (known[rid] > 0):
                # a listed miss that changed sides is a new finding
                print("FAIL %s: %+.1f%%, listed %+.0f%% (the other side): update the list" % (
                    rid, err, known[rid]))
            else:
                print("OK %s known miss %+.0f%% (listed %+.0f%%)" % (rid, err, known[rid]))
        else:
            print("FAIL %s: %+.1f%% beyond 30%% and not in KNOWN_MISSES" % (rid, err))
    elif rid in known:
        print("NOTE %s now within 30%% (%+.1f%%, listed %+.0f%%): drop it from KNOWN_MISSES" % (rid, err, known[rid]))

print()
print("%-9s %-22s %9s %9s %8s %8s %13s" % ("id", "layout", "measured", "hetplan", "error", "AMP",
                                           "slot ms m/h"))
for rid, lay, m, p, e, a, sl, bd in res:
    astr = "%+7.1f%%" % a if a == a else "%8s" % "-"   # no AMP estimate: Sailor's rows
    print("%-9s %-22s %9.3f %9.3f %+7.1f%% %s %6.0f/%-6.0f" % (rid, lay, m, p, e, astr, sl[0], sl[1]))
print()
# hetplan's breakdown per row (seconds), for the diagnosis in docs/blind*.md
print("%-9s %8s %8s %8s %8s %8s %8s" % ("id", "compute", "tp_comm", "pp_comm", "bubble", "dp_comm", "overhead"))
for rid, lay, m, p, e, a, sl, bd in res:
    print("%-9s %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f" % (rid, bd["compute"], bd["tp_comm"], bd["pp_comm"],
                                                   bd["bubble"], bd["dp_comm"], bd["overhead"]))
print()
# one line per source group (AMP, Sailor's two MIT sets)
for grp in sorted(set(x[0].rsplit("-", 1)[0] for x in res)):
    sel = [x for x in res if x[0].rsplit("-", 1)[0] == grp]
    if len(sel) < len(res):
        print("MAPE %-8s %5.1f%%  (%d rows, %d beyond 30%%, mean signed %+.1f%%)" % (
            grp, sum(abs(x[4]) for x in sel) / len(sel), len(sel), sum(abs(x[4]) > 30 for x in sel),
            sum(x[4] for x in sel) / len(sel)))
if res:
    n = len(res)
    print("MAPE hetplan %5.1f%%  (%d rows, %d beyond 30%%, worst %+.1f%%, mean signed %+.1f%%)" % (
        sum(abs(x[4]) for x in res) / n, n, sum(abs(x[4]) > 30 for x in res),
        max((x[4] for x in res), key=abs), sum(x[4] for x in res) / n))
    am = [x for x in res if x[5] == x[5]]
    if am:
        print("MAPE AMP     %5.1f%%  (%d rows, %d beyond 30%%: AMP's own cost model, p_cost)" % (
            sum(abs(x[5]) for x in am) / len(am), len(am), sum(abs(x[5]) > 30 for x in am)))
PY
if ! python3 "$T/drive.py" "$HETPLAN" tests/data/blind_hetero.csv "$T" "$KNOWN_MISSES" >"$T/report" 2>"$T/pyerr"; then
	bad "blind driver failed: $(tail -3 "$T/pyerr")"
fi
cat "$T/report"
report_checks "$T/report"
# AMP's homogeneous trials (16 T4, same code and model): seen while
# diagnosing the rows above, so a development set, not blind. Every row
# must estimate and fit; the errors are printed only (docs/blind.md).
echo
echo "development set (seen, not blind): blind_hetero_homog.csv"
if ! python3 "$T/drive.py" "$HETPLAN" tests/data/blind_hetero_homog.csv "$T" "" seen >"$T/report2" 2>"$T/pyerr"; then
	bad "homogeneous driver failed: $(tail -3 "$T/pyerr")"
fi
cat "$T/report2"
report_checks "$T/report2"
finish test_blind_hetero
