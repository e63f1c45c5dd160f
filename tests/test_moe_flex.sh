#!/bin/sh
# test_moe_flex.sh — the MoE token dispatcher a plan gets when it names
# none, and the refusal of a flex dispatcher the hardware cannot run
# (docs/moe.md "Which hardware runs the flex dispatcher").
#
# Independent facts the checks rest on:
#  - DeepEP's requirements: "Hopper (SM90) GPUs, or other architectures
#    with SM90 PTX ISA support", "NVLink with full directed CUDA peer
#    access between every pair of participating intranode GPUs", "RDMA
#    network for internode communication" (deepseek-ai/DeepEP README.md
#    @0297fc80). Its maintainers: Ampere intranode only "with NVLink
#    connections, PCIe not working" (issue 162); "For normal mode, NVLink
#    is a must" (issue 216). HybridEP is built for "9.0 10.0" and moves
#    data with TMA (docs/README_Hybrid-EP.md @41cad944).
#  - The catalog: A100 is Ampere, L40S Ada on PCIe, H100-PCIe Hopper on
#    PCIe (bridged pairs), H100-SXM and B200 on NVSwitch (data/gpus.json).
#  - Megatron-Core takes one --moe-token-dispatcher-type per job, from
#    allgather, alltoall and flex (transformer_config.py @d98e8a64 L891);
#    the flag names are in tests/data/megatron_args.txt (arguments.py at
#    the same commit).
# Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

ARGS=tests/data/megatron_args.txt
for f in --moe-token-dispatcher-type --moe-flex-dispatcher-backend; do
	grep -qx -- "$f" $ARGS && ok || bad "$f is not a Megatron-LM flag in $ARGS"
done

# disp FILE — the dispatcher flags a Megatron launch line holds, one
# "type VALUE" / "backend VALUE" per distinct line, sorted
disp() {
	grep -o -- '--moe-token-dispatcher-type [a-z]*\|--moe-flex-dispatcher-backend [a-z]*' "$1" |
		sed 's/^--moe-token-dispatcher-type/type/; s/^--moe-flex-dispatcher-backend/backend/' |
		sort -u | tr '\n' ' '
}

# 1. One-pool launches with no --moe-dispatch (Mixtral 8x7B, EP 8, so a
#    dispatcher is written): what each GPU can run.
mx="-m mixtral-8x7b --tp 2 --pp 4 --ep 8 --mbs 1 --gbs 256 --force"
for case in "8x8xA100-SXM4-40GB|type alltoall |Ampere" \
	"8x8xL40S|type alltoall |Ada on PCIe" \
	"8x8xH100-PCIe|type alltoall |Hopper on PCIe" \
	"8x8xH100-SXM|backend hybridep type flex |Hopper on NVSwitch" \
	"8x8xB200|backend hybridep type flex |Blackwell on NVSwitch"; do
	pool=${case%%|*} rest=${case#*|} want=${rest%%|*} why=${rest#*|}
	# shellcheck disable=SC2086
	"$H" launch --pool "$pool" $mx > "$T/l.txt" 2>"$T/err"
	rc=$?
	[ $rc = 0 ] || { bad "launch on $pool: exit $rc: $(head -c 300 "$T/err")"; continue; }
	got=$(disp "$T/l.txt")
	[ "$got" = "$want" ] && ok || bad "launch on $pool ($why): dispatcher '$got', want '$want'"
done
# The flex note (HybridEP must be installed) only where flex is written.
# shellcheck disable=SC2086
"$H" launch --pool 8x8xA100-SXM4-40GB $mx > "$T/l.txt" 2>&1
grep -q "HybridEP" "$T/l.txt" && bad "A100 launch still notes HybridEP" || ok

# An H100 pool on TCP sockets (no RDMA) with the EP group over two nodes
# (EP 8 at expert TP 2, expert TP innermost: 16 consecutive ranks on
# 8-GPU nodes): alltoall; the same over RDMA keeps flex.
mx16="-m mixtral-8x7b --tp 2 --pp 1 --ep 8 --mbs 1 --gbs 256 --force"
for case in "transport=tcp|type alltoall " "transport=ib|backend hybridep type flex "; do
	tr_=${case%%|*} want=${case#*|}
	# shellcheck disable=SC2086
	"$H" launch --pool "2x8xH100-SXM,$tr_" $mx16 > "$T/l.txt" 2>"$T/err" ||
		{ bad "launch EP 8 x ETP 2 on $tr_: $(head -c 300 "$T/err")"; continue; }
	got=$(disp "$T/l.txt")
	[ "$got" = "$want" ] && ok || bad "EP 8 x ETP 2 over two H100 nodes, $tr_: '$got', want '$want'"
done

# 2. The mixed cluster of the report: every plan the planner ranks with
#    a piece off H100-SXM writes alltoall on every piece (one flag a
#    job); a plan on H100-SXM alone at EP > 1 writes flex.
C="--pool 4x8xH100-SXM,name=h100 --pool 8x8xA100-SXM4-40GB,name=a100 --pool 4x8xL40S,name=l40s"
# shellcheck disable=SC2086
"$H" plan $C -m mixtral-8x7b --gbs 512 --format json > "$T/P.json" 2>"$T/err" ||
	bad "plan on the mixed cluster: $(head -c 300 "$T/err")"
n=$(python3 -c "import json; print(min(len(json.load(open('$T/P.json'))['plans']), 6))" 2>/dev/null || echo 0)
[ "$n" -ge 2 ] && ok || bad "the mixed cluster's plan lists $n plans"
mixed=0
r=1
while [ "$r" -le "$n" ]; do
	want=$(python3 - "$T/P.json" "$r" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))["plans"][int(sys.argv[2]) - 1]
p = p.get("plan", p)
pools = {s["pool"] for g in p["replicas"] if g.get("count", 1) > 0 for s in g["stages"]}
print("backend hybridep type flex " if pools == {"h100"} and p.get("ep", 1) > 1 else "type alltoall ")
PY
)
	# shellcheck disable=SC2086
	"$H" launch $C -m mixtral-8x7b --plan "$T/P.json" --rank "$r" --force > "$T/l.txt" 2>"$T/err" ||
		bad "launch rank $r: $(head -c 300 "$T/err")"
	got=$(disp "$T/l.txt")
	[ "$got" = "$want" ] && ok || bad "mixed cluster, rank $r: dispatcher '$got', want '$want'"
	[ "$want" = "type alltoall " ] && mixed=$((mixed + 1))
	r=$((r + 1))
done
[ "$mixed" -ge 1 ] && ok || bad "no plan of the mixed cluster had a piece off H100 (nothing checked)"

# 3. Flex named where it cannot run: refused, exit 3 (input), naming the
#    GPU and the way out, from flags, from a plan file and in a launch.
est="-m mixtral-8x7b --tp 2 --pp 4 --ep 8 --mbs 1 --gbs 256"
for pool in 8x8xA100-SXM4-40GB:A100-SXM4-40GB 8x8xL40S:L40S 8x8xH100-PCIe:H100-PCIe; do
	spec=${pool%%:*} gpu=${pool#*:}
	# shellcheck disable=SC2086
	expect 3 "($gpu), which cannot run the flex dispatcher" "$H" estimate --pool "$spec" $est \
		--moe-dispatch flex
	grep -qF -- "--moe-dispatch alltoall runs on it" "$T/err" && ok ||
		bad "flex on $gpu: the message names no way out: $(head -c 300 "$T/err")"
	# shellcheck disable=SC2086
	expect 3 "($gpu), which cannot run the flex dispatcher" "$H" launch --pool "$spec" $est \
		--moe-dispatch flex --force
done
# shellcheck disable=SC2086
"$H" estimate --pool 8x8xA100-SXM4-40GB $est --format json > "$T/a.json" 2>"$T/err"
python3 - "$T/a.json" "$T/plan_flex.json" "$T/plan_ata.json" <<'PY' || bad "writing the plan files"
import json, sys
p = json.load(open(sys.argv[1]))["plan"]
for path, v in ((sys.argv[2], "flex"), (sys.argv[3], "alltoall")):
    q = dict(p, moe_dispatch=v)
    json.dump(q, open(path, "w"))
PY
expect 3 "moe_dispatch flex: replicas[0].stages[0] is on pool 'a100-sxm4-40gb' (A100-SXM4-40GB)" \
	"$H" estimate --pool 8x8xA100-SXM4-40GB -m mixtral-8x7b --plan "$T/plan_flex.json"
grep -qF "moe_dispatch alltoall runs on it" "$T/err" && ok || bad "plan file: no way out named"
# A dense model has no dispatch: flex on A100 is the megatron-core
# default it takes (no refusal, as before).
expect 0 "" "$H" estimate --pool 8x8xA100-SXM4-40GB -m gpt-1.7b --tp 1 --pp 1 --mbs 1 \
	--gbs 64 --framework megatron-core --moe-dispatch flex
# Flex named on H100-SXM stays allowed.
# shellcheck disable=SC2086
expect 0 "" "$H" estimate --pool 8x8xH100-SXM $est --moe-dispatch flex

# 4. The estimate without the key on A100 is the alltoall estimate, field
#    by field (the plan JSON with moe_dispatch alltoall named): every
#    number, the comm table's ep and tp rows included. EP 8 at TP 2
#    (expert TP 2): the alltoall dispatcher's expert-TP gather runs in
#    line, flex's beside the GEMMs (perf_comm.c), so the two differ.
# shellcheck disable=SC2086
est_json ata -m mixtral-8x7b --pool 8x8xA100-SXM4-40GB --plan "$T/plan_ata.json"
# same_but_key A B — A and B equal but for the plan's moe_dispatch key
same_but_key() {
	python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in (a, b):
    d["plan"].pop("moe_dispatch", None)
if a != b:
    diff = [k for k in set(a) | set(b) if a.get(k) != b.get(k)]
    print("differ in", sorted(diff))
    sys.exit(1)
PY
}
same_but_key "$T/a.json" "$T/ata.json" && ok || bad "A100, no key: not the alltoall estimate"
# The mixed cluster's top plan (pieces on H100 and A100 or L40S): the
# same, through the plan file.
python3 - "$T/P.json" "$T/plan_top.json" "$T/plan_topa.json" <<'PY' || bad "writing the top plan"
import json, sys
p = json.load(open(sys.argv[1]))["plans"][0]
p = dict(p.get("plan", p))
p.pop("moe_dispatch", None)
json.dump(p, open(sys.argv[2], "w"))
json.dump(dict(p, moe_dispatch="alltoall"), open(sys.argv[3], "w"))
PY
# shellcheck disable=SC2086
est_json top $C -m mixtral-8x7b --plan "$T/plan_top.json"
# shellcheck disable=SC2086
est_json topa $C -m mixtral-8x7b --plan "$T/plan_topa.json"
same_but_key "$T/top.json" "$T/topa.json" && ok || bad "mixed top plan, no key: not the alltoall estimate"
# Not vacuous: on H100-SXM the default is flex, and flex costs otherwise.
# shellcheck disable=SC2086
est_json h $est --pool 8x8xH100-SXM
# shellcheck disable=SC2086
est_json hf $est --pool 8x8xH100-SXM --moe-dispatch flex
# shellcheck disable=SC2086
est_json ha $est --pool 8x8xH100-SXM --moe-dispatch alltoall
same_but_key "$T/h.json" "$T/hf.json" && ok || bad "H100-SXM, no key: not the flex estimate"
same_but_key "$T/h.json" "$T/ha.json" >/dev/null && bad "H100-SXM: flex and alltoall cost alike (check 4 vacuous)" || ok

finish test_moe_flex
