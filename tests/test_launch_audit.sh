#!/bin/sh
# test_launch_audit.sh — plan -> launch end to end (docs/launch-audit.md):
# six scenarios, each `hetplan plan --format json` then `hetplan launch
# --plan P.json --rank 1..3` in every format, every output checked by
# tests/launch_audit_check.py against the frameworks' own lists
# (megatron_args.txt, megatron_choices.txt, deepspeed_keys.txt,
# torchtitan_keys.txt, hf_training_args.txt), Megatron's own assertions
# (rules R1-R13 there) and arithmetic from the plan JSON alone: GPUs =
# the plan's gpus_used, steps = ceil(ceil(tokens / sequence) / global
# batch), Megatron's --train-samples = steps x its batch, a refusal
# names the formats that would run the plan. Sequence lengths typed in
# from the models' configs: Llama 3.1 8192, Mixtral 8x7B 4096, GPT-3 XL
# 1.3B 2048 (Brown et al. 2020, Table 2.1: 24 layers, d 2048, 16 heads),
# GPT-2 small 1024 (12 layers, 768, 12 heads).
# Then the pieces the scenarios do not reach: interleaved splits (R5, R7,
# R8 by hand), the NCCL lines of every transport.
# Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

cat >"$T/gpt3-1.3b.json" <<'JSON'
{"name": "gpt3-1.3b", "layers": 24, "hidden": 2048, "heads": 16, "ffn": 8192,
 "vocab": 50257, "seq_len": 2048, "gated_mlp": false, "norm": "layernorm",
 "position": "learned", "tied_embeddings": true, "bias": true, "dropout": true}
JSON
cat >"$T/gpt2.json" <<'JSON'
{"name": "gpt2", "layers": 12, "hidden": 768, "heads": 12, "ffn": 3072,
 "vocab": 50257, "seq_len": 1024, "gated_mlp": false, "norm": "layernorm",
 "position": "learned", "tied_embeddings": true, "bias": true, "dropout": true}
JSON

# scenario NAME SEQ GPN "CLUSTER" MODEL "PLAN FLAGS"
scenario() {
	name=$1 seq=$2 gpn=$3 cl=$4 model=$5 pf=$6
	# shellcheck disable=SC2086
	$H plan $cl -m "$model" $pf --top 3 --format json >"$T/$name.json" 2>"$T/err" ||
		{ bad "$name: plan: $(head -c 300 "$T/err")"; return; }
	for r in 1 2 3; do
		for f in megatron slurm deepspeed torchtitan hf-trainer; do
			# shellcheck disable=SC2086
			$H launch $cl -m "$model" --plan "$T/$name.json" --rank $r --format $f \
				>"$T/o" 2>"$T/e"
			rc=$?
			python3 tests/launch_audit_check.py "$T/$name.json" $r $f "$T/o" "$T/e" $rc \
				"$seq" "$gpn" >"$T/chk" 2>&1 || echo "FAIL $name r$r $f: checker: $(tail -2 "$T/chk")" >>"$T/chk"
			report_checks "$T/chk"
		done
	done
}

scenario dense8b 8192 8 "--pool 2x8xH100-SXM" llama3.1-8b "--gbs 256 --tokens 1T"
scenario llama70b 8192 8 "--pool 8x8xH100-SXM" llama3.1-70b "--gbs 512 --tokens 2T"
scenario mixed 8192 8 "--pool 16x8xH100-SXM,name=h100 --pool 40x8xA100-40GB,name=a100" \
	llama3.1-70b "--gbs 1024 --tokens 2T"
scenario mixtral 4096 8 "--pool 8x8xH100-SXM" mixtral-8x7b "--gbs 512 --tokens 1T"
scenario v100 2048 8 "--pool 4x8xV100-SXM2-32GB" "$T/gpt3-1.3b.json" "--gbs 512 --precision fp16"
scenario rtx4090 1024 8 "--pool 1x8xRTX-4090" "$T/gpt2.json" "--gbs 256 --framework hf-transformers"

# --- interleaved plans of uneven splits (Llama 3.1 8B, 32 layers, TP 4,
# two replicas, interleaved:2). What Megatron-Core takes (R5, R7, R8):
#   12/10/10: first stage 12 (12 % 2 = 0), middle 20 over 2 ranks = 10
#     (10 % 2 = 0): --decoder-first-pipeline-num-layers 12 with
#     --num-virtual-stages-per-pipeline-rank 2 (was: the same, but the
#     plan called heterogeneous, "cannot run as one job");
#   9/12/11: first 9 is odd, so no first/last flags with VP 2; the layout
#     of 3 x 2 virtual stages, rank s's layers in 2 chunks (the first a
#     layer larger), in model order part j x 3 + s: 5 6 6 | 4 6 5
#     (was: --decoder-first 9 with VP 2, which Megatron refuses);
#   8/10/6/8 (PP 4): middle stages differ: the layout of 8 virtual stages
#     4 5 3 4 | 4 5 3 4 (was: "E8|10|6|8L", four stages: no interleaving).
il() { # NAME SPLIT
	python3 - "$T/$1.json" "$2" <<'PY'
import json, sys
sizes = [int(x) for x in sys.argv[2].split(",")]
st, a = [], 0
for n in sizes:
    st.append({"pool": "h", "tp": 4, "first_layer": a, "last_layer": a + n - 1})
    a += n
json.dump({"mbs": 1, "gbs": 48 if len(sizes) == 3 else 64, "schedule": "interleaved:2",
           "replicas": [{"count": 2, "batch_share": 0.5, "stages": st}]}, open(sys.argv[1], "w"))
PY
	n=$(echo "$2" | tr ',' '\n' | wc -l)
	$H launch --pool "$n"x8xH100-SXM,name=h -m llama3.1-8b --plan "$T/$1.json" --force \
		>"$T/$1.out" 2>"$T/$1.err" || bad "$1: $(head -c 200 "$T/$1.err")"
}
t() { printf 't%.0s' $(seq "$1"); }
il a 12,10,10
grep -qxF -- '--decoder-first-pipeline-num-layers 12 \' "$T/a.out" &&
	grep -qxF -- '--num-virtual-stages-per-pipeline-rank 2 \' "$T/a.out" && ok || bad "12/10/10: $(grep -e -layers -e virtual "$T/a.out")"
grep -q "cannot run as one job" "$T/a.out" && bad "12/10/10 called heterogeneous" || ok
il b 9,12,11
want="--pipeline-model-parallel-layout \"E$(t 5)|$(t 6)|$(t 6)|$(t 4)|$(t 6)|$(t 5)L\" \\"
grep -qxF -- "$want" "$T/b.out" && ok || bad "9/12/11: $(grep -e layout -e first "$T/b.out")"
grep -q -- "--decoder-first-pipeline-num-layers" "$T/b.out" && bad "9/12/11: first flag with VP 2" || ok
il c 8,10,6,8
want="--pipeline-model-parallel-layout \"E$(t 4)|$(t 5)|$(t 3)|$(t 4)|$(t 4)|$(t 5)|$(t 3)|$(t 4)L\" \\"
grep -qxF -- "$want" "$T/c.out" && ok || bad "8/10/6/8: $(grep layout "$T/c.out")"

# --- the NCCL lines per transport (sources in src/launch.c
# nccl_env_lines): EFA's FI_PROVIDER (aws/aws-ofi-nccl
# doc/efa-env-var.md), TCPX's plugin directory and NIC list and TCPXO's
# profile (dstackai/dstack examples/clusters/a3high, a3mega READMEs),
# gIB's set_nccl_env.sh; Omni-Path's hfi1 adapters under NCCL's own IB
# transport (docs/fabric.md, the Jean Zay NCCL logs); every script parses.
for tr in "ib|NCCL's own IB transport" "efa|export FI_PROVIDER=\${FI_PROVIDER:-efa}" \
	"tcp|NCCL's socket transport" "opa|over the hfi1 adapters" \
	"tcpx|export NCCL_GPUDIRECTTCPX_SOCKET_IFNAME=\${NCCL_GPUDIRECTTCPX_SOCKET_IFNAME:-eth1,eth2,eth3,eth4}" \
	"tcpxo|source \"\$NCCL_LIB_DIR/nccl-env-profile.sh\"" \
	"gcp-rdma|source \"\$GIB_DIR/scripts/set_nccl_env.sh\""; do
	name=${tr%%|*} want=${tr#*|}
	for f in slurm hf-trainer; do
		$H launch --pool 2x8xH100-SXM,transport="$name" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --force \
			--gbs 64 --format $f >"$T/n" 2>"$T/e" || bad "$name $f: $(head -c 200 "$T/e")"
		grep -qF -- "$want" "$T/n" && ok || bad "$name $f: no '$want'"
		grep -qx "# NCCL on pool h100-sxm: transport $name" "$T/n" && ok || bad "$name $f: NCCL line"
		bash -n "$T/n" && ok || bad "$name $f: bash -n"
	done
done
# the environment line names the commit of the flags list
c=$(sed -n '1s/.*commit \([0-9a-f]\{12\}\).*/\1/p' tests/data/megatron_args.txt)
$H launch --pool 2x8xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 64 --force --format slurm 2>/dev/null |
	grep -q "# Environment: Megatron-LM at commit $c " && ok || bad "environment line does not name $c"

finish launch_audit
