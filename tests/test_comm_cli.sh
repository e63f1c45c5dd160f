#!/bin/sh
# test_comm_cli.sh — `hetplan comm` from the outside: exit codes, JSON keys,
# messages. Run from the repository root after `make` built ./hetplan.
# Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
set -u
bin=${HETPLAN:-./hetplan}
. tests/lib.sh
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# expect NAME RC [GREP_STDERR] -- ARGS...: run, check the exit code and that
# stderr mentions the text.
expect() {
	name=$1 want=$2 text=$3
	shift 4
	"$bin" comm "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		bad "$name: exit $rc, want $want; stderr: $(cat "$tmp/err")"
		return
	fi
	if [ -n "$text" ] && ! grep -q -- "$text" "$tmp/err"; then
		bad "$name: stderr lacks '$text': $(cat "$tmp/err")"
		return
	fi
	ok
}

base="--gpu H100 --gpus-per-node 8 --nodes 2"

# A plain run.
expect table 0 "" -- --collective allreduce --bytes 1MiB $base
grep -q busbw "$tmp/out" && ok || bad "table: no busbw line"

# JSON has every documented key, with sane values.
expect json 0 "" -- --collective allgather --bytes 64M $base --format json
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
keys = ["time_us", "algbw_GBps", "busbw_GBps", "algorithm", "protocol",
        "collective", "bytes", "ranks"]
missing = [k for k in keys if k not in d]
assert not missing, missing
assert d["ranks"] == 16 and d["bytes"] == 64 * 2**20, d
assert d["collective"] == "allgather"
assert d["time_us"] > 0 and d["busbw_GBps"] > 0
# nccl-tests: busbw = algbw * (n-1)/n for all-gather
assert abs(d["busbw_GBps"] - d["algbw_GBps"] * 15 / 16) < 1e-6 * d["busbw_GBps"]
' "$tmp/out"; then ok; else bad "json: keys or values"; fi

# A sweep in JSON is an array, one entry per power of two: 8 .. 1K = 8 sizes.
expect sweep_json 0 "" -- --collective reducescatter $base --sweep 8:1K --format json
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert isinstance(d, list) and len(d) == 8, len(d)
assert [e["bytes"] for e in d] == [2**i for i in range(3, 11)]
' "$tmp/out"; then ok; else bad "sweep_json: not 8 entries"; fi

# Sweep table: header plus 8 rows.
expect sweep_table 0 "" -- --collective broadcast $base --sweep 8:1K
[ "$(grep -c '^ *[0-9]' "$tmp/out")" -eq 8 ] && ok || bad "sweep_table: rows"

# Forced algorithm and protocol.
expect forced 0 "" -- --collective allreduce --bytes 4K $base --algo ring --proto ll --format json
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["algorithm"]=="ring" and d["protocol"]=="ll"' "$tmp/out" && ok || bad "forced: algo/proto"

# --help goes to stdout and exits 0.
"$bin" comm --help >"$tmp/out" 2>"$tmp/err" && grep -q "usage: hetplan comm" "$tmp/out" && ok || bad "help"

# Errors.
expect unknown_gpu 3 "H999" -- --collective allreduce --bytes 1M --gpu H999 --gpus-per-node 8 --nodes 1
expect bad_size 2 "--bytes: expected a size like 64K, 1MiB or 4GB, got 'abc'" -- --collective allreduce --bytes abc $base
expect missing_bytes 2 "--bytes" -- --collective allreduce $base
expect bad_coll 2 "--collective" -- --collective allreduc --bytes 1M $base
expect bad_algo 2 "--algo" -- --collective allreduce --bytes 1M $base --algo fast
expect bad_nodes 2 "--nodes" -- --collective allreduce --bytes 1M --gpu H100 --gpus-per-node 8 --nodes -1
expect bad_sweep 2 "--sweep" -- --collective allreduce $base --sweep 1G:8
expect bad_format 2 "--format" -- --collective allreduce --bytes 1M $base --format xml
expect unknown_flag 2 "--frobnicate" -- --collective allreduce --bytes 1M $base --frobnicate
# NVLS needs NVLink SHARP: an A100 cannot (invalid input, names the algorithm).
expect nvls_a100 3 "nvls" -- --collective allreduce --bytes 1M --gpu A100 --gpus-per-node 8 --nodes 1 --algo nvls
# --transport efa: AWS EFA/SRD model; a 16-node 256 MiB all-reduce is slower
# than on IB (tree bandwidth falls with depth); a bad value is a usage error.
expect efa 0 "" -- --collective allreduce --bytes 256M --gpu H100 --gpus-per-node 8 --nodes 16 --transport efa --format json
efa_t=$(sed -n 's/.*"time_us":[[:space:]]*\([0-9.e+-]*\).*/\1/p' "$tmp/out")
expect ib 0 "" -- --collective allreduce --bytes 256M --gpu H100 --gpus-per-node 8 --nodes 16 --transport ib --format json
ib_t=$(sed -n 's/.*"time_us":[[:space:]]*\([0-9.e+-]*\).*/\1/p' "$tmp/out")
if [ -n "$efa_t" ] && [ -n "$ib_t" ] && awk "BEGIN{exit !($efa_t > $ib_t)}"; then ok; else bad "efa: time $efa_t not above ib $ib_t"; fi
expect transport_bad 2 "--transport: expected ib, efa, tcp, opa, tcpx, tcpxo or gcp-rdma (or a Google Cloud machine type such as a3-megagpu-8g), got 'roce'" -- --collective allreduce --bytes 1M $base --transport roce
# Google Cloud's fabrics by name or by machine type (src/comm.c, "Transport
# profiles"): a cross-node 8-byte send over 2 x 1 H100 takes 4 host + 6.6 LL
# base + 5.0 network hop = 15.6 us on IB; GPUDirect-TCPXO adds 60 us per
# network hop (75.6 us), a3-megagpu-8g reads as tcpxo.
p2p="--collective sendrecv --bytes 8 --gpu H100-SXM --gpus-per-node 1 --nodes 2 --nics 1 --nic-gbps 200 --format json"
for tr in tcpxo a3-megagpu-8g; do
	expect "transport_$tr" 0 "" -- $p2p --transport $tr
	t_us=$(sed -n 's/.*"time_us":[[:space:]]*\([0-9.e+-]*\).*/\1/p' "$tmp/out")
	if [ -n "$t_us" ] && awk "BEGIN{exit !($t_us > 75.5 && $t_us < 75.7)}"; then ok; else bad "$tr: time $t_us us, want 75.6"; fi
done
expect transport_gcp_rdma 0 "" -- $p2p --transport gcp-rdma
t_us=$(sed -n 's/.*"time_us":[[:space:]]*\([0-9.e+-]*\).*/\1/p' "$tmp/out")
if [ -n "$t_us" ] && awk "BEGIN{exit !($t_us > 15.5 && $t_us < 15.7)}"; then ok; else bad "gcp-rdma: time $t_us us, want 15.6"; fi

# An NVLink domain over several nodes is whole nodes (GB200 NVL72: 18 trays
# of 4); 12 GPUs over nodes of 8 is refused, naming the rule (it was
# ignored: the same time as without the flag).
expect nvl_partial 2 "--nvl-domain: expected a multiple of --gpus-per-node (8), got '12'" -- \
	--collective allreduce --bytes 1G --gpu H100-SXM --gpus-per-node 8 --nodes 2 --nvl-domain 12
expect nvl_whole 0 "" -- --collective allreduce --bytes 1G --gpu H100-SXM --gpus-per-node 8 --nodes 2 \
	--nvl-domain 16
# A domain of 4 inside nodes of 8 is no fabric either; it was timed as a
# domain of 8 (the node), the same as --nvl-domain 8, without a word.
expect nvl_small 2 "--nvl-domain: expected a multiple of --gpus-per-node (8), got '4'" -- \
	--collective allreduce --bytes 1G --gpu H100-SXM --gpus-per-node 8 --nodes 4 --nvl-domain 4

# --nics is bounded as a cluster file's nics (0 to 1024, POOL_MAX_NICS): 100000 NICs on each
# of 100000 one-GPU trays of one domain overflowed int (UBSan) when the
# domain's NICs were summed (100000 x 100000 = 1e10 > 2^31 - 1).
expect nics_huge 2 "--nics: expected a whole number of NICs per node from 0 to 1024, got '100000'" -- \
	--collective allreduce --bytes 1G --gpu H100-SXM --gpus-per-node 1 --nodes 100000 \
	--nvl-domain 100000 --nics 100000
expect nics_max 0 "" -- --collective allreduce --bytes 1G --gpu H100-SXM --gpus-per-node 1 \
	--nodes 100000 --nvl-domain 100000 --nics 64

# Sizes are whole bytes: "0.3K" is 307.2 bytes, which was timed as such and
# shown as 307; refused. 1e30 bytes (a million times any cluster's memory)
# too: past 2^53 a double holds no longer every whole count.
expect size_frac 2 "--bytes: expected a whole number of bytes (1.5K is 1536), got '0.3K'" -- \
	--collective allreduce --bytes 0.3K $base
expect size_huge 2 "--bytes: expected a size below 9007199254740992 bytes (2^53, 8 PiB), got '1e30'" -- \
	--collective allreduce --bytes 1e30 $base
# 2^53 + 1 = 9007199254740993 has no double: it read as 2^53 and ran as
# ...992. Every size from 2^53 on is refused; 2^53 - 1 is exact and runs.
expect size_2p53 2 "--bytes: expected a size below 9007199254740992 bytes (2^53, 8 PiB), got '9007199254740993'" -- \
	--collective allreduce --bytes 9007199254740993 $base
expect size_below 0 "" -- --collective allreduce --bytes 9007199254740991 $base
# A sweep's MAX is a whole size too: 0.3K is 307.2 bytes.
expect sweep_frac 2 "--sweep: expected MIN:MAX whole sizes with 1 <= MIN <= MAX < 8 PiB, like 8:1G, got '1:0.3K'" -- \
	--collective allreduce $base --sweep 1:0.3K
expect size_whole 0 "" -- --collective allreduce --bytes 1.5K $base
grep -q '^bytes       1536 (1.5 KiB)$' "$tmp/out" && ok || bad "1.5K: $(sed -n 2p "$tmp/out")"

# A node of NVL72 trays (GB200 72 per node) has every tray's NICs, as the
# pool parser gives it (cluster_default_nics): 18 trays x 4 ConnectX-7 =
# 72 NICs of 400 Gb/s, one per GPU, the same fabric as the tray form
# (4 per node, --nvl-domain 72: 4 NICs x 18 trays in the domain). Two
# racks, 144 ranks: the same collective takes the same time either way.
# By hand for sendrecv of 1 GiB: each rank sends to its peer in the other
# rack over its own NIC, 2^30 B / (400e9 / 8 B/s) = 21.47 ms at line rate
# (the model's efficiency adds a few percent: under 25 ms). With the one
# tray's 4 NICs for the whole rack, as `comm` had it, the 72 ranks share 4
# NICs: 18 x as long (about 387 ms and more).
gb="--gpu GB200 --bytes 1GiB --format json"
for c in allreduce allgather alltoall sendrecv; do
	r72=$("$bin" comm $gb --collective $c --gpus-per-node 72 --nodes 2 | python3 -c 'import json,sys; print(json.load(sys.stdin)["time_us"])')
	tray=$("$bin" comm $gb --collective $c --gpus-per-node 4 --nodes 36 --nvl-domain 72 |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["time_us"])')
	[ -n "$r72" ] && [ "$r72" = "$tray" ] && ok || bad "nvl72 $c: 72 per node $r72 us, tray form $tray us"
done
python3 -c 'import sys; t = float(sys.argv[1]); sys.exit(not (21474 <= t <= 25000))' "$r72" && ok ||
	bad "nvl72 sendrecv 1 GiB: $r72 us, want 21,474 to 25,000 (one 400G NIC a rank)"
one=$("$bin" comm $gb --collective sendrecv --gpus-per-node 72 --nodes 2 --nics 4 |
	python3 -c 'import json,sys; print(json.load(sys.stdin)["time_us"])')
python3 -c 'import sys; sys.exit(not (float(sys.argv[1]) >= 17 * float(sys.argv[2])))' "$one" "$r72" && ok ||
	bad "nvl72 sendrecv with --nics 4: $one us, want about 18 x $r72 us"

# --transport's choices, said three times to a user: the synopsis (made
# from the transport table), the man page (by hand) and the error for an
# unknown one (comm_transport_list). All three name the seven of
# docs/links.md, docs/fabric.md and docs/cloud-transport.md: ib, efa, tcp,
# opa, tcpx, tcpxo, gcp-rdma.
want='ib|efa|tcp|opa|tcpx|tcpxo|gcp-rdma'
syn=$("$bin" comm --help | sed -n 's/.*\[--transport \([^]]*\)\].*/\1/p')
[ "$syn" = "$want" ] && ok || bad "comm synopsis --transport: '$syn', want '$want'"
man=$(sed -n 's/^\.BR \\-\\-transport " \(.*\)"$/\1/p' man/hetplan.1 | sed 's/\\-/-/g')
[ "$man" = "$want" ] && ok || bad "man page --transport: '$man', want '$want'"
"$bin" comm --collective allreduce --bytes 1M --gpu H100-SXM --gpus-per-node 8 --nodes 2 \
	--transport a3- >/dev/null 2>"$tmp/err"; rc=$?
[ "$rc" = 2 ] && [ "$(cat "$tmp/err")" = "hetplan comm: --transport: expected ib, efa, tcp, opa, tcpx, tcpxo or gcp-rdma (or a Google Cloud machine type such as a3-megagpu-8g), got 'a3-'" ] && ok ||
	bad "--transport a3- (a machine-type prefix alone): exit $rc, $(cat "$tmp/err")"

# A machine type named as --transport brings its GPU NICs, as a pool's
# transport does: Google's "Networking and GPU machines" page gives
# a3-highgpu-8g 4 x 200 Gb/s GPU NICs (GPUDirect-TCPX) and a3-megagpu-8g
# 8 x 200 (TCPXO). So the machine type must read exactly as the fabric
# name with those NICs given by hand, and a --nics the user gives wins.
ab="comm --collective allreduce --bytes 1G --gpu H100-SXM --gpus-per-node 8 --nodes 4 --format json"
bw() { "$bin" $ab "$@" | python3 -c 'import json,sys; print(json.load(sys.stdin)["time_us"])'; }
m=$(bw --transport a3-highgpu-8g); h=$(bw --transport tcpx --nics 4 --nic-gbps 200)
[ -n "$m" ] && [ "$m" = "$h" ] && ok || bad "a3-highgpu-8g: $m us, tcpx with 4 x 200 by hand: $h us"
m=$(bw --transport a3-megagpu-8g); h=$(bw --transport tcpxo --nics 8 --nic-gbps 200)
[ -n "$m" ] && [ "$m" = "$h" ] && ok || bad "a3-megagpu-8g: $m us, tcpxo with 8 x 200 by hand: $h us"
m=$(bw --transport a3-highgpu-8g --nics 8); h=$(bw --transport tcpx --nics 8 --nic-gbps 200)
[ -n "$m" ] && [ "$m" = "$h" ] && ok || bad "a3-highgpu-8g --nics 8: $m us, want the user's 8 x 200: $h us"

# A machine type fixes the GPUs of a node: a3-highgpu-8g is 8 H100 with
# 4 x 200 Gb/s GPU NICs (Google Cloud, "Networking and GPU machines";
# src/cluster.c machine_types). --gpus-per-node 4 with it was timed with
# an H100's usual 8 x 400 Gb/s NICs without a word; now refused, naming
# both flags, unless --nics and --nic-gbps say the node's network (the
# machine type then names the fabric only, as transport_tcpxo above); one
# of them alone leaves the other to a default. 16 (two machines a node)
# keeps each machine's NICs: 8 x 200.
expect machine_gpn 2 "--gpus-per-node: --transport a3-highgpu-8g is a machine of 8 GPUs; expected a multiple of 8, got 4 (for another node give --nics and --nic-gbps)" -- \
	--collective allreduce --bytes 1G --gpu H100-SXM --gpus-per-node 4 --nodes 2 --transport a3-highgpu-8g
expect machine_gpn_nics 2 "--gpus-per-node: --transport a3-highgpu-8g is a machine of 8 GPUs" -- \
	--collective allreduce --bytes 1G --gpu H100-SXM --gpus-per-node 4 --nodes 2 --transport a3-highgpu-8g --nics 2
expect machine_gpn_both 0 "" -- --collective allreduce --bytes 1G --gpu H100-SXM --gpus-per-node 4 --nodes 2 \
	--transport a3-highgpu-8g --nics 2 --nic-gbps 200
grep -qx 'network     2 x 200 Gb/s NICs per node, tcpx (a3-highgpu-8g)' "$tmp/out" && ok ||
	bad "machine_gpn_both: $(grep network "$tmp/out")"
expect machine_gpn16 0 "" -- --collective allreduce --bytes 1G --gpu H100-SXM --gpus-per-node 16 --nodes 2 \
	--transport a3-highgpu-8g --format json
json_has() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $1" "$tmp/out"; }
json_has 'assert (d["nics"], d["nic_gbps"], d["transport"], d["machine_type"]) == (8, 200, "tcpx", "a3-highgpu-8g"), d' &&
	ok || bad "16 per node on a3-highgpu-8g: $(cat "$tmp/out")"

# comm says the network it timed, in both outputs: the machine type's
# 4 x 200 Gb/s (TCPX); the H100's usual node (catalog: 8 x 400 Gb/s,
# InfiniBand) without --transport; the user's --nics 2 --nic-gbps 100.
expect net_table 0 "" -- --collective allreduce --bytes 1G --gpu H100-SXM --gpus-per-node 8 --nodes 2 \
	--transport a3-highgpu-8g
grep -qx 'network     4 x 200 Gb/s NICs per node, tcpx (a3-highgpu-8g)' "$tmp/out" && ok ||
	bad "net_table: $(grep network "$tmp/out")"
expect net_json 0 "" -- --collective allreduce --bytes 1G --gpu H100-SXM --gpus-per-node 8 --nodes 2 --format json
json_has 'assert (d["nics"], d["nic_gbps"], d["transport"], d["intra"]) == (8, 400, "ib", "nvswitch") and "machine_type" not in d, d' &&
	ok || bad "net_json: $(cat "$tmp/out")"
expect net_user 0 "" -- --collective allreduce --bytes 1G --gpu H100-SXM --gpus-per-node 8 --nodes 2 \
	--nics 2 --nic-gbps 100 --transport efa --sweep 1K:2K
grep -q '^# allreduce, 16 ranks (2 nodes x 8 H100-SXM), 2 x 100 Gb/s NICs per node, efa$' "$tmp/out" && ok ||
	bad "net_user sweep header: $(head -1 "$tmp/out")"
expect net_sweep_json 0 "" -- --collective allreduce --gpu H100-SXM --gpus-per-node 8 --nodes 2 \
	--transport a3-megagpu-8g --sweep 1K:2K --format json
json_has 'assert [(e["nics"], e["nic_gbps"], e["transport"]) for e in d] == [(8, 200, "tcpxo")] * 2, d' &&
	ok || bad "net_sweep_json: $(cat "$tmp/out")"

finish comm_cli
