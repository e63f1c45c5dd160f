#!/bin/sh
# test_consistency_views.sh — one plan, the same in every view a user
# reads it in, and hostile names refused before any view prints them.
#   - launch configs against the plan JSON they came from: Megatron-LM's
#     TP, PP, micro and global batch, EP, CP, virtual stages (layers per
#     chunk x chunks = the stage's layers), recomputation, uneven first and
#     last stages, bf16 and the distributed optimizer; DeepSpeed's batch
#     identity (train_batch_size = micro x accumulation x DP, DeepSpeed's
#     own rule) and ZeRO stage; torchtitan's degrees and batch (global =
#     local x DP x accumulation, torchtitan's train.py);
#   - `report --rank N`: the summary names the plan it details as the
#     chosen plan, not the best, in Markdown and HTML; its figures are
#     the JSON's plan N;
#   - a workspace report with a serving part: every Markdown heading
#     starts a block (a blank line before it);
#   - pool names with a bidirectional override or isolate (U+202E,
#     U+2066) are refused where they are read, naming the field;
#   - `estimate`'s first line names a plan's interleaved schedule, CP and
#     EP (a plan read from a file showed none of them);
#   - `estimate` of a plan with an unpriced pool names that pool; `--on`
#     with an unknown pool lists the pools and shows the argument through
#     the terminal sink.
# Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

python3 - "$H" "$T" <<'PY' > "$T/py.out"
import json, shlex, subprocess, sys
H, T = sys.argv[1], sys.argv[2]

def out(kind, msg):
    print(kind, msg)

def check(cond, msg):
    out("OK" if cond else "FAIL", msg)

def run(args, ok=(0,)):
    p = subprocess.run([H] + args, capture_output=True, text=True)
    if p.returncode not in ok:
        out("FAIL", f"{' '.join(args)} -> exit {p.returncode}: {p.stderr.strip()[:300]}")
        return None
    return p.stdout

def megatron(text):
    toks = shlex.split(" ".join(l.rstrip("\\").strip() for l in text.splitlines()
                                if l.strip() and not l.lstrip().startswith("#")))
    d, i = {}, 0
    while i < len(toks):
        if toks[i].startswith("--"):
            if i + 1 < len(toks) and not toks[i + 1].startswith("--"):
                d[toks[i]] = toks[i + 1]
                i += 2
                continue
            d[toks[i]] = ""
        i += 1
    return d

def toml(text):
    # the flat key = value lines of hetplan's torchtitan TOML, by section
    d, sec = {}, ""
    for l in text.splitlines():
        l = l.strip()
        if l.startswith("[") and l.endswith("]"):
            sec = l[1:-1]
        elif "=" in l and not l.startswith("#"):
            k, v = (x.strip() for x in l.split("=", 1))
            d[sec + "." + k] = v.strip('"')
    return d

# plans of one GPU type: every launcher can take them whole
CASES = [
    ("llama3.1-70b", ["--pool", "4x8xH100-SXM,name=h", "-m", "llama3.1-70b"],
     ["--gbs", "256", "--top", "16"]),
    ("mixtral-8x22b", ["--pool", "8x8xH100-SXM,name=h", "-m", "mixtral-8x22b"],
     ["--gbs", "512", "--top", "8"]),
    ("llama2-13b", ["--pool", "4x8xL40S,name=l", "-m", "llama2-13b"],
     ["--gbs", "256", "--top", "8"]),
]
for name, cl, pa in CASES:
    s = run(["plan"] + cl + pa + ["--format", "json"])
    if s is None:
        continue
    pj = f"{T}/{name}.json"
    open(pj, "w").write(s)
    for p in json.loads(s)["plans"]:
        if len(p["replicas"]) != 1:
            continue
        tag = f"{name} plan {p['rank']} ({p['label']})"
        st = p["replicas"][0]["stages"]
        tp, pp, n = st[0]["tp"], len(st), p["replicas"][0]["count"]
        dp = n
        sizes = [x["last_layer"] - x["first_layer"] + 1 for x in st]
        if p["rank"] <= 4:
            # estimate's first line names what the plan sets beyond 1F1B,
            # CP 1 and EP 1 (it said none of it)
            et = run(["estimate"] + cl + ["--plan", pj, "--rank", str(p["rank"])], ok=(0, 4))
            if et is not None:
                head = et.splitlines()[0]
                sch = p["schedule"]
                want = []
                if sch.startswith("interleaved:"):
                    want.append(f"interleaved ({sch.split(':')[1]} chunks per stage)")
                if p["cp"] > 1:
                    want.append(f"CP {p['cp']}")
                if p["ep"] > 1:
                    want.append(f"EP {p['ep']}")
                check(all(w in head for w in want) and ("interleaved" in head) == bool(
                    sch.startswith("interleaved")), f"{tag}: estimate's header '{head}' lacks {want}")
        base = ["launch"] + cl + ["--plan", pj, "--rank", str(p["rank"]), "--force"]
        f = run(base)
        if f is not None:
            f = megatron(f)
            want = {"--tensor-model-parallel-size": str(tp),
                    "--pipeline-model-parallel-size": str(pp),
                    "--micro-batch-size": str(p["mbs"]), "--global-batch-size": str(p["gbs"])}
            if p["ep"] > 1:
                want["--expert-model-parallel-size"] = str(p["ep"])
            if p["cp"] > 1:
                want["--context-parallel-size"] = str(p["cp"])
            for k, v in want.items():
                check(f.get(k) == v, f"{tag}: megatron {k} {f.get(k)}, plan {v}")
            sch = p["schedule"]
            if sch.startswith("interleaved"):
                v = int(sch.split(":")[1])
                got = f.get("--num-layers-per-virtual-pipeline-stage")
                check(got is not None and int(got) * v == sizes[0],
                      f"{tag}: {sch}, {sizes[0]} layers a stage, VPP flag {got}")
            else:
                check("--num-layers-per-virtual-pipeline-stage" not in f,
                      f"{tag}: 1f1b with a virtual-stage flag")
            g = f.get("--recompute-granularity")
            check(g is None if p["recompute"] == "none" else g == p["recompute"]
                  if p["recompute"] in ("full", "selective") else True,
                  f"{tag}: recompute {p['recompute']}, --recompute-granularity {g}")
            if pp > 1 and len(set(sizes)) > 1:
                fl = f.get("--decoder-first-pipeline-num-layers")
                ll = f.get("--decoder-last-pipeline-num-layers")
                # Megatron splits what first and last leave evenly over
                # the middle stages (arguments.py, num_layers checks)
                first = int(fl) if fl else None
                last = int(ll) if ll else None
                mid = sizes[(1 if first else 0):(len(sizes) - 1 if last else len(sizes))]
                check((first is None or first == sizes[0]) and (last is None or last == sizes[-1])
                      and (first or last) and len(set(mid)) <= 1,
                      f"{tag}: stages of {sizes} layers, first {fl} last {ll}")
            if p["precision"] == "bf16":
                check("--bf16" in f, f"{tag}: bf16 plan without --bf16")
            if p["zero"] >= 1:
                check("--use-distributed-optimizer" in f or "--use-megatron-fsdp" in f,
                      f"{tag}: ZeRO-{p['zero']} without a sharded optimizer")
        if "deepspeed" in p["runs_on"]:
            ds = run(base + ["--format", "deepspeed"])
            if ds is not None:
                ds = json.loads(ds)
                tb, mb, ga = (ds["train_batch_size"], ds["train_micro_batch_size_per_gpu"],
                              ds["gradient_accumulation_steps"])
                check(tb == p["gbs"] and mb == p["mbs"] and tb == mb * ga * dp,
                      f"{tag}: deepspeed batch {tb} = {mb} x {ga} x DP {dp}, plan gbs {p['gbs']}")
                check(ds["zero_optimization"]["stage"] == p["zero"],
                      f"{tag}: deepspeed ZeRO {ds['zero_optimization']['stage']}, plan {p['zero']}")
        if "torchtitan" in p["runs_on"]:
            tt = run(base + ["--format", "torchtitan"])
            if tt is not None:
                tt = toml(tt)
                dpd = int(tt["parallelism.data_parallel_replicate_degree"]) * \
                    int(tt["parallelism.data_parallel_shard_degree"])
                gb, lb = int(tt["training.global_batch_size"]), int(tt["training.local_batch_size"])
                check(dpd == dp and gb == p["gbs"] and gb % (lb * dpd) == 0,
                      f"{tag}: torchtitan global {gb}, local {lb}, DP {dpd}; plan gbs {p['gbs']}, DP {dp}")
                check(tt["parallelism.tensor_parallel_degree"] == str(tp) and
                      tt["parallelism.pipeline_parallel_degree"] == str(pp),
                      f"{tag}: torchtitan TP/PP {tt['parallelism.tensor_parallel_degree']}/"
                      f"{tt['parallelism.pipeline_parallel_degree']}, plan {tp}/{pp}")
                mbs = int(tt.get("parallelism.pipeline_parallel_microbatch_size", lb)) if pp > 1 else lb
                check(mbs == p["mbs"], f"{tag}: torchtitan micro-batch {mbs}, plan {p['mbs']}")

# report --rank 3 on a three-pool MoE workspace
ws = f"{T}/ws.json"
json.dump({"version": 1,
           "cluster": {"name": "mix", "pools": [
               {"name": "h100", "gpu": "H100-SXM", "nodes": 2},
               {"name": "a100", "gpu": "A100-40GB", "nodes": 4},
               {"name": "l40s", "gpu": "L40S", "nodes": 2}]},
           "model": "mixtral-8x7b",
           "workload": {"gbs": 256, "tokens": 1e11, "top": 4},
           "serve": {"isl": "1500", "osl": "300", "rate": 4}}, open(ws, "w"))
for rank in (1, 3):
    outs = {}
    for fmt in ("md", "html", "json"):
        if run(["report", ws, "-o", f"{T}/r{rank}.{fmt}", "--rank", str(rank)]) is not None:
            outs[fmt] = open(f"{T}/r{rank}.{fmt}").read()
    if len(outs) < 3:
        continue
    d = json.loads(outs["json"])
    p = d["plans"][rank - 1]
    word = "Best plan" if rank == 1 else "Chosen plan"
    other = "Chosen plan" if rank == 1 else "Best plan"
    row = next((l for l in outs["md"].splitlines() if l.startswith("| " + word + " | ")), "")
    check(p["list_label"] in row and f"(rank {rank} of" in row,
          f"report --rank {rank}: Markdown summary row '{row}' for plan '{p['list_label']}'")
    check(("| " + other + " | ") not in outs["md"],
          f"report --rank {rank}: Markdown summary says '{other}'")
    check(f'class="k">{word}<' in outs["html"] and f'class="k">{other}<' not in outs["html"],
          f"report --rank {rank}: HTML hero card is not '{word}'")
    # the summary's throughput is plan N's, to the 0.1K it prints
    tput = next((l for l in outs["md"].splitlines() if l.startswith("| Throughput |")), "")
    want = f"{p['tokens_per_s'] / 1e3:.1f}K tokens/s"
    check(want in tput, f"report --rank {rank}: '{tput}' lacks {want}")
    if rank == 1:
        lines = outs["md"].splitlines()
        check("## Serving" in outs["md"], "report: workspace with serve has no Serving part")
        fence = False
        for i, l in enumerate(lines):
            if l.startswith("```"):
                fence = not fence
            elif l.startswith("#") and i > 0 and not fence:
                check(lines[i - 1] == "", f"report: heading '{l}' follows '{lines[i - 1]}' "
                      "with no blank line")
PY
report_checks "$T/py.out"

# Bidi overrides and isolates in a name (UAX #9 explicit formatting
# characters, CVE-2021-42574): refused where read, the field named.
for cp in '\342\200\256:U+202E' '\342\201\246:U+2066'; do
	c=$(printf "${cp%%:*}")
	printf '{"pools": [{"gpu": "H100-SXM", "nodes": 1, "name": "a%sb"}]}' "$c" > "$T/bidi.json"
	expect 3 "pools[0].name: expected printable UTF-8 text" \
		$H plan -c "$T/bidi.json" -m llama3.1-8b --gbs 64
	grep -qF "<${cp#*:}>" "$T/err" && ok || bad "bidi ${cp#*:}: not shown as <${cp#*:}>: $(cat "$T/err")"
	expect 2 "--pool" $H plan --pool "1x8xH100-SXM,name=a${c}b" -m llama3.1-8b --gbs 64
done
# A right-to-left mark inside a name is text (UAX #9: a mark, not an override)
printf '{"pools": [{"gpu": "H100-SXM", "nodes": 1, "name": "a\342\200\217b"}]}' > "$T/rlm.json"
expect 0 "" $H plan -c "$T/rlm.json" -m llama3.1-8b --gbs 64 --top 1

# An unpriced pool is named (RTX-4090: no offer in the embedded snapshot,
# `hetplan prices --gpu RTX-4090` lists none)
expect 0 "" $H estimate --pool 1x8xRTX-4090,name=r4 -m gpt-1.7b --tp 1 --pp 1 --mbs 1 --gbs 64
grep -q "cost *unknown: no price for pool r4 (RTX-4090)" "$T/out" && ok ||
	bad "estimate: unpriced pool not named: $(grep cost "$T/out")"

# --on: the pools there are; the argument through the terminal sink
expect 3 "estimate --on: no pool named 'x^[[2J' in the cluster (pools: h, a)" \
	$H estimate --pool 1x8xH100-SXM,name=h --pool 1x8xA100-40GB,name=a -m llama3.1-8b \
	--tp 1 --pp 1 --mbs 1 --gbs 64 --on "$(printf 'x\033[2J')"
expect 2 "unknown option '--x^[[2J'" $H plan "$(printf -- '--x\033[2J')"

# plan's legend explains the split suffix with one the table shows (it
# said "113/112 mb" whatever the plans were)
for cl in "--pool 45x8xH100-SXM,name=h100 --pool 8x8xA100-40GB,name=a100 -m llama3.1-70b --gbs 512 --tokens 1T --objective deadline --deadline 30d" \
	"--pool 8x8xH100-SXM,name=h100 --pool 16x8xA100-40GB,name=a100 --pool 8x8xL40S,name=l40s -m llama3.1-70b --gbs 1024 --tokens 2T"; do
	# shellcheck disable=SC2086
	expect 0 "" $H plan $cl --top 3
	ex=$(grep -o '; [0-9]*/[0-9]* mb:' "$T/out" | sed 's/^; //; s/:$//')
	if [ -z "$ex" ]; then
		bad "plan $cl: no split legend"
	elif sed -n '/^  *#  plan/,/^(/p' "$T/out" | grep -q "[0-9*] .* $ex "; then
		ok
	else
		bad "plan $cl: legend '$ex' is in no row: $(head -6 "$T/out")"
	fi
done

# --- a run of a year or more reads in years in the table, as in the
# interface's plan list (hp_fmt_duration and the TUI's TIME column once
# said "3000.6 d" and "8.2 y" for one run). 70B on 16 A100-80GB at batch
# 512 x 8,192 trains its 1.41T tokens in some 2.6e8 s (about 5.5K tokens/s):
# over a year, under a century, so "N.N y" of 365-day years, the JSON's
# time_to_train_s / 31,536,000 to one decimal.
$H plan --pool 2x8xA100-80GB -m llama3.1-70b --gbs 512 >"$T/yr.txt" 2>&1
$H plan --pool 2x8xA100-80GB -m llama3.1-70b --gbs 512 --format json >"$T/yr.json" 2>/dev/null
python3 - "$T/yr.txt" "$T/yr.json" <<'PY' && ok || bad "plan: a multi-year run is not shown in years"
import json, re, sys
txt, d = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
t = d["plans"][0]["time_to_train_s"]
assert 365 * 86400 <= t < 100 * 365 * 86400, t
row = [l for l in txt.splitlines() if re.match(r"\s+1\*? ", l)][0]
assert " %.1f y " % (t / (365 * 86400.0)) in row, row
assert not re.search(r"\d d ", row), row
PY

finish consistency_views
