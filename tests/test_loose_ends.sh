#!/bin/sh
# test_loose_ends.sh — loose ends users hit (round ux50), one section per
# fix, each failing on the binary before it:
#   A. launch: a heterogeneous job's per-pool denials past the buffer are
#      counted ("(and N more pools)"), not dropped without a word.
# Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

# A. One pipeline of 8 stages (TP 8, 4 layers each of Llama 3.1 8B's 32)
#    over 8 one-node V100 pools: a Slurm heterogeneous job. Every pool's
#    stages are denied alike: flash attention needs Ampere (flash-attn 2;
#    V100 is Volta, sm70), so each of the 8 pools is either named in a
#    sentence or counted in "(and N more pools)": sentences + N = 8.
python3 - "$T" <<'PY'
import json, sys
t = sys.argv[1]
pools = [{"name": "pool-%02d-long-name-for-denial" % i, "gpu": "V100-SXM2-32GB", "nodes": 1}
         for i in range(8)]
json.dump({"name": "eight", "pools": pools}, open(t + "/c8.json", "w"))
st = [{"pool": p["name"], "tp": 8, "first_layer": 4 * i, "last_layer": 4 * i + 3}
      for i, p in enumerate(pools)]
json.dump({"mbs": 1, "gbs": 64, "precision": "fp16", "zero": 1,
           "replicas": [{"count": 1, "batch_share": 1, "stages": st}]}, open(t + "/p8.json", "w"))
PY
expect 0 "" $H launch -c "$T/c8.json" -m llama3.1-8b --plan "$T/p8.json" --force --format slurm
grep -q '^#SBATCH hetjob$' "$T/out" && ok || bad "A: not written as one heterogeneous job"
python3 - "$T/err" <<'PY' && ok || bad "A: denials: $(grep -o 'Megatron-Core does not run the stages[^:]*' "$T/err" | head -3)"
import re, sys
text = open(sys.argv[1]).read()
line = next(l for l in text.splitlines() if "does not run the stages on pool" in l)
named = len(re.findall(r"does not run the stages on pool \S+ as planned", line))
m = re.search(r"\(and (\d+) more pools?\)", line)
more = int(m.group(1)) if m else 0
assert named + more == 8, (named, more)
PY

finish test_loose_ends
