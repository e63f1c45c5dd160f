#!/bin/sh
# test_report_views.sh — every table agrees with every other: one
# workspace, its report in Markdown and HTML, `hetplan plan` and
# `hetplan estimate` of the report's plan 1 on the same inputs, and
# `hetplan prices`; each figure below is read from two views or more as
# printed and compared as text (no view's text is rebuilt from the code's
# numbers).
#
# The cluster (three pools, the price book from the embedded snapshot only):
#   mega: 2 x 8 H100-SXM, 8 x 200 Gb/s, transport a3-megagpu-8g, which is
#         GPUDirect-TCPXO (docs/cloud-transport.md), at the book's aws
#         p5.48xlarge $55.04 a node-hour = 55.04 / 8 = $6.88 a GPU-hour;
#   a|40: 2 x 8 A100-SXM4-40GB at $12,345 a node-hour (a '|' in the name:
#         Markdown cells escape it), NICs the catalog's (ib); from $10,000
#         a unit price has three figures and a unit: 12.3k; a GPU-hour
#         12345 / 8 = 1543.125, exactly (three decimals below 10,000);
#   slow: 1 x 8 H100-SXM, one 25 Gb/s NIC: no transport given, so tcp
#         (NICs below 50 Gb/s, cluster.h), at $14 = 14.000 / 1.750 a GPU.
# Checked:
#   - transport: the Markdown and HTML cluster tables name each pool's
#     (tcpxo, ib, tcp), and estimate's text and JSON name the same for the
#     pools plan 1 uses, and so do the Markdown's and HTML's chosen-plan
#     sections ("Transport: mega tcpxo."); the CSV's transports column
#     those of the pools each row's gpus_by_pool counts, plan 1's as
#     estimate's JSON;
#   - unit prices: $/node-h and $/GPU-h of the cluster tables, estimate's
#     prices line and `hetplan prices`' row of the offer the pool is
#     priced from, to a tenth of a cent (table_rate) in every one;
#   - plan 1's MFU, $/h, $ per 1M tokens and cost to train in plan's
#     table, estimate, the Markdown summary, ranked table and cost
#     section, and the HTML cards, table and key figures;
#   - each pool's best plan alone (tokens/s, time and cost to train) in
#     plan's list and the Markdown table; the Pareto front likewise;
#   - memory: each stage's total and capacity in estimate's table and the
#     Markdown memory table, and estimate's "fullest stage T of C" is the
#     Markdown row with the least headroom.
# Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh
# the embedded price snapshot only: no cache, no config
export XDG_CACHE_HOME="$T/cache" XDG_CONFIG_HOME="$T/config" HETPLAN_PRICES_CACHE=

cat >"$T/ws.json" <<'EOF'
{"cluster": {"name": "mix", "pools": [
   {"name": "mega", "gpu": "H100-SXM", "nodes": 2, "nics": 8, "nic_gbps": 200,
    "transport": "a3-megagpu-8g"},
   {"name": "a|40", "gpu": "A100-SXM4-40GB", "nodes": 2, "price_per_node_hour": 12345},
   {"name": "slow", "gpu": "H100-SXM", "nodes": 1, "nics": 1, "nic_gbps": 25,
    "price_per_node_hour": 14}]},
 "model": "llama3.1-8b", "workload": {"gbs": 256, "tokens": 1e11, "top": 3}}
EOF
for f in md html json csv; do
	expect 0 "" "$H" report "$T/ws.json" -o "$T/r.$f"
done
python3 - "$T" <<'PY' || bad "could not split the report's inputs"
import json, sys
t = sys.argv[1]
d = json.load(open(t + "/r.json"))
json.dump(d["inputs"]["cluster"], open(t + "/c.json", "w"))
json.dump(d["inputs"]["model"], open(t + "/m.json", "w"))
json.dump(d["plans"][0], open(t + "/p1.json", "w"))
PY
expect 0 "" "$H" plan -c "$T/c.json" -m llama3.1-8b --gbs 256 --tokens 100B --top 3
cp "$T/out" "$T/plan.txt"
expect 0 "" "$H" estimate -c "$T/c.json" -m "$T/m.json" --plan "$T/p1.json"
cp "$T/out" "$T/est.txt"
expect 0 "" "$H" estimate -c "$T/c.json" -m "$T/m.json" --plan "$T/p1.json" --format json
cp "$T/out" "$T/est.json"
expect 0 "" "$H" prices --gpu H100-SXM --provider aws
cp "$T/out" "$T/prices.txt"

python3 - "$T" <<'PY' >"$T/py.out" 2>&1 || bad "the checks stopped: $(grep -v '^OK ' "$T/py.out" | tail -3)"
import html, json, re, sys
t = sys.argv[1]
md = open(t + "/r.md").read()
page = open(t + "/r.html").read()
plan = open(t + "/plan.txt").read()
est = open(t + "/est.txt").read()
ej = json.load(open(t + "/est.json"))
prices = open(t + "/prices.txt").read()
import csv
csvr = list(csv.DictReader(open(t + "/r.csv", newline="")))

def check(cond, msg):
    print("OK" if cond else "FAIL", msg)

def md_tables(text):
    """Every pipe table of text: a list of (header, rows), cells unescaped."""
    out, cur = [], None
    for line in text.split("\n"):
        if not line.startswith("|"):
            cur = None
            continue
        cells = [c.strip().replace("\\|", "|") for c in re.split(r"(?<!\\)\|", line)[1:-1]]
        if cur is None:
            cur = (cells, [])
            out.append(cur)
        elif not all(re.fullmatch(r"-+:?", c) for c in cells):
            cur[1].append(cells)
    return out

def md_table(first_col):
    for head, rows in md_tables(md):
        if head and head[0] == first_col:
            return [dict(zip(head, r)) for r in rows]
    raise SystemExit(f"FAIL no Markdown table starting with {first_col!r}")

def html_table(first_col):
    """The HTML table whose first header is first_col: rows of cell texts."""
    for tb in re.findall(r"<table>(.*?)</table>", page, re.S):
        head = [html.unescape(h) for h in re.findall(r"<th[^>]*>(.*?)</th>", tb)]
        if head and head[0] == first_col:
            rows = []
            for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", tb, re.S)[1:]:
                cells = [html.unescape(re.sub(r"<[^>]+>", "", c))
                         for c in re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)]
                rows.append(dict(zip(head, cells)))
            return rows
    raise SystemExit(f"FAIL no HTML table starting with {first_col!r}")

def one(pat, text, what):
    m = re.search(pat, text, re.M)
    if not m:
        raise SystemExit(f"FAIL {what}: no match for {pat!r}")
    return m.groups() if len(m.groups()) > 1 else m.group(1)

# ---- transports --------------------------------------------------------
want_tr = {"mega": "tcpxo", "a|40": "ib", "slow": "tcp"}
mdp = {r["pool"]: r for r in md_table("pool")}
htp = {r["pool"].replace("\u25a0", "").strip(): r for r in html_table("pool")}
check(set(mdp) == set(want_tr) and set(htp) == set(want_tr), f"pools: md {set(mdp)}, html {set(htp)}")
for p, w in want_tr.items():
    check(mdp[p]["transport"] == w, f"md transport of {p}: {mdp[p]['transport']!r}, want {w}")
    check(htp[p]["transport"] == w, f"html transport of {p}: {htp[p]['transport']!r}, want {w}")
# estimate: the JSON names every pool plan 1 uses; the text the non-ib ones
used = ej["transport"]
check(used and all(want_tr[p] == v for p, v in used.items()), f"estimate JSON transport {used}")
text_tr = dict(re.findall(r"^  (?:transport  +|                   )(\S+) (ib|efa|tcp|tcpx|tcpxo|gcp-rdma)$",
                          est, re.M))
check(text_tr == {p: v for p, v in used.items() if v != "ib"},
      f"estimate text transport {text_tr} against its JSON {used}")
# the chosen plan's section of the Markdown and HTML names the pools off
# ib with their transport, as estimate's text does
chosen_md = md[md.index("## Chosen plan"):]
m = re.search(r"^Transport: (.*)\.$", chosen_md.split("### ")[0], re.M)
md_tr = dict(x.rsplit(" ", 1) for x in m.group(1).split(", ")) if m else {}
check(md_tr == text_tr, f"md chosen plan transport {md_tr}, estimate's {text_tr}")
m = re.search(r"<p>Transport: (.*?)\.</p>", page)
ht_tr = dict(x.rsplit(" ", 1) for x in html.unescape(m.group(1)).split(", ")) if m else {}
check(ht_tr == text_tr, f"html chosen plan transport {ht_tr}, estimate's {text_tr}")
# CSV: each row's transports are its pools' (those gpus_by_pool counts);
# plan 1's are the pools estimate names
for r in csvr:
    tr = dict(kv.rsplit(":", 1) for kv in r["transports"].split(";"))
    gp = dict(kv.rsplit(":", 1) for kv in r["gpus_by_pool"].split(";"))
    check(set(tr) == set(gp) and all(want_tr[p] == v for p, v in tr.items()),
          f"csv rank {r['rank']} transports {r['transports']!r} (gpus {r['gpus_by_pool']!r})")
check(csvr and dict(kv.rsplit(":", 1) for kv in csvr[0]["transports"].split(";")) == used,
      f"csv plan 1 transports {csvr[0]['transports'] if csvr else None!r}, estimate {used}")

# ---- unit prices: to a tenth of a cent everywhere ------------------------
want_px = {"mega": ("55.040", "6.880"), "a|40": ("12.3k", "1543.125"), "slow": ("14.000", "1.750")}
for p, (nh, gh) in want_px.items():
    check((mdp[p]["$/node-h"], mdp[p]["$/GPU-h"]) == (nh, gh),
          f"md {p}: {mdp[p]['$/node-h']} / {mdp[p]['$/GPU-h']}, want {nh} / {gh}")
    check((htp[p]["$/node-h"], htp[p]["$/GPU-h"]) == (nh, gh),
          f"html {p}: {htp[p]['$/node-h']} / {htp[p]['$/GPU-h']}, want {nh} / {gh}")
est_px = dict(re.findall(r"^  (?:prices  +|                   )(\S+) \$(\S+)/node-h from", est, re.M))
for p, v in est_px.items():
    check(v == mdp[p]["$/node-h"], f"estimate prices {p} ${v}/node-h, report {mdp[p]['$/node-h']}")
check("mega" in est_px, f"estimate prices line: {est_px}")
# hetplan prices: the p5.48xlarge row the mega pool is priced from
row = one(r"^H100-SXM +aws +\S+ +p5\.48xlarge +8 +(\S+) +(\S+) ", prices, "prices row")
check(row == (mdp["mega"]["$/GPU-h"], mdp["mega"]["$/node-h"]),
      f"hetplan prices p5.48xlarge {row}, report {mdp['mega']['$/GPU-h']} / {mdp['mega']['$/node-h']}")
check(mdp["mega"]["price source"].startswith("aws p5.48xlarge"), mdp["mega"]["price source"])

# ---- plan 1: MFU, $/h, $ per 1M tokens, cost to train --------------------
r1 = one(r"^  1\*? .*? (\d+\.\d%) +(\$\S+) +(\$\S+) +(\S+ \S+) +(\$\S+) ", plan, "plan row 1")
p_mfu, p_uh, p_um, p_time, p_cost = r1
views = {
    "estimate": (one(r"^  MFU / HFU +(\S+) /", est, "estimate MFU"),
                 *one(r"^  cost +(\S+)/h, (\S+) per 1M tokens$", est, "estimate cost")),
}
s_mfu = one(r"^\| Throughput \| .* MFU (\S+) on", md, "md summary MFU")
s_cost, s_uh = one(r"^\| Cost to train \| (\S+) at (\S+)/h \|", md, "md summary cost")
c_uh, c_um, c_cost = one(r"take \S+ \S+ at (\S+)/h \((\S+) per million tokens\): \*\*(\S+)\*\*", md,
                         "md cost section")
mt = md_table("rank")[0]
ht = html_table("rank")[0]
card_mfu = one(r'<div class="k">Throughput</div>.*?MFU ([\d.]+%)</div>', page, "html card MFU")
card_cost, card_uh, card_um = one(r'<div class="k">Cost to train</div><div class="v">(\S+)</div>'
                                  r'<div class="s">(\S+)/h, (\S+) per 1M tokens</div>', page, "html card cost")
kv = dict((html.unescape(k), html.unescape(v)) for k, v in
          re.findall(r'<tr><td>([^<]+)</td><td class="n">([^<]+)</td></tr>', page))
got = {
    "MFU": {"plan": p_mfu, "estimate": views["estimate"][0], "md summary": s_mfu, "md table": mt["MFU"],
            "html table": ht["MFU"], "html card": card_mfu, "html figures": kv["MFU / HFU"].split(" / ")[0]},
    "$/h": {"plan": p_uh, "estimate": views["estimate"][1], "md summary": s_uh, "md cost": c_uh,
            "md table": mt["$/h"], "html table": ht["$/h"], "html card": card_uh,
            "html figures": kv["price per hour"]},
    "$ per 1M tokens": {"plan": p_um, "estimate": views["estimate"][2], "md cost": c_um,
                        "html card": card_um, "html figures": kv["per million tokens"]},
    "cost to train": {"plan": p_cost, "md summary": s_cost, "md cost": c_cost,
                      "md table": mt["cost to train"], "html table": ht["cost to train"],
                      "html card": card_cost, "html figures": kv["cost to train"]},
    "time to train": {"plan": p_time, "md table": mt["time to train"], "html table": ht["time to train"],
                      "html figures": kv["time to train"]},
}
for what, vs in got.items():
    check(len(set(vs.values())) == 1, f"plan 1's {what}: {vs}")

# ---- each pool alone, and the Pareto front --------------------------------
alone = {p: (tok, tm, cost) for p, tok, tm, cost in
         re.findall(r"^  (\S+) +\S+ tp\d+ pp\d+ +(\S+) tokens/s, (\S+ \S+), (\$\S+);", plan, re.M)}
singles = next([dict(zip(h, x)) for x in rows] for h, rows in md_tables(md) if h[:2] == ["pool", "plan"])
ms = {r["pool"]: (r["tokens/s"], r["time to train"], r["cost to train"]) for r in singles}
check(len(alone) == 3 and alone == ms, f"best plan alone: plan {alone}, md {ms}")
front = re.findall(r"^ +(\S+ \S+) +(\$\S+)  \S.* \((\d+) GPUs\)$", plan, re.M)
mf = [(r["time to train"], r["cost to train"], r["GPUs"]) for r in md_table("time to train")]
check(front and front == mf, f"Pareto front: plan {front}, md {mf}")

# ---- memory per stage -------------------------------------------------------
et = re.findall(r"^  (\d+) +(\d+) +\S+ +\d+ \S+ .* (\S+ \S+) (?:yes|NO) of (\S+ \S+)", est, re.M)
mm = [(r["group"], r["stage"], r["total"], r["capacity"]) for r in md_table("group")]
check(et and [tuple(x) for x in et] == mm, f"memory by stage: estimate {et}, md {mm}")
# estimate's fullest stage (its words) is the Markdown row of the stage
# whose total is the largest share of its capacity, by the JSON's bytes
ft, fc = one(r"fullest stage (\S+ \S+) of (\S+ \S+) with", est, "estimate fullest stage")
full = max(ej["memory"], key=lambda s: s["total_bytes"] / s["capacity_bytes"])
row = [r for r in md_table("group")
       if (int(r["group"]), int(r["stage"])) == (full["replica_group"], full["stage"])]
check(len(row) == 1 and (row[0]["total"], row[0]["capacity"]) == (ft, fc),
      f"estimate's fullest stage {ft} of {fc}, md row {row}")
PY
report_checks "$T/py.out"

finish report_views
