"""launch_hetero_check.py — checks a Slurm heterogeneous job script written
by `hetplan launch --format slurm` (tests/test_launch_hetero.sh).

    python3 tests/launch_hetero_check.py SCRIPT 'POOL:NODES:GPN ...' NNODES RANKS

POOL:NODES:GPN are the components the test expects, in order, from its own
hand calculation; NNODES the nodes of the whole job; RANKS the expected
pool of each block of ranks as "first-last:pool,..." (hand calculation of
Megatron-Core's rank = tp + TP x (cp + CP x (dp + DP x stage))).

Checks, one "OK what" / "FAIL what" line each:
  - the #SBATCH block against sbatch's documented syntax: "--option=value"
    or a bare "--exclusive", options from sbatch(1) (slurm.schedmd.com/
    sbatch.html: --job-name, --partition, --nodes, --ntasks-per-node,
    --gpus-per-node, --exclusive), components separated by a line
    "#SBATCH hetjob" (slurm.schedmd.com/heterogeneous_jobs.html,
    "Submitting Jobs"), --job-name in the first component only (it
    propagates: the same page's list of propagated options);
  - each component's partition, nodes and GPUs per node as expected;
  - the script runs (bash, PATH holding stubs for scontrol, srun and
    torchrun): the stub srun splits its arguments at the stand-alone ':'
    (one component each, heterogeneous_jobs.html "Launching Applications"),
    checks --het-group=K in order, and runs each component's command once
    per node with SLURM_PROCID numbered component by component (the same
    page: one MPI_COMM_WORLD, non-overlapping task ids); the stub torchrun
    records --nnodes, --node-rank and --nproc-per-node. The global ranks
    are then torchrun's: node r's workers start at the sum of the lower
    nodes' --nproc-per-node (torch/distributed/elastic/agent/server/api.py,
    _assign_worker_ranks), and must land on the expected pools.
"""
import os, re, stat, subprocess, sys, tempfile

script, comps, nnodes, ranks = sys.argv[1], sys.argv[2].split(), int(sys.argv[3]), sys.argv[4]
text = open(script).read()
ok_all = True


def say(cond, what):
    global ok_all
    ok_all &= bool(cond)
    print(("OK " if cond else "FAIL ") + os.path.basename(script) + ": " + what)


SBATCH = {"--job-name", "--partition", "--nodes", "--ntasks-per-node", "--gpus-per-node",
          "--exclusive"}
lines = text.splitlines()
say(lines[0] == "#!/bin/bash", "first line #!/bin/bash")
block = []
for l in lines[1:]:
    if not l.startswith("#SBATCH"):
        break
    block.append(l[len("#SBATCH "):])
got = [[]]
for d in block:
    if d == "hetjob":
        got.append([])
        continue
    m = re.fullmatch(r"(--[a-z-]+)(?:=([A-Za-z0-9._-]+))?", d)
    say(m is not None and m.group(1) in SBATCH and (m.group(2) is not None) != (m.group(1) == "--exclusive"),
        "#SBATCH %s in sbatch's syntax" % d)
    if m:
        got[-1].append((m.group(1), m.group(2)))
# no #SBATCH after the first command line (sbatch stops reading there)
say(not any(l.startswith("#SBATCH") for l in lines[1 + len(block):]), "#SBATCH lines all at the top")
say(len(got) == len(comps), "%d components, want %d" % (len(got), len(comps)))
for i, (g, want) in enumerate(zip(got, comps)):
    pool, nodes, gpn = want.split(":")
    d = dict(g)
    say(("--job-name" in d) == (i == 0), "component %d: --job-name only in the first" % i)
    say(d.get("--partition") == pool and d.get("--nodes") == nodes and
        d.get("--gpus-per-node") == gpn and d.get("--ntasks-per-node") == "1" and "--exclusive" in d,
        "component %d: %s, want partition %s nodes %s gpus %s" % (i, g, pool, nodes, gpn))

# run it with stubs
tmp = tempfile.mkdtemp()
log = os.path.join(tmp, "torchrun.log")
stubs = {
    "scontrol": "#!/bin/sh\necho node-a\n",
    "torchrun": "#!/bin/sh\necho \"$@\" >>\"$TORCHRUN_LOG\"\n",
    "srun": """#!/usr/bin/env python3
import os, subprocess, sys
comps, cur = [], []
for a in sys.argv[1:]:
    if a == ":":
        comps.append(cur); cur = []
    else:
        cur.append(a)
comps.append(cur)
nodes = [int(n) for n in os.environ["HET_NODES"].split()]
assert len(comps) == len(nodes), ("components", len(comps), nodes)
procid = 0
for k, c in enumerate(comps):
    # one task on each of the component's nodes, said outright
    assert c[:3] == ["--het-group=%d" % k, "--nodes=%d" % nodes[k], "--ntasks-per-node=1"], c[:3]
    for j in range(nodes[k]):
        env = dict(os.environ, SLURM_PROCID=str(procid))
        procid += 1
        r = subprocess.run(c[3:], env=env)
        assert r.returncode == 0, r.returncode
""",
}
for n, body in stubs.items():
    p = os.path.join(tmp, n)
    open(p, "w").write(body)
    os.chmod(p, stat.S_IRWXU)
env = dict(os.environ, PATH=tmp + ":" + os.environ["PATH"], TORCHRUN_LOG=log,
           HET_NODES=" ".join(c.split(":")[1] for c in comps), SLURM_JOB_ID="1",
           SLURM_JOB_NODELIST_HET_GROUP_0="node-a", MEGATRON="/m")
r = subprocess.run(["bash", script, "--data-path", "x"], env=env, cwd=tmp,
                   capture_output=True, text=True)
say(r.returncode == 0, "runs under stub srun/torchrun: %s" % r.stderr.strip()[-300:])
say(not [f for f in os.listdir(tmp) if "PWNED" in f] and not os.path.exists("PWNED"),
    "no name ran as a command")
calls = [l.split() for l in open(log)] if os.path.exists(log) else []
say(len(calls) == nnodes, "%d torchrun calls, want %d" % (len(calls), nnodes))
placed, base = [], 0
for c in sorted(calls, key=lambda c: int(c[c.index("--node-rank") + 1])):
    say(int(c[c.index("--nnodes") + 1]) == nnodes, "--nnodes %d" % nnodes)
    nproc = int(c[c.index("--nproc-per-node") + 1])
    placed.append((base, base + nproc - 1))
    base += nproc
    say(c[-2:] == ["--data-path", "x"] and "/m/pretrain_gpt.py" in c, "the user's arguments reach pretrain_gpt.py")
# node r belongs to the component whose nodes hold it, in order
node_pool = [c.split(":")[0] for c in comps for _ in range(int(c.split(":")[1]))]
rank_pool = {}
for r_, (lo, hi) in enumerate(placed):
    for k in range(lo, hi + 1):
        rank_pool[k] = node_pool[r_] if r_ < len(node_pool) else None
for item in ranks.split(","):
    span, pool = item.split(":")
    lo, hi = (int(x) for x in span.split("-"))
    say(all(rank_pool.get(k) == pool for k in range(lo, hi + 1)),
        "ranks %d-%d on %s (got %s)" % (lo, hi, pool, sorted({rank_pool.get(k) for k in range(lo, hi + 1)}, key=str)))
say(len(rank_pool) == max(int(i.split(":")[0].split("-")[1]) for i in ranks.split(",")) + 1,
    "world %d" % len(rank_pool))
sys.exit(0)
