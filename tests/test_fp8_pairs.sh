#!/bin/sh
# test_fp8_pairs.sh — hetplan's FP8/BF16 step ratio against measured pairs.
#
# Two runs of the same model, GPUs and layout, one in BF16 and one in FP8
# (Transformer Engine with delayed scaling, or torchao's tensorwise
# float8), measured by their sources and never fitted to: the first two
# pairs are rows of tests/data/blind_train.csv (their layouts are in no
# calibration file), the third is in no data file. hetplan estimates
# each run as the blind driver does (tests/test_blind_train.sh) and the
# ratio of its two
# step times must lie within 5% of the measured ratio. The band is the
# sources' own spread: the same recipe's ratio at another size differs by
# 0.2% (Nemotron-4 15B: 1.361 at 16 GPUs, 1.358 at 2,048); FlagPerf's two
# node counts 0.4% (1.294, 1.299); 5% leaves room for the step times'
# rounding and run-to-run noise. docs/fp8.md lists every pair (the
# torchao one: docs/fp8-b200-maxtext.md 6).
#
#  - Nemotron-4 15B, 16 H100 (2 DGX nodes, 8x400Gb/s), TP 4, MBS 4,
#    GBS 64, distributed optimizer, Megatron-Core (NeMo): BF16 2.83 s
#    (BLDG15-01), FP8 2.08 s (BLDG15-04): 1.361 (NVIDIA
#    dgxc-benchmarking, nemotron4 15b README table).
#  - Llama 3 8B, 8 H100 (one node), TP 2, DP 4, MBS 1, GBS 512, seq 8192,
#    Megatron-Core 0.6 without overlaps: 8,103 and 10,486 tokens/s/GPU
#    (BLFP-08, BLFP-09): step ratio 10486 / 8103 = 1.294 (FlagPerf).
#  - Llama 3 8B, 8 H100 (one node), torchtitan 0.0.2 with torch.compile,
#    FSDP2 over the 8 GPUs, batch 1 a GPU, seq 8192, per-op selective
#    checkpointing; torchao float8 linears, tensorwise scaling: 6,150
#    and 7,689.5 tokens/s, 1.250 (pytorch/ao torchao/float8/README.md as
#    of 853f87d1b^, "Training benchmarks"; in no calibration or blind
#    file, recorded in docs/fp8-b200-maxtext.md 6 before its first run).
#    Not a TE stack: no separate cast kernels under torch.compile, which
#    hetplan still charges; the run's float8 FSDP all-gather is not
#    expressible (fp8_params needs ZeRO 1-2) and costs under 3% of the
#    step either way here.
set -u
. tests/lib.sh
HETPLAN=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

cat >"$T/nemotron15b.json" <<'EOF'
{"name":"nemotron4-15b","layers":32,"hidden":6144,"heads":48,"kv_heads":8,"ffn":24576,
 "vocab":256000,"seq_len":4096,"gated_mlp":false,"norm":"layernorm","position":"rope",
 "tied_embeddings":false,"bias":false}
EOF
cat >"$T/llama3-8b.json" <<'EOF'
{"name":"llama3-8b","layers":32,"hidden":4096,"heads":32,"kv_heads":8,"ffn":14336,
 "vocab":128256,"seq_len":8192,"gated_mlp":true,"norm":"rmsnorm","position":"rope",
 "tied_embeddings":false,"bias":false}
EOF

# step PRECISION OUT ARGS...: hetplan's step time of one run into $T/OUT
step() {
	prec=$1 out=$2; shift 2
	"$HETPLAN" estimate "$@" --precision "$prec" --format json >"$T/$out.json" 2>"$T/err" ||
		{ bad "estimate $prec $*: exit $? ($(head -c 200 "$T/err"))"; return 1; }
	python3 -c "import json; print(json.load(open('$T/$out.json'))['step_time_s'])"
}

# pair NAME MEASURED_RATIO ARGS...: the ratio bf16 / fp8 within 5% of it
pair() {
	name=$1 want=$2; shift 2
	b=$(step bf16 b "$@") && f=$(step fp8 f "$@") || return
	if python3 -c "import sys; r = $b / $f; print('$name: hetplan %.3f / %.3f = %.3f, measured $want (%+.1f%%)' % ($b, $f, r, (r / $want - 1) * 100)); sys.exit(abs(r / $want - 1) > 0.05)"; then
		ok
	else
		bad "$name: FP8/BF16 ratio beyond 5% of the measured $want"
	fi
}

pair "Nemotron-4 15B, 16 H100, TP 4" 1.361 \
	--pool 2x8xH100-SXM,nics=8,nic_gbps=400 -m "$T/nemotron15b.json" \
	--tp 4 --pp 1 --dp 4 --cp 1 --mbs 4 --gbs 64 --recompute none --zero 1 \
	--framework megatron-core
pair "Llama 3 8B, 8 H100, TP 2" 1.294 \
	--pool 1x8xH100-SXM -m "$T/llama3-8b.json" \
	--tp 2 --pp 1 --dp 4 --cp 1 --mbs 1 --gbs 512 --recompute none --zero 1 \
	--framework megatron-core --tp-overlap off --grad-overlap off --param-overlap off
pair "Llama 3 8B, 8 H100, torchtitan + torchao float8" 1.250 \
	--pool 1x8xH100-SXM -m "$T/llama3-8b.json" \
	--tp 1 --pp 1 --dp 8 --cp 1 --mbs 1 --gbs 8 --recompute selective-op --zero 3 \
	--framework torchtitan
finish test_fp8_pairs
