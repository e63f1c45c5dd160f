#!/bin/sh
# test_report_agree.sh — one plan, every table that shows it: the numbers
# that appear in more than one place read the same everywhere.
#
# For three clusters (one pool; docs/examples/cluster.json's two pools;
# three pools on three clouds, EFA, GPUDirect-TCPXO and InfiniBand) it runs
# `hetplan plan` (the terminal table and plan 1's detail), `plan --format
# json|csv|md|html` and `hetplan estimate --plan` on plan 1 (text and
# JSON), and checks, plan by plan:
#   - step time, tokens/s, MFU, $/h, $/1M tokens, time and cost to train:
#     the terminal table, the Markdown and HTML ranked tables, the summary,
#     the HTML cards, estimate and the CSV all write the JSON's figure, each
#     through the one formatter the project documents for it
#     (docs/reports.md: hp_fmt_duration for times, table_usd for dollars,
#     table_rate for $/1M, hp_fmt_count for tokens/s, one decimal for MFU;
#     the CSV's raw %.6g / %.4f / %.2f); the HTML's data-v is the JSON's
#     double;
#   - memory per stage: total, capacity and headroom (capacity - total) in
#     the Markdown and HTML memory tables, estimate's table and the plan
#     detail's fullest stage, against the JSON's bytes (hp_fmt_bytes);
#   - stage layers: the JSON's first_layer/last_layer in the layout
#     tables, the memory tables, estimate's table and the plan detail;
#   - each pool's network: the JSON's networks against the reports'
#     cluster table and the CSV's transports column;
#   - each collective of the communication table (bytes, group, link,
#     algorithm, protocol, time, exposed) in the Markdown and estimate;
#   - batch shares (the JSON, the layout tables, the detail, the HTML
#     picture), the best plan of each pool alone, the Pareto front and the
#     single-pool cost ratio (the terminal's lists against the reports').
# The expected strings are written here from the documented formats (the
# C formatters are not called), so a view that formats a quantity its own
# way fails. Run from the repository root after `make`.
# Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

cat >"$T/one.json" <<'EOF'
{"name": "one", "pools": [{"name": "h100", "gpu": "H100-SXM", "nodes": 4}]}
EOF
# Three clouds: AWS p5 (32 x 100 Gb/s EFA), Google Cloud a3-megagpu-8g
# (8 x 200 GPUDirect-TCPXO), Azure ND A100 v4 (8 x 200 HDR InfiniBand).
cat >"$T/three.json" <<'EOF'
{"name": "clouds", "pools": [
 {"name": "aws-h100", "gpu": "H100-SXM", "nodes": 4, "provider": "aws", "transport": "efa",
  "nics": 32, "nic_gbps": 100, "site": "aws"},
 {"name": "gcp-h100", "gpu": "H100-SXM", "nodes": 4, "provider": "gcp",
  "transport": "a3-megagpu-8g", "site": "gcp"},
 {"name": "az-a100", "gpu": "A100-80GB", "nodes": 4, "provider": "azure", "site": "azure"}],
 "fabric": {"inter_pool_gbps": 100, "inter_pool_latency_us": 1000}}
EOF

python3 - "$H" "$T" <<'PY' >"$T/report"
import csv, html, io, json, math, re, subprocess, sys

H, T = sys.argv[1], sys.argv[2]

def run(args):
    p = subprocess.run([H] + args, capture_output=True, text=True)
    if p.returncode not in (0, 4):
        print("FAIL %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
        return ""
    return p.stdout

# ---- the documented formats (docs/reports.md, src/util.h) ----------------
def fmt_duration(s):
    if not math.isfinite(s): return "-"
    if s < 1e-3: return "%.1f us" % (s * 1e6)
    if s < 1: return "%.1f ms" % (s * 1e3)
    if s < 120: return "%.2f s" % s
    if s < 7200: return "%.1f min" % (s / 60)
    if s < 172800: return "%.1f h" % (s / 3600)
    if s < 365 * 86400.0: return "%.1f d" % (s / 86400)
    return "%.1f y" % (s / (365 * 86400.0))

def fmt_bytes(b):
    u = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
    v, i = abs(b), 0
    while v >= 1024 and i + 1 < len(u):
        v /= 1024; i += 1
    return "%s%.*f %s" % ("-" if b < 0 else "", 1 if i else 0, v, u[i])

def fmt_count(v):
    for d, s in ((1e15, "P"), (1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if v >= d:
            return "%.*f%s" % (2 if v / d < 10 else 1, v / d, s)
    return "%.0f" % v

def usd(v):
    # cents below $10k, three significant figures with k, M, B, T above
    if v >= 9999.995:
        x, u = v / 1e3, 0
        while x >= 999.5 and u < 3:
            x /= 1e3; u += 1
        return "$%.*f%s" % (2 if x < 9.995 else 1 if x < 99.95 else 0, x, "kMBT"[u])
    return "$%.2f" % v

def rate(v):
    # a tenth of a cent below 10,000
    return "%.3f" % v if v < 9999.9995 else usd(v)[1:]

def pct(v):
    return "%.1f%%" % (100 * v)

fails = []
oks = 0
def check(cond, what):
    global oks
    if cond:
        oks += 1
    else:
        fails.append(what)

def eq(got, want, what):
    check(got == want, "%s: %r, want %r" % (what, got, want))

def md_table(md, heading):
    """The rows (lists of cells, unescaped) of the first table after heading."""
    i = md.find(heading)
    if i < 0:
        return None
    rows = []
    for line in md[i:].splitlines()[1:]:
        if line.startswith("|"):
            cells = [html.unescape(c.strip().replace("\\|", "|").strip("*"))
                     for c in re.split(r"(?<!\\)\|", line)[1:-1]]
            rows.append(cells)
        elif rows:
            break
    return rows[2:] if rows else None   # past the header and the rule

def html_tables(h):
    """Each <table> as (header cells, rows of (text, data-v or None))."""
    out = []
    for t in re.findall(r"<table>(.*?)</table>", h, re.S):
        head = [html.unescape(re.sub(r"<[^>]+>", "", c)).strip()
                for c in re.findall(r"<th[^>]*>(.*?)</th>", t, re.S)]
        rows = []
        for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", t, re.S):
            cells = re.findall(r"<td([^>]*)>(.*?)</td>", tr, re.S)
            if not cells:
                continue
            row = []
            for attrs, body in cells:
                m = re.search(r'data-v="([^"]*)"', attrs)
                row.append((html.unescape(re.sub(r"<[^>]+>", "", body)).replace("\u25a0", "").strip(),
                            float(m.group(1)) if m else None))
            rows.append(row)
        out.append((head, rows))
    return out

def html_table(h, first_cols):
    for head, rows in html_tables(h):
        if head[:len(first_cols)] == first_cols:
            return head, rows
    return None, None

CASES = [
    ("one pool", ["-c", T + "/one.json", "-m", "llama3.1-70b", "--gbs", "256", "--seq-len", "4096"]),
    ("two pools", ["-c", "docs/examples/cluster.json", "-m", "llama3.1-8b", "--gbs", "256",
                   "--seq-len", "4096"]),
    ("three clouds", ["-c", T + "/three.json", "-m", "llama3.1-70b", "--gbs", "256",
                      "--seq-len", "4096"]),
]

for name, args in CASES:
    plan = args + ["--top", "3"]
    text = run(["plan"] + plan)
    J = json.loads(run(["plan"] + plan + ["--format", "json"]) or "{}")
    C = list(csv.DictReader(io.StringIO(run(["plan"] + plan + ["--format", "csv"]))))
    M = run(["plan"] + plan + ["--format", "md"])
    X = run(["plan"] + plan + ["--format", "html"])
    run(["plan"] + plan + ["-o", T + "/plans.json"])
    est = run(["estimate"] + args + ["--plan", T + "/plans.json"])
    EJ = json.loads(run(["estimate"] + args + ["--plan", T + "/plans.json", "--format", "json"]) or "{}")
    plans = J.get("plans", [])
    check(len(plans) >= 2, "%s: %d plans in the JSON" % (name, len(plans)))
    if len(plans) < 2:
        continue
    top_md = md_table(M, "## Top plans")
    top_head, top_html = html_table(X, ["rank", "plan", "runs on"])
    check(top_md is not None and top_html is not None, "%s: no ranked table" % name)
    for i, p in enumerate(plans):
        w = "%s plan %d" % (name, i + 1)
        known = p["usd_per_hour"] is not None
        want = {"step": fmt_duration(p["step_time_s"]), "tokens/s": fmt_count(p["tokens_per_s"]),
                "MFU": pct(p["mfu"]), "$/h": usd(p["usd_per_hour"]) if known else "unknown",
                "time to train": fmt_duration(p["time_to_train_s"]),
                "cost to train": usd(p["cost_to_train_usd"]) if known else "unknown"}
        # the terminal table: GPUs, tokens/s, MFU, $/h, $/1M tok, to train, cost
        seq = [str(sum(p["gpus_used"].values())), want["tokens/s"], want["MFU"], want["$/h"],
               "$" + rate(p["usd_per_million_tokens"]), want["time to train"], want["cost to train"]]
        row = [l for l in text.splitlines() if re.match(r"\s*%d\*?\s" % (i + 1), l)]
        check(row and re.search(r"\s+".join(map(re.escape, seq)), row[0]),
              "%s: terminal row %r lacks %r" % (w, row[0] if row else None, seq))
        # the Markdown and HTML ranked tables: the same cells
        hdr = ["rank", "plan", "runs on", "GPUs", "step", "tokens/s", "MFU", "$/h",
               "time to train", "cost to train"]
        if top_md and i < len(top_md):
            for k, col in enumerate(hdr[4:], 4):
                eq(top_md[i][k], want[col], "%s: Markdown %s" % (w, col))
        if top_html and i < len(top_html):
            keys = {"step": "step_time_s", "tokens/s": "tokens_per_s", "MFU": "mfu",
                    "$/h": "usd_per_hour", "time to train": "time_to_train_s",
                    "cost to train": "cost_to_train_usd"}
            for col, key in keys.items():
                k = top_head.index(col)
                txt, v = top_html[i][k]
                eq(txt, want[col], "%s: HTML %s" % (w, col))
                check(v is not None and abs(v - p[key]) <= 1e-12 * abs(p[key]),
                      "%s: HTML %s data-v %r, JSON %r" % (w, col, v, p[key]))
        # the CSV: raw figures at their documented precision
        if i < len(C):
            r = C[i]
            eq(r["step_time_s"], "%.6g" % p["step_time_s"], w + ": CSV step_time_s")
            eq(r["tokens_per_s"], "%.6g" % p["tokens_per_s"], w + ": CSV tokens_per_s")
            eq(r["mfu"], "%.4f" % p["mfu"], w + ": CSV mfu")
            eq(r["usd_per_hour"], "%.2f" % p["usd_per_hour"], w + ": CSV usd_per_hour")
            eq(r["usd_per_million_tokens"], "%.4f" % p["usd_per_million_tokens"],
               w + ": CSV usd_per_million_tokens")
            # $/1M is $/h over a million tokens an hour (CSV and JSON alike)
            check(abs(p["usd_per_million_tokens"] - p["usd_per_hour"] / (p["tokens_per_s"] * 3600 / 1e6))
                  <= 1e-9 * p["usd_per_million_tokens"], w + ": JSON $/1M is not $/h / (tokens/h / 1e6)")
            eq(r["gpus_by_pool"], ";".join("%s:%d" % kv for kv in p["gpus_used"].items()),
               w + ": CSV gpus_by_pool")
            eq(r["transports"], ";".join("%s:%s" % (k, v["transport"]) for k, v in p["networks"].items()),
               w + ": CSV transports")
            eq(list(p["networks"]), list(p["gpus_used"]), w + ": JSON networks' pools")

    # ---- plan 1 (the detailed one) everywhere it is written ----------------
    p = plans[0]
    w = "%s plan 1" % name
    st = fmt_duration(p["step_time_s"])
    check(re.search(r"^  step %s: " % re.escape(st), text, re.M), "%s: plan detail lacks 'step %s:'" % (w, st))
    check(re.search(r"^  step time +%s$" % re.escape(st), est, re.M), "%s: estimate lacks 'step time %s'" % (w, st))
    check(abs(EJ.get("step_time_s", 0) - p["step_time_s"]) <= 1e-9 * p["step_time_s"],
          "%s: estimate JSON step %r, plan JSON %r" % (w, EJ.get("step_time_s"), p["step_time_s"]))
    check(("step %s, MFU %s" % (st, pct(p["mfu"]))) in M, "%s: Markdown summary lacks 'step %s'" % (w, st))
    check(("### Step time: %s" % st) in M, "%s: Markdown lacks '### Step time: %s'" % (w, st))
    check(("<h3>Step time: %s" % st) in X, "%s: HTML lacks 'Step time: %s'" % (w, st))
    check(("step %s, MFU %s" % (st, pct(p["mfu"]))) in X, "%s: HTML card lacks 'step %s'" % (w, st))
    tok, h, r1 = fmt_count(p["tokens_per_s"]), usd(p["usd_per_hour"]), "$" + rate(p["usd_per_million_tokens"])
    check(re.search(r"^  tokens/s +%s$" % re.escape(tok), est, re.M), "%s: estimate tokens/s, want %s" % (w, tok))
    check(("| Throughput | %s tokens/s" % tok) in M, "%s: Markdown throughput, want %s" % (w, tok))
    check(("%s tok/s" % tok) in X, "%s: HTML card throughput, want %s" % (w, tok))
    check(re.search(r"^  MFU / HFU +%s / %s$" % (re.escape(pct(p["mfu"])), re.escape(pct(p["hfu"]))), est, re.M),
          "%s: estimate MFU, want %s" % (w, pct(p["mfu"])))
    check(re.search(r"^  cost +%s/h, %s per 1M tokens$" % (re.escape(h), re.escape(r1)), est, re.M),
          "%s: estimate cost, want %s/h, %s per 1M tokens" % (w, h, r1))
    check(("at %s/h (%s per million tokens)" % (h, r1)) in M, "%s: Markdown cost to train, want %s/h, %s" % (w, h, r1))
    check(("%s/h, %s per 1M tokens" % (h, r1)) in X, "%s: HTML card cost, want %s/h, %s" % (w, h, r1))

    # stage layers and memory, stage by stage
    stages = [(g, s, st_) for g, rep in enumerate(p["replicas"]) for s, st_ in enumerate(rep["stages"])]
    mem = {(m["replica_group"], m["stage"]): m for m in p["memory"]}
    lay_md = md_table(M, "### Layout")
    mem_md = md_table(M, "### Memory per GPU")
    lay_head, lay_html = html_table(X, ["replica group", "replicas", "batch share each"])
    mem_head, mem_html = html_table(X, ["group", "stage", "pool", "layers"])
    est_rows = [l.split() for l in est.splitlines() if re.match(r"  \d+ +\d+ +\S+ +\d+ \d+-\d+ ", l)]
    det_rows = re.findall(r"^    stage (\d+) +(\S+) .* layers +(\d+)-(\d+) ", text, re.M)
    check(len(det_rows) == len(stages), "%s: plan detail has %d stage lines, JSON %d" % (w, len(det_rows), len(stages)))
    for k, (g, s, sj) in enumerate(stages):
        lw = "%d-%d" % (sj["first_layer"], sj["last_layer"])
        sw = "%s group %d stage %d" % (w, g, s)
        if lay_md and k < len(lay_md):
            eq(lay_md[k][8], lw, sw + ": Markdown layout layers")
            eq(lay_md[k][5], sj["pool"], sw + ": Markdown layout pool")
        if lay_html and k < len(lay_html):
            eq(lay_html[k][lay_head.index("layers")][0], lw, sw + ": HTML layout layers")
        if k < len(det_rows):
            eq("%s-%s" % det_rows[k][2:], lw, sw + ": plan detail layers")
            eq(det_rows[k][1], sj["pool"], sw + ": plan detail pool")
        m = mem.get((g, s))
        check(m is not None, sw + ": no JSON memory entry")
        if not m:
            continue
        eq("%d-%d" % (m["first_layer"], m["last_layer"]), lw, sw + ": JSON memory layers")
        tot, cap = fmt_bytes(m["total_bytes"]), fmt_bytes(m["capacity_bytes"])
        free = fmt_bytes(m["capacity_bytes"] - m["total_bytes"])
        if mem_md and k < len(mem_md):
            r = mem_md[k]
            eq((r[3], r[-3], r[-2], r[-1].split(" (")[0]), (lw, tot, cap, free), sw + ": Markdown memory")
        if mem_html and k < len(mem_html):
            r = [c[0] for c in mem_html[k]]
            eq((r[3], r[-3], r[-2], r[-1].split(" (")[0]), (lw, tot, cap, free), sw + ": HTML memory")
        if k < len(est_rows):
            r = est_rows[k]
            eq((r[4], " ".join(r[-6:-4]), " ".join(r[-2:])), (lw, tot, cap), sw + ": estimate memory row")
    full = max(p["memory"], key=lambda m: m["total_bytes"] / m["capacity_bytes"])
    ft, fc = fmt_bytes(full["total_bytes"]), fmt_bytes(full["capacity_bytes"])
    ff = fmt_bytes(full["capacity_bytes"] - full["total_bytes"])
    check(("fullest stage %s of %s (%.0f%%), %s free" % (ft, fc, 100 * full["total_bytes"] / full["capacity_bytes"], ff))
          in text, "%s: plan detail's fullest stage, want %s of %s, %s free" % (w, ft, fc, ff))
    check(("fullest stage %s of %s with" % (ft, fc)) in est, "%s: estimate's fullest stage, want %s of %s" % (w, ft, fc))

    # each replica group's share of the batch: the JSON's fraction, the
    # layout tables' 4 decimals, the detail's and the HTML picture's
    # percent to a hundredth (0.4375, 43.75%)
    shares = re.findall(r"^  \d+ x replica, \d+ micro-batch(?:es)? each \(([0-9.]+)% of the batch", text, re.M)
    eq(shares, ["%.2f" % (100 * r["batch_share"]) for r in p["replicas"]], w + ": plan detail batch shares")
    svg = re.findall(r"each ([0-9.]+)% of the batch</text>", X)
    eq(svg, ["%.2f" % (100 * r["batch_share"]) for r in p["replicas"]], w + ": HTML layout picture's batch shares")
    if lay_md:
        eq([r[2] for r in lay_md if r[0]], ["%.4f" % r["batch_share"] for r in p["replicas"]],
           w + ": Markdown layout batch shares")

    # the best single-pool plan: the reports' summary and the terminal's
    # "Best plan on each pool alone" line of the same plan give the same
    # cost ratio, to a tenth of a percent
    m = re.search(r"^\| vs best single-pool plan \((.*)\) \| ([0-9.]+)x the throughput, ([-+][0-9.]+)% cost to train \|$",
                  M, re.M)
    if m and "Best plan on each pool alone:" in text:   # listed for two pools or more
        lbl, dc = html.unescape(m.group(1)), float(m.group(3))
        line = [l for l in text.splitlines() if l.startswith("  ") and (" %s " % lbl) in l and "the best plan is" in l]
        want = "%.1f%% %s" % (abs(dc), "cheaper" if dc <= 0 else "dearer")
        check(line and line[0].endswith(want), "%s: terminal single-pool line %r, want it to end in %r" %
              (w, line[0] if line else None, want))

    # the communication table: the JSON's collectives in the Markdown and
    # estimate's table (bytes by hp_fmt_bytes, times by hp_fmt_duration)
    comm_md = md_table(M, "### Communication") or []
    # a dp row's "includes" (ZeRO-1/2's parameter gather, in its times) is
    # a "+ allgather" row under it, one call a step
    rows = []
    for c in p["comm"]:
        rows.append(c)
        if "includes" in c:
            g = dict(c, dim="", calls_per_step=1, **{k: v for k, v in c["includes"].items()})
            g["collective"] = "+ " + g["collective"]
            del g["includes"]
            rows.append(g)
    eq(len(comm_md), len(rows), w + ": Markdown communication rows")
    for r, c in zip(comm_md, rows):
        cw = [c["dim"], c["collective"], fmt_bytes(c["bytes"]), "%g" % c["calls_per_step"], str(c["group"]),
              str(c["group_nodes"]), c["link"], c["algorithm"], c["protocol"],
              fmt_duration(c["time_s"]), fmt_duration(c["exposed_s"])]
        eq(r, cw, "%s: Markdown communication %s" % (w, c["dim"]))
        pat = r"^  " + r" +".join(map(re.escape, (
            c["dim"], c["collective"], fmt_bytes(c["bytes"]), str(c["group"]), c["link"], c["algorithm"],
            c["protocol"], fmt_duration(c["time_s"]), fmt_duration(c["exposed_s"])))) + "$"
        check(re.search(pat, est, re.M),
              "%s: estimate lacks the %s row %r" % (w, c["dim"], cw))

    # the best plan of each pool alone and the Pareto front: the reports'
    # tables and the terminal's lists give the same figures
    singles = md_table(M, "## Best plan on each pool alone") or []
    if "Best plan on each pool alone:" in text:
        for r in singles:
            line = [l for l in text.splitlines() if re.match(r"  %s +" % re.escape(r[0]), l) and "tokens/s" in l]
            check(line and ("%s tokens/s, %s, %s;" % (r[2], r[3], r[4])) in line[0],
                  "%s: single-pool %s: terminal %r, Markdown %r" % (w, r[0], line[0] if line else None, r[2:5]))
    par_md = [(r[0], r[1], r[3]) for r in (md_table(M, "## Pareto front") or [])]
    par_tx = re.findall(r"^ +(\S+ \S+) +(\S+)  .* \((\d+) GPUs?\)$",
                        text.split("Pareto front (time vs cost to train):")[-1].split("\n\n")[0], re.M)
    check(par_md and par_md == par_tx, "%s: Pareto front: Markdown %r, terminal %r" % (w, par_md, par_tx))

    # each pool's network: the JSON against the reports' cluster table
    pools_md = {r[0]: r for r in (md_table(M, "### Cluster") or [])}
    for pool, n in p["networks"].items():
        r = pools_md.get(pool)
        check(r is not None, "%s: pool %s not in the Markdown cluster table" % (w, pool))
        if r:
            eq((r[3], r[4], r[5]), (n["intra"], "%d x %g Gb/s" % (n["nics"], n["nic_gbps"]), n["transport"]),
               "%s: pool %s network" % (w, pool))

for f in fails:
    print("FAIL " + f)
print("OK %d" % oks)
PY
# each "OK N" counts N checks, each FAIL line one
while read -r word rest; do
	case $word in
	OK) pass=$((pass + rest)) ;;
	FAIL) bad "$rest" ;;
	esac
done <"$T/report"
[ -s "$T/report" ] || bad "the checker wrote nothing"

# A step past two minutes is written in minutes (hp_fmt_duration); the
# parts after it stay in seconds, so the detail gives the step in seconds
# too: "step 17.3 min = 1035.235 s: compute 765.240, ...", the seconds
# the JSON's step_time_s to the millisecond. (Llama 3.1 405B, 4096
# sequences on 512 A100: minutes a step.)
LONG="--pool 64x8xA100-SXM4-80GB -m llama3.1-405b --gbs 4096 --top 1"
# shellcheck disable=SC2086
$H plan $LONG >"$T/long.txt" 2>/dev/null
# shellcheck disable=SC2086
$H plan $LONG --format json >"$T/long.json" 2>/dev/null
python3 - "$T/long.txt" "$T/long.json" <<'PY2' && ok || bad "long step: $(grep '^  step' "$T/long.txt")"
import json, re, sys
text = open(sys.argv[1]).read(); s = json.load(open(sys.argv[2]))["plans"][0]["step_time_s"]
assert s >= 120, s   # the case needs a step in minutes
m = re.search(r"^  step ([0-9.]+) min = ([0-9.]+) s: compute ", text, re.M)
assert m, "no 'step X min = Y s:' line"
assert m.group(1) == "%.1f" % (s / 60) and m.group(2) == "%.3f" % s, (m.groups(), s)
PY2

# The optimality a person reads is the same words in the terminal table
# and the Markdown report ("gap 0.3%", not the JSON's status name
# "within-gap"): plan 1's last-but-one column against the Markdown row.
$H plan --pool 2x8xH100-SXM -m llama3.1-8b --gbs 256 --top 2 >"$T/opt.txt" 2>/dev/null
$H plan --pool 2x8xH100-SXM -m llama3.1-8b --gbs 256 --top 2 --format md >"$T/opt.md" 2>/dev/null
t=$(grep -E '^ +1\*? ' "$T/opt.txt" | grep -oE '(gap [0-9.]+%|optimal|heuristic) *$' | sed 's/ *$//')
m=$(grep -E '^\| \*\*1\*\*' "$T/opt.md" | awk -F'|' '{ gsub(/^ +| +$/, "", $(NF-2)); print $(NF-2) }')
if [ -n "$t" ] && [ "$t" = "$m" ]; then ok; else bad "optimality: terminal '$t', Markdown '$m'"; fi
grep -q 'within-gap' "$T/opt.md" && bad "Markdown shows the status name within-gap" || ok
finish report_agree
