#!/bin/sh
# test_hardening_names.sh — hostile names and values on the paths added in
# the December 2026 session (mixed-GPU plans that run on Megatron-Core, the
# Slurm heterogeneous job, optimizer_impl, compile, master none). Each
# block failed on the binary before its fix (commit message says how).
# Facts used: RFC 3629 (UTF-8: a multi-byte character is whole or absent),
# Python's own decoders (bytes.decode, json, tomllib) as independent
# parsers of what hetplan writes. Run from the repository root after
# `make`.
# Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
set -u
H=${HETPLAN:-./hetplan}
. tests/lib.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/cache" XDG_CONFIG_HOME="$T/config" HETPLAN_PRICES_CACHE=
mkdir -p "$T/config/hetplan"

# utf8 FILE...: every file decodes as UTF-8 (Python's strict decoder)
utf8() {
	python3 -c "import sys; [open(f, 'rb').read().decode('utf-8') for f in sys.argv[1:]]" "$@" 2>"$T/pyerr" &&
		ok || bad "not UTF-8: $* ($(tail -1 "$T/pyerr"))"
}

# 1. A GPU name of 3-byte characters in a user catalog. The reasons a
# mixed-GPU plan does not run on a framework held each GPU name cut at 24
# bytes ("%.24s"), which for "a" + ten U+20AC (31 bytes) ends inside the
# eighth euro sign: plan's table and HTML carried the broken byte pair,
# the JSON two U+FFFD. The name is whole now (31 bytes fit the reason).
EU=$(printf 'a\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254')
python3 - "$T" "$EU" <<'PY'
import json, sys
t, name = sys.argv[1], sys.argv[2]
gpu = {"name": name, "memory_gb": 80, "memory_bw_tbps": 3.35, "vendor": "NVIDIA",
       "arch": "Hopper", "tflops": {"bf16": 989.4, "fp8": 1978.9},
       "scaleup_gbyte_s_per_dir": 450, "scaleup_domain": 8, "tdp_w": 700,
       "defaults": {"gpus_per_node": 8, "intra": "nvswitch", "nics": 8, "nic_gbps": 400}}
json.dump({"gpus": [gpu]}, open(t + "/config/hetplan/gpus.json", "w"), ensure_ascii=False)
json.dump({"name": "c", "pools": [{"name": "a", "gpu": "H100-SXM", "nodes": 2},
                                  {"name": "b", "gpu": name, "nodes": 2}]},
          open(t + "/cu.json", "w"), ensure_ascii=False)
PY
for f in table json html md csv; do
	expect 0 "" $H plan -c "$T/cu.json" -m llama3.1-8b --gbs 64 --format $f -o "$T/plan.$f"
	utf8 "$T/plan.$f"
done
grep -qE "mixed GPU types [a-z ]+ \\((H100-SXM and $EU|$EU and H100-SXM)\\)" "$T/plan.json" && ok ||
	bad "the GPU name is not whole in the runs-on reason: $(grep -o 'mixed GPU types[^"]*' "$T/plan.json" | head -1)"

# 2. Hostile pool and model names through every script launch writes for a
# plan over two pools: the Slurm heterogeneous job (one pipeline over both
# pools), the pieces of a plan no stock framework runs (uneven batch
# shares), each as Slurm, Megatron and HF Trainer text. Names: 31 single
# quotes (the longest name, each quote four bytes quoted), $(...) and
# backticks with a zero-width space and a left-to-right mark, and a model
# display name of the same kind. Each script parses (bash -n) and runs in
# a sandbox whose PATH has stub srun, sbatch, scontrol, torchrun and
# python3 that record their arguments: the stubs run (the script reached
# its command) and no name ran as a command (no PWN file anywhere).
unset XDG_CONFIG_HOME; export XDG_CONFIG_HOME="$T/config2"
mkdir -p "$T/sb/bin" "$T/sb/run"
for s in srun sbatch scontrol torchrun python3; do
	printf '#!/bin/sh\nprintf "%%s\\n" "%s $*" >>"$STUB_LOG"\n' "$s" >"$T/sb/bin/$s"
	chmod +x "$T/sb/bin/$s"
done
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
a = "'" * 31
b = "b\u200b\u200e$(touch PWN1)`>PWN2`x"
json.dump({"name": "c$(touch PWN3)", "pools": [
    {"name": a, "gpu": "H100-SXM", "nodes": 2},
    {"name": b, "gpu": "A100-SXM4-80GB", "nodes": 4}]},
    open(t + "/ch.json", "w"), ensure_ascii=False)
m = {"name": "ev'il$(touch PWN4)", "display": "D\u200b`touch PWN5` \"q\" 'x",
     "layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn": 14336,
     "gated_mlp": True, "vocab": 128256, "seq_len": 8192, "tied_embeddings": False}
json.dump(m, open(t + "/mh.json", "w"), ensure_ascii=False)
st = lambda p, f, l: {"pool": p, "tp": 8, "first_layer": f, "last_layer": l}
json.dump({"mbs": 1, "gbs": 64, "replicas": [{"count": 1, "batch_share": 1,
    "stages": [st(a, 0, 9), st(b, 10, 20), st(b, 21, 31)]}]},
    open(t + "/px.json", "w"), ensure_ascii=False)
json.dump({"mbs": 1, "gbs": 64, "replicas": [
    {"count": 1, "batch_share": 0.625, "stages": [st(a, 0, 15), st(a, 16, 31)]},
    {"count": 1, "batch_share": 0.375, "stages": [st(b, 0, 15), st(b, 16, 31)]}]},
    open(t + "/ps.json", "w"), ensure_ascii=False)
PY
for p in px ps; do
	for f in slurm megatron; do
		o="$T/sb/run/$p.$f.sh"
		expect 0 "" $H launch -c "$T/ch.json" -m "$T/mh.json" --plan "$T/$p.json" --format $f --force -o "$o"
		bash -n "$o" && ok || bad "$p --format $f does not parse"
		utf8 "$o" "$T/err"
		# the pieces are saved one a file, from each "# ---- piece" line
		rm -f "$T/sb/run/piece."*
		awk -v d="$T/sb/run" '/^# ---- piece [0-9]+ of/ { n++ } n { print > (d "/piece." n ".sh") }' "$o"
		[ $p$f = psslurm ] && { [ -s "$T/sb/run/piece.2.sh" ] && ok || bad "$p --format $f: no pieces"; }
		[ $p$f = psslurm ] || cp "$o" "$T/sb/run/piece.1.sh"
		for q in "$T/sb/run/piece."*.sh; do
			bash -n "$q" && ok || bad "$p --format $f: $(basename "$q") does not parse"
			: >"$T/sb/log"
			(cd "$T/sb/run" && PATH="$T/sb/bin:/usr/bin:/bin" STUB_LOG="$T/sb/log" SLURM_JOB_ID=1 \
				SLURM_JOB_NODELIST=n1 SLURM_JOB_NODELIST_HET_GROUP_0=n1 SLURM_PROCID=0 \
				SLURM_NNODES=2 MEGATRON=/m bash "$q" >/dev/null 2>&1)
			if [ $f = slurm ]; then
				grep -q '^srun ' "$T/sb/log" && ok ||
					bad "$p --format $f: $(basename "$q"): the stub srun never ran"
			fi
		done
	done
done
find "$T" -name 'PWN*' | grep -q . && bad "a name ran as a command: $(find "$T" -name 'PWN*')" || ok

# 3. A pool named after its GPU (--pool with no name=): the name was the
# GPU's first 19 bytes, which for a user catalog part "ab" + nine U+20AC
# ends inside the sixth euro sign, and --pool then refused a name the
# user never gave ("expected printable UTF-8 ... \xE2\x82"). The default
# name ends on a whole character: "ab" + five euro signs (17 bytes).
export XDG_CONFIG_HOME="$T/config3"
mkdir -p "$T/config3/hetplan"
G=$(printf 'ab\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254')
python3 - "$T" "$G" <<'PY'
import json, sys
t, name = sys.argv[1], sys.argv[2]
gpu = {"name": name, "memory_gb": 80, "memory_bw_tbps": 3.35, "vendor": "NVIDIA",
       "arch": "Hopper", "tflops": {"bf16": 989.4, "fp8": 1978.9},
       "scaleup_gbyte_s_per_dir": 450, "scaleup_domain": 8, "tdp_w": 700,
       "defaults": {"gpus_per_node": 8, "intra": "nvswitch", "nics": 8, "nic_gbps": 400}}
json.dump({"gpus": [gpu]}, open(t + "/config3/hetplan/gpus.json", "w"), ensure_ascii=False)
PY
expect 0 "" $H estimate --pool "2x8x$G" -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 16 --format json
utf8 "$T/out" "$T/err"
# two pools of that GPU: the second is the first's name with "-2"
G5=$(printf 'ab\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254')
expect 0 "" $H estimate --pool "1x8x$G" --pool "1x8x$G" --on "$G5-2" -m llama3.1-8b --tp 8 --pp 1 \
	--mbs 1 --gbs 16 --format json
utf8 "$T/out" "$T/err"
json "p = sorted({s['pool'] for r in d['plan']['replicas'] for s in r['stages']}); assert p == ['ab' + '\u20ac' * 5 + '-2'], p"
export XDG_CONFIG_HOME="$T/config"

# 4. A pool's site is "{provider}/{region}" when not given (cluster.c's
# field doc). It kept 23 bytes of the region, so two pools of one
# provider in regions that differ after byte 23 were one site: no WAN
# between them. Facts: the two regions differ (by hand), so the DP
# all-reduce across the two pools crosses the WAN link, as it does for
# short region names; and a region of ten U+20AC (30 bytes) cut at 23
# bytes made a site that was no UTF-8.
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
for tag, (r1, r2) in {"long": ("europe-west-very-long-region-1", "europe-west-very-long-region-2"),
                      "short": ("europe-west-1", "europe-west-2")}.items():
    json.dump({"name": "c", "pools": [
        {"name": "x", "gpu": "H100-SXM", "nodes": 2, "provider": "aws", "region": r1},
        {"name": "y", "gpu": "H100-SXM", "nodes": 2, "provider": "aws", "region": r2}]},
        open("%s/site_%s.json" % (t, tag), "w"))
st = lambda p: {"pool": p, "tp": 8, "first_layer": 0, "last_layer": 31}
json.dump({"mbs": 1, "gbs": 64, "replicas": [
    {"count": 1, "batch_share": 0.5, "stages": [st("x")]},
    {"count": 1, "batch_share": 0.5, "stages": [st("y")]}]}, open(t + "/site_plan.json", "w"))
json.dump({"name": "c", "pools": [{"name": "x", "gpu": "H100-SXM", "nodes": 2,
    "provider": "gcp", "region": "\u20ac" * 10}]}, open(t + "/site_eu.json", "w"), ensure_ascii=False)
PY
for tag in short long; do
	$H estimate -c "$T/site_$tag.json" -m llama3.1-8b --plan "$T/site_plan.json" >"$T/site_$tag.out" 2>&1
	grep -q "WAN" "$T/site_$tag.out" && ok || bad "regions $tag: the pools' DP sync does not cross the WAN"
done
# (the site itself is not printed: tests/test_hardening_site.c reads it
# back through a saved workspace)
expect 0 "" $H estimate -c "$T/site_eu.json" -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 16 --format json
utf8 "$T/out" "$T/err"

# 5. Why a plan over two pools is not one job names the pools, each as a
# quoted shell word cut to 80 bytes ("%.80s"): 19 quotes (four bytes each
# quoted), "a" and three euro signs put byte 80 inside a euro sign, and
# the Slurm script's comments and standard error were no UTF-8. Pools of
# different transports (EFA and InfiniBand) give that reason.
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
a, b = "'" * 19 + "a\u20ac\u20ac\u20ac", "'" * 19 + "b\u20ac\u20ac\u20ac"
json.dump({"name": "c", "pools": [
    {"name": a, "gpu": "H100-SXM", "nodes": 2, "transport": "efa"},
    {"name": b, "gpu": "A100-SXM4-80GB", "nodes": 4}]}, open(t + "/ct.json", "w"), ensure_ascii=False)
st = lambda p, f, l: {"pool": p, "tp": 8, "first_layer": f, "last_layer": l}
json.dump({"mbs": 1, "gbs": 64, "replicas": [{"count": 1, "batch_share": 1,
    "stages": [st(a, 0, 9), st(b, 10, 20), st(b, 21, 31)]}]}, open(t + "/pt.json", "w"), ensure_ascii=False)
PY
for f in slurm megatron; do
	expect 0 "share no network transport" $H launch -c "$T/ct.json" -m llama3.1-8b --plan "$T/pt.json" \
		--format $f --force -o "$T/ct.$f"
	utf8 "$T/ct.$f" "$T/err"
done

# 6. serve names a model that fits nowhere by its name cut to 40 bytes
# ("%.40s"): "ab" + fourteen U+20AC (44 bytes) ended inside the
# fourteenth euro sign, on standard error. 320 layers of Llama 3.1 8B's
# shape (about 134 GiB of weights) fit no L4 (24 GB).
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
m = {"name": "ab" + "\u20ac" * 14, "display": "X", "layers": 320, "hidden": 4096, "heads": 32,
     "kv_heads": 8, "ffn": 14336, "gated_mlp": True, "vocab": 128256, "seq_len": 8192,
     "tied_embeddings": False}
json.dump(m, open(t + "/mbig.json", "w"), ensure_ascii=False)
PY
expect 4 "fits nowhere" $H serve --pool 1x1xL4 -m "$T/mbig.json" --isl 1000 --osl 200 --rate 1
utf8 "$T/out" "$T/err"

# 7. Comments wrap at 78 columns; a word longer than the line (a quoted
# pool name) was cut at byte 78, inside a euro sign: the torchtitan TOML
# (TOML 1.0: a document is UTF-8, comments too) and the Slurm script
# were no UTF-8. Found by fuzz_launch (corpus crash-wrap-utf8.json).
# Pipeline of TP 1 over two pools of different transports, as the fuzzer
# builds it.
cp tests/fuzz/corpus/launch/crash-wrap-utf8.json "$T/cw.json"
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
c = json.load(open(t + "/cw.json"))
a, b = c["pools"][0]["name"], c["pools"][1]["name"]
st = lambda p, f, l: {"pool": p, "tp": 1, "first_layer": f, "last_layer": l}
json.dump({"mbs": 1, "gbs": 8, "replicas": [{"count": 1, "batch_share": 1,
    "stages": [st(a, 0, 15), st(b, 16, 31)]}]}, open(t + "/pw.json", "w"), ensure_ascii=False)
PY
for f in torchtitan slurm; do
	expect 0 "" $H launch -c "$T/cw.json" -m llama3.1-8b --plan "$T/pw.json" --format $f --force -o "$T/cw.$f"
	utf8 "$T/cw.$f"
done
python3 - "$T/cw.torchtitan" <<'PY' 2>"$T/pyerr" && ok || bad "torchtitan TOML does not parse: $(tail -1 "$T/pyerr")"
import re, sys, tomllib
t = open(sys.argv[1], encoding="utf-8").read()
parts = re.split(r"^# ---- piece .*$", t, flags=re.M)
for p in parts[1:] or [t]:
    tomllib.loads(p)
PY

finish test_hardening_names
