#!/bin/sh
# test_launch_master_addr.sh — the Slurm scripts `hetplan launch` writes
# start on a job of many nodes.
#
# Each script runs under `set -euo pipefail` and takes the first node of
# the job as MASTER_ADDR from `scontrol show hostnames`, one name a line.
# A reader that stops after the first line (head -n 1) closes the pipe
# while scontrol still writes: scontrol dies of SIGPIPE (exit 141, bash's
# 128 + signal 13), pipefail makes the pipeline fail, and set -e ends the
# script before srun. Whether it happens is a race on the pipe's buffer
# (64 KiB on Linux, pipe(7)) and stdio's: by hand, with
# `seq -f gpu-node-%04g 1 500 | head -n 1` under pipefail, 6 runs in 10
# failed; past 64 KiB of names it fails every time, since scontrol cannot
# write the rest before the reader is gone. The stub scontrol below writes
# 200,000 names (2.2 MB) so the outcome does not depend on timing; the
# script must reach srun, with the first name as MASTER_ADDR.
#
# Formats: slurm on one pool (a one-job script), slurm over two pools (a
# Slurm heterogeneous job: MASTER_ADDR from component 0's node list) and
# hf-trainer. Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

mkdir -p "$T/bin" "$T/run"
# 200,000 names of 11 bytes: node-000001 ... node-200000
printf '#!/bin/sh\nexec seq -f node-%%06g 1 200000\n' >"$T/bin/scontrol"
# srun records that it ran, with MASTER_ADDR as exported (the
# heterogeneous job's tasks read it) and its arguments (the one-job
# scripts pass it to torchrun's --rdzv-endpoint or --master-addr)
printf '#!/bin/sh\necho "srun env=${MASTER_ADDR:-} args=$*" >>"$RUNLOG"\n' >"$T/bin/srun"
printf '#!/bin/sh\nexit 0\n' >"$T/bin/torchrun"
chmod +x "$T/bin/scontrol" "$T/bin/srun" "$T/bin/torchrun"

cat >"$T/c1.json" <<'J'
{ "name": "one", "pools": [ { "name": "h100", "gpu": "H100-SXM", "nodes": 2 } ] }
J
cat >"$T/p1.json" <<'J'
{ "mbs": 1, "gbs": 64, "replicas": [ { "count": 2, "batch_share": 0.5, "stages": [
  { "pool": "h100", "tp": 8, "first_layer": 0, "last_layer": 31 } ] } ] }
J
# one pipeline over two pools (tests/data/launch_hetero/xpool.json)
C2=tests/data/launch_hetero/cluster.json
P2=tests/data/launch_hetero/xpool.json

# runs NAME LAUNCH-ARGS...: the script `hetplan launch LAUNCH-ARGS` writes
# starts srun with MASTER_ADDR node-000001
runs() {
	n=$1
	shift
	if ! $H launch "$@" --force >"$T/$n.sh" 2>"$T/$n.err"; then
		bad "$n: launch: $(head -c 300 "$T/$n.err")"
		return
	fi
	: >"$T/$n.log"
	(cd "$T/run" && PATH="$T/bin:$PATH" RUNLOG="$T/$n.log" SLURM_JOB_NODELIST="node-[000001-200000]" \
		SLURM_JOB_NODELIST_HET_GROUP_0="node-[000001-200000]" SLURM_JOB_ID=1 SLURM_NNODES=2 \
		MEGATRON=/m TRAIN_SCRIPT=/t.py OUTPUT_DIR="$T/run/out" \
		bash "$T/$n.sh" --data-path x >"$T/$n.out" 2>&1)
	rc=$?
	[ "$rc" = 0 ] && ok || bad "$n: the script exits $rc before srun ($(tail -3 "$T/$n.out"))"
	grep -q '^srun .*[= ]node-000001[ :]' "$T/$n.log" && ok ||
		bad "$n: srun not started with MASTER_ADDR node-000001: $(head -3 "$T/$n.log")"
}

runs one -c "$T/c1.json" -m llama3.1-8b --plan "$T/p1.json" --format slurm
runs het -c "$C2" -m llama3.1-8b --plan "$P2" --format slurm
grep -q '^#SBATCH hetjob$' "$T/het.sh" && ok || bad "het: not a heterogeneous job"
# data parallelism only, for the HF Trainer (tests/test_hf_launch.sh's kind)
runs hf --pool 2x8xA100-SXM4-80GB -m gpt-1.7b --tp 1 --pp 1 --mbs 1 --gbs 16 \
	--framework hf-transformers --format hf-trainer

finish launch_master_addr
