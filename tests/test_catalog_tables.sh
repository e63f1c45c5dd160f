#!/bin/sh
# test_catalog_tables.sh — the tables a user reads add up and show no
# unknown as 0:
#   - every memory table in README.md (the `hetplan estimate` examples):
#     WEIGHTS + GRADS + OPTIM + ACTS + OTHER = TOTAL on each row, within
#     the rounding of the printed one-decimal GiB figures (5 x 0.05);
#   - the same for the program's own output on those examples;
#   - `hetplan gpus --format csv` has no 0 in a peak, bandwidth or TDP cell
#     (an unknown is empty), and `hetplan gpus` shows V100's 125 TF fp16
#     (datasheet) rather than 0;
#   - every part added for small-model and lab clusters plans GPT-2 small
#     (exit 0, a finite step time) and refuses a dtype it lacks, naming
#     the part.
# Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
case $H in /*) ;; *) H=$PWD/$H ;; esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

# rows FILE: check every memory table row in FILE; prints "N rows".
check_rows() {
	python3 - "$1" <<'PY'
import re, sys
unit = {"B": 1 / 2**30, "KiB": 1 / 2**20, "MiB": 1 / 2**10, "GiB": 1, "TiB": 2**10}
rows = bad = 0
head = None
for line in open(sys.argv[1]):
    if line.startswith("  GROUP STAGE POOL"):
        head = line.split()
        continue
    if head and re.match(r"  \d+\s+\d+\s", line):
        vals = re.findall(r"([\d.]+) (B|KiB|MiB|GiB|TiB)", line)
        if "OTHER" not in head:
            print("  table without OTHER:", " ".join(head)); bad += 1; continue
        if len(vals) < 6:
            print("  short row:", line.rstrip()); bad += 1; continue
        g = [float(v) * unit[u] for v, u in vals[:6]]
        if abs(sum(g[:5]) - g[5]) > 5 * 0.05 + 1e-9:
            print("  parts %.2f != total %.2f GiB: %s" % (sum(g[:5]), g[5], line.rstrip()))
            bad += 1
        rows += 1
        continue
    head = None if not line.strip() else head
print(rows, "rows")
sys.exit(1 if bad or rows == 0 else 0)
PY
}

cat README.md docs/usage.md >"$T/docs.md"
out=$(check_rows "$T/docs.md") && ok || bad "README and docs/usage.md memory tables: $out"
echo "$out" | grep -q '^[3-9][0-9]* rows\|^[1-9][0-9]\+ rows' && ok || bad "README: fewer than 3 memory rows ($out)"

"$H" estimate --pool 8x8xH100-SXM -m llama3.1-70b --tp 8 --pp 2 --mbs 1 --gbs 256 \
	--recompute selective >"$T/est1" 2>&1
"$H" estimate --pool 2x8xL40S -m llama3.1-70b --tp 8 --pp 2 --mbs 1 --gbs 64 >"$T/est2" 2>&1
"$H" estimate --pool 4x8xA100-SXM4-80GB -m mixtral-8x7b --tp 4 --pp 2 --mbs 1 --gbs 64 \
	--recompute full >"$T/est3" 2>&1
for f in est1 est2 est3; do
	out=$(check_rows "$T/$f") && ok || bad "$f: $out"
done

"$H" gpus --format csv >"$T/gpus.csv" && ok || bad "gpus --format csv"
python3 - "$T/gpus.csv" <<'PY' && ok || bad "gpus csv shows a 0 for a figure"
import csv, sys
bad = 0
for r in csv.DictReader(open(sys.argv[1])):
    for k in ("hbm_tbps", "peak_tflops", "fp32_tflops", "tf32_tflops", "bf16_tflops",
              "fp16_tflops", "fp8_tflops", "tdp_w"):
        if r[k] != "" and float(r[k]) == 0:
            print("  %s: %s = 0" % (r["name"], k)); bad = 1
    if r["peak_tflops"] == "" or r["hbm_tbps"] == "" or r["tdp_w"] == "":
        print("  %s: no peak, bandwidth or TDP" % r["name"]); bad = 1
sys.exit(bad)
PY
"$H" gpus | grep -E '^V100-SXM2-32GB ' | grep -qE ' 125\.0 fp16 ' && ok || bad "V100 row: $("$H" gpus | grep '^V100-SXM2-32GB')"
"$H" gpus | grep -E '^A10G ' | grep -qE ' 0\.00 | 0\.0 | 0 *$' && bad "A10G shows 0: $("$H" gpus | grep '^A10G ')" || ok

# Every catalog reference price names an offer ("aws p5.48xlarge ..."):
# where the price book has that instance, it is the same catalog part,
# form factor included (an SXM row must not cite a PCIe offer).
"$H" prices --all --format csv >"$T/offers.csv" 2>/dev/null && ok || bad "prices --all --format csv"
python3 - data/gpus.json "$T/offers.csv" <<'PY' && ok || bad "a reference price cites another part (above)"
import csv, json, sys
gpus = json.load(open(sys.argv[1]))["gpus"]
offers = list(csv.DictReader(open(sys.argv[2])))
bad = checked = 0
for g in gpus:
    src = g.get("reference_price_source", "").split()
    if len(src) < 2:
        continue
    rows = [o for o in offers if o["provider"] == src[0] and o["instance"] == src[1]]
    for o in rows:
        if o["gpu"] != g["name"]:
            print("  %s: reference %s %s is a %s offer" % (g["name"], src[0], src[1], o["gpu"]))
            bad = 1
    checked += bool(rows)
if checked < 5:
    print("  only %d reference prices found in the book" % checked); bad = 1
sys.exit(bad)
PY

# Every part added for small-model and lab clusters plans a small model:
# GPT-2 small (12 layers, hidden 768, 12 heads, MLP 3072, vocabulary
# 50257, context 1024, learned positions, LayerNorm, biases, tied
# embeddings: the GPT-2 paper's 117M / Hugging Face's 124M), data parallel
# over one node of 8, in the part's 16-bit dtype (fp16 where it has no
# bf16). Each must exit 0 with a finite, positive step time.
cat >"$T/gpt2.json" <<'JSON'
{"name": "gpt2-small", "layers": 12, "hidden": 768, "heads": 12, "ffn": 3072,
 "vocab": 50257, "seq_len": 1024, "gated_mlp": false, "norm": "layernorm",
 "position": "learned", "bias": true, "tied_embeddings": true}
JSON
for g in A40 A30 L40 RTX-A5000 RTX-A4000 RTX-2080-Ti TITAN-RTX TITAN-V RTX-3080 \
	RTX-4080 RTX-5090 RTX-PRO-6000 MI210 MI250 MI100; do
	prec=bf16
	case $g in RTX-2080-Ti | TITAN-RTX | TITAN-V) prec=fp16 ;; esac
	if "$H" estimate --pool "1x8x$g" -m "$T/gpt2.json" --tp 1 --pp 1 --mbs 4 --gbs 32 \
		--precision $prec --format json >"$T/est_$g" 2>"$T/err_$g"; then
		python3 - "$T/est_$g" <<'PY' && ok || bad "estimate on $g: no finite step time"
import json, math, sys
d = json.load(open(sys.argv[1]))
s = d["step_time_s"]
sys.exit(0 if isinstance(s, (int, float)) and math.isfinite(s) and s > 0 else 1)
PY
	else
		bad "estimate on $g exited $?: $(head -c 300 "$T/err_$g")"
	fi
done

# A dtype the part lacks is refused (exit 3), naming the part: Volta and
# Turing have no BF16 units (as V100 and T4), Ampere and CDNA no FP8,
# CDNA 1/2 no TF32.
for case in TITAN-V:bf16 RTX-2080-Ti:bf16 TITAN-RTX:bf16 A40:fp8 A30:fp8 RTX-3080:fp8 \
	MI210:tf32 MI250:fp8 MI100:tf32; do
	g=${case%%:*} dt=${case#*:}
	"$H" estimate --pool "1x8x$g" -m "$T/gpt2.json" --tp 1 --pp 1 --mbs 4 --gbs 32 \
		--precision "$dt" >"$T/out" 2>"$T/err"
	rc=$?
	[ "$rc" = 3 ] && grep -qF "($g) has no $dt units" "$T/err" && ok ||
		bad "$g with $dt: exit $rc, $(head -c 300 "$T/err")"
done

# Names from a user's gpus.json ($XDG_CONFIG_HOME/hetplan/gpus.json, as
# `hetplan gpus --help` describes) reach the CSV and terminal sinks: a
# comma and quotes are quoted and doubled (RFC 4180), and a CJK name is
# padded by terminal columns (日 and 本 are East Asian Wide, two columns
# each: "日本GPU" takes 7 of the GPU column's 16, then 9 spaces).
mkdir -p "$T/xdg/hetplan"
python3 - "$T/xdg/hetplan/gpus.json" <<'PY'
import json, sys
h = [g for g in json.load(open("data/gpus.json"))["gpus"] if g["name"] == "H100-SXM"][0]
h.pop("aliases", None)
json.dump({"gpus": [dict(h, name="日本GPU"), dict(h, name='my,gpu "x"')]}, open(sys.argv[1], "w"))
PY
XDG_CONFIG_HOME="$T/xdg" XDG_CACHE_HOME="$T/xdg" "$H" gpus --format csv >"$T/out" 2>"$T/err"
grep -q '^"my,gpu ""x""",hopper,80,' "$T/out" && ok || bad "gpus csv: a comma name is not quoted: $(tail -2 "$T/out")"
grep -q '^日本GPU,hopper,80,' "$T/out" && ok || bad "gpus csv: $(tail -2 "$T/out")"
XDG_CONFIG_HOME="$T/xdg" XDG_CACHE_HOME="$T/xdg" "$H" gpus >"$T/out" 2>"$T/err"
grep -q '^日本GPU          hopper ' "$T/out" && ok || bad "gpus table: a CJK name misaligns: $(grep 日本 "$T/out")"

finish catalog_tables
