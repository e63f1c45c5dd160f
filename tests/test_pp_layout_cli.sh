#!/bin/sh
# test_pp_layout_cli.sh — the pp_layout key (--pp-layout) as a user runs
# it: `estimate` places the stages from the layout, refuses a bad one
# naming the flag and the position, costs the fill and drain from each
# rank's own chunks, and `launch` writes Megatron-Core's flag, torchtitan's
# model parts, and the "does not run as planned" note elsewhere.
# Facts checked:
#   - NVIDIA's DeepSeek-V3 layout "Et*4|(t*4|)*14tL" (Megatron-Bridge
#     recipes/deepseek/h100/deepseek_v3.py @067f987df0, the (4, 4) entry
#     without its MTP layer) gives PP ranks 16, 16, 16 and 13 layers;
#   - Megatron-Core takes --pipeline-model-parallel-layout and derives VP
#     from it, refusing --num-layers-per-virtual-pipeline-stage beside it
#     (arguments.py @d98e8a64 L927-950);
#   - Megatron-LM 2021-22 has no layout flag (it came with Megatron-Core's
#     pipeline_parallel_layer_layout.py);
#   - a 1F1B layout of equal stages, and an interleaved one of equal
#     chunks, is the even split: the same estimate.
# Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/cache" XDG_CONFIG_HOME="$T/config"

DS="--pool 64x4xGB200 -m deepseek-v3 --tp 1 --pp 4 --ep 64 --mbs 1 --gbs 4096 --precision fp8 --recompute full"
LAY='Et*4|(t*4|)*14tL'

# --- stages placed from the layout (exit 0: fits under full recompute)
expect 0 "" $H estimate $DS --schedule interleaved:4 --pp-layout "$LAY" --format json
json "
st = d['plan']['replicas'][0]['stages']
assert [(s['first_layer'], s['last_layer']) for s in st] == [(0, 15), (16, 31), (32, 47), (48, 60)], st
assert d['plan']['pp_layout'] == '$LAY', d['plan'].get('pp_layout')"
cp "$T/out" "$T/ds.json"

# --- fill and drain: the slowest rank waits for chunk 0 of each rank
# before it and the last chunk of each rank after it; a chunk's share is
# its transformer layers over its rank's. Ranks' chunks (layers): ranks
# 0-2 4,4,4,4 (16), rank 3 4,4,4,1 (13).
json "
t = [s['time_per_microbatch_s'] for s in d['memory']]
c = t.index(max(t))
first = [4/16, 4/16, 4/16, 4/13]
last = [4/16, 4/16, 4/16, 1/13]
want = sum(t[i] * (first[i] if i < c else last[i]) for i in range(4) if i != c)
got = d['breakdown_s']['bubble']
assert abs(got - want) <= 1e-9 * want, (got, want, c)"

# --- the plan round-trips through a file
python3 -c "import json; json.dump(json.load(open('$T/ds.json'))['plan'], open('$T/plan.json', 'w'))"
expect 0 "" $H estimate --pool 64x4xGB200 -m deepseek-v3 --plan "$T/plan.json" --format json
json "
a = json.load(open('$T/ds.json'))['step_time_s']
assert d['step_time_s'] == a, (d['step_time_s'], a)"

# --- hostile and inconsistent layouts: exit 3, the flag and the place named
expect 3 "--pp-layout" $H estimate $DS --schedule interleaved:4 --pp-layout 'Et*4|x'
grep -qF "position 6 ('x')" "$T/err" && ok || bad "no position: $(cat "$T/err")"
expect 3 "16 virtual stages; PP 4 x VP 1" $H estimate $DS --pp-layout "$LAY"
expect 3 "places 60 transformer layers" $H estimate $DS --schedule interleaved:4 \
	--pp-layout 'Et*4|(t*4|)*14L'
# E in virtual stage 0 and L in the last (Megatron builds them there:
# training.py pre_process / post_process); an empty stage around them moves them
expect 3 "embedding E in a later virtual stage" $H estimate $DS --schedule interleaved:4 \
	--pp-layout '|Et*4|(t*4|)*13tL'
expect 3 "loss L in an earlier virtual stage" $H estimate $DS --schedule interleaved:4 \
	--pp-layout 'Et*4|(t*4|)*13tL|'
expect 3 "MTP" $H estimate $DS --schedule interleaved:4 --pp-layout 'Et*4|(t*4|)*14tmL'
expect 2 "at most 127 bytes" $H estimate $DS --pp-layout "$(printf 'E%0200dL' 0 | tr 0 t)"
python3 - "$T/plan.json" "$T/bad.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
st = p["replicas"][0]["stages"]
st[0]["last_layer"], st[1]["first_layer"] = 14, 15   # rank 0: 15 layers, not 16
json.dump(p, open(sys.argv[2], "w"))
PY
expect 3 "gives pipeline rank 0 16 layers" $H estimate --pool 64x4xGB200 -m deepseek-v3 --plan "$T/bad.json"

# --- a 1F1B layout of equal stages is the even split
E8="--pool 1x8xH100-SXM -m llama3.1-8b --tp 2 --pp 4 --mbs 1 --gbs 64 --format json"
expect 0 "" $H estimate $E8
cp "$T/out" "$T/even.json"
expect 0 "" $H estimate $E8 --pp-layout 'Et*8|t*8|t*8|t*8L'
json "
a = json.load(open('$T/even.json'))
assert d['step_time_s'] == a['step_time_s'], (d['step_time_s'], a['step_time_s'])
assert d['mem_need_bytes'] == a['mem_need_bytes']"

# --- an interleaved layout of equal chunks is the even interleaved split:
# the same estimate, byte for byte but for the key itself
I8="--pool 1x8xH100-SXM -m llama3.1-8b --tp 2 --pp 4 --mbs 1 --gbs 64 --schedule interleaved:2 --format json"
expect 0 "" $H estimate $I8
cp "$T/out" "$T/ieven.json"
expect 0 "" $H estimate $I8 --pp-layout 'Et*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4L'
json "
a = json.load(open('$T/ieven.json'))
assert d['plan'].pop('pp_layout') == 'Et*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4L'
a['plan'].pop('pp_layout', None)
assert d == a, [k for k in d if d[k] != a.get(k)]"

# --- launch: Megatron-Core's flag, and none of the flags it refuses beside it
expect 0 "" $H launch --force --plan "$T/plan.json" --pool 64x4xGB200 -m deepseek-v3
grep -qF -- "--pipeline-model-parallel-layout \"$LAY\"" "$T/out" && ok || bad "no layout flag"
grep -qE -- "--num-layers-per-virtual-pipeline-stage|--num-virtual-stages-per-pipeline-rank|--decoder-(first|last)-pipeline" "$T/out" &&
	bad "a flag Megatron refuses beside the layout" || ok
# torchtitan: one model part per virtual stage, in the layout's order
expect 0 "" $H launch --force --format torchtitan --plan "$T/plan.json" --pool 64x4xGB200 -m deepseek-v3
python3 - "$T/out" <<'PY' && ok || bad "torchtitan model parts"
import re, sys
t = open(sys.argv[1]).read()
body = t.split("module_fqns_per_model_part = [", 1)[1].split("\n]", 1)[0]
parts = [re.findall(r'"([^"]+)"', l) for l in body.strip().splitlines()]
assert len(parts) == 16, len(parts)
assert parts[0] == ["tok_embeddings"] + ["layers.%d" % i for i in range(4)], parts[0]
assert parts[1] == ["layers.%d" % i for i in range(4, 8)], parts[1]
assert parts[15] == ["layers.60", "norm", "output"], parts[15]
PY
# Megatron-LM (2021-22) splits a stage into equal chunks: ranks of 16
# layers as chunks of 6 and 10 do not run as planned there
expect 0 "does not run this plan as planned" $H launch --pool 1x8xH100-SXM -m llama3.1-8b \
	--tp 2 --pp 4 --mbs 1 --gbs 64 --schedule interleaved:2 --framework megatron-lm \
	--pp-layout 'Et*6|t*2|t*6|t*2|t*2|t*6|t*2|t*6L'
grep -qF "virtual stages of unequal layers" "$T/err" && ok || bad "no unequal-chunks note: $(cat "$T/err")"
# that version has no --pipeline-model-parallel-layout (Megatron-Core's)
grep -v '^#' "$T/out" | grep -qF -- "--pipeline-model-parallel-layout" &&
	bad "the layout flag for Megatron-LM" || ok
grep -qF "is Megatron-Core's" "$T/err" && ok || bad "the note does not name the flag's framework"
# equal chunks: the even split, written as such, with no note
expect 0 "" $H launch --pool 1x8xH100-SXM -m llama3.1-8b \
	--tp 2 --pp 4 --mbs 1 --gbs 64 --schedule interleaved:2 --framework megatron-lm \
	--pp-layout 'Et*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4L'
grep -qF -- "--num-layers-per-virtual-pipeline-stage 4" "$T/out" && ! grep -qF -- \
	"--pipeline-model-parallel-layout" "$T/out" && ok || bad "Megatron-LM even layout: $(grep pipeline "$T/out")"

finish pp_layout_cli
