#!/usr/bin/env python3
"""blind_bias.py — where hetplan's signed step-time error on the blind
training rows comes from (docs/blind-round12-bias.md).

    BLIND_ROWS=/tmp/rows.jsonl HETPLAN=./hetplan sh tests/test_blind_train.sh
    python3 tools/blind_bias.py /tmp/rows.jsonl [--exclude ID,ID,...]
        [--groups GROUP,GROUP,...] [--per-row] [--scale]
    build/tests/test_accuracy > /tmp/acc.txt
    python3 tools/blind_bias.py --calib /tmp/acc.txt

Reads tests/test_blind_train.sh's BLIND_ROWS output (one JSON object a
row: the row's shape and plan as hetplan resolved it, the measured and
predicted step, hetplan's step breakdown) and prints, with the signed
error e = (hetplan - measured) / measured:
  1. per regime: rows, mean signed e, MAPE and hetplan's mean share of
     the step in each breakdown term (how far each term would have to
     move to carry the regime's bias);
  2. per source group: rows and mean signed e;
  3. mean signed e by feature bin (GPU, framework, precision, recompute,
     micro-batch, TP, PP, CP, sequence, hidden, tokens per GPU per step,
     compute and exposed-communication shares);
  4. per feature, the correlation and slope of e against it within
     source groups (both demeaned per group), so that a source's offset
     does not pass for a trend;
  5. the share of e's variance that lies between source groups.
--groups keeps only the rows of the named source groups (a round's new
rows, docs/blind-round13.md); --per-row first prints each row's error
with hetplan's breakdown as shares of its predicted step and its MFU.
With --scale (docs/blind-round24-a100.md), instead: each row's GPUs,
nodes, NICs, TP/PP/DP, signed error and hetplan's breakdown in seconds,
then every series of a source group that holds the shape, the layout
(TP, PP, micro-batch) and the tokens per GPU fixed while the GPU count
grows (weak scaling): the measured and the predicted growth of the step
over the series' smallest run, and which of hetplan's terms carried its
growth. --scale takes --groups as well.
With --calib, the same within-group table (4) for the calibration rows:
test_accuracy's printed in-sample step-time errors, joined with their
rows in tests/data/{training,vtrain-a100-single,holdout}.csv.
Nothing is fitted; the figures describe the rows as scored."""
import collections
import csv
import json
import math
import re
import statistics as st
import sys

COMM = ("tp_comm", "pp_comm", "dp_comm", "cp_comm", "ep_comm")


def load(path, exclude):
    rows = []
    for line in open(path):
        r = json.loads(line)
        if r["id"] in exclude or "breakdown_s" not in r:
            continue
        b, step = r["breakdown_s"], r["hetplan_s"]
        r["err"] = 100 * (r["hetplan_s"] - r["measured_s"]) / r["measured_s"]
        for k, v in b.items():
            r["sh_" + k] = v / step
        r["sh_comm"] = sum(b[k] for k in COMM) / step
        r["sh_compute_all"] = (b["compute"] + b["recompute"]) / step
        gpus = r["tp"] * r["pp"] * r["dp"] * r["cp"]
        r["tok_gpu"] = r["gbs"] * r["seq"] / gpus
        h, hd = r["hidden"], r["head_dim"]
        gemm = 2 * (h * (r["heads"] + 2 * r["kv_heads"]) * hd + r["heads"] * hd * h +
                    (3 if r["gated"] else 2) * h * r["ffn"])
        att = 2 * r["seq"] * r["heads"] * hd   # causal: half of 4 s h
        r["attn_share"] = att / (att + gemm)
        r["log2_h_tp"] = math.log2(h / r["tp"])
        r["log2_mbs"] = math.log2(r["mbs"])
        r["log2_gpus"] = math.log2(gpus)
        r["fp8"] = int(r["precision"] == "fp8")
        r["full_recompute"] = int(r["recompute"] == "full")
        # the last stage's output layer against its transformer layers
        r["logits_share"] = 2 * h * r["vocab"] / (gemm * r["layers"] / r["pp"])
        rows.append(r)
    return rows


def mean(v):
    return sum(v) / len(v) if v else float("nan")


def table(rows, name, key):
    groups = collections.defaultdict(list)
    for r in rows:
        groups[key(r)].append(r["err"])
    print("== signed error by %s" % name)
    for k in sorted(groups, key=lambda x: (isinstance(x, str), x)):
        v = groups[k]
        print("  %-24s %4d rows  mean %+6.1f%%  MAPE %5.1f%%" % (k, len(v), mean(v), mean([abs(x) for x in v])))


def log_bin(x):
    return 2 ** round(math.log2(x)) if x > 0 else 0


def within(groups, feats):
    """Correlation and slope of the error against each feature, both
    demeaned per group (groups of one row are left out)."""
    print("== within source groups (feature and error demeaned per group)")
    for f in feats:
        xs, ys = [], []
        for v in groups.values():
            if len(v) < 2:
                continue
            mx, my = mean([r[f] for r in v]), mean([r["err"] for r in v])
            xs += [r[f] - mx for r in v]
            ys += [r["err"] - my for r in v]
        sxx, syy = sum(x * x for x in xs), sum(y * y for y in ys)
        sxy = sum(x * y for x, y in zip(xs, ys))
        if sxx > 0 and syy > 0:
            print("  %-15s r %+5.2f  slope %+8.2f points per unit" % (f, sxy / math.sqrt(sxx * syy), sxy / sxx))


def calib(acc_path):
    """Calibration rows: test_accuracy's in-sample step-time error per
    row, joined with the row's layout."""
    err = {}
    for line in open(acc_path):
        m = re.match(r"^(\S+)\s+\S+\s+.*\s[0-9.]+ s\s+[0-9.]+ s\s+([+-][0-9]+\.[0-9])%$", line.rstrip())
        if m:
            err[m.group(1)] = float(m.group(2))
    rows = {}
    for f in ("training", "vtrain-a100-single", "holdout"):
        for r in csv.DictReader(open("tests/data/%s.csv" % f)):
            rows.setdefault(r["id"], r)
    groups = collections.defaultdict(list)
    for rid, e in err.items():
        r = rows.get(rid)
        if not r or not r.get("tp", "").isdigit() or not r.get("hidden", "").isdigit():
            continue
        prec = r.get("precision", "").lower()
        groups[re.sub(r"-?[0-9]+$", "", rid)].append(dict(
            err=e, log2_h_tp=math.log2(int(r["hidden"]) / int(r["tp"])),
            full_recompute=int(r.get("recompute", "").lower().startswith("full")),
            fp8=int("fp8" in prec or "float8" in prec),
            log2_mbs=math.log2(max(1, int(r.get("micro_batch") or 1)))))
    print("calibration step-time rows with a layout: %d in %d groups" % (
        sum(len(v) for v in groups.values()), len(groups)))
    within(groups, ["log2_h_tp", "full_recompute", "fp8", "log2_mbs"])


TERMS = ["compute", "recompute", "tp_comm", "pp_comm", "dp_comm", "cp_comm", "ep_comm",
         "bubble", "optimizer", "overhead"]


def per_row(rows):
    """Each row's signed error, measured and predicted step, and hetplan's
    breakdown as shares of its own predicted step."""
    print("%-10s %7s %9s %9s %5s  " % ("id", "error", "measured", "hetplan", "MFU") +
          " ".join("%9s" % t for t in TERMS))
    for r in sorted(rows, key=lambda r: r["id"]):
        print("%-10s %+6.1f%% %8.3fs %8.3fs %4.0f%%  " % (
            r["id"], r["err"], r["measured_s"], r["hetplan_s"], 100 * r.get("mfu", float("nan"))) +
            " ".join("%8.1f%%" % (100 * r["sh_" + t]) for t in TERMS))
    print()


SCALE_TERMS = (("compute", ("compute", "recompute")), ("tp", ("tp_comm",)), ("pp", ("pp_comm",)),
               ("dp", ("dp_comm",)), ("cp+ep", ("cp_comm", "ep_comm")), ("bubble", ("bubble",)),
               ("other", ("optimizer", "overhead")))


def scale(rows):
    """Signed error against scale: per row, then per weak-scaling series."""
    def secs(r, keys):
        return sum(r["breakdown_s"][k] for k in keys)
    print("%-10s %6s %5s %8s %11s %7s %9s %9s  " % ("id", "GPUs", "nodes", "NICs", "TP/PP/DP", "error",
                                                     "measured", "hetplan") +
          " ".join("%8s" % n for n, _ in SCALE_TERMS))
    for r in sorted(rows, key=lambda r: (r["group"], r["tp"] * r["pp"] * r["dp"] * r["cp"], r["id"])):
        gpus = r["tp"] * r["pp"] * r["dp"] * r["cp"]
        print("%-10s %6d %5d %3dx%-4.0f %11s %+6.1f%% %8.3fs %8.3fs  " % (
            r["id"], gpus, r["nodes"], r["nics"], r["nic_gbps"], "%d/%d/%d" % (r["tp"], r["pp"], r["dp"]),
            r["err"], r["measured_s"], r["hetplan_s"]) +
            " ".join("%7.3fs" % secs(r, keys) for _, keys in SCALE_TERMS))
    print()
    series = collections.defaultdict(list)
    for r in rows:
        key = (r["group"], r["tp"], r["pp"], r["cp"], r["mbs"], r["seq"], r["hidden"], r["layers"],
               round(r["tok_gpu"]), r["zero"], r["framework"])
        series[key].append(r)
    print("== weak-scaling series (same shape, layout and tokens per GPU; growth over the smallest run)")
    for key, v in sorted(series.items()):
        sizes = sorted(set(r["tp"] * r["pp"] * r["dp"] * r["cp"] for r in v))
        if len(sizes) < 3:
            continue
        v = sorted(v, key=lambda r: r["tp"] * r["pp"] * r["dp"] * r["cp"])
        base = v[0]
        print("  %s TP %d PP %d mbs %d, %d tokens/GPU: %d..%d GPUs" % (
            key[0], key[1], key[2], key[4], key[8], sizes[0], sizes[-1]))
        for r in v[1:]:
            grow = {n: secs(r, keys) - secs(base, keys) for n, keys in SCALE_TERMS}
            top = max(grow, key=lambda n: abs(grow[n]))
            print("    %-10s %6d GPUs  measured %+7.3fs  hetplan %+7.3fs  error %+6.1f%%  (%s %+.3fs)" % (
                r["id"], r["tp"] * r["pp"] * r["dp"] * r["cp"], r["measured_s"] - base["measured_s"],
                r["hetplan_s"] - base["hetplan_s"], r["err"], top, grow[top]))
    print()


def option(args, name):
    """Remove '--name VALUE' from args and return VALUE's comma list."""
    if name not in args:
        return None
    i = args.index(name)
    if i + 1 >= len(args):
        sys.exit("blind_bias.py: %s needs a comma-separated list" % name)
    val = set(args[i + 1].split(","))
    del args[i:i + 2]
    return val


def main():
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--calib":
        calib(args[1])
        return
    exclude = option(args, "--exclude") or set()
    groups = option(args, "--groups")
    show_rows = "--per-row" in args
    if show_rows:
        args.remove("--per-row")
    show_scale = "--scale" in args
    if show_scale:
        args.remove("--scale")
    if len(args) != 1:
        sys.exit("usage: blind_bias.py ROWS.jsonl [--exclude ID,...] [--groups GROUP,...] [--per-row]"
                 " [--scale] | --calib TEST_ACCURACY_OUTPUT")
    rows = load(args[0], exclude)
    if groups is not None:
        rows = [r for r in rows if r["group"] in groups]
    if not rows:
        sys.exit("blind_bias.py: no rows left after --exclude/--groups")
    if show_scale:
        scale(rows)
        return
    if show_rows:
        per_row(rows)
    terms = TERMS
    print("%-22s %4s %7s %6s  " % ("regime", "rows", "signed", "MAPE") +
          " ".join("%9s" % t for t in terms))
    for reg in sorted(set(r["regime"] for r in rows)):
        v = [r for r in rows if r["regime"] == reg]
        print("%-22s %4d %+6.1f%% %5.1f%%  " % (reg, len(v), mean([r["err"] for r in v]),
                                               mean([abs(r["err"]) for r in v])) +
              " ".join("%8.1f%%" % (100 * mean([r["sh_" + t] for r in v])) for t in terms))
    print()
    by_src = collections.defaultdict(list)
    for r in rows:
        by_src[r["group"]].append(r)
    print("== signed error by source group")
    for g, v in sorted(by_src.items(), key=lambda kv: mean([r["err"] for r in kv[1]])):
        print("  %-8s %3d rows  mean %+6.1f%%  %s, %s" % (g, len(v), mean([r["err"] for r in v]),
                                                         v[0]["gpu"], v[0]["framework"]))
    for name, key in (("GPU", lambda r: r["gpu"]), ("framework", lambda r: r["framework"]),
                      ("precision", lambda r: r["precision"]), ("recompute", lambda r: r["recompute"]),
                      ("micro-batch", lambda r: r["mbs"]), ("TP", lambda r: r["tp"]),
                      ("PP", lambda r: r["pp"]), ("CP", lambda r: r["cp"]),
                      ("sequence", lambda r: r["seq"]), ("hidden (log2 bin)", lambda r: log_bin(r["hidden"])),
                      ("tokens per GPU per step (log2 bin)", lambda r: log_bin(r["tok_gpu"])),
                      ("compute share (0.1 bin)", lambda r: round(r["sh_compute_all"], 1)),
                      ("exposed comm share (0.1 bin)", lambda r: round(r["sh_comm"], 1))):
        print()
        table(rows, name, key)
    print()
    within(by_src, ["attn_share", "logits_share", "log2_h_tp", "log2_mbs", "log2_gpus", "fp8",
                    "full_recompute", "sh_compute_all", "sh_comm", "sh_dp_comm", "sh_tp_comm",
                    "sh_pp_comm", "sh_bubble", "sh_overhead", "sh_optimizer"])
    print()
    allv = [r["err"] for r in rows]
    mu = mean(allv)
    between = sum(len(v) * (mean([r["err"] for r in v]) - mu) ** 2 for v in by_src.values())
    total = sum((x - mu) ** 2 for x in allv)
    print("rows %d, mean signed %+.1f%%, sd %.1f points; between-source share of the variance %.0f%%" % (
        len(rows), mu, st.pstdev(allv), 100 * between / total if total else 0))


if __name__ == "__main__":
    main()
