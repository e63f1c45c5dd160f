#!/bin/sh
# test_launch.sh — `hetplan launch` against published configurations.
#
# The Megatron-LM runs of Narayanan et al. 2021, "Efficient Large-Scale
# Language Model Training on GPU Clusters Using Megatron-LM" (SC21,
# arXiv:2104.04473), Table 1, with the micro-batch sizes and interleaving of
# the paper's script examples/sc21/run_table_1.sh (Megatron-LM @6985e58938);
# the rows are N21-T1-01..10 of tests/data/training.csv. Each is given to
# hetplan as published and the generated arguments must say the same
# numbers. Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

# Published, typed from the table and the script (not from hetplan):
# model layers hidden heads TP PP DP GPUs micro-batch global-batch
# layers-per-virtual-stage (- = no interleaving) chunks-per-stage v, where
# v = layers / (PP x layers-per-virtual-stage): 60/(4x5)=3, 80/(8x5)=2,
# 96/(16x3)=2, 105/(35x1)=3.
TABLE1='gpt-1.7b    24  2304  24 1  1 32   32 16  512 - 1
gpt-3.6b    30  3072  32 2  1 32   64 16  512 - 1
gpt-7.5b    36  4096  32 4  1 32  128 16  512 - 1
gpt-18.4b   40  6144  48 8  1 32  256  8 1024 - 1
gpt-39.1b   48  8192  64 8  2 32  512  4 1536 - 1
gpt-76.1b   60 10240  80 8  4 32 1024  2 1792 5 3
gpt-145.6b  80 12288  96 8  8 24 1536  2 2304 5 2
gpt-310.1b  96 16384 128 8 16 15 1920  1 2160 3 2
gpt-529.6b 105 20480 128 8 35  9 2520  1 2520 1 3
gpt-1t     128 25600 160 8 64  6 3072  1 3072 - 1'

# check FILE 'flag=value ...' — every flag has that value in the Megatron
# arguments of FILE ('flag=-' : the flag is absent; 'flag' : present, no value).
check() {
	python3 - "$1" "$2" <<'PY' || return 1
import sys, shlex
text = open(sys.argv[1]).read()
toks = shlex.split(" ".join(l.rstrip("\\").strip() for l in text.splitlines()
                            if l.strip() and not l.lstrip().startswith("#")))
args = {}
for i, t in enumerate(toks):
    if t.startswith("--"):
        nxt = toks[i + 1] if i + 1 < len(toks) and not toks[i + 1].startswith("--") else None
        args[t] = nxt
for want in sys.argv[2].split():
    k, _, v = want.partition("=")
    k = "--" + k
    if v == "-":
        assert k not in args, f"{k} present: {args.get(k)}"
    elif v == "":
        assert k in args and args[k] is None, f"{k} should be a bare flag"
    else:
        assert args.get(k) == v, f"{k} = {args.get(k)}, published {v}"
PY
}

echo "$TABLE1" | while read -r model L hid heads tp pp dp gpus mbs gbs lpvs v; do
	nodes=$((gpus / 8))
	sched=1f1b
	[ "$lpvs" != - ] && sched=interleaved:$v
	# The 2021 runs: fp16, full recomputation, no sequence parallelism (it
	# came later), local DDP without a distributed optimizer.
	if ! $H launch --pool "${nodes}x8xA100-SXM4-80GB" -m "$model" --tp "$tp" --pp "$pp" \
		--mbs "$mbs" --gbs "$gbs" --schedule "$sched" --recompute full --precision fp16 \
		--no-sp --zero 0 --attention unfused >"$T/$model.args" 2>"$T/err"; then
		echo "FAIL: launch $model: $(cat "$T/err")"; echo x >>"$T/failed"; continue
	fi
	vflag="num-layers-per-virtual-pipeline-stage=$lpvs"
	[ "$lpvs" = - ] && vflag="num-layers-per-virtual-pipeline-stage=-"
	if check "$T/$model.args" "num-layers=$L hidden-size=$hid num-attention-heads=$heads
		tensor-model-parallel-size=$tp pipeline-model-parallel-size=$pp $vflag
		micro-batch-size=$mbs global-batch-size=$gbs recompute-granularity=full
		recompute-method=uniform recompute-num-layers=1 fp16= sequence-parallel=-
		use-distributed-optimizer=-" 2>"$T/err"; then echo . >>"$T/passed"
	else echo "FAIL: $model: $(tail -1 "$T/err")"; echo x >>"$T/failed"; fi
	# data-parallel size and GPU count, as published
	if grep -q "x DP $dp = $gpus GPUs on $nodes nodes" "$T/$model.args"; then echo . >>"$T/passed"
	else echo "FAIL: $model: no 'DP $dp = $gpus GPUs': $(grep '^# TP' "$T/$model.args")"; echo x >>"$T/failed"; fi
done
pass=$((pass + $(cat "$T/passed" 2>/dev/null | wc -l)))
fail=$((fail + $(cat "$T/failed" 2>/dev/null | wc -l)))

# The same 145.6B configuration as a plan file (from `estimate --format
# json`) gives the same published arguments.
$H estimate --pool 192x8xA100-SXM4-80GB -m gpt-145.6b --tp 8 --pp 8 --mbs 2 --gbs 2304 \
	--schedule interleaved:2 --recompute full --precision fp16 --format json >"$T/est.json" 2>/dev/null
python3 -c "import json; json.dump(json.load(open('$T/est.json'))['plan'], open('$T/plan.json', 'w'))" &&
	ok || bad "estimate gave no plan"
$H launch --pool 192x8xA100-SXM4-80GB -m gpt-145.6b --plan "$T/plan.json" >"$T/p.args" 2>"$T/err" &&
	ok || bad "launch --plan: $(cat "$T/err")"
check "$T/p.args" "tensor-model-parallel-size=8 pipeline-model-parallel-size=8
	num-layers-per-virtual-pipeline-stage=5 micro-batch-size=2 global-batch-size=2304" 2>"$T/err" &&
	ok || bad "launch --plan 145.6B: $(tail -1 "$T/err")"
# ... and wrapped in a planner-style {"plans": [...]}, picked by --rank.
python3 -c "import json; p=json.load(open('$T/plan.json')); json.dump({'plans': [p, p]}, open('$T/plans.json', 'w'))"
$H launch --pool 192x8xA100-SXM4-80GB -m gpt-145.6b --plan "$T/plans.json" --rank 2 >"$T/p2.args" 2>"$T/err" &&
	cmp -s "$T/p.args" "$T/p2.args" && ok || bad "launch --plan {plans} --rank 2 differs"

# Slurm: 1T on 384 nodes of 8, a script bash accepts.
$H launch --pool 384x8xA100-SXM4-80GB -m gpt-1t --tp 8 --pp 64 --mbs 1 --gbs 3072 \
	--recompute full --format slurm -o "$T/job.sh" 2>"$T/err" && ok || bad "slurm: $(cat "$T/err")"
grep -q '^#SBATCH --nodes=384$' "$T/job.sh" && grep -q '^#SBATCH --gpus-per-node=8$' "$T/job.sh" &&
	grep -q -- '--nproc-per-node 8' "$T/job.sh" && ok || bad "slurm header: $(head -5 "$T/job.sh")"
bash -n "$T/job.sh" && ok || bad "slurm script does not parse"
check "$T/job.sh" "pipeline-model-parallel-size=64 global-batch-size=3072" 2>/dev/null && ok ||
	bad "slurm ARGS"

# DeepSpeed: batch = micro-batch x accumulation x DP. 1T: 3072 = 1 x 512 x 6;
# 1.7B: 512 = 16 x 1 x 32.
$H launch --pool 384x8xA100-SXM4-80GB -m gpt-1t --tp 8 --pp 64 --mbs 1 --gbs 3072 \
	--precision fp16 --zero 1 --format deepspeed >"$T/ds.json" 2>"$T/err" && ok || bad "deepspeed"
python3 -c "
import json; d = json.load(open('$T/ds.json'))
assert d['train_batch_size'] == 3072 and d['train_micro_batch_size_per_gpu'] == 1
assert d['gradient_accumulation_steps'] == 512, d
assert d['fp16']['enabled'] is True and d['zero_optimization']['stage'] == 1
" && ok || bad "deepspeed 1T keys"
grep -q 'TP 8 and PP 64 are set where the model is built' "$T/err" && ok || bad "deepspeed note: $(cat "$T/err")"
# (--force: without recomputation, which the config leaves to the model code,
# hetplan's estimate of micro-batch 16 exceeds 80 GB)
$H launch --pool 4x8xA100-SXM4-80GB -m gpt-1.7b --tp 1 --pp 1 --mbs 16 --gbs 512 --force --format deepspeed >"$T/ds2.json" 2>/dev/null
python3 -c "
import json; d = json.load(open('$T/ds2.json'))
assert (d['train_batch_size'], d['train_micro_batch_size_per_gpu'], d['gradient_accumulation_steps']) == (512, 16, 1), d
assert d['bf16']['enabled'] is True
" && ok || bad "deepspeed 1.7B keys"
# DeepSpeed's zero_optimization.overlap_comm follows the plan's gradient
# overlap, which the estimate charged: on by the deepspeed row's default,
# off when the plan says --grad-overlap off.
for g in on off; do
	$H launch --pool 2x8xH100-SXM -m llama3.1-8b --tp 2 --pp 1 --mbs 1 --gbs 64 --zero 1 \
	    --framework deepspeed --grad-overlap $g --format deepspeed >"$T/dso.json" 2>/dev/null
	python3 -c "
import json; d = json.load(open('$T/dso.json'))
assert d['zero_optimization']['overlap_comm'] is ('$g' == 'on'), d['zero_optimization']
" && ok || bad "deepspeed overlap_comm with --grad-overlap $g"
done
# ds_both NAME FLAGS...: the same DeepSpeed plan as launch's config
# ($T/NAME.json) and as an estimate ($T/NAMEe.json).
ds_both() {
	n=$1
	shift
	$H launch "$@" --framework deepspeed --format deepspeed >"$T/$n.json" 2>/dev/null
	$H estimate "$@" --framework deepspeed --format json >"$T/${n}e.json" 2>/dev/null
}
# At PP above 1 DeepSpeed builds the ZeRO optimizer of a PipelineModule
# with overlap_comm False (engine.py @38327e07f L1639-1642: "Pipeline
# parallelism does not support overlapped communication"), and the
# estimate charges the reduce whole: the config says false there too,
# and the estimate's DP reduce is exposed whole.
ds_both dspp --pool 2x8xH100-SXM -m llama3.1-8b --tp 2 --pp 2 --mbs 1 --gbs 64 --zero 1
python3 -c "
import json
z = json.load(open('$T/dspp.json'))['zero_optimization']
dp = [r for r in json.load(open('$T/dsppe.json'))['comm'] if r['dim'] == 'dp']
assert z['stage'] == 1 and z['overlap_comm'] is False, z
assert dp and all(r['exposed_s'] == r['time_s'] > 0 for r in dp), dp
" && ok || bad "deepspeed PP 2: overlap_comm false and the DP reduce exposed whole"
# At ZeRO 0 DeepSpeed has no overlapping path: overlap_comm is a field of
# the ZeRO optimizer, and without one DeepSpeedEngine.backward() runs the
# backward, then allreduce_gradients(), whose ZeRO-0 branch is
# buffered_allreduce_fallback (deepspeed/runtime/engine.py @38327e07f
# L2048-2062, called at L2152). So the deepspeed row's default is off
# there: the config says overlap_comm false, the estimate's DP all-reduce
# is exposed whole (exposed_s equals time_s), and --grad-overlap on is
# refused (exit 3) rather than charged.
ds_both ds0 --pool 2x8xH100-SXM -m llama3.1-8b --tp 4 --pp 1 --mbs 1 --gbs 64 --zero 0
python3 -c "
import json
c = json.load(open('$T/ds0.json'))['zero_optimization']
e = json.load(open('$T/ds0e.json'))
dp = [r for r in e['comm'] if r['dim'] == 'dp'][0]
assert c['stage'] == 0 and c['overlap_comm'] is False, c
assert e['plan']['grad_overlap'] is False, e['plan']
assert dp['collective'] == 'allreduce' and dp['exposed_s'] == dp['time_s'] > 0, dp
" && ok || bad "deepspeed ZeRO 0: overlap_comm false, DP all-reduce exposed whole"
# And at ZeRO 0 the engine's all-reduce path makes three passes over the
# gradients on the compute stream (engine.py @38327e07f L2491-2521:
# allreduce_bucket flattens the bucket, scales it with mul_, all-reduces
# it; allreduce_and_copy copies it back into each .grad), each a read and
# a write. So the DP time of a ZeRO-0 DeepSpeed plan is the all-reduce
# alone (what `hetplan comm` gives for the same bytes and ranks) plus
# 3 x 2 x the gradient bytes at the A100's sustained HBM bandwidth
# (2.039 TB/s nominal, data/gpus.json, x ampere.hbm, data/calibration.json).
$H estimate --pool 1x8xA100-SXM4-80GB -m gpt-1.7b --tp 1 --pp 1 --dp 8 --mbs 2 --gbs 16 \
    --precision fp16 --zero 0 --framework deepspeed --format json >"$T/dsc.json" 2>/dev/null
dsb=$(python3 -c "import json; print([r['bytes'] for r in json.load(open('$T/dsc.json'))['comm'] if r['dim'] == 'dp'][0])")
$H comm --collective allreduce --bytes "$dsb" --gpu A100-SXM4-80GB --gpus-per-node 8 --nodes 1 \
    --format json >"$T/dsc-ar.json" 2>/dev/null
python3 -c "
import json
e = json.load(open('$T/dsc.json'))
dp = [r for r in e['comm'] if r['dim'] == 'dp'][0]
ar = json.load(open('$T/dsc-ar.json'))['time_us'] * 1e-6
hbm = [c['value'] for c in json.load(open('data/calibration.json'))['constants']
       if c['name'] == 'ampere.hbm'][0]
# 1.65B parameters x 2 bytes (fp16 gradients reduced in the training dtype)
assert dp['bytes'] == $dsb and 3.2e9 < dp['bytes'] < 3.4e9, dp
want = ar + 3 * 2 * dp['bytes'] / (2.039e12 * hbm)
assert abs(dp['time_s'] - want) < 1e-9 * want and dp['exposed_s'] == dp['time_s'], (dp, want)
" && ok || bad "deepspeed ZeRO 0: DP time is the all-reduce plus three passes over the gradients"
$H estimate --pool 2x8xH100-SXM -m llama3.1-8b --tp 4 --pp 1 --mbs 1 --gbs 64 --zero 0 \
    --framework deepspeed --grad-overlap on >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 3 ] && grep -q 'grad_overlap on needs zero 1-3 under framework deepspeed' "$T/err" \
	&& ok || bad "deepspeed ZeRO 0 with --grad-overlap on: exit $rc, $(cat "$T/err")"
# An fp32 or tf32 run has fp32 gradients only: DeepSpeed without an
# fp16/bf16 section reduces param.grad as it is (engine.py
# buffered_allreduce_fallback), 4 bytes a parameter. A bf16 run reduces
# in bf16 under a ZeRO optimizer (2 bytes: half the tf32 bytes at ZeRO 1)
# but in fp32 at ZeRO 0, where DeepSpeed accumulates bf16 gradients in
# fp32 (engine.py get_data_types: "if model_dtype == torch.bfloat16 and
# not self.zero_optimization(): grad_accum_dtype = torch.float32"; the
# BF16_Optimizer's fp32 gradients are what it all-reduces): the same
# bytes as tf32. And --grad-reduce-fp32 off in an fp32 run is refused.
for z in 0 1; do
	for pr in bf16 tf32; do
		$H estimate --pool 2x8xH100-SXM -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 64 --zero $z \
		    --framework deepspeed --precision $pr --format json >"$T/dsp-$pr-$z.json" 2>/dev/null
	done
done
python3 -c "
import json
def b(p, z):
    return [r['bytes'] for r in json.load(open('$T/dsp-%s-%d.json' % (p, z)))['comm'] if r['dim'] == 'dp'][0]
assert b('bf16', 0) == b('tf32', 0) > 0, (b('bf16', 0), b('tf32', 0))
assert 2 * b('bf16', 1) == b('tf32', 1) > 0, (b('bf16', 1), b('tf32', 1))
" && ok || bad "deepspeed DP bytes: bf16 at ZeRO 0 not fp32, or at ZeRO 1 not half of tf32's"
# The launch config states the dtype the estimate reduced in.
$H launch --pool 2x8xH100-SXM -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 64 --zero 0 \
    --framework deepspeed --precision bf16 --format deepspeed >"$T/ds0.json" 2>/dev/null
python3 -c "
import json
d = json.load(open('$T/ds0.json'))
assert d['communication_data_type'] == 'fp32' and d['data_types']['grad_accum_dtype'] == 'fp32', d
" && ok || bad "deepspeed ZeRO 0 bf16 config: gradient dtype not fp32: $(cat "$T/ds0.json")"
$H estimate --pool 2x8xH100-SXM -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 64 --precision fp32 \
    --grad-reduce-fp32 off >/dev/null 2>"$T/err"
rc=$?
[ $rc -eq 3 ] && grep -q 'grad_reduce_fp32 off needs a 16-bit or fp8 run' "$T/err" && ok \
	|| bad "fp32 run with --grad-reduce-fp32 off: exit $rc, $(cat "$T/err")"
# Megatron-DeepSpeed runs DeepSpeed's pipeline engine at PP 1 too unless
# --no-pipeline-parallel is given (pretrain_gpt.py: GPTModelPipe "if
# args.deepspeed and not args.no_pipeline_parallel"), and the engine
# drops overlap_comm for a PipelineModule (engine.py @38327e07f
# L1639-1642): a ZeRO-1 PP-1 plan with the overlap says so; one without
# it (--grad-overlap off) does not need the flag.
for g in on off; do
	$H launch --pool 2x8xH100-SXM -m llama3.1-8b --tp 4 --pp 1 --mbs 1 --gbs 64 --zero 1 \
	    --framework deepspeed --grad-overlap $g --format deepspeed >/dev/null 2>"$T/err"
	n=$(grep -c 'no-pipeline-parallel' "$T/err")
	[ "$n" -eq "$([ $g = on ] && echo 1 || echo 0)" ] && ok \
		|| bad "deepspeed PP 1 --grad-overlap $g: --no-pipeline-parallel note $n times"
done
# ZeRO 2 and 3 at PP 1 need the flag whatever the overlap: DeepSpeed's
# PipelineEngine.__init__ asserts zero_optimization_stage() < 2 ("ZeRO-2
# and ZeRO-3 are incompatible with pipeline parallelism").
for z in 2 3; do
	$H launch --pool 2x8xH100-SXM -m llama3.1-8b --tp 4 --pp 1 --mbs 1 --gbs 64 --zero $z \
	    --framework deepspeed --grad-overlap off --format deepspeed >/dev/null 2>"$T/err"
	grep -q "no-pipeline-parallel.*refuses ZeRO-$z" "$T/err" && ok \
		|| bad "deepspeed PP 1 ZeRO $z: no --no-pipeline-parallel note: $(cat "$T/err")"
done

# Llama-style models: GQA, SwiGLU, RMSNorm, RoPE, untied embeddings.
$H launch --pool 8x8xH100-SXM -m llama3.1-70b --tp 8 --pp 4 --mbs 1 --gbs 512 --recompute selective >"$T/l.args" 2>"$T/err"
check "$T/l.args" "group-query-attention= num-query-groups=8 swiglu= normalization=RMSNorm
	position-embedding-type=rope untie-embeddings-and-output-weights= disable-bias-linear=
	recompute-granularity=selective recompute-method=- sequence-parallel= use-distributed-optimizer=
	bf16= ffn-hidden-size=28672" 2>"$T/err" && ok || bad "llama args: $(tail -1 "$T/err")"
# 80 layers over PP 3: 27, 27, 26 -> the last stage is given its own size.
$H launch --pool 8x8xH100-SXM -m llama3.1-70b --tp 8 --pp 3 --dp 2 --mbs 1 --gbs 512 >"$T/u.args" 2>"$T/err"
check "$T/u.args" "decoder-first-pipeline-num-layers=- decoder-last-pipeline-num-layers=26" 2>"$T/err" &&
	ok || bad "uneven split: $(tail -1 "$T/err")"
# Llama 3.1 405B as Meta ran it (Llama 3 paper, Sec. 3.3.2): 126 layers on
# PP 16, one layer less on the first and the last stage (7, 8 x 14, 7), 8
# chunks a stage. Megatron-Core counts the embedding and the loss as a layer
# each: (126 + 2) / 16 = 8 a stage, 1 a chunk (arguments.py); its
# first/last-stage counts would be refused, 7 not dividing into 8 chunks.
$H launch --pool 2048x8xH100-SXM -m llama3.1-405b --tp 8 --pp 16 --dp 128 --mbs 1 --gbs 2048 \
	--schedule interleaved:8 --recompute full >"$T/m.args" 2>"$T/err"
check "$T/m.args" "num-layers=126 account-for-embedding-in-pipeline-split= account-for-loss-in-pipeline-split=
	num-layers-per-virtual-pipeline-stage=1 decoder-first-pipeline-num-layers=-
	decoder-last-pipeline-num-layers=- num-virtual-stages-per-pipeline-rank=-" 2>"$T/err" &&
	ok || bad "405B interleaved: $(tail -1 "$T/err")"

# torchtitan's op-level selective checkpointing has no Megatron switch
# (--recompute-granularity takes full or selective): no recompute flags,
# and one sentence that says so with the nearest flags. Standard error
# carried a "Recomputation:" note and a denial naming the same thing.
$H launch --pool 8x8xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 64 --recompute selective-op >"$T/op.args" 2>"$T/err"
check "$T/op.args" "recompute-granularity=- recompute-method=-" 2>/dev/null &&
	grep -q 'op-level selective' "$T/err" && ok || bad "selective-op: $(cat "$T/err")"
[ "$(grep -c 'op-level selective' "$T/err")" = 1 ] && [ "$(grep -c 'recompute-granularity selective or full' "$T/err")" = 1 ] &&
	ok || bad "selective-op said more or less than once: $(cat "$T/err")"
# The SLURM script carries the Megatron format's arguments, so the same
# warning that the framework does not run the plan as planned, after the
# #!/bin/bash line (it was in the Megatron text only).
$H launch --pool 8x8xH100-SXM -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 64 --recompute selective-op \
	--format slurm >"$T/op.sh" 2>/dev/null
[ "$(head -n 1 "$T/op.sh")" = "#!/bin/bash" ] && grep -q '^# Megatron-Core does not run this plan as planned' "$T/op.sh" &&
	bash -n "$T/op.sh" && ok || bad "slurm script lacks the denial: $(head -12 "$T/op.sh")"

# A heterogeneous plan: H100 replica on 2 stages, A100 replica on 4, shares
# 0.625 / 0.375. Pieces per group, and a plain statement of what stock
# frameworks cannot express.
D=tests/data/cli
$H launch -c $D/mixed.json -m llama3.1-70b --plan $D/hetero_plan.json >"$T/h.args" 2>"$T/err" && ok || bad "hetero: $(cat "$T/err")"
grep -q 'cannot run as one job on stock Megatron-LM' "$T/h.args" && ok || bad "hetero statement missing"
grep -q 'GPU types: the plan runs on H100-SXM (pool h100), A100-SXM4-40GB (pool a100)' "$T/err" && ok || bad "GPU types note: $(cat "$T/err")"
grep -q 'Batch shares: replicas take 62.5% and 37.5%' "$T/err" && ok || bad "batch share note"
grep -q 'Piece: replica group 0 alone, 1 replica on pool h100' "$T/h.args" &&
	grep -q 'Piece: replica group 1 alone, 1 replica on pool a100' "$T/h.args" && ok || bad "pieces"
# A pipeline over two pools (stage 0 on h100, stages 1-2 on a100): the
# piece's header named only the first stage's pool ("4 replicas on pool
# h100"), as if the whole pipeline ran there. One layout and one batch
# share: Megatron-Core runs it as one job, and the header is the rank map
# (tests/test_launch_hetero.sh checks the job itself): stage 0 = ranks
# 0-7 on h100, stages 1-2 = ranks 8-23 on a100 (rank = tp + 8 x stage).
cat > "$T/xpool.json" <<'J'
{ "mbs": 1, "gbs": 64,
  "replicas": [ { "count": 1, "batch_share": 1,
    "stages": [ { "pool": "h100", "tp": 8, "first_layer": 0,  "last_layer": 9 },
                { "pool": "a100", "tp": 8, "first_layer": 10, "last_layer": 20 },
                { "pool": "a100", "tp": 8, "first_layer": 21, "last_layer": 31 } ] } ] }
J
$H launch -c $D/mixed.json -m llama3.1-8b --plan "$T/xpool.json" --force >"$T/x.args" 2>"$T/err" ||
	bad "cross-pool launch: $(cat "$T/err")"
grep -qF '# Component 0: pool h100 (H100-SXM), 1 node x 8 GPUs, node rank 0, ranks 0-7: stage 0' "$T/x.args" &&
	grep -qF '# Component 1: pool a100 (A100-SXM4-40GB), 2 nodes x 8 GPUs, node ranks 1-2, ranks 8-23: stages 1-2' "$T/x.args" &&
	ok || bad "cross-pool rank map: $(grep '^# ' "$T/x.args" | head -14)"
grep -q '^# Stages by pool' "$T/h.args" && bad "single-pool pieces got a stages-by-pool line" || ok
# 64 x 0.625 = 40 and 64 x 0.375 = 24 sequences per step
check "$T/h.args" "global-batch-size=40" 2>/dev/null; python3 - "$T/h.args" <<'PY' && ok || bad "piece batches"
import sys, re
t = open(sys.argv[1]).read()
assert re.findall(r"--global-batch-size (\d+)", t) == ["40", "24"], re.findall(r"--global-batch-size (\d+)", t)
assert re.findall(r"--pipeline-model-parallel-size (\d+)", t) == ["2", "4"]
PY
$H launch -c $D/mixed.json -m llama3.1-70b --plan $D/hetero_plan.json --format deepspeed >"$T/h.json" 2>/dev/null
python3 -c "
import json; d = json.load(open('$T/h.json'))
assert [p['pool'] for p in d['pieces']] == ['h100', 'a100']
assert [p['config']['train_batch_size'] for p in d['pieces']] == [40, 24]
assert len(d['cannot_express']) >= 3, d['cannot_express']
" && ok || bad "hetero deepspeed"

# A heterogeneous MoE plan (Mixtral 8x7B, 32 layers, EP 2): DeepSpeed's
# EP note is about the plan, not a piece, so it is said once (it came once
# per piece); so is the TP/PP note both pieces share.
cat >"$T/moe.json" <<'J'
{"mbs": 1, "gbs": 64, "precision": "bf16", "recompute": "full", "zero": 1, "ep": 2,
 "schedule": "1f1b",
 "replicas": [
  {"count": 2, "batch_share": 0.3125,
   "stages": [{"pool": "h100", "tp": 4, "first_layer": 0, "last_layer": 15},
              {"pool": "h100", "tp": 4, "first_layer": 16, "last_layer": 31}]},
  {"count": 2, "batch_share": 0.1875,
   "stages": [{"pool": "a100", "tp": 4, "first_layer": 0, "last_layer": 15},
              {"pool": "a100", "tp": 4, "first_layer": 16, "last_layer": 31}]}]}
J
$H launch -c $D/mixed.json -m mixtral-8x7b --plan "$T/moe.json" --force --format deepspeed >"$T/moe.ds" 2>"$T/err"
[ "$(grep -c 'EP 2 is set where the model is built' "$T/err")" = 1 ] &&
	[ "$(grep -c 'TP 4 and PP 2 are set where the model is built' "$T/err")" = 1 ] &&
	ok || bad "hetero deepspeed notes repeated: $(cat "$T/err")"

# Bad input: clear messages, documented codes, nothing written.
L="$H launch --pool 2x8xH100-SXM -m llama3.1-8b"
expect 2 "--format: expected megatron, slurm, deepspeed, torchtitan or hf-trainer, got 'yaml'" $L --tp 1 --pp 1 --mbs 1 --gbs 16 --format yaml
expect 2 "--tp and --pp are required" $L --mbs 1 --gbs 16
expect 2 "-m MODEL is required" $H launch --pool 2x8xH100-SXM --tp 1 --pp 1 --mbs 1 --gbs 16
expect 3 "interleaved:2 needs each stage's layer count to be a multiple of 2" $L --tp 1 --pp 3 --dp 1 --mbs 1 --gbs 16 --schedule interleaved:2
expect 3 "No such file" $L --plan "$T/none.json"
# a --rank past the plans is a usage error (2), as report's --rank is
expect 2 "--rank 3: the file has 2 plans" $H launch --pool 192x8xA100-SXM4-80GB -m gpt-145.6b --plan "$T/plans.json" --rank 3
expect 1 "" $L --tp 1 --pp 1 --mbs 1 --gbs 16 --force -o "$T/no/such/dir/x.sh"
[ ! -e "$T/no/such/dir/x.sh" ] && ok || bad "a file was written"

# --- an estimate-only framework: no launcher in hetplan (exit 2, usage;
# man page EXIT STATUS), whether --framework or the plan file names it,
# and before the memory check (--force does not change it); nothing is
# written.
LF="$H launch --pool 1x8xA100-SXM4-80GB -m gpt-1.7b --tp 1 --pp 1 --mbs 1 --gbs 8"
for fw in internlm pytorch-ddp pytorch-ddp-2020 llm.c; do
	expect 2 "hetplan: --framework: $fw is estimate-only: hetplan has no launcher for" $LF --framework $fw
	[ ! -s "$T/out" ] && ok || bad "launch --framework $fw wrote configs"
done
expect 2 "launch writes configs for megatron-core, megatron-lm, deepspeed, torchtitan" $LF --framework internlm --force --format slurm -o "$T/il.sh"
[ ! -e "$T/il.sh" ] && ok || bad "launch --framework internlm wrote $T/il.sh"
printf '{"mbs": 1, "gbs": 8, "framework": "internlm", "replicas": [{"count": 8, "stages": [{"pool": "a", "first_layer": 0, "last_layer": 23}]}]}' >"$T/il.json"
expect 2 "il.json: framework: internlm is estimate-only" $H launch --pool 1x8xA100-SXM4-80GB,name=a -m gpt-1.7b --plan "$T/il.json"
# The estimate-only verdict comes first: before the missing --tp/--pp,
# --mbs/--gbs, -m and the pool (every row from FW_COUNT on, framework.h),
# and before a plan file's model checks (a MoE model under a dense-only
# row, plan.c plan_framework_model).
for fw in internlm pytorch-ddp pytorch-ddp-2020 llm.c deepspeed-0.3 nemo-automodel; do
	expect 2 "hetplan: --framework: $fw is estimate-only" $H launch --pool 1x8xA100-SXM4-80GB -m gpt-1.7b --framework $fw
	expect 2 "hetplan: --framework: $fw is estimate-only" $H launch --framework $fw --tp 1 --pp 1
done
printf '{"mbs": 1, "gbs": 8, "framework": "llm.c", "replicas": [{"count": 8, "stages": [{"pool": "a", "first_layer": 0, "last_layer": 31}]}]}' >"$T/lc.json"
expect 2 "lc.json: framework: llm.c is estimate-only" $H launch --pool 1x8xA100-SXM4-80GB,name=a -m mixtral-8x7b --plan "$T/lc.json"
# the same plan under a stock framework launches
sed 's/"internlm"/"megatron-core"/' "$T/il.json" >"$T/mc.json"
expect 0 "" $H launch --pool 1x8xA100-SXM4-80GB,name=a -m gpt-1.7b --plan "$T/mc.json"
grep -q -- "--tensor-model-parallel-size 1" "$T/out" && ok || bad "launch of the megatron-core plan: $(head -3 "$T/out")"

# --- partial recomputation under DeepSpeed's pipeline engine: Megatron-
# DeepSpeed's GPTModelPipe sets its checkpoint interval to 0 (nothing
# recomputed) for --recompute-method block (deepspeedai/Megatron-DeepSpeed
# @4efb479d megatron/model/gpt_model.py L446-451), so at PP 4 the plan's
# recompute_layers cannot run as planned and launch says so; at PP 1 the
# plain GPTModel (--no-pipeline-parallel) honours the block method.
LR="$H launch --pool 2x8xH100-SXM -m llama3.1-8b --tp 4 --mbs 1 --gbs 64 --recompute full --recompute-layers 1 --format deepspeed"
expect 0 "DeepSpeed does not run this plan as planned: recompute_layers 1 under the pipeline engine" $LR --pp 4
$LR --pp 1 >"$T/out" 2>"$T/err"
grep -q "under the pipeline engine" "$T/err" && bad "PP 1 partial recompute flagged: $(head -c 300 "$T/err")" || ok

# --- one dispatcher decider: the launch line and the estimate JSON agree
# for the same plan (Mixtral 8x7B, moe_dispatch unset). The rule, by hand
# from its sources: Megatron-Core's flex dispatcher runs on Hopper with
# NVSwitch nodes (DeepEP's README) and only where expert TP x EP is above 1
# (MoEFlexTokenDispatcher asserts "Flex token dispatcher requires TPxEP >
# 1", token_dispatcher.py @d98e8a64, its tp_size the expert TP group's),
# else the job runs alltoall. So: H100 TP 2 EP 1 -> flex (the TP group is
# the dispatch group), H100 TP 1 EP 1 -> alltoall, H100 TP 2 EP 4 -> flex,
# A100 TP 2 EP 1 -> alltoall. (The launch line had read alltoall at EP 1
# on H100 while the estimate costed flex.)
for row in "8xH100-SXM 2 1 flex" "8xH100-SXM 1 1 alltoall" "8xH100-SXM 2 4 flex" "8xA100-SXM4-80GB 2 1 alltoall"; do
	set -- $row
	D="$H estimate --pool 4x$1 -m mixtral-8x7b --tp $2 --pp 1 --ep $3 --mbs 1 --gbs 64 --recompute full"
	$D --format json >"$T/d.json" 2>"$T/err"
	rc=$?
	[ $rc = 0 ] || [ $rc = 4 ] || bad "estimate $row: exit $rc: $(head -c 300 "$T/err")"
	est=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get("moe_dispatch"))' "$T/d.json")
	$H launch --pool 4x$1 -m mixtral-8x7b --tp $2 --pp 1 --ep $3 --mbs 1 --gbs 64 --recompute full --force \
		>"$T/d.txt" 2>"$T/err" || bad "launch $row: $(head -c 300 "$T/err")"
	line=$(grep -o -- "--moe-token-dispatcher-type [a-z]*" "$T/d.txt" | head -1 | cut -d' ' -f2)
	[ "$est" = "$4" ] && [ "$line" = "$4" ] && ok ||
		bad "$row: estimate JSON moe_dispatch '$est', launch line '$line', want '$4'"
	# and the estimate is the one of the key named explicitly
	$D --moe-dispatch "$4" --format json >"$T/d2.json" 2>/dev/null
	python3 -c 'import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:3]); assert a["step_time_s"] == b["step_time_s"], (a["step_time_s"], b["step_time_s"])' \
		"$T/d.json" "$T/d2.json" && ok || bad "$row: the unset estimate is not the $4 estimate"
done
# flex named where expert TP x EP is 1: refused, naming the way out
expect 3 "hetplan: --moe-dispatch flex: the experts run on one rank (etp 1 x ep 1), and Megatron-Core's flex dispatcher needs expert TP x EP above 1; --moe-dispatch alltoall runs it" \
	$H launch --pool 4x8xH100-SXM -m mixtral-8x7b --tp 1 --pp 1 --mbs 1 --gbs 64 --moe-dispatch flex
# dense models carry no dispatcher in the estimate JSON
$H estimate --pool 1x8xH100-SXM -m gpt-1.7b --tp 1 --pp 1 --mbs 1 --gbs 8 --format json >"$T/d.json" 2>/dev/null
python3 -c 'import json, sys; assert "moe_dispatch" not in json.load(open(sys.argv[1]))' "$T/d.json" && ok ||
	bad "a dense estimate names a dispatcher"

finish launch
