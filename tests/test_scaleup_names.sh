#!/bin/sh
# test_scaleup_names.sh — the scale-up link is named by what it is, the
# same in every table (perf_scaleup_label): the estimate's communication
# table, its JSON, and the plan's "tp links:" line.
# Facts (independent of hetplan):
#  - an 8-GPU MI300X / MI355X node has no switch: each GPU has 7 Infinity
#    Fabric (xGMI) links, one to each peer (AMD, "Understanding RCCL
#    Bandwidth and xGMI Performance on AMD Instinct MI300X", rocm-blogs
#    @0e81c2ca; MI300X datasheet 7 x 128 GB/s). A group of g GPUs in the
#    node reaches the g - 1 links among them: a TP pair 1 of 7, a TP 4
#    group 3 of 7, all 8 every link.
#  - a DGX-1 V100 is a hybrid cube-mesh without a switch, 6 NVLink2 links
#    a GPU, GPU0-GPU1 joined by one (nvidia-smi topo -m, NV1; NVIDIA
#    WP-08437-002): a TP pair of consecutive ranks is "1 of 6 links".
#  - a quad GH200 node joins every pair by 6 of the GPU's 18 NVLink4
#    links (JUPITER Booster, Eviden XH3000: 300 GB/s a pair of 900).
#  - an HGX H100 8-GPU board has NVSwitch; Gaudi2 joins its 8 cards by the
#    chip's own RoCE ports (Intel Gaudi2 white paper: 24 x 100GbE on chip).
set -u
H=${HETPLAN:-./hetplan}
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

M="-m llama3.1-8b --mbs 1 --gbs 64 --pp 1"

# tp_row POOL TP [more args]: the estimate table's tp row's link column
tp_row() {
	pool=$1 tp=$2; shift 2
	# shellcheck disable=SC2086
	"$H" estimate --pool "$pool" $M --tp "$tp" "$@" >"$T/est" 2>"$T/err"
	sed -n 's/^  tp   [a-z]* *[0-9.]* [KMG]iB *[0-9]* \(.*[^ ]\)  *\(ring\|tree\|nvls\|nvls_tree\|pat\) .*/\1/p' "$T/est" | head -n 1
}

check() {
	want=$1; shift
	got=$(tp_row "$@")
	[ "$got" = "$want" ] && ok || bad "$*: tp link '$got', want '$want' ($(grep '^  tp ' "$T/est"; head -c 200 "$T/err"))"
}

check "xGMI (1 of 7 links)" 1x8xMI300X 2
check "xGMI (3 of 7 links)" 1x8xMI300X 4
check "xGMI" 1x8xMI300X 8
check "xGMI (1 of 7 links)" 1x8xMI355X 2
check "NVLink (1 of 6 links)" 1x8xV100-SXM2-32GB 2 --precision fp16
check "NVLink (6 of 18 links)" 1x4xGH200-96GB,intra=nvlink 2
check "NVSwitch" 1x8xH100-SXM 2
check "Gaudi RoCE" 1x8xGaudi2 2

# no table of an AMD plan says NVSwitch: the estimate's text and JSON
"$H" estimate --pool 2x8xMI300X $M --tp 2 >"$T/est" 2>/dev/null
grep -q NVSwitch "$T/est" && bad "MI300X estimate names NVSwitch: $(grep NVSwitch "$T/est")" || ok
"$H" estimate --pool 2x8xMI300X $M --tp 2 --format json >"$T/out" 2>/dev/null
json 'rows = {c["dim"]: c["link"] for c in d["comm"]}; assert rows["tp"] == "xGMI (1 of 7 links)" and "NVSwitch" not in str(d["comm"]), rows'

# the plan's "tp links:" line, one name a kind of link, pools in order
"$H" plan --pool 2x8xMI300X -m llama3.1-70b --gbs 64 >"$T/plan" 2>/dev/null
grep -q '^  tp links: xGMI (inside a node)$' "$T/plan" && ok ||
	bad "MI300X plan tp links: $(grep 'tp links' "$T/plan" | head -n 2)"
"$H" plan --pool 2x8xMI300X --pool 2x8xH100-SXM -m llama3.1-70b --gbs 64 >"$T/plan" 2>/dev/null
grep -q '^  tp links: xGMI or NVSwitch (inside a node)$' "$T/plan" && ok ||
	bad "mixed plan tp links: $(grep 'tp links' "$T/plan" | head -n 2)"

finish test_scaleup_names
