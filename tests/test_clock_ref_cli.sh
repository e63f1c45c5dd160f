#!/bin/sh
# test_clock_ref_cli.sh — `hetplan estimate` prices a GB300 above a GB200 by
# board power and SM count (catalog "clock_ref", docs/model.md), by hand:
#   GB300 on GB200: (1400/1200)^0.6594 x (160/148)^0.3406
#                 = 1.10699 x 1.02691 = 1.13678
#   held to 1200 W: (160/148)^0.3406 = 1.02691
# (TDPs: verda.com GB300 NVL72 per-GPU table and NVIDIA's GB200 NVL72
# datasheet; SMs: NVIDIA "Inside NVIDIA Blackwell Ultra"; x the shipped
# power_clock_exp 0.6594). Compute-bound kernels run at the rate r,
# memory-bound ones at the HBM rate: compute = C / r + M, for one fixed
# plan (Llama 3.1 8B, sequence 4,096, one GPU, bf16, one micro-batch of
# 1; breakdown_s.compute of the JSON estimate). A user catalog
# adds two copies of the built-in GB300 (same 160 SMs, so the same tile
# waves): GB300-NOREF without clock_ref (r = 1) and GB300-1200 held to
# 1200 W (r = 1.02691). From those two, C and M; the built-in GB300 must
# then be C / 1.13678 + M, and the built-in GB200 no faster than a GB300
# without its reference (same peak, fewer SMs).
set -u
. tests/lib.sh
HETPLAN=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

mkdir -p "$T/cfg/hetplan"
python3 - "$T/cfg/hetplan/gpus.json" <<'EOF' || bad "user catalog from data/gpus.json"
import json, sys
g = next(x for x in json.load(open("data/gpus.json"))["gpus"] if x["name"] == "GB300")
none = dict(g, name="GB300-NOREF", aliases=[])
del none["clock_ref"]
held = dict(g, name="GB300-1200", aliases=[], power_limit_w=1200.0)
json.dump({"gpus": [none, held]}, open(sys.argv[1], "w"))
EOF

compute() {
	XDG_CONFIG_HOME="$T/cfg" "$HETPLAN" estimate --pool "1x1x$1" -m llama3.1-8b --seq 4096 \
		--tp 1 --pp 1 --dp 1 --mbs 1 --gbs 1 --precision bf16 --recompute none \
		--zero 0 --framework megatron-core --format json >"$T/$1.json" 2>"$T/err" ||
		{ bad "estimate on $1: $(head -c 300 "$T/err")"; return; }
	ok
}
for g in GB300-NOREF GB300-1200 GB300 GB200; do compute $g; done

python3 - "$T" >"$T/report" <<'EOF'
import json, sys
d = sys.argv[1]
t = {g: json.load(open("%s/%s.json" % (d, g)))["breakdown_s"]["compute"]
     for g in ("GB300-NOREF", "GB300-1200", "GB300", "GB200")}
t1, t2, t3 = t["GB300-NOREF"], t["GB300-1200"], t["GB300"]
C = (t1 - t2) / (1 - 1 / 1.02691)
M = t1 - C
print(("OK" if C > 0 and M >= 0 else "FAIL") + " split C %.4f s, M %.4f s" % (C, M))
want = C / 1.13678 + M
print(("OK" if abs(t3 / want - 1) < 1e-3 else "FAIL") +
      " GB300 compute %.4f s, by hand %.4f s" % (t3, want))
r = t["GB200"] / t3
print(("OK" if 1 < r <= 1.13678 + 1e-4 else "FAIL") +
      " GB200 / GB300 compute %.4f, in (1, 1.13678]" % r)
EOF
cat "$T/report"
report_checks "$T/report"
[ -s "$T/report" ] || bad "no report"
finish test_clock_ref_cli
