#!/bin/sh
# test_host_mem.sh — an offload's host side against the node's host memory
# (pool key host_mem_gb, perf_offload_host_check): usable is 0.85 of it
# (HOST_MEM_USABLE_SHARE). Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

# 1. ZeRO-Offload, by hand. Llama 3.1 8B has 8,030,261,248 parameters (its
# Hugging Face model card's safetensors count); at DP 8 a rank's ZeRO
# partition is P = 1,003,782,656. DeepSpeed keeps on the host a rank's
# fp32 master (4 B), two fp32 Adam moments (8 B), the fp32 gradient (4 B)
# and the pinned bf16 parameter buffer (2 B): 18 B x P = 18,068,087,808 B
# a GPU, with one micro-batch (no accumulated gradient buffer). 8 GPUs a
# node: 144,544,702,464 B. 0.85 x 170 GB = 144.5e9 B is less: does not fit;
# 0.85 x 171 GB = 145.35e9 B holds it. The DGX H100 default, 2048 GB:
# 0.85 x 2048e9 = 1,740,800,000,000 B usable.
Z="-m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8 --zero 2 --framework deepspeed --offload optimizer"
# shellcheck disable=SC2086
expect 0 "" "$H" estimate --pool 1x8xH100-SXM $Z --format json
json "assert d['host_need_bytes_per_node'] == 144544702464, d['host_need_bytes_per_node']
assert d['host_mem_bytes_per_node'] == 2048e9 and d['host_usable_bytes_per_node'] == 1740800000000
assert d['host_fits'] is True and d['fits'] is True"
# shellcheck disable=SC2086
expect 4 "does not fit in host memory" "$H" estimate --pool 1x8xH100-SXM,host_mem_gb=170 $Z --format json
json "assert d['host_fits'] is False and d['fits'] is False and d['memory_verdict'] == 'does-not-fit'
assert d['host_usable_bytes_per_node'] == 144.5e9, d['host_usable_bytes_per_node']"
grep -qF "pool h100-sxm" "$T/err" && ok || bad "refusal names no pool: $(cat "$T/err")"
# shellcheck disable=SC2086
expect 0 "" "$H" estimate --pool 1x8xH100-SXM,host_mem_gb=171 $Z --format json
json "assert d['host_fits'] is True and d['fits'] is True"
# launch refuses the same plan, naming host memory; --force writes it
# shellcheck disable=SC2086
expect 4 "does not fit in host memory" "$H" launch --pool 1x8xH100-SXM,host_mem_gb=170 $Z --format deepspeed
grep -qF "host_mem_gb" "$T/err" && ok || bad "launch refusal names no key: $(cat "$T/err")"
# shellcheck disable=SC2086
expect 0 "" "$H" launch --pool 1x8xH100-SXM,host_mem_gb=170 $Z --format deepspeed --force
# a node shape the catalog has no host for (4 H100s): unknown, unchecked
# shellcheck disable=SC2086
expect 0 "" "$H" estimate --pool 1x4xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 4 \
	--zero 2 --framework deepspeed --offload optimizer --format json
json "assert d['host_fits'] is None and d['host_usable_bytes_per_node'] is None"

# 2. Activation offload on GB200 (the case that made the lever unsafe):
# Llama 3.1 70B, TP 1, mbs 2, seq 8192, 55 layers offloaded. One layer's
# saved activations B = 4,500,488,192 B (perf_mem.c's count, about 33.5 B
# x seq x mbs x hidden = 134,217,728), so 55 x B = 247,526,850,560 B a GPU
# and 4 GPUs a tray: 990,107,402,240 B. A tray has 2 Grace x 480 GB =
# 960 GB (NVIDIA GB200 NVL72 datasheet), 0.85 x 960e9 = 816e9 B usable:
# does not fit. It would take 990.107e9 / 0.85 = 1164.8 GB: 1164 does not,
# 1165 does.
L70="--pool 16x4xGB200 -m llama3.1-70b --gbs 256 --mbs 2 --seq-len 8192 --tp 1 --pp 1
 --zero 3 --framework megatron-core --recompute none"
# shellcheck disable=SC2086
expect 4 "does not fit in host memory" "$H" estimate $L70 --offload activations \
	--offload-layers 55 --format json
json "assert d['host_need_bytes_per_node'] == 990107402240, d['host_need_bytes_per_node']
assert d['host_usable_bytes_per_node'] == 816e9 and d['host_fits'] is False"
# shellcheck disable=SC2086
expect 4 "" "$H" launch $L70 --offload activations --offload-layers 55 --format megatron
grep -qF "does not fit in host memory" "$T/err" && ok || bad "launch: $(cat "$T/err")"
L70B=$(echo "$L70" | sed 's/16x4xGB200/16x4xGB200,host_mem_gb=1164/')
# shellcheck disable=SC2086
expect 4 "" "$H" estimate $L70B --offload activations --offload-layers 55 --format json
json "assert d['host_fits'] is False"
L70C=$(echo "$L70" | sed 's/16x4xGB200/16x4xGB200,host_mem_gb=1165/')
# shellcheck disable=SC2086
expect 0 "" "$H" estimate $L70C --offload activations --offload-layers 55 --format json
json "assert d['host_fits'] is True and d['memory_verdict'] == 'fits'"
# the rack as one node of 72 (18 trays): 18 x 960 GB, the trays' sum
# shellcheck disable=SC2086
expect 4 "" "$H" estimate --pool 1x72xGB200 -m llama3.1-70b --gbs 144 --mbs 2 --seq-len 8192 \
	--tp 1 --pp 1 --zero 3 --framework megatron-core --recompute none \
	--offload activations --offload-layers 55 --format json
json "assert d['host_mem_bytes_per_node'] == 18 * 960e9, d['host_mem_bytes_per_node']"

# 3. The lever offers no N whose host side does not fit: on the catalog's
# tray the fewest layers that fit the GPU (55) need more host than there
# is, and more layers need more, so none is offered and it says why; on a
# host of 1165 GB it offers 55, whose host side then fits.
# shellcheck disable=SC2086
"$H" estimate $L70 >"$T/hint" 2>&1
grep -q "with --offload activations --offload-layers [0-9]* it fits" "$T/hint" &&
	bad "lever offered an N the host cannot hold: $(grep 'with --' "$T/hint")" || ok
grep -qF "the host of pool gb200 cannot hold it" "$T/hint" && ok ||
	bad "lever says nothing of the host: $(grep 'with --' "$T/hint")"
# shellcheck disable=SC2086
"$H" estimate $L70C >"$T/hint" 2>&1
n=$(sed -n 's/.*with --offload activations --offload-layers \([0-9]*\) it fits.*/\1/p' "$T/hint")
if [ -n "$n" ]; then
	# shellcheck disable=SC2086
	"$H" estimate $L70C --offload activations --offload-layers "$n" --format json >"$T/out" 2>/dev/null
	json "assert d['host_fits'] is True and d['fits'] is True"
else
	bad "no lever on a host of 1165 GB: $(grep 'with --' "$T/hint")"
fi

# 4. Hostile values of the key, in --pool and in a cluster file: each is
# refused with the key named (usage 2 for a flag, input 3 for a file).
for v in -5 0 nan inf 1e9 abc ""; do
	# shellcheck disable=SC2086
	expect 2 "host_mem_gb: expected a number from 1 to 100000" "$H" estimate \
		--pool "1x8xH100-SXM,host_mem_gb=$v" $Z
done
for v in -5 0 1e9 '"2048"' true null '[1]' '{}'; do
	printf '{"pools": [{"gpu": "H100-SXM", "nodes": 1, "host_mem_gb": %s}]}\n' "$v" >"$T/c.json"
	# shellcheck disable=SC2086
	expect 3 "host_mem_gb" "$H" estimate -c "$T/c.json" $Z
done
# a cluster file's host_mem_gb is the pool's
printf '{"pools": [{"gpu": "H100-SXM", "nodes": 1, "host_mem_gb": 170}]}\n' >"$T/c.json"
# shellcheck disable=SC2086
expect 4 "does not fit in host memory" "$H" estimate -c "$T/c.json" $Z

# 5. Stages sharing a node add up (perf_offload_host_nodes). PP 2 x TP 4
# at DP 1 on one 8-GPU node: each GPU holds 1/8 of the model's optimizer
# state, and the node all of it. Llama 3.1 8B by its model card,
# 8,030,261,248 parameters (stage 0: the embedding, 128,256 x 4,096 =
# 525,336,576, and 16 layers; stage 1: 16 layers, the untied output layer
# and the final norm). DeepSpeed's host bytes with one micro-batch are
# 18 B a partition parameter (as in 1): the node needs 18 x 8,030,261,248
# = 144,544,702,464 B, the same as the DP 8 node of 1 (hetplan keeps the
# final norm, 4,096, whole on each TP rank: 3 x 4,096 x 18 = 221,184 B
# more, 1.5e-6 of it). One stage alone, the 4 GPUs of each, needs about
# half, 72.27e9 B. On a host of 100 GB, 85e9 usable: a stage would fit,
# the node does not; 170 GB (144.5e9 usable) does not, 171 (145.35e9)
# does, as for DP 8.
S="-m llama3.1-8b --tp 4 --pp 2 --mbs 1 --gbs 1 --zero 1 --framework deepspeed --offload optimizer"
for hm in 100 170; do
	# shellcheck disable=SC2086
	expect 4 "does not fit in host memory" "$H" estimate --pool "1x8xH100-SXM,host_mem_gb=$hm" \
		$S --format json
	json "assert abs(d['host_need_bytes_per_node'] / 144544702464 - 1) < 1e-5, d['host_need_bytes_per_node']
assert d['host_need_bytes_per_node'] > d['host_usable_bytes_per_node']
assert abs(d['host_usable_bytes_per_node'] - 0.85 * $hm * 1e9) < 1
assert d['host_fits'] is False and d['fits'] is False and d['memory_verdict'] == 'does-not-fit'
# what one stage alone needs (its 4 GPUs) is below the 100 GB host's 85e9
assert 4 * d['offload']['host_bytes_per_gpu'] < 85e9, d['offload']['host_bytes_per_gpu']"
done
# shellcheck disable=SC2086
expect 0 "" "$H" estimate --pool 1x8xH100-SXM,host_mem_gb=171 $S --format json
json "assert d['host_fits'] is True and d['fits'] is True"
# the text says the node's need, and that the node has 8 such GPUs
# shellcheck disable=SC2086
expect 4 "" "$H" estimate --pool 1x8xH100-SXM,host_mem_gb=100 $S
grep -qF "DOES NOT FIT THE HOST: the offload needs 134.6 GiB of host memory a node" "$T/out" && ok ||
	bad "text: $(grep -F 'THE HOST' "$T/out")"
grep -qF "on the fullest node (its 8 GPUs;" "$T/out" && ok || bad "text: $(grep -F 'fullest node' "$T/out")"
# At DP 2 over two such nodes each stage's TP x DP = 8 GPUs fill one node
# (the comm model's placement: a stage's DP ranks together): a node holds
# one stage's state, 18 B x about 4,015.1 M (half the model: stage 0,
# 525,336,576 + 16 x 218,112,000 = 4,015,128,576) = 72,272,314,368 B;
# the 100 GB host holds it.
S2=$(echo "$S" | sed 's/--gbs 1 /--gbs 2 /')
# shellcheck disable=SC2086
expect 0 "" "$H" estimate --pool 2x8xH100-SXM,host_mem_gb=100 $S2 --format json
json "assert abs(d['host_need_bytes_per_node'] / 72272314368 - 1) < 1e-5, d['host_need_bytes_per_node']
assert d['host_fits'] is True and d['fits'] is True"

# Two pools, two replica groups (tests/data/cli/hetero_plan.json: Llama
# 3.1 70B, H100 nodes with 2 stages of 40 layers, A100 nodes with 4 of 20,
# TP 8 each, DP 2 over the groups). A 20-layer stage at TP 8 fills an
# A100 node; its 8 GPUs hold the stage's partition of DP 2. Llama 3.1 70B
# layer (hidden 8,192, 8 KV heads of 128, FFN 28,672): attention 2 x
# 8,192^2 + 2 x 8,192 x 1,024 = 150,994,944, MLP 3 x 8,192 x 28,672 =
# 704,643,072, norms 16,384: 855,654,400. The last A100 stage: 20 layers,
# the output layer 128,256 x 8,192 = 1,050,673,152 and the final norm
# 8,192: 18,163,769,344 / 2 = 9,081,884,672 a node, 20 B each (24
# micro-batches: 64 x 0.375): 181,637,693,440 B (hetplan keeps the final
# norm whole on each TP rank, 573,440 B more). On an A100 host of 200 GB
# (170e9 usable) that does not fit, though the H100 node needs about
# twice the bytes (353e9 of its 1,740.8e9): the fullest node is the one
# nearest its host's limit, the A100's. On 220 GB (187e9) it fits.
for hm in 200 220; do
	sed "s/\"nodes\": 4}/\"nodes\": 4, \"host_mem_gb\": $hm}/" tests/data/cli/mixed.json >"$T/mixed.json"
	want=4 fits=False
	[ "$hm" = 220 ] && want=0 fits=True
	expect $want "" "$H" estimate -c "$T/mixed.json" -m llama3.1-70b \
		--plan tests/data/cli/hetero_plan.json --offload optimizer --framework deepspeed --format json
	json "assert abs(d['host_need_bytes_per_node'] / 181637693440 - 1) < 1e-5, d['host_need_bytes_per_node']
assert d['host_pool'] == 'a100' and d['host_fits'] is $fits and d['fits'] is $fits, d['host_pool']"
done

# 6. The catalog's reference nodes (data/gpus.json defaults.host_mem_gb),
# against the sources they cite; a GiB figure is converted to GB (x
# 1.073741824, rounded to 0.1 GB, so within 0.05e9 B of it):
#  - AWS g4dn.12xlarge, 4 T4: 192 GiB (AWS Batch user guide, GPU jobs);
#  - AWS g6e.48xlarge, 8 L40S: 1,536 GiB (AWS G6e instance page);
#  - Azure ND96isr MI300X v5, 8 MI300X: 1,850 GiB (Azure docs, ND MI300X
#    v5 series);
#  - HLS-Gaudi2, 8 Gaudi2: 1024 GB (MLPerf Training v3.0 system file);
#  - Frontier's node, 4 MI250X: 512 GB DDR4 (OLCF Frontier User Guide).
# A consumer card has no reference node (nothing checked), nor does a node
# shape other than the reference's (L40S 4 a node).
G="-m gpt-1.7b --tp 1 --pp 1 --mbs 1 --gbs 8 --zero 2 --framework deepspeed --offload optimizer --precision fp16"
for c in "1x4xT4 192*2**30" "1x8xL40S 1536*2**30" "1x8xMI300X 1850*2**30" "1x8xGaudi2 1024e9" \
	"1x4xMI250X 512e9" "1x8xRTX-4090 None" "1x4xL40S None"; do
	# shellcheck disable=SC2086
	set -- $c
	# shellcheck disable=SC2086
	expect 0 "" "$H" estimate --pool "$1" $G --format json
	if [ "$2" = None ]; then
		json "assert d['host_mem_bytes_per_node'] is None and d['host_fits'] is None, d['host_mem_bytes_per_node']"
	else
		json "assert abs(d['host_mem_bytes_per_node'] - $2) < 0.05e9, ('$1', d['host_mem_bytes_per_node'])
assert d['host_fits'] is True"
	fi
done

# launch's refusal prints host_mem_gb as given, as estimate does: 170.4,
# not a rounded "170 GB" (the ZeRO-Offload plan of Llama 3.1 8B at PP 2 x
# TP 4 on one node needs 18 B x 8.03e9 = 144.5e9 B, over 0.85 x 170.4e9).
expect 4 "usable of its 170.4 GB (pool key host_mem_gb)" $H launch --pool 1x8xH100-SXM,host_mem_gb=170.4 -m llama3.1-8b --tp 4 --pp 2 --mbs 1 --gbs 64 --offload optimizer --framework deepspeed --zero 2

finish host_mem
