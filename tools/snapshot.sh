#!/bin/sh
# tools/snapshot.sh HETPLAN OUTDIR
# Writes the output of a fixed grid of hetplan commands (estimate over
# models x pools x parallel settings, plan for every objective, comm,
# serve) into OUTDIR, one file per command, so a refactor can be shown to
# change nothing: run it before and after, then `diff -r BEFORE AFTER`.
# Exit statuses are kept too (the first line of each file).
set -u
H=${1:?usage: tools/snapshot.sh HETPLAN OUTDIR}
OUT=${2:?usage: tools/snapshot.sh HETPLAN OUTDIR}
mkdir -p "$OUT"
n=0
run() {
	n=$((n + 1))
	f=$(printf '%s/%04d.txt' "$OUT" "$n")
	# Wall-clock fields are the only output allowed to differ between runs.
	{ echo "# $*"; "$H" "$@" 2>&1; echo "# exit $?"; } |
	    grep -v -E '"(solver_)?seconds"|^search: ' >"$f"
}
for m in gpt-1.7b llama3.1-8b llama3.1-70b mixtral-8x22b deepseek-v3 gpt3-175b; do
  for p in 2x8xH100-SXM 4x8xA100-SXM4-40GB 2x8xB200 8x4xL40S 4x8xV100-SXM2-32GB; do
    prec=bf16; case $p in *V100*) prec=fp16 ;; esac
    for tp in 1 2 8; do
      for pp in 1 2 4; do
        for rc in none selective full; do
          run estimate --pool "$p" -m "$m" --tp $tp --pp $pp --mbs 1 --gbs 64 \
              --recompute $rc --precision $prec --format json
        done
      done
    done
    run estimate --pool "$p" -m "$m" --tp 2 --pp 2 --mbs 2 --gbs 128 --zero 3 --precision $prec --format json
    run estimate --pool "$p" -m "$m" --tp 4 --pp 2 --mbs 1 --gbs 64 --schedule interleaved:2 \
        --framework megatron-core --precision $prec --format json
    run estimate --pool "$p" -m "$m" --tp 2 --pp 1 --mbs 1 --gbs 32 --precision fp16 \
        --framework deepspeed --zero 2 --format json
  done
done
run estimate -c tests/data/cli/mixed.json -m llama3.1-70b --plan tests/data/cli/hetero_plan.json --format json
run estimate --pool 2048x8xH100-SXM -m llama3.1-405b --plan tests/data/cli/llama405b_meta.json --format json
for obj in throughput cost; do
  run plan --pool 4x8xH100-SXM --pool 8x8xA100-SXM4-40GB --pool 4x4xL40S -m llama3.1-70b \
      --gbs 512 --objective $obj --format json
  run plan --pool 2x8xH100-SXM --pool 2x8xV100-SXM2-32GB -m llama3.1-8b --gbs 256 \
      --objective $obj --top 5
done
run plan -c tests/data/cli/mixed.json -m mixtral-8x22b --gbs 512 --format json
for c in allreduce allgather reducescatter alltoall; do
  for g in H100-SXM A100-SXM4-40GB GB200; do
    run comm --collective $c --bytes 1M --gpu $g --gpus-per-node 8 --nodes 4 --sweep 1K:1G
  done
done
run serve --pool 8x8xH100-SXM,max=8 --pool 8x8xA100-SXM4-80GB,max=8 -m llama3.1-70b --isl 1500 --osl 300 \
    --rate 10 --ttft-p99 2 --tpot-p99 0.05 --format json
run serve --estimate --pool 1x8xH100-SXM -m llama3.1-8b --isl 1024 --osl 256 --offline --tp 1 --format json
echo "$n commands -> $OUT"
