#!/bin/sh
# test_serve_tui.sh — the TUI Serve view's `e` export and its workload in
# the workspace file, driven in a private tmux server as test_tui.sh does.
#
#   7 opens the Serve view; `e` writes the serving plans in the
#   `hetplan serve --format json` contract ({"schema_version", "model",
#   "engine", "objective", "plans": [...], "search"}), not the training
#   plan; a rate edit is saved by `w` under "serve" and comes back when the
#   workspace is opened again; a message (`o`'s "opened ...") does not
#   hide the footer's "planning serving".
#
# Run from the repository root; $HETPLAN names the binary (./hetplan).
. tests/tui_lib.sh
TUI_DIR=$tmp

if ! command -v tmux >/dev/null 2>&1; then
	echo "test_serve_tui: tmux missing (make deps-test)"
	echo "test_serve_tui: 0 passed, 1 failed"
	exit 1
fi

# ---- 1. `e` in the Serve view exports the serving plans
start s1 120 40
wait_for s1 " plans" || bad "the TUI did not start: $(screen s1 | tail -2)"
keys s1 7
wait_for s1 "Serving Llama-3.1 70B" && ok || bad "7 did not open the Serve view"
# e before the first serving answer says "no serving plan to export yet"
wait_serving s1 || bad "no serving plans: $(screen s1 | tail -1)"
keys s1 e
wait_for s1 "Export serving plans to" && ok || bad "e in the Serve view: $(screen s1 | tail -1)"
keys s1 C-u serve.json Enter
# The file is whole once the footer says so (it may have bytes before).
if wait_for s1 " to serve.json" && [ -s "$tmp/serve.json" ]; then ok; else bad "no serve.json written: $(screen s1 | tail -1)"; fi
# The contract keys of `hetplan serve --format json` (man page, "serve
# options"), and what the Serve view plans by default: Llama-3.1 70B at
# 40 req/s (docs/serving.md), with vLLM and the model's Hugging Face id.
python3 - "$tmp/serve.json" <<'PY' && ok || bad "serve.json is not a serving plan export"
import json, sys
d = json.load(open(sys.argv[1]))
for k in ("schema_version", "model", "engine", "objective", "plans", "search"):
    assert k in d, "missing key " + k
assert d["model"] == "llama3.1-70b" and d["engine"] == "vllm", (d["model"], d["engine"])
assert isinstance(d["plans"], list) and d["plans"], "no plans"
for p in d["plans"]:
    for k in ("label", "how", "output_tokens_per_s", "requests_per_s", "usd_per_hour",
              "ttft_s", "tpot_s", "gpus", "instances", "fits"):
        assert k in p, "plan without " + k
    for i in p["instances"]:
        assert i["launch"].startswith("vllm serve meta-llama/Llama-3.1-70B-Instruct "), i["launch"]
# 40 req/s x 300 output tokens
assert abs(d["plans"][0]["requests_per_s"] - 40) < 1e-6, d["plans"][0]["requests_per_s"]
# a training plan export has none of these
assert "stages" not in d and "replicas" not in d
PY
# .md: the Markdown table of `hetplan serve --format md`
keys s1 e
wait_for s1 "Export serving plans to" || bad "second e did not prompt"
keys s1 C-u serve.md Enter
if wait_for s1 " to serve.md" && [ -s "$tmp/serve.md" ]; then ok; else bad "no serve.md written"; fi
head -1 "$tmp/serve.md" | grep -q '^# hetplan serving plans: Llama-3.1 70B$' && ok ||
	bad "serve.md: $(head -1 "$tmp/serve.md")"
grep -q '^| \\# | plan | GPUs | out tok/s |' "$tmp/serve.md" && ok || bad "serve.md has no plans table"
# .html: the page of `hetplan serve --format html`, whole
keys s1 e
wait_for s1 "Export serving plans to" || bad "third e did not prompt"
keys s1 C-u serve.html Enter
if wait_for s1 " to serve.html" && [ -s "$tmp/serve.html" ]; then ok; else bad "no serve.html written"; fi
head -1 "$tmp/serve.html" | grep -q '^<!DOCTYPE html>$' && tail -1 "$tmp/serve.html" | grep -q '</html>$' &&
	grep -q 'vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size' "$tmp/serve.html" &&
	ok || bad "serve.html: $(head -c 200 "$tmp/serve.html")"

# ---- 2. a serving edit is saved with the workspace and read back
# Rate is the fourth field: 25 req/s; TPOT p99 the sixth: 40 ms.
keys s1 j j j Enter
wait_for s1 "Rate (requests/s" && ok || bad "Enter on Rate did not prompt"
# A rate past the field's top (10 million requests/s) is refused with the
# top named: the message said "expected requests/s above 0", which 1e9 is.
keys s1 C-u 1e9 Enter
wait_for s1 "Rate: expected requests/s above 0, at most 10000000, or offline; got '1e9'" && ok ||
	bad "Rate 1e9: $(screen s1 | tail -1)"
keys s1 Enter
wait_for s1 "Rate (requests/s" || bad "Enter on Rate did not prompt again"
keys s1 C-u 25 Enter
wait_for s1 " 25 req/s" && ok || bad "the Rate field does not show 25"
keys s1 j j Enter
wait_for s1 "TPOT p99 (" && ok || bad "Enter on TPOT did not prompt"
keys s1 C-u 40 Enter
keys s1 w
wait_for s1 "Save workspace to" || bad "w did not prompt"
keys s1 C-u ws.json Enter
if wait_for s1 "saved ws.json" && [ -s "$tmp/ws.json" ]; then ok; else bad "no ws.json written"; fi
python3 - "$tmp/ws.json" <<'PY' && ok || bad "ws.json has no serve section with the edits"
import json, sys
s = json.load(open(sys.argv[1]))["serve"]
assert s["rate"] == 25 and abs(s["tpot_p99_s"] - 0.040) < 1e-12, s
assert s["model"] == "llama3.1-70b" and s["isl"] == "1500" and s["osl"] == "300", s
assert s["ttft_p99_s"] == 2 and s["engine"] == "vllm" and s["objective"] == "cost", s
PY
# Eager, the thirteenth field (from the serve settings table, as
# `--eager` is): Enter turns it on; the exported vLLM lines then carry
# --enforce-eager (vLLM's flag, tests/data/serving_vllm_flags.txt) and
# the workspace saves "eager": true.
keys s1 j j j j j j j Enter
wait_for s1 "Eager      on" && ok || bad "Enter on Eager did not turn it on: $(screen s1 | grep Eager)"
wait_serving s1 || bad "the Serve view did not finish planning with Eager on: $(screen s1 | tail -1)"
keys s1 e
wait_for s1 "Export serving plans to" || bad "e after Eager did not prompt"
keys s1 C-u eager.json Enter
if wait_for s1 " to eager.json" && [ -s "$tmp/eager.json" ]; then ok; else bad "no eager.json written"; fi
python3 - "$tmp/eager.json" <<'PY' && ok || bad "eager.json: no --enforce-eager in the vLLM lines"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["plans"], "no plans"
for p in d["plans"]:
    for i in p["instances"]:
        assert "--enforce-eager" in i["launch"].split(), i["launch"]
PY
keys s1 w
wait_for s1 "Save workspace to" || bad "w did not prompt"
keys s1 C-u ws-eager.json Enter
if wait_for s1 "saved ws-eager.json" && [ -s "$tmp/ws-eager.json" ]; then ok; else bad "no ws-eager.json written"; fi
python3 - "$tmp/ws-eager.json" <<'PY' && ok || bad "ws-eager.json: serve.eager is not true"
import json, sys
s = json.load(open(sys.argv[1]))["serve"]
assert s["eager"] is True and "prefill_apart" not in s and "sched_steps" not in s, s
PY
# Build, two rows below Eager (the serve settings table's engine_build, as
# `--engine-build` is): l picks vllm-rocm-0.6, a build that differs on CDNA
# GPUs only; this workspace has H100 and A100 pools, so the message line
# says it changes nothing (the command line refuses it, exit 3) and the
# workspace saves the choice.
keys s1 j j l
wait_for s1 "Build      vllm-rocm-0.6" && ok || bad "l on Build: $(screen s1 | grep Build)"
wait_for s1 "Build vllm-rocm-0.6 differs from the current build on GPUs of the cdna" && ok ||
	bad "no note that the build changes nothing: $(screen s1 | tail -1)"
keys s1 w
wait_for s1 "Save workspace to" || bad "w did not prompt"
keys s1 C-u ws-build.json Enter
if wait_for s1 "saved ws-build.json" && [ -s "$tmp/ws-build.json" ]; then ok; else bad "no ws-build.json written"; fi
python3 - "$tmp/ws-build.json" <<'PY' && ok || bad "ws-build.json: serve.engine_build (above)"
import json, sys
s = json.load(open(sys.argv[1]))["serve"]
assert s["engine_build"] == "vllm-rocm-0.6", s
PY
keys s1 q q
start s2 120 40 "" ws.json
# Keys sent before the program has set up the terminal can be lost.
wait_for s2 "ws.json" || bad "the reopened workspace did not start: $(screen s2 | head -2)"
keys s2 7
wait_for s2 " 25 req/s" && ok || bad "the reopened workspace does not show rate 25: $(screen s2 | head -12)"
wait_for s2 " 40 ms" && ok || bad "the reopened workspace does not show TPOT 40 ms"

# ---- 3. a message does not hide that serving is being planned
# HETPLAN_TUI_SERVE_HOLD_FILE holds each serving answer while $tmp/hold
# exists, the view busy meanwhile; the test removes the file once it has
# read the screen, so what it reads never depends on the machine's speed.
# `o` in the Serve view shows "opened ws.json" and plans serving again:
# the footer keeps both, the message first, until the answer comes ("1
# serving plan" or more).
: >"$tmp/hold"
start s3 120 40 "HETPLAN_TUI_SERVE_HOLD_FILE=$tmp/hold"
wait_for s3 " plans" || bad "the TUI did not start: $(screen s3 | tail -2)"
keys s3 7
wait_for s3 "Serving Llama-3.1 70B" || bad "7 did not open the Serve view"
wait_status s3 ' planning serving *$' 300 && ok || bad "no 'planning serving' at start: $(screen s3 | tail -1)"
rm -f "$tmp/hold"
wait_serving s3 || bad "the held serving answer did not come: $(screen s3 | tail -1)"
: >"$tmp/hold"
keys s3 o C-u ws.json Enter
wait_status s3 ' opened ws\.json; planning serving *$' 300 && ok ||
	bad "the message hid 'planning serving': $(screen s3 | tail -1)"
rm -f "$tmp/hold"
wait_status s3 ' opened ws\.json *$' 600 && ok ||
	bad "the message did not stay alone once serving was planned: $(screen s3 | tail -1)"
keys s3 j
wait_serving s3 && ok || bad "no serving plans after the reopen: $(screen s3 | tail -1)"

# The plans' heading names their answer's order: right after Objective
# turns to throughput, the plans shown (the answer held) are still the
# cost answer's, "cheapest first"; the throughput answer brings "fastest
# first". Objective is the tenth field.
: >"$tmp/hold"
keys s3 g j j j j j j j j j l
wait_for s3 "Objective  throughput" || bad "l on Objective: $(screen s3 | grep Objective)"
wait_status s3 ' planning serving *$' 300 || bad "no 'planning serving' after l: $(screen s3 | tail -1)"
screen s3 >"$tmp/obj.txt"
grep -q "Serving plans, cheapest first" "$tmp/obj.txt" && ok ||
	bad "the held cost plans are titled: $(grep 'Serving plans' "$tmp/obj.txt")"
rm -f "$tmp/hold"
wait_for s3 "Serving plans, fastest first" 600 && ok || bad "no fastest-first heading after the answer"

# The Serve view's help lists `e` once, as the view's export of serving
# plans: the global row ("Export the selected plan") is not what `e` does
# here. The global keys it does not override stay (w, o, R).
keys s3 '?'
wait_for s3 "Keys in every view" || bad "? did not open the help: $(screen s3 | sed -n 3p)"
screen s3 >"$tmp/help.txt"
grep -q "Export the serving plans" "$tmp/help.txt" && ok || bad "the Serve help lacks its e"
grep -q "Export the selected plan" "$tmp/help.txt" && bad "the Serve help lists the training plan's e too" || ok
grep -q "Save the workspace to a file" "$tmp/help.txt" && ok || bad "the Serve help lost the global w"
keys s3 '?' 2 '?'
wait_for s3 "Keys in the Model view" || bad "? in the Model view"
screen s3 | grep -q "Export the selected plan" && ok || bad "the Model help lacks the global e"

# Both planners at work on a 320-GPU workspace: the Serve view's footer
# names each, serving first ("planning serving; training N s"). Serving
# answers and the training planner's full run after its preview are held
# while $tmp/hold exists (HETPLAN_TUI_SERVE_HOLD_FILE,
# HETPLAN_TUI_REFINE_HOLD_FILE), so both are busy until the test has read
# the footer.
big3_workspace "$tmp/big.json" '{"gbs": 1024, "seq_len": 8192, "tokens": 2e12, "objective": "cost", "top": 10}'
: >"$tmp/hold"
start s4 120 40 "HETPLAN_TUI_SERVE_HOLD_FILE=$tmp/hold HETPLAN_TUI_FIRST_MS=0 HETPLAN_TUI_REFINE_HOLD_FILE=$tmp/hold" "big.json"
wait_for s4 "big.json" || bad "big.json did not start: $(screen s4 | head -1)"
keys s4 7
wait_status s4 ' planning serving; training [0-9.]+ s, Esc cancels *$' 600 && ok ||
	bad "both planners busy in the Serve view: $(screen s4 | tail -1)"
rm -f "$tmp/hold"
keys s4 q q

# ---- 3b. a model that is no preset (a model object in the workspace,
# without "hf_id") launches the placeholder `hetplan serve` prints for a
# model file, not its own name as if it were a Hugging Face repository
python3 - "$tmp/custom.json" <<'PY'
import json, sys
doc = json.load(open("data/models.json"))
m = dict(next(x for x in doc["models"] if x["name"] == "llama3.1-8b"))
for k in ("published_params", "hf_id"):
    m.pop(k, None)
m["name"] = "my-8b"
json.dump({"version": 1, "cluster": {"pools": [{"gpu": "H100-SXM", "nodes": 1}]},
           "model": m, "serve": {"rate": 5, "isl": "1000", "osl": "200"}}, open(sys.argv[1], "w"))
PY
start s5 120 40 "" custom.json
wait_for s5 " plans" || bad "the custom-model workspace did not start: $(screen s5 | tail -2)"
keys s5 7
wait_serving s5 || bad "no serving plans for the custom model: $(screen s5 | tail -1)"
wait_for s5 "vllm serve '<model-path-or-hf-repo>'" && ok ||
	bad "custom model's launch line: $(screen s5 | grep -i 'vllm' | head -2)"
# its serve section gives no p99 target: the plan pane says that the
# planner loads each instance to at most 0.9 of saturation (man page,
# --ttft-p99), under the latencies that load gives
wait_for s5 "no p99 target: load <= 90% of saturation" && ok ||
	bad "no utilisation note without targets: $(screen s5 | sed -n 3,20p)"
keys s5 q q

# ---- 4. bad serve sections name the key
printf '%s' '{"cluster":{"pools":[{"gpu":"H100-SXM","nodes":1}]},"model":"llama3.1-8b","serve":{"rate":5,"isl":"lognormal:x"}}' >"$tmp/bad1.json"
"$HP" report "$tmp/bad1.json" -o "$tmp/r1.md" >/dev/null 2>"$tmp/err1"; rc=$?
[ $rc = 3 ] && grep -q "serve.isl" "$tmp/err1" && ok || bad "bad serve.isl: exit $rc, $(cat "$tmp/err1")"
printf '%s' '{"cluster":{"pools":[{"gpu":"H100-SXM","nodes":1}]},"model":"llama3.1-8b","serve":{"rate":5,"engine":"tgi"}}' >"$tmp/bad2.json"
"$HP" report "$tmp/bad2.json" -o "$tmp/r2.md" >/dev/null 2>"$tmp/err2"; rc=$?
[ $rc = 3 ] && grep -q "engine" "$tmp/err2" && ok || bad "bad serve.engine: exit $rc, $(cat "$tmp/err2")"
# rate and offline together contradict each other, as serve's --rate and
# --offline do: the file and both keys are named, in batch and in the TUI
printf '%s' '{"cluster":{"pools":[{"gpu":"H100-SXM","nodes":1}]},"model":"llama3.1-8b","serve":{"rate":5,"offline":true}}' >"$tmp/bad3.json"
"$HP" report "$tmp/bad3.json" -o "$tmp/r3.md" >/dev/null 2>"$tmp/err3"; rc=$?
[ $rc = 3 ] && grep -qF 'bad3.json: serve: "rate" and "offline" exclude each other' "$tmp/err3" && ok ||
	bad "rate with offline: exit $rc, $(cat "$tmp/err3")"
[ ! -e "$tmp/r3.md" ] && ok || bad "r3.md was written"
start s6 120 40 "" bad3.json
wait_for s6 "bad3.json: serve: \"rate\" and \"offline\" exclude each other" && ok ||
	bad "the TUI opened rate with offline: $(screen s6 | tail -3)"
# offline alone (rate absent or 0, as the TUI saves it) still loads
printf '%s' '{"cluster":{"pools":[{"gpu":"H100-SXM","nodes":1}]},"model":"llama3.1-8b","serve":{"rate":0,"offline":true}}' >"$tmp/off.json"
"$HP" report "$tmp/off.json" -o "$tmp/off.md" >/dev/null 2>"$tmp/err4" && ok ||
	bad "offline with rate 0: $(cat "$tmp/err4")"

# ---- 4b. bf16 on a GPU without it (V100: compute capability 7.0; vLLM
# refuses bf16 below 8.0). A "weights" or "kv_cache" of "bf16" in the file
# is named, as serve's --precision bf16 is: refused on load, the file and
# the key named, in batch and in the TUI. Absent, the default runs as fp16
# and the Serve view says so; a default saved from the view stays absent.
v100='{"cluster":{"pools":[{"name":"v100","gpu":"V100-SXM2-32GB","nodes":1}]},"model":"llama3.1-8b","workload":{"precision":"fp16"},"serve":{"rate":2,"isl":"512","osl":"128"'
printf '%s,"weights":"bf16"}}' "$v100" >"$tmp/v100w.json"
printf '%s,"kv_cache":"bf16"}}' "$v100" >"$tmp/v100kv.json"
printf '%s}}' "$v100" >"$tmp/v100d.json"
why='V100-SXM2-32GB has no bf16 (NVIDIA before Ampere, compute capability below 8.0, which vLLM refuses bf16 on)'
"$HP" report "$tmp/v100w.json" -o "$tmp/rw.md" >/dev/null 2>"$tmp/errw"; rc=$?
[ $rc = 3 ] && grep -qF "v100w.json: serve.weights: \"bf16\": $why; \"fp16\" runs, or leave \"weights\" out for the default (fp16 there)" "$tmp/errw" &&
	ok || bad "serve.weights bf16 on a V100: exit $rc, $(cat "$tmp/errw")"
"$HP" report "$tmp/v100kv.json" -o "$tmp/rkv.md" >/dev/null 2>"$tmp/errkv"; rc=$?
[ $rc = 3 ] && grep -qF "v100kv.json: serve.kv_cache: \"bf16\": $why" "$tmp/errkv" &&
	ok || bad "serve.kv_cache bf16 on a V100: exit $rc, $(cat "$tmp/errkv")"
start s7 120 40 "" v100w.json
wait_for s7 "v100w.json: serve.weights: \"bf16\": V100-SXM2-32GB has no bf16" && ok ||
	bad "the TUI opened serve.weights bf16 on a V100: $(screen s7 | tail -3)"
"$HP" report "$tmp/v100d.json" -o "$tmp/rd.md" >/dev/null 2>"$tmp/errd" && ok ||
	bad "the default on a V100: $(cat "$tmp/errd")"
grep -qF '| weights | bf16 (fp16 on V100-SXM2-32GB, which has no bf16) |' "$tmp/rd.md" && ok ||
	bad "rd.md: the workload table does not say fp16 runs: $(grep weights "$tmp/rd.md")"
start s8 120 40 "" v100d.json
wait_for s8 " plans" || bad "v100d.json did not start: $(screen s8 | tail -2)"
keys s8 7
wait_serving s8 || bad "no serving plans on the V100: $(screen s8 | tail -1)"
wait_for s8 " Weights    fp16: Volta, no bf16" && wait_for s8 " KV cache   fp16: Volta, no bf16" && ok ||
	bad "the Serve view does not say what runs on the V100: $(screen s8 | sed -n 10,11p)"
wait_for s8 "--kv-cache-dtype auto --dtype float16" && ok ||
	bad "the Serve view's launch line lacks --dtype float16: $(screen s8 | sed -n 20,24p)"
# Weights is the eighth field: l names fp16 (after the default, bf16)
keys s8 j j j j j j j l
wait_for s8 " Weights    bf16 only" && ok || bad "l on the default: $(screen s8 | sed -n 10p)"
# the refusal names the view's field, not serve's flag (--precision), and
# how to change it: Weights is a choice, cycled with h or l
wait_for s8 "Weights bf16: V100-SXM2-32GB has no bf16" && ok ||
	bad "a named bf16 on the V100 planned: $(screen s8 | sed -n 17,20p)"
screen s8 | tr -s ' \n' ' ' | grep -qF "Weights fp16 runs (Weights: select it and press h or l)" && ok ||
	bad "the bf16 refusal does not say what to change: $(screen s8 | sed -n 17,21p)"
screen s8 | grep -qF -- "--precision" && bad "the TUI names a CLI flag: $(screen s8 | grep -F -- '--precision')" || ok
keys s8 l
wait_for s8 " Weights    fp16 " && ok || bad "l on bf16: $(screen s8 | sed -n 10p)"
keys s8 w
wait_for s8 "Save workspace to" || bad "w did not prompt"
keys s8 C-u v100s.json Enter
if wait_for s8 "saved v100s.json" && [ -s "$tmp/v100s.json" ]; then ok; else bad "no v100s.json written"; fi
keys s8 h h w
wait_for s8 "Save workspace to" || bad "w did not prompt"
keys s8 C-u v100s2.json Enter
if wait_for s8 "saved v100s2.json" && [ -s "$tmp/v100s2.json" ]; then ok; else bad "no v100s2.json written"; fi
python3 - "$tmp/v100s.json" "$tmp/v100s2.json" <<'PY' && ok || bad "v100s*.json: the precisions saved (above)"
import json, sys
a, b = (json.load(open(f))["serve"] for f in sys.argv[1:3])
# named fp16 is saved; the KV cache, never touched, stays out
assert a.get("weights") == "fp16" and "kv_cache" not in a, a
# back to the default: neither key, so the file reads back as the default
assert "weights" not in b and "kv_cache" not in b, b
PY
keys s8 q q
# A mixed cluster: the default runs as bf16 on the A100 and as fp16 on the
# T4 (Turing, 7.5); offline, the plans rank by throughput whatever the
# workspace's objective (its default, cost, here).
printf '%s' '{"cluster":{"pools":[{"name":"t4","gpu":"T4","nodes":1},{"name":"a100","gpu":"A100-80GB","nodes":1}]},"model":"llama3.1-8b","workload":{"precision":"fp16"},"serve":{"offline":true,"isl":"512","osl":"128"}}' >"$tmp/mixed.json"
start s9 80 24 "" mixed.json
wait_for s9 " plans" || bad "mixed.json did not start: $(screen s9 | tail -2)"
keys s9 7
wait_serving s9 || bad "no serving plans on the mixed cluster: $(screen s9 | tail -1)"
wait_for s9 " Weights    bf16, fp16 on Turing" && wait_for s9 " KV cache   bf16, fp16 on Turing" && ok ||
	bad "the Serve view does not say fp16 runs on the T4: $(screen s9 | sed -n 10,11p)"
wait_for s9 " Objective  throughput (offline)" && wait_for s9 "Serving plans, fastest first" && ok ||
	bad "offline plans not said to rank by throughput: $(screen s9 | sed -n 12,18p)"
keys s9 q q

# ---- 5. narrow screens: the plans table drops columns, never overlaps
# Below 80 columns the TUI asks first ('i' ignores the warning). The Serve
# view's table keeps # and PLAN (at least 12 columns) and drops, in turn,
# REQ/S, TOK/S, GPUS, $/MTOK, TPOT99, TTFT99 (ui/tui_serve.c plan_cols):
# at 60 columns (58 inside) the eight take 4 + 55 = 59 > 58 - 12, so REQ/S
# and TOK/S go (59 - 14 = 45, PLAN 13); at 40 (38 inside) GPUS, $/MTOK
# and TPOT99 go too (45 - 5 - 7 - 8 = 25, PLAN 13). Every header word
# ends in the same column as its cell in plan 1's row (right-aligned
# numbers; FIT and PLAN left-aligned start together), and the screens are
# the goldens tests/golden/serve-{40,50,60}x24.txt.
G=tests/golden
i=0
for W in 40 50 60; do
	start n$W $W 24
done
for W in 40 50 60; do
	wait_for n$W "Terminal too small" || bad "no size warning at $W columns"
	keys n$W i
	sleep 0.3
	keys n$W 7
done
for W in 40 50 60; do
	wait_serving n$W || bad "no serving plans at $W columns: $(screen n$W | tail -1)"
	f=$G/serve-${W}x24.txt
	screen n$W >"$tmp/n$W.txt"
	n=0
	while [ "${UPDATE_GOLDEN:-}" != 1 ] && ! cmp -s "$f" "$tmp/n$W.txt" && [ $n -lt 100 ]; do
		sleep 0.1
		screen n$W >"$tmp/n$W.txt"
		n=$((n + 1))
	done
	if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
		sleep 2
		screen n$W >"$f"
		echo "updated $f"
		ok
	elif cmp -s "$f" "$tmp/n$W.txt"; then
		ok
	else
		bad "screen serve-${W}x24 differs from $f:"
		diff "$f" "$tmp/n$W.txt" | head -10
	fi
	python3 - "$tmp/n$W.txt" "$W" <<'PY' && ok || bad "serve table at $W columns misaligned (above)"
import sys, unicodedata
def cols(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
width = int(sys.argv[2])
assert all(cols(l) <= width for l in lines), "a line wider than the screen"
h = next(i for i, l in enumerate(lines) if l.startswith("   # PLAN"))
head, row = lines[h], lines[h + 1]
assert row.startswith("   1 "), row
words = head.split()
assert words[:2] == ["#", "PLAN"] and words[-1] == "FIT", head
want = {40: ["$/H", "TTFT99"], 50: ["$/H", "TTFT99", "TPOT99"],
        60: ["GPUS", "$/H", "$/MTOK", "TTFT99", "TPOT99"]}[width]
assert words[2:-1] == want, (width, words)
cells = row.rstrip().rsplit(None, len(want) + 1)
# right-aligned cells end where their header word ends
end = 0
for w in words[2:-1]:
    end = head.index(w, end) + len(w)
    assert row[end - 1] != " " and (end == len(row) or row[end] == " "), (w, head, row)
assert row.index(cells[-1], end) == head.index("FIT"), (head, row)
PY
done
echo "test_serve_tui: $pass passed, $fail failed"
[ $fail = 0 ]
