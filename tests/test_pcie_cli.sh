#!/bin/sh
# test_pcie_cli.sh — the pool key pcie through `hetplan estimate`: the
# optimizer offload's host link and its parameter copy by hand, and the
# key's refusal. Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

# ZeRO-Offload of GPT 1.7B on two RTX 3090 Ti (DP 2). The host link a
# direction is the generation's x16 figure x lanes / 16: Gen4 x16 25.6
# GB/s (comm.c comm_pcie_Bps), Gen4 x8 12.8, Gen4 x4 6.4. After the step
# the 16-bit partition goes back to the GPU over that link, on its own:
# param_copy_s = 2 B x P / link, P the rank's partition (DeepSpeed
# stage_1_and_2.py, perf_offload.c). So x8 takes twice x16's and x4
# four times.
Z="-m gpt-1.7b --tp 1 --pp 1 --dp 2 --mbs 1 --gbs 8 --zero 1 --framework deepspeed --offload optimizer --format json"
for link in "" ",pcie=4.0x8" ",pcie=4x4"; do
	# shellcheck disable=SC2086
	expect 0 "" "$H" estimate --pool "1x2xRTX-3090-Ti$link" $Z
	json "o = d['offload']
want = {'': 25.6e9, ',pcie=4.0x8': 12.8e9, ',pcie=4x4': 6.4e9}['$link']
assert abs(o['host_link_bytes_per_s'] - want) < 1, o['host_link_bytes_per_s']
assert abs(o['param_copy_s'] - 2 * o['partition_params'] / want) < 1e-9, o"
done
# a Gen4 x8 link has Gen3 x16's raw rate; at the achievable figure the
# Gen3 x16 host (NCCL's 12 GB/s) is within 7% of it
expect 0 "" "$H" estimate --pool "1x2xRTX-3090-Ti,pcie=3.0x16" $Z
json "assert abs(d['offload']['host_link_bytes_per_s'] - 12e9) < 1"

# refused with the flag, the key and what it takes
expect 2 "pcie: expected a PCIe link" "$H" estimate --pool "1x2xRTX-3090-Ti,pcie=4.0x9" $Z
expect 2 "pcie: expected a PCIe link" "$H" estimate --pool "1x2xRTX-3090-Ti,pcie=2.0x16" $Z
printf '{"pools": [{"gpu": "RTX-3090-Ti", "nodes": 1, "gpus_per_node": 2, "pcie": "x8"}]}\n' >"$T/c.json"
# shellcheck disable=SC2086
expect 3 "pcie" "$H" estimate -c "$T/c.json" $Z
grep -qF "c.json" "$T/err" && ok || bad "refusal names no file: $(cat "$T/err")"

finish pcie_cli
