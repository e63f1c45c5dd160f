"""launch_audit_check.py — checks one `hetplan launch --plan P.json --rank R
--format F` output against the frameworks' own lists, Megatron's own
assertions and hand arithmetic from the plan JSON (test_launch_audit.sh).

    python3 tests/launch_audit_check.py PLAN.json RANK FORMAT OUT ERR RC SEQ GPN

Prints one "OK what" or "FAIL what" line per check. The rules and where
Megatron-LM asserts them (megatron/training/arguments.py, and
megatron/core/transformer/transformer_config.py, at the commit of
tests/data/megatron_args.txt):
  R1 --overlap-param-gather needs --overlap-grad-reduce and the distributed
     optimizer or Megatron-FSDP (arguments.py L1024-1029)
  R2 --tp-comm-overlap needs --sequence-parallel (L1441-1442)
  R3 --use-megatron-fsdp needs --ckpt-format fsdp_dtensor (L1169-1170) and
     CUDA_DEVICE_MAX_CONNECTIONS other than 1 (L1166-1167)
  R4 at most one of --num-layers-per-virtual-pipeline-stage,
     --num-virtual-stages-per-pipeline-rank, --pipeline-model-parallel-layout
     (L927-939)
  R5 --num-layers-per-virtual-pipeline-stage: no first/last flags, layers
     (+1 per --account-for-*) divisible by PP and the stage's by it (L954-975)
  R6 no layout, VP or first/last flag: layers (+ account) divisible by PP
     (L985-998)
  R7 first/last flags: each divisible by VP, the middle stages' layers by
     the middle PP and then by VP; not with --account-for-*
     (transformer_config.py L2229-2360)
  R8 a layout: E first, L last, one t per layer, stages a multiple of PP,
     no first/last or --account-for-* flag (transformer_config.py L2242-2258,
     pipeline_parallel_layer_layout.py L40-46 and L94-110)
  R9 --delay-wgrad-compute only beside --overlap-moe-expert-parallel-comm
  R10 --fp8-param-gather needs the distributed optimizer (L1095-1097)
  R11 not --fp16 and --bf16 together (L1201)
  R12 interleaving needs PP > 1 (L1000-1009)
  R13 global batch a multiple of micro-batch x DP (the micro-batch
     calculator), DP = world / (TP x PP x CP)
"""
import json, math, re, shlex, subprocess, sys, tomllib

plan_file, rank, fmt, out_file, err_file, rc, seq, gpn = sys.argv[1:9]
rank, rc, seq, gpn = int(rank), int(rc), int(seq), int(gpn)
doc = json.load(open(plan_file))
P = doc["plans"][rank - 1]
text = open(out_file).read()
err = open(err_file).read()
tag = "%s r%d %s" % (plan_file.split("/")[-1], rank, fmt)


def say(cond, what):
    print(("OK " if cond else "FAIL ") + tag + ": " + what)


def lst(path):
    return {l.split()[0] for l in open(path) if l.strip() and not l.startswith("#")}


MEG = lst("tests/data/megatron_args.txt")
CHOICES = {l.split()[0]: l.split()[1:] for l in open("tests/data/megatron_choices.txt")
           if l.strip() and not l.startswith("#")}
DSK = lst("tests/data/deepspeed_keys.txt")
TTK = lst("tests/data/torchtitan_keys.txt")
HFK = lst("tests/data/hf_training_args.txt")

# hand arithmetic from the plan JSON alone
world = sum(P["gpus_used"].values())
groups = P["replicas"]
hetero = len(groups) > 1 or len({s["gpu"] for g in groups for s in g["stages"]}) > 1
samples = math.ceil(doc["tokens"] / seq)          # sequences to train
steps = math.ceil(samples / P["gbs"])             # whole optimizer steps

if rc != 0:
    # a refusal names its reason and the formats (or frameworks) that work
    say(rc in (2, 3), "refused with exit %d" % rc)
    say("formats that run it" in err or "launch writes configs for" in err,
        "refusal names what would run it: " + err.strip()[:160])
    sys.exit(0)


def megatron_pieces():
    if fmt == "slurm":
        return [m.group(1) for m in re.finditer(r"\nARGS=\(\n(.*?)\n\)\n", text, re.S)]
    body = [l for l in text.splitlines() if not l.startswith("#")]
    return [p for p in "\n".join(body).split("\n\n") if p.strip()]


def args_of(piece):
    toks = shlex.split(" ".join(l.rstrip("\\").strip() for l in piece.splitlines()))
    a = {}
    for i, t in enumerate(toks):
        if t.startswith("--"):
            nxt = toks[i + 1] if i + 1 < len(toks) and not toks[i + 1].startswith("--") else True
            a[t] = nxt
    return a


def megatron_rules(a, conns):
    g = lambda k: a.get(k)
    L = int(g("--num-layers"))
    tp, pp = int(g("--tensor-model-parallel-size")), int(g("--pipeline-model-parallel-size"))
    cp = int(g("--context-parallel-size") or 1)
    unknown = [k for k in a if k not in MEG]
    say(not unknown, "flags in megatron_args.txt %s" % unknown)
    bad = [(k, a[k]) for k in a if k in CHOICES and a[k] not in CHOICES[k]]
    say(not bad, "enum values in megatron_choices.txt %s" % bad)
    if "--overlap-param-gather" in a:
        say("--overlap-grad-reduce" in a and ("--use-distributed-optimizer" in a or
                                              "--use-megatron-fsdp" in a), "R1")
    if "--tp-comm-overlap" in a:
        say("--sequence-parallel" in a, "R2")
    if "--use-megatron-fsdp" in a:
        say(g("--ckpt-format") == "fsdp_dtensor" and conns != "1", "R3")
    vflags = [k for k in ("--num-layers-per-virtual-pipeline-stage",
                          "--num-virtual-stages-per-pipeline-rank",
                          "--pipeline-model-parallel-layout") if k in a]
    say(len(vflags) <= 1, "R4 %s" % vflags)
    acct = ("--account-for-embedding-in-pipeline-split" in a) + \
        ("--account-for-loss-in-pipeline-split" in a)
    first = int(g("--decoder-first-pipeline-num-layers") or 0)
    last = int(g("--decoder-last-pipeline-num-layers") or 0)
    vp = 1
    if "--num-layers-per-virtual-pipeline-stage" in a:
        per = int(g("--num-layers-per-virtual-pipeline-stage"))
        say(not first and not last and (L + acct) % pp == 0 and ((L + acct) // pp) % per == 0,
            "R5 layers %d+%d, PP %d, %d a virtual stage" % (L, acct, pp, per))
        vp = (L + acct) // pp // per
    elif "--pipeline-model-parallel-layout" in a:
        lay = g("--pipeline-model-parallel-layout")
        parts = lay.split("|")
        say(lay.startswith("E") and lay.endswith("L") and lay.count("t") == L and
            len(parts) % pp == 0 and not first and not last and not acct,
            "R8 layout %s for %d layers, PP %d" % (lay[:40], L, pp))
        vp = len(parts) // pp
    elif first or last:
        vp = int(g("--num-virtual-stages-per-pipeline-rank") or 1)
        mid_pp = pp - (first > 0) - (last > 0)
        mid = L - first - last
        ok = first % vp == 0 and last % vp == 0 and not acct and (bool(mid) == bool(mid_pp))
        if mid_pp:
            ok = ok and mid % mid_pp == 0 and (mid // mid_pp) % vp == 0
        say(ok, "R7 first %d last %d of %d, PP %d, VP %d" % (first, last, L, pp, vp))
    else:
        say((L + acct) % pp == 0, "R6 %d layers over PP %d" % (L, pp))
    if vp > 1:
        say(pp > 1, "R12")
    if "--delay-wgrad-compute" in a:
        say("--overlap-moe-expert-parallel-comm" in a, "R9")
    if "--fp8-param-gather" in a:
        say("--use-distributed-optimizer" in a or "--use-megatron-fsdp" in a, "R10")
    say(not ("--fp16" in a and "--bf16" in a), "R11")
    return tp, pp, cp, vp


if fmt in ("megatron", "slurm"):
    pieces = megatron_pieces()
    # a plan over pools that Megatron-Core runs as one job (one layout, one
    # batch share: docs/launch-hetero.md) is one job, not pieces
    if "# One job over" in text and "# Piece:" not in text:
        hetero = False
    say(len(pieces) == (len(groups) if hetero else 1), "%d pieces" % len(pieces))
    conns = re.findall(r"export CUDA_DEVICE_MAX_CONNECTIONS=(\d+)", text) or ["unset"]
    tot_world = tot_gbs = 0
    for i, pc in enumerate(pieces):
        a = args_of(pc)
        tp, pp, cp, vp = megatron_rules(a, conns[min(i, len(conns) - 1)])
        mbs, gbs = int(a["--micro-batch-size"]), int(a["--global-batch-size"])
        grp = groups[i] if hetero else None
        dp = grp["count"] if hetero else sum(g["count"] for g in groups)
        w = tp * pp * cp * dp
        tot_world += w
        tot_gbs += gbs
        say(gbs % (mbs * dp) == 0, "R13 gbs %d, mbs %d x DP %d" % (gbs, mbs, dp))
        say(mbs == P["mbs"], "micro-batch %d = plan's %d" % (mbs, P["mbs"]))
        say(int(a["--train-samples"]) == steps * gbs,
            "--train-samples %s = %d steps x %d" % (a["--train-samples"], steps, gbs))
        if not hetero:
            st = groups[0]["stages"]
            say(tp == st[0]["tp"] and pp == len(st), "TP %d PP %d as the plan" % (tp, pp))
            say(gbs == P["gbs"], "global batch %d = plan's %d" % (gbs, P["gbs"]))
            sched = P["schedule"]
            want_vp = int(sched.split(":")[1]) if sched.startswith("interleaved") else 1
            say(vp == want_vp, "VP %d = the plan's %s" % (vp, sched))
    say(tot_world == world, "GPUs %d = plan's %d" % (tot_world, world))
    say(tot_gbs == P["gbs"], "batches add up to %d" % P["gbs"])
    if fmt == "slurm":
        for i, sc in enumerate(re.split(r"(?=#!/bin/bash\n)", text)[1:]):
            ok = subprocess.run(["bash", "-n"], input=sc, text=True).returncode == 0
            say(ok, "piece %d: bash -n" % i)
            say("MASTER_ADDR=$(scontrol" in sc and "MASTER_PORT=" in sc, "MASTER_ADDR/PORT set")
            say("# Environment: Megatron-LM at commit" in sc, "names its environment")
            say(re.search(r"# NCCL on pool \S+: transport \S+", sc) is not None, "NCCL line")
elif fmt == "deepspeed":
    d = json.loads(text)
    cfgs = [p["config"] for p in d["pieces"]] if hetero else [d]
    keys = set()

    def walk(o):
        if isinstance(o, dict):
            for k, v in o.items():
                keys.add(k)
                walk(v)
    for c in cfgs:
        walk(c)
    say(keys <= DSK, "DeepSpeed keys %s" % sorted(keys - DSK))
    for i, c in enumerate(cfgs):
        grp = groups[i] if hetero else None
        dp = grp["count"] if hetero else sum(g["count"] for g in groups)
        say(c["train_batch_size"] == c["train_micro_batch_size_per_gpu"] *
            c["gradient_accumulation_steps"] * dp, "train_batch_size = mbs x GAS x DP %d" % dp)
    say(sum(c["train_batch_size"] for c in cfgs) == P["gbs"], "batches add up to %d" % P["gbs"])
elif fmt == "torchtitan":
    chunks = re.split(r"\n# ---- piece \d+ of \d+: save from here as its own file ----\n", text)
    docs = [tomllib.loads(ch) for ch in (chunks[1:] if hetero else chunks)]
    tot_world = 0
    for t in docs:
        ks = {"%s.%s" % (s, k) for s, v in t.items() for k in v}
        say(ks <= TTK, "torchtitan keys %s" % sorted(ks - TTK))
        say(t["training"]["steps"] == steps, "steps %d = %d" % (t["training"]["steps"], steps))
        par = t["parallelism"]
        tot_world += (par["data_parallel_replicate_degree"] * par["data_parallel_shard_degree"] *
                      par["tensor_parallel_degree"] * par["pipeline_parallel_degree"] *
                      par["context_parallel_degree"])
    say(tot_world == world, "GPUs %d = plan's %d" % (tot_world, world))
elif fmt == "hf-trainer":
    ok = subprocess.run(["bash", "-n"], input=text, text=True).returncode == 0
    say(ok, "bash -n")
    a = args_of(re.search(r"\nARGS=\(\n(.*?)\n\)\n", text, re.S).group(1))
    say({k[2:] for k in a} <= HFK, "TrainingArguments fields")
    say(int(a["--max_steps"]) == steps, "max_steps %s = %d" % (a["--max_steps"], steps))
    ga = int(a["--gradient_accumulation_steps"])
    say(int(a["--per_device_train_batch_size"]) * ga * world == P["gbs"],
        "mbs x GAS %d x world %d = %d" % (ga, world, P["gbs"]))
    say("# Environment: PyTorch (torchrun) and transformers" in text, "names its environment")
    say(re.search(r"# NCCL on pool \S+: transport \S+", text) is not None, "NCCL line")
    nodes = int(re.search(r"#SBATCH --nodes=(\d+)", text).group(1))
    say(nodes == math.ceil(world / gpn), "nodes %d = ceil(%d / %d)" % (nodes, world, gpn))
