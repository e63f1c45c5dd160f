#!/bin/sh
# test_launch_hetero.sh — `hetplan launch` for plans over two GPU pools
# (docs/launch-hetero.md): what Megatron-Core runs as one job goes out as
# one Slurm heterogeneous job (#SBATCH hetjob components) or one Megatron
# argument list with its rank map; what no stock framework runs as one job
# says why and keeps its pieces.
#
# Independent sources: the Slurm directives against sbatch's documented
# syntax and the run of the script under stub srun/torchrun
# (tests/launch_hetero_check.py, which cites the Slurm pages); the flags
# against Megatron-LM's own argument list (tests/data/megatron_args.txt,
# megatron/training/arguments.py @d98e8a64ddf34856e74b24714e3bedb2f5a39553);
# the rank placement by hand below, from Megatron-Core's rank order
# "tp-cp-ep-dp-pp" (megatron/core/parallel_state.py @d98e8a64 L617,
# initialize_model_parallel): rank = tp + TP x (cp + CP x (dp + DP x stage)),
# so stage s holds TP x CP x DP consecutive ranks and, inside it, replica
# d the d-th block of TP x CP. Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

cat >"$T/c2.json" <<'J'
{ "name": "two", "pools": [
  { "name": "h100", "gpu": "H100-SXM", "nodes": 2 },
  { "name": "a100", "gpu": "A100-SXM4-80GB", "nodes": 4 } ] }
J
# the same with EFA on the H100 pool: no network both pools share
sed 's/"nodes": 2 }/"nodes": 2, "transport": "efa" }/' "$T/c2.json" >"$T/cefa.json"
# one node a pool
sed 's/"nodes": [24]/"nodes": 1/' "$T/c2.json" >"$T/c11.json"
# hostile pool names (tests/data/hardening/cluster_evil.json's kind)
cat >"$T/cevil.json" <<'J'
{ "name": "evil", "pools": [
  { "name": "h$(touch PWNED1)'`x`", "gpu": "H100-SXM", "nodes": 2 },
  { "name": "a\"| touch PWNED2 |\"", "gpu": "A100-SXM4-80GB", "nodes": 4 } ] }
J

# plan FILE REPLICAS [extra keys]: a plan file of Llama 3.1 8B (32 layers)
plan() {
	printf '{ "mbs": 1, "gbs": 64%s, "replicas": [ %s ] }\n' "${3:-}" "$2" >"$T/$1.json"
}
st() { printf '{ "pool": "%s", "tp": %s, "first_layer": %s, "last_layer": %s }' "$@"; }
# A. One pipeline over two pools (10 / 11 / 11 layers, TP 8, DP 1).
#    Ranks by hand: stage 0 = 0-7 (h100), stage 1 = 8-15, stage 2 = 16-23
#    (a100): components h100 1 node x 8, a100 2 nodes x 8, 3 nodes.
#    Megatron's split: first stage 10, the rest 22 / 2 = 11 each, so
#    --decoder-first-pipeline-num-layers 10 and no last flag.
plan xpool "{ \"count\": 1, \"batch_share\": 1, \"stages\": [ $(st h100 8 0 9), $(st a100 8 10 20), $(st a100 8 21 31) ] }"
# B. Two replicas of one layout (16 / 16, TP 8), one on each GPU type.
#    Ranks: stage 0 = dp0 0-7 (h100), dp1 8-15 (a100); stage 1 = 16-23
#    (h100), 24-31 (a100): four components of 1 node each, alternating.
plan dp "{ \"count\": 1, \"batch_share\": 0.5, \"stages\": [ $(st h100 8 0 15), $(st h100 8 16 31) ] },
  { \"count\": 1, \"batch_share\": 0.5, \"stages\": [ $(st a100 8 0 15), $(st a100 8 16 31) ] }"
# C. CP 2, TP 4, DP 2, 13 / 13 / 6 layers: a (stage, replica) block is
#    TP x CP = 8 ranks, a stage 16: stages 0-1 = ranks 0-31 (a100, 4
#    nodes), stage 2 = 32-47 (h100, 2 nodes); split: the last stage 6,
#    the other 26 / 2 = 13, so --decoder-last-pipeline-num-layers 6.
plan cp "{ \"count\": 2, \"batch_share\": 0.5, \"stages\": [ $(st a100 4 0 12), $(st a100 4 13 25), $(st h100 4 26 31) ] }" ', "cp": 2'
# D. What no stock framework runs as one job.
plan share "{ \"count\": 1, \"batch_share\": 0.625, \"stages\": [ $(st h100 8 0 15), $(st h100 8 16 31) ] },
  { \"count\": 1, \"batch_share\": 0.375, \"stages\": [ $(st a100 8 0 15), $(st a100 8 16 31) ] }"
plan mixtp "{ \"count\": 2, \"batch_share\": 0.5, \"stages\": [ $(st a100 8 0 13), $(st h100 4 14 31) ] }"
plan layouts "{ \"count\": 1, \"batch_share\": 0.5, \"stages\": [ $(st h100 8 0 15), $(st h100 8 16 31) ] },
  { \"count\": 1, \"batch_share\": 0.5, \"stages\": [ $(st a100 8 0 11), $(st a100 8 12 31) ] }"
# E. TP 4 replicas alternating pools: each (stage, replica) block of 4
#    ranks is a component of its own node, 2 nodes of h100 where 1 is.
plan tp4 "{ \"count\": 1, \"batch_share\": 0.5, \"stages\": [ $(st h100 4 0 15), $(st h100 4 16 31) ] },
  { \"count\": 1, \"batch_share\": 0.5, \"stages\": [ $(st a100 4 0 15), $(st a100 4 16 31) ] }"

# F. One GPU type on two pools (two sites of H100), two replica groups of
#    two replicas each, TP 8, PP 1: DP 4, group 0's replicas dp 0-1 =
#    ranks 0-15 on east (2 nodes), group 1's dp 2-3 = ranks 16-31 on west.
cat >"$T/csame.json" <<'J'
{ "name": "sites", "pools": [
  { "name": "east", "gpu": "H100-SXM", "nodes": 2 },
  { "name": "west", "gpu": "H100-SXM", "nodes": 2 } ] }
J
plan sites "{ \"count\": 2, \"batch_share\": 0.25, \"stages\": [ $(st east 8 0 31) ] },
  { \"count\": 2, \"batch_share\": 0.25, \"stages\": [ $(st west 8 0 31) ] }"

# G. Nodes of 8 and of 4 GPUs, a run that leaves a node part full: TP 4,
#    DP 3, stage 0 (12 ranks) on h100 = a node of 8 and one of 4 (12 / 2
#    = 6 a node would split a TP group), stage 1 (12 ranks) on a100 = 3
#    nodes of 4; node ranks 0-1 and 2-4, ranks 0-11 and 12-23.
cat >"$T/cmix.json" <<'J'
{ "name": "mix4", "pools": [
  { "name": "h100", "gpu": "H100-SXM", "nodes": 2 },
  { "name": "a100", "gpu": "A100-SXM4-80GB", "nodes": 4, "gpus_per_node": 4 } ] }
J
printf '{ "mbs": 1, "gbs": 48, "replicas": [ { "count": 3, "batch_share": 0.3333333333333333, "stages": [ %s, %s ] } ] }\n' \
	"$(st h100 4 0 17)" "$(st a100 4 18 31)" >"$T/part.json"

# flags F 'flag=value ...': the Megatron arguments of file F (the ARGS
# array or the argument list) have these values ('flag=-': absent); every
# flag is one of megatron_args.txt's.
flags() {
	python3 - "$1" "$2" <<'PY' || return 1
import re, shlex, sys
text = open(sys.argv[1]).read()
m = re.search(r"\nARGS=\(\n(.*?)\n\)\n", text, re.S)
body = m.group(1) if m else "\n".join(l for l in text.splitlines() if not l.startswith("#"))
toks = shlex.split(" ".join(l.rstrip("\\").strip() for l in body.splitlines()))
names = {l.split()[0] for l in open("tests/data/megatron_args.txt") if l.startswith("--")}
args = {}
for i, t in enumerate(toks):
    if t.startswith("--"):
        assert t in names, "%s is not in megatron_args.txt" % t
        args[t] = toks[i + 1] if i + 1 < len(toks) and not toks[i + 1].startswith("--") else ""
for want in sys.argv[2].split():
    k, _, v = want.partition("=")
    if v == "-":
        assert "--" + k not in args, "--%s present" % k
    else:
        assert args.get("--" + k) == v, "--%s = %s, want %s" % (k, args.get("--" + k), v)
PY
}

# het NAME CLUSTER PLAN 'POOL:NODES:GPN ...' NNODES RANKS: the slurm script
# checked by launch_hetero_check.py, bash -n and shellcheck
het() {
	name=$1 cl=$2 pl=$3
	if ! $H launch -c "$T/$cl.json" -m llama3.1-8b --plan "$T/$pl.json" --force --format slurm \
		>"$T/$name.sh" 2>"$T/$name.err"; then bad "$name: launch: $(cat "$T/$name.err")"; return; fi
	grep -q '^#SBATCH hetjob$' "$T/$name.sh" && ok || bad "$name: no #SBATCH hetjob"
	bash -n "$T/$name.sh" && ok || bad "$name: bash -n"
	if command -v shellcheck >/dev/null 2>&1; then
		shellcheck "$T/$name.sh" >"$T/sc" 2>&1 && ok || bad "$name: shellcheck: $(head -20 "$T/sc")"
	fi
	python3 tests/launch_hetero_check.py "$T/$name.sh" "$4" "$5" "$6" >"$T/chk" 2>&1 ||
		echo "FAIL $name: checker: $(tail -3 "$T/chk")" >>"$T/chk"
	report_checks "$T/chk"
}

het xpool c2 xpool "h100:1:8 a100:2:8" 3 "0-7:h100,8-23:a100"
flags "$T/xpool.sh" "tensor-model-parallel-size=8 pipeline-model-parallel-size=3
	decoder-first-pipeline-num-layers=10 decoder-last-pipeline-num-layers=-
	pipeline-model-parallel-layout=- global-batch-size=64 micro-batch-size=1" 2>"$T/e" &&
	ok || bad "xpool flags: $(tail -1 "$T/e")"
grep -qxF '# Component 0: pool h100 (H100-SXM), 1 node x 8 GPUs, node rank 0, ranks 0-7: stage 0 (layers 0-9)' "$T/xpool.sh" &&
	grep -qxF '# Component 1: pool a100 (A100-SXM4-80GB), 2 nodes x 8 GPUs, node ranks 1-2, ranks 8-23: stages 1-2 (layers 10-31)' "$T/xpool.sh" &&
	ok || bad "xpool rank map: $(grep '^# Component' "$T/xpool.sh")"

het dp c2 dp "h100:1:8 a100:1:8 h100:1:8 a100:1:8" 4 "0-7:h100,8-15:a100,16-23:h100,24-31:a100"
# DP 2, 64 sequences: 32 micro-batches a replica; an even 16 / 16 split
flags "$T/dp.sh" "pipeline-model-parallel-size=2 global-batch-size=64
	decoder-first-pipeline-num-layers=- decoder-last-pipeline-num-layers=-
	pipeline-model-parallel-layout=-" 2>"$T/e" && ok || bad "dp flags: $(tail -1 "$T/e")"
grep -qF '# 64 sequences of 8192 tokens per step = micro-batch 1 x 32 micro-batches x DP 2' "$T/dp.sh" &&
	ok || bad "dp batch line: $(grep '^# 64 seq' "$T/dp.sh")"

het cp c2 cp "a100:4:8 h100:2:8" 6 "0-31:a100,32-47:h100"
flags "$T/cp.sh" "tensor-model-parallel-size=4 context-parallel-size=2 pipeline-model-parallel-size=3
	decoder-first-pipeline-num-layers=- decoder-last-pipeline-num-layers=6" 2>"$T/e" &&
	ok || bad "cp flags: $(tail -1 "$T/e")"
grep -qF '#   tp + 4 x (cp + 2 x (dp + 2 x stage)): stage s holds ranks 16 x s to 16 x s + 15' "$T/cp.sh" &&
	ok || bad "cp rank formula: $(grep '^#   tp' "$T/cp.sh")"

het sites csame sites "east:2:8 west:2:8" 4 "0-15:east,16-31:west"
grep -qF 'Pools: the plan runs on H100-SXM (pool east), H100-SXM (pool west) as one Megatron-Core job' "$T/sites.err" &&
	ok || bad "sites note: $(head -1 "$T/sites.err")"

het part cmix part "h100:2:8 a100:3:4" 5 "0-11:h100,12-23:a100"
grep -qF '# Component 0: pool h100 (H100-SXM), 2 nodes: 1 x 8 GPUs and 1 x 4, node ranks 0-1, ranks 0-11' "$T/part.sh" &&
	ok || bad "part rank map: $(grep '^# Component' "$T/part.sh")"

# hostile names: partitions made Slurm words, comments and notes escaped,
# nothing run (the checker runs the script); the names (h..., a...) in
# rank order as in B
sed -e 's/"h100"/"h$(touch PWNED1)'"'"'`x`"/g' -e 's/"a100"/"a\\"| touch PWNED2 |\\""/g' "$T/dp.json" >"$T/dpevil.json"
het evil cevil dpevil "h__touch_PWNED1___x_:1:8 a___touch_PWNED2___:1:8 h__touch_PWNED1___x_:1:8 a___touch_PWNED2___:1:8" 4 \
	"0-7:h__touch_PWNED1___x_,8-15:a___touch_PWNED2___,16-23:h__touch_PWNED1___x_,24-31:a___touch_PWNED2___"
[ ! -e PWNED1 ] && [ ! -e PWNED2 ] && ok || bad "a pool name ran"

# Interleaved (2 model chunks a stage, 8 layers a stage, PP 4): Megatron
# puts virtual stage j x PP + s (4 layers each) on pipeline rank s, so
# rank 0's layers are 0-3 and 16-19, not 0-7: the rank map gives a stage's
# layers as a count there.
printf '{ "mbs": 1, "gbs": 64, "schedule": "interleaved:2", "replicas": [ { "count": 1, "batch_share": 1, "stages": [ %s, %s, %s, %s ] } ] }\n' \
	"$(st h100 8 0 7)" "$(st a100 8 8 15)" "$(st a100 8 16 23)" "$(st a100 8 24 31)" >"$T/vp.json"
$H launch -c "$T/c2.json" -m llama3.1-8b --plan "$T/vp.json" --force >"$T/vp.args" 2>"$T/vp.err" ||
	bad "interleaved: $(cat "$T/vp.err")"
flags "$T/vp.args" "num-layers-per-virtual-pipeline-stage=4 pipeline-model-parallel-size=4" 2>"$T/e" && ok ||
	bad "interleaved flags: $(tail -1 "$T/e")"
grep '^# Component 0:' "$T/vp.args" | grep -qF '(layers 0-7)' &&
	bad "interleaved: stage 0 said to hold layers 0-7: $(grep '^# Component 0' "$T/vp.args")" || ok
grep -qF '# Component 0: pool h100 (H100-SXM), 1 node x 8 GPUs, node rank 0, ranks 0-7: stage 0 (8 layers, 2 model chunks a stage, interleaved over the model)' "$T/vp.args" &&
	ok || bad "interleaved rank map: $(grep '^# Component' "$T/vp.args")"

# The Megatron format: one argument list, no pieces, the same rank map.
$H launch -c "$T/c2.json" -m llama3.1-8b --plan "$T/xpool.json" --force >"$T/xm.args" 2>"$T/xm.err" || bad "xpool megatron: $(cat "$T/xm.err")"
[ "$(grep -c -- '--num-layers ' "$T/xm.args")" = 1 ] && ! grep -q '^# Piece' "$T/xm.args" && ok ||
	bad "megatron: not one argument list"
grep -qF '# Component 1: pool a100 (A100-SXM4-80GB), 2 nodes x 8 GPUs, node ranks 1-2, ranks 8-23' "$T/xm.args" &&
	ok || bad "megatron rank map"
flags "$T/xm.args" "decoder-first-pipeline-num-layers=10 pipeline-model-parallel-size=3" 2>"$T/e" && ok ||
	bad "megatron flags: $(tail -1 "$T/e")"
grep -q 'GPU types: the plan runs on H100-SXM (pool h100), A100-SXM4-80GB (pool a100) as one Megatron-Core job' "$T/xm.err" &&
	ok || bad "one-job note: $(cat "$T/xm.err")"

# B as Megatron arguments: DP 2 over four components, 32 GPUs on 4 nodes
$H launch -c "$T/c2.json" -m llama3.1-8b --plan "$T/dp.json" --force >"$T/dpm.args" 2>/dev/null
grep -qxF '# One job over 2 pools: TP 8 x PP 2 x DP 2 = 32 GPUs on 4 nodes' "$T/dpm.args" &&
	[ "$(grep -c '^# Component ' "$T/dpm.args")" = 4 ] && ok || bad "dp megatron: $(grep '^# One\|^# Comp' "$T/dpm.args")"

# refusals: not one job, the reason named, the pieces kept (exit 0)
# refused NAME CLUSTER PLAN TEXT
refused() {
	$H launch -c "$T/$2.json" -m llama3.1-8b --plan "$T/$3.json" --force --format slurm \
		>"$T/$1.sh" 2>"$T/$1.err" || { bad "$1: exit $?: $(cat "$T/$1.err")"; return; }
	grep -q '^#SBATCH hetjob' "$T/$1.sh" && bad "$1: written as one job" || ok
	grep -qF "$4" "$T/$1.err" && ok || bad "$1: stderr lacks '$4': $(cat "$T/$1.err")"
	# the header's notes, wrapped at 78 columns, joined again
	sed -e ':a' -e 'N' -e '$!ba' -e 's/\n#     / /g' "$T/$1.sh" | grep -qF "$4" && ok ||
		bad "$1: the script's header lacks '$4'"
}
refused share c2 share "One job over pools: none: its replicas take 62.5% and 37.5% of the batch"
refused mixtp c2 mixtp "One job over pools: none: its stages differ in TP (8 and 4)"
refused layouts c2 layouts "One job over pools: none: replica groups 0 and 1 have different pipeline layouts"
grep -qF "No stock framework runs it as one job; it needs a heterogeneity-aware runtime." "$T/share.err" &&
	ok || bad "share: no word of what runs it"
refused efa cefa dp "One job over pools: not written: pools h100 (efa) and a100 (ib) share no network transport"
refused tp4 c11 tp4 "One job over pools: not written: its components ask for 2 nodes of pool h100, which has 1"
# the other formats name the ones that take it as one job
$H launch -c "$T/c2.json" -m llama3.1-8b --plan "$T/dp.json" --force --format torchtitan >/dev/null 2>"$T/e"
grep -qF -- "--format slurm writes it as a Slurm heterogeneous job" "$T/e" && ok || bad "torchtitan: $(cat "$T/e")"
# ... and their GPU-types note does not contradict that: B's replicas sit
# on two GPU types (not two stages) and are one job (het dp above), so no
# "GPU types can differ only by pipeline stage"
grep -F 'GPU types:' "$T/e" | grep -qF 'only by pipeline stage' &&
	bad "torchtitan: the GPU-types note says stages only: $(grep -F 'GPU types:' "$T/e")" || ok
grep -F 'GPU types:' "$T/e" | grep -qF 'by stage or by replica' && ok ||
	bad "torchtitan: the GPU-types note: $(grep -F 'GPU types:' "$T/e")"

# The cost on standard error names where each price came from, since
# launch prices the cluster as the file gives it (not plan's and
# estimate's default price book). By hand: the file prices h100 at $40 and
# a100 at $20 a node-hour; A runs 1 h100 node and 2 a100 nodes, so $80.00/h,
# and $ per step = 80 x step / 3600 with estimate's step.
sed -e 's/"nodes": 2 }/"nodes": 2, "price_per_node_hour": 40 }/' \
	-e 's/"nodes": 4 }/"nodes": 4, "price_per_node_hour": 20 }/' "$T/c2.json" >"$T/cpriced.json"
$H launch -c "$T/cpriced.json" -m llama3.1-8b --plan "$T/xpool.json" --force >/dev/null 2>"$T/pr.err" ||
	bad "priced: $(cat "$T/pr.err")"
$H estimate -c "$T/cpriced.json" -m llama3.1-8b --plan "$T/xpool.json" --format json >"$T/pr.json" 2>/dev/null
python3 - "$T/pr.err" "$T/pr.json" <<'PY2' && ok || bad "priced cost: $(grep -A2 Cost "$T/pr.err")"
import json, re, sys
err = open(sys.argv[1]).read(); step = json.load(open(sys.argv[2]))["step_time_s"]
m = re.search(r"Cost: \$([0-9.]+)/h = \$([0-9.]+) per step", err)
assert m and m.group(1) == "80.00", m and m.group(1)
assert abs(float(m.group(2)) - 80 * step / 3600) <= 0.0005, (m.group(2), 80 * step / 3600)
PY2
grep -qF "hetplan launch:   price of pool h100: \$40.000/node-h from $T/cpriced.json" "$T/pr.err" &&
	grep -qF "hetplan launch:   price of pool a100: \$20.000/node-h from $T/cpriced.json" "$T/pr.err" && ok ||
	bad "priced: the prices' source: $(grep -A2 Cost "$T/pr.err")"
# a pool without a price is named, as estimate names it (RTX-4090 has no
# catalog reference price: estimate --no-price-book says so first)
sed -e 's/"nodes": 2 }/"nodes": 2, "price_per_node_hour": 40 }/' -e 's/"A100-SXM4-80GB"/"RTX-4090"/' \
	"$T/c2.json" >"$T/cunpriced.json"
if $H estimate -c "$T/cunpriced.json" -m llama3.1-8b --plan "$T/xpool.json" --no-price-book 2>&1 |
	grep -qF 'unknown: no price for pool a100 (RTX-4090)'; then
	$H launch -c "$T/cunpriced.json" -m llama3.1-8b --plan "$T/xpool.json" --force >/dev/null 2>"$T/up.err"
	grep -qF 'hetplan launch: Cost: unknown: no price for pool a100 (cluster key price_per_node_hour' "$T/up.err" &&
		ok || bad "unpriced: $(grep Cost "$T/up.err")"
else
	bad "RTX-4090 has a reference price now: give this check another unpriced GPU"
fi

# A plan from `hetplan plan` on the two-pool cluster: every plan of the
# top 5 is one job exactly when its replica groups share one layout and
# batch share (checked here from the plan JSON alone), and each output
# states the plan's estimate as `hetplan estimate` gives it: step time,
# memory verdict at the 5% default headroom, and $ per step = $/h x step /
# 3600 on standard error.
$H plan -c "$T/c2.json" -m llama3.1-70b --gbs 256 --top 5 --format json >"$T/p.json" 2>"$T/e" ||
	bad "plan: $(cat "$T/e")"
for r in 1 2 3 4 5; do
	$H launch -c "$T/c2.json" -m llama3.1-70b --plan "$T/p.json" --rank $r --format slurm \
		>"$T/r.sh" 2>"$T/r.err" || { bad "rank $r: $(cat "$T/r.err")"; continue; }
	$H estimate -c "$T/c2.json" -m llama3.1-70b --plan "$T/p.json" --rank $r --no-price-book \
		--format json >"$T/est.json" 2>/dev/null
	python3 - "$T/p.json" $r "$T/r.sh" "$T/r.err" "$T/est.json" >"$T/chk" 2>&1 <<'PY' || echo "FAIL rank $r: $(tail -2 "$T/chk")" >>"$T/chk"
import json, re, subprocess, sys
doc = json.load(open(sys.argv[1])); r = int(sys.argv[2])
P = doc["plans"][r - 1]; text = open(sys.argv[3]).read(); err = open(sys.argv[4]).read()
est = json.load(open(sys.argv[5]))
def say(c, w): print(("OK " if c else "FAIL ") + "rank %d: %s" % (r, w))
g = P["replicas"]
key = lambda x: [(s["tp"], s["first_layer"], s["last_layer"]) for s in x["stages"]]
pools = {s["pool"] for x in g for s in x["stages"]}
one = len(pools) > 1 and all(key(x) == key(g[0]) for x in g) and \
    len({round(x["batch_share"], 12) for x in g}) == 1
pieces = re.split(r"\n# ---- piece \d+ of \d+ ----\n", text)[1:]
say((not pieces and "#SBATCH hetjob" in text) == one, "one job = %s (%s)" % (one, P["label"]))
# a piece is a job of its own over pools exactly when its group spans pools
for i, pc in enumerate(pieces):
    span = len({s["pool"] for s in g[i]["stages"]}) > 1
    say(("#SBATCH hetjob" in pc) == span, "piece %d over pools = %s" % (i + 1, span))
say(subprocess.run(["bash", "-n"], input=text, text=True).returncode == 0, "bash -n")
m = re.search(r"Estimate \(hetplan estimate of this plan\): step ([0-9.]+) (s|min)", text)
step = float(m.group(1)) * (60 if m.group(2) == "min" else 1) if m else None
say(step is not None and abs(step - est["step_time_s"]) <= 0.006 * est["step_time_s"],
    "step %s = estimate's %.2f s" % (step, est["step_time_s"]))
say(abs(est["step_time_s"] - P["step_time_s"]) <= 1e-6 * P["step_time_s"], "estimate's step = plan's")
mv = re.search(r"# Memory: (\S+) at 5% headroom", text)
say(mv is not None and mv.group(1) == est["memory_verdict"] == P["memory_verdict"],
    "memory verdict %s" % (mv and mv.group(1)))
# each pool's fullest stage in `hetplan plan`'s detail words: "X of Y
# (P%), Z free", P the share used (docs/reports.md's hp_fmt_bytes:
# binary units, one decimal)
def fmt_bytes(b):
    u = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
    v, i = abs(b), 0
    while v >= 1024 and i + 1 < len(u):
        v /= 1024; i += 1
    return "%.*f %s" % (1 if i else 0, v, u[i])
for pool in sorted({x["pool"] for x in P["memory"]}):
    w = max((x for x in P["memory"] if x["pool"] == pool), key=lambda x: x["total_bytes"] / x["capacity_bytes"])
    t, cap = w["total_bytes"], w["capacity_bytes"]
    line = "#   pool %s: stage %d of group %d, %s of %s (%.0f%%), %s %s" % (
        pool, w["stage"], w["replica_group"], fmt_bytes(t), fmt_bytes(cap), 100 * t / cap,
        fmt_bytes(cap - t), "free" if cap >= t else "over")
    say(line in text.splitlines(), "memory line %r" % line)
c = re.search(r"Cost: \$([0-9.,]+)/h = \$([0-9.]+) per step", err)
want = P["usd_per_hour"] * P["step_time_s"] / 3600
say(c is not None and abs(float(c.group(2)) - want) <= 0.0006 + 1e-3 * want,
    "$ per step %s = plan's %.3f" % (c and c.group(2), want))
PY
	report_checks "$T/chk"
	# every format states the same estimate on standard error (DeepSpeed's
	# JSON has no comments): the slurm run's lines, word for word
	grep '^hetplan launch: \(Estimate\|Cost\|Memory\|  pool\)' "$T/r.err" >"$T/want"
	for f in megatron deepspeed torchtitan; do
		$H launch -c "$T/c2.json" -m llama3.1-70b --plan "$T/p.json" --rank $r --format $f \
			>/dev/null 2>"$T/f.err"
		grep '^hetplan launch: \(Estimate\|Cost\|Memory\|  pool\)' "$T/f.err" >"$T/got"
		[ -s "$T/want" ] && cmp -s "$T/want" "$T/got" && ok ||
			bad "rank $r $f: estimate lines differ: $(diff "$T/want" "$T/got" | head -4)"
	done
done

finish launch_hetero
