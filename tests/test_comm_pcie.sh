#!/bin/sh
# test_comm_pcie.sh — `hetplan comm --pcie`: each GPU's PCIe link, read by
# the pool key pcie's parser.
# By hand: a Gen4 lane moves 16 GT/s x 128/130 / 8 = 1.969 GB/s raw a
# direction (PCI Express Base Specification 4.0), so x16 31.5 and x8 15.75
# GB/s raw; a PCIe-only node's GPU-to-GPU traffic runs at the link, so a
# 1 GiB send/receive between two A100 PCIe cards on x8 moves below the x8
# raw 15.75 GB/s, and at half the x16 rate (the rate is linear in lanes:
# NCCL prices a PCI link as width x per-lane rate, topo.cc ncclTopoAddPci).
# Gen3 x16 has the raw rate of Gen4 x8 (8 GT/s x 16 = 16 GT/s x 8).
set -u
H=${HETPLAN:-./hetplan}
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

C="--collective sendrecv --bytes 1GiB --gpu A100-PCIe-80GB --gpus-per-node 2 --nodes 1 --format json"
bw() {
	# shellcheck disable=SC2086
	"$H" comm $C "$@" 2>"$T/err" | python3 -c 'import json,sys; print(json.load(sys.stdin)["busbw_GBps"])'
}
x16=$(bw) x8=$(bw --pcie 4.0x8) g3=$(bw --pcie gen3x16) x4=$(bw --pcie "Gen4 x4")
python3 - "$x16" "$x8" "$g3" "$x4" <<'PY' && ok || bad "busbw x16 $x16, x8 $x8, gen3x16 $g3, x4 $x4"
import sys
x16, x8, g3, x4 = map(float, sys.argv[1:])
assert x8 < 15.75 and x16 < 31.5, (x8, x16)          # below the raw link
assert abs(x16 / x8 - 2) < 0.02 and abs(x8 / x4 - 2) < 0.02, (x16, x8, x4)  # linear in lanes
assert abs(g3 / x8 - 1) < 0.10, (g3, x8)             # same raw rate, within the coding's spread
PY

# the JSON and the text name the link given
# shellcheck disable=SC2086
"$H" comm $C --pcie 4x8 >"$T/out" 2>"$T/err"
json 'assert d["pcie"] == "4.0x8" and d["intra"] == "pcie", d'
"$H" comm --collective sendrecv --bytes 1GiB --gpu A100-PCIe-80GB --gpus-per-node 2 --nodes 1 >"$T/out" 2>&1
grep -q '^network .*PCIe' "$T/out" && bad "no --pcie, yet the text names one: $(grep network "$T/out")" || ok
"$H" comm --collective sendrecv --bytes 1GiB --gpu A100-PCIe-80GB --gpus-per-node 2 --nodes 1 --pcie 4.0x8 >"$T/out" 2>&1
grep -q '^network .*; PCIe 4.0x8$' "$T/out" && ok || bad "text: $(grep network "$T/out")"

# An NVLink node keeps its NVLink rate: only the PCIe figure moves
# (docs/pcie.md); an 8-GPU H100 all-reduce is the same either way
a=$("$H" comm --collective allreduce --bytes 1GiB --gpu H100-SXM --gpus-per-node 8 --nodes 1 --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["time_us"])')
b=$("$H" comm --collective allreduce --bytes 1GiB --gpu H100-SXM --gpus-per-node 8 --nodes 1 --pcie 4.0x8 --format json | python3 -c 'import json,sys; print(json.load(sys.stdin)["time_us"])')
[ -n "$a" ] && [ "$a" = "$b" ] && ok || bad "H100 NVSwitch all-reduce moved with --pcie: $a -> $b"

# refused, the flag named, exit 2: a width no GPU trains to, a generation
# outside 3..6, a missing value, text after the lanes
for v in 4.0x12 2.0x16 7x16 4.0x 4.0x8x ""; do
	expect 2 "--pcie" "$H" comm --collective allreduce --bytes 1M --gpu A100-PCIe-80GB --gpus-per-node 2 --nodes 1 --pcie "$v"
done

finish test_comm_pcie
