#!/bin/sh
# test_tui_cluster.sh — the Cluster view keeps a cluster that loads again,
# driven in the real binary under a private tmux server.
#
# The workspace has one pool: one H100 node with no NIC (docs/formats.md,
# pool key nics: 0 only for a lone node; a second node or pool could only
# be reached over a link of zero bandwidth). In the Cluster view:
#   - '+' (one more node) is refused with cluster_check's message and the
#     pool keeps its 1 node;
#   - 'c' (duplicate) is refused the same way and the cluster keeps 1 pool;
#   - setting "NICs per node" to 1 is taken, and then '+' is taken (2 nodes);
#   - setting it back to 0 on 2 nodes is refused and it stays 1;
#   - cycling Scale-up on a T4 pool (no NVLink: catalog) stays pcie;
#   - a GPU change on the lone pool is checked against the other pools, not
#     the pool it replaces: H100 -> A100-SXM4-80GB is taken;
#   - 'w' saves a workspace that `hetplan report` loads (exit 0);
#   - the Totals line's memory is the catalog's usable memory per GPU;
#   - a negative WAN latency is refused with the field's range;
#   - a pool's hourly price wider than the $/H column keeps AVAIL whole.
# Run from the repository root; $HETPLAN names the binary (./hetplan).
. tests/tui_lib.sh

cat >"$tmp/lone.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "lab", "pools": [{"name": "h100", "gpu": "H100-SXM", "nodes": 1, "nics": 0}]},
 "model": "llama3.1-8b",
 "workload": {"gbs": 64, "seq_len": 4096, "precision": "bf16", "objective": "throughput", "top": 5}}
JSON
cp "$tmp/lone.json" "$tmp/ws.json"   # saved over below
# The pool's row: name, GPU, nodes (third column).
nodes_of() { screen "$1" | awk -v p="$2" '$1 == p { print $3; exit }'; }

start cl 100 30 "" "tui $tmp/ws.json"
wait_ready cl || bad "no plans for the lone 0-NIC node: $(screen cl | tail -1)"
keys cl 1
wait_for cl "NODES" || bad "no Cluster view"
keys cl +
wait_for cl "2 nodes without NICs cannot reach each other" && ok ||
	bad "+ on a 0-NIC node was not refused: $(screen cl | tail -1)"
[ "$(nodes_of cl h100)" = 1 ] && ok || bad "+ changed the node count to $(nodes_of cl h100)"
keys cl c
wait_for cl "has no NIC to reach pool" && ok || bad "c on a 0-NIC pool was not refused: $(screen cl | tail -1)"
[ -z "$(nodes_of cl h100-2)" ] && ok || bad "the duplicate stayed: $(screen cl | grep '^ *h100-2 ')"
screen cl | head -1 | grep -q "1 pool" && ok || bad "the header does not read 1 pool: $(screen cl | head -1)"

# NICs per node -> 1, then + is taken; NICs back to 0 on 2 nodes is not.
keys cl Enter
wait_for cl "NICs per node" || bad "no pool fields"
keys cl j j j j j j j Enter
wait_for cl "NICs per node:" || bad "Enter on NICs per node did not prompt: $(screen cl | tail -1)"
keys cl C-u 1 Enter
wait_for cl "NVS+1x400G" && ok || bad "NICs 1 was not taken: $(screen cl | grep h100)"
keys cl Escape +
i=0
while [ $i -lt 100 ] && [ "$(nodes_of cl h100)" != 2 ]; do sleep 0.1; i=$((i + 1)); done
[ "$(nodes_of cl h100)" = 2 ] && ok || bad "+ with a NIC did not add a node: $(screen cl | grep h100)"
keys cl Enter
wait_for cl "NICs per node" || bad "no pool fields again"
keys cl Enter
wait_for cl "NICs per node:" || bad "no NICs prompt the second time: $(screen cl | tail -1)"
keys cl C-u 0 Enter
wait_for cl "2 nodes without NICs cannot reach each other" && ok ||
	bad "NICs 0 on 2 nodes was not refused: $(screen cl | tail -1)"
screen cl | grep -q "NVS+1x400G" && ok || bad "NICs did not stay 1: $(screen cl | grep h100)"
keys cl Escape
keys cl w
wait_for cl "Save workspace to:" || bad "w did not prompt: $(screen cl | tail -1)"
keys cl Enter
wait_for cl "saved $tmp/ws.json" && ok || bad "w did not save: $(screen cl | tail -1)"
keys cl q q
wait_for cl "EXITED:0" || bad "q did not quit"
$HP report "$tmp/ws.json" -o "$tmp/r.md" >/dev/null 2>"$tmp/err" && ok ||
	bad "the saved workspace does not load: $(cat "$tmp/err")"
# The lone pool's NVLink domain is the catalog's (its node): not written.
grep -q '"nvl_domain"' "$tmp/ws.json" && bad "a derived nvl_domain was saved" || ok

# A T4 has no NVLink (catalog: scaleup none): Scale-up cycles nowhere.
cat >"$tmp/t4.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "t4", "pools": [{"name": "t4", "gpu": "T4", "nodes": 2}]},
 "model": "gpt-1.7b",
 "workload": {"gbs": 64, "seq_len": 2048, "precision": "fp16", "objective": "throughput", "top": 5}}
JSON
start t4 100 30 "" "tui $tmp/t4.json"
wait_ready t4 || bad "no plans on 2 T4 nodes: $(screen t4 | tail -1)"
keys t4 1 Enter
wait_for t4 "Scale-up" || bad "no T4 pool fields"
keys t4 j j j j j Right
wait_for t4 "has no NVLink" && ok || bad "Scale-up on a T4 cycled without a word: $(screen t4 | tail -1)"
screen t4 | grep "Scale-up  " | grep -q "pcie" && ok || bad "Scale-up left pcie: $(screen t4 | grep 'Scale-up  ')"
keys t4 q q
wait_for t4 "EXITED:0" || bad "q did not quit the T4 session"

# A GPU change on a lone 0-NIC pool: nothing else to reach, so it is taken.
start gc 100 30 "" "tui $tmp/lone.json"
wait_ready gc || bad "no plans for the GPU change"
keys gc 1 Enter j Enter
wait_for gc "Filter:" || bad "Enter on GPU did not open the picker: $(screen gc | tail -2)"
keys gc A 1 0 0 - S X M 4 - 8 0 G B Enter
wait_for gc "A100-SXM4-80GB" && ok || bad "the GPU change was refused: $(screen gc | tail -1)"
screen gc | tail -1 | grep -q "no NIC" && bad "the GPU change was checked against the pool it replaces" || ok
keys gc q q
wait_for gc "EXITED:0" || bad "q did not quit the GPU-change session"
# The Totals line counts the memory the Detail view's bars call a GPU's
# capacity: the catalog's memory_usable_mib (data/gpus.json), H100-SXM
# 81559 MiB and A100-SXM4-80GB 81920 MiB, here 2 H100 nodes and 1 A100
# node of 8: (16 x 81559 + 8 x 81920) MiB = 1,960,864 MiB = 1.87 TiB. The
# nominal 80 GB (80e9 bytes) per GPU read 1.7 TiB, below the sum of the
# Detail view's capacities.
cat >"$tmp/mem.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "mem", "pools": [{"name": "h100", "gpu": "H100-SXM", "nodes": 2},
                                      {"name": "a100", "gpu": "A100-SXM4-80GB", "nodes": 1}]},
 "model": "llama3.1-8b",
 "workload": {"gbs": 64, "seq_len": 4096, "top": 5}}
JSON
start mem 100 30 "" "tui $tmp/mem.json"
wait_ready mem || bad "no plans for the memory totals"
keys mem 1
wait_for mem "Totals" || bad "no Cluster view for the memory totals"
screen mem | grep -q "^ 24 GPUs .*  1\.9 TiB memory " && ok ||
	bad "Totals memory is not the usable 1.9 TiB: $(screen mem | grep ' GPUs ')"
# WAN latency, the last field: -5 is a number, out of the field's range
# (0 to 1e7 us, the cluster table's inter_pool_latency_us): the message
# names the range, as for 1e9, not "expected a number".
keys mem Enter G Enter
wait_for mem "WAN latency (us):" || bad "Enter on WAN latency did not prompt: $(screen mem | tail -1)"
keys mem C-u -5 Enter
wait_for mem "WAN latency: expected a number from 0 to 1e+07, got '-5'" && ok ||
	bad "WAN latency -5: $(screen mem | tail -1)"
keys mem q
wait_for mem "EXITED:0" || bad "q did not quit the memory-totals session"
# GPUs per node of an H100 pool 8 -> 6: the catalog's NVLink domain (8,
# the HGX board) is no domain given in the file, so it follows the node
# (6) and the edit is taken; it read "nvl_domain: expected a multiple of
# gpus_per_node (6), got 8", as the derived 8 stayed.
cat >"$tmp/gpn.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "gpn", "pools": [{"name": "h100", "gpu": "H100-SXM", "nodes": 2}]},
 "model": "llama3.1-8b",
 "workload": {"gbs": 48, "seq_len": 4096, "top": 5}}
JSON
start gpn 100 30 "" "tui $tmp/gpn.json"
wait_ready gpn || bad "no plans for the GPUs-per-node edit"
keys gpn 1 Enter j j Enter
wait_for gpn "GPUs per node:" || bad "Enter on GPUs per node did not prompt: $(screen gpn | tail -1)"
keys gpn C-u 6 Enter
i=0
while [ $i -lt 100 ] && ! screen gpn | grep -qE '^ h100 +H100-SXM +2 +6 '; do sleep 0.1; i=$((i + 1)); done
screen gpn | grep -qE '^ h100 +H100-SXM +2 +6 ' && ok ||
	bad "GPUs per node 6 was not taken: $(screen gpn | tail -1)"
screen gpn | grep -q "nvl_domain" && bad "nvl_domain refused: $(screen gpn | tail -1)" || ok
keys gpn Escape q q
wait_for gpn "EXITED:0" || bad "q did not quit the GPUs-per-node session"
# 20 rentable H100 nodes at $999,999 a node-hour: $19,999,980 an hour
# for the pool, 20.0M in the 8 columns of $/H; written out in full it
# pushed AVAIL past the row's end and "max 20" read "max 2".
cat >"$tmp/dear.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "dear", "pools": [{"name": "h", "gpu": "H100-SXM", "nodes": {"max": 20},
                                        "price_per_node_hour": 999999},
                                       {"name": "a", "gpu": "A100-SXM4-80GB", "nodes": 2}]},
 "model": "llama3.1-8b",
 "workload": {"gbs": 64, "seq_len": 4096, "top": 5}}
JSON
start dear 80 24 "" "tui $tmp/dear.json"
wait_ready dear || bad "no plans for the dear pool"
keys dear 1
wait_for dear "Totals" || bad "no Cluster view for the dear pool"
# 20 x $999,999 = $19,999,980 an hour, in table_usd's 8 columns: $20.0M
screen dear | grep -qE '^ h +H100-SXM +20 +8 .* \$20\.0M max 20 *$' && ok ||
	bad "the dear pool's row: $(screen dear | grep '^ h ')"
keys dear q
wait_for dear "EXITED:0" || bad "q did not quit the dear-pool session"
# A domain the workspace gives is kept by a save (docs/formats.md,
# nvl_domain: 16 = two 8-GPU H100 nodes on one NVLink fabric); it was
# read and never written, so the saved workspace planned with a domain
# of 8.
cat >"$tmp/dom.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "dom", "pools": [{"name": "h", "gpu": "H100-SXM", "nodes": 2, "nvl_domain": 16}]},
 "model": "llama3.1-8b",
 "workload": {"gbs": 64, "seq_len": 4096, "top": 5}}
JSON
start dom 100 30 "" "tui $tmp/dom.json"
wait_ready dom || bad "no plans for the 16-GPU domain"
keys dom w
wait_for dom "Save workspace to:" || bad "w did not prompt in the domain session"
keys dom Enter
wait_for dom "saved $tmp/dom.json" || bad "w did not save the domain workspace: $(screen dom | tail -1)"
keys dom q q
wait_for dom "EXITED:0" || bad "q did not quit the domain session"
grep -qE '"nvl_domain":[[:space:]]*16' "$tmp/dom.json" && ok || bad "the saved workspace lost nvl_domain 16: $(cat "$tmp/dom.json")"
# A pool's transport (docs/formats.md, pool key transport) is a field of
# the pool: a Google Cloud machine type reads as its fabric
# (a3-megagpu-8g: tcpxo), Right steps to the next of ib, efa, tcp, tcpx,
# tcpxo, gcp-rdma (the key's enum order), and a save writes it; one more
# step wraps to ib, the default above 50 Gb/s NICs, which a save leaves
# out. Transport is the pool pane's eleventh row (ten j: the PCIe link
# row stands above it).
cat >"$tmp/gcp.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "gcp", "pools": [{"name": "mega", "gpu": "H100-SXM", "nodes": 2, "nics": 8, "nic_gbps": 200, "transport": "a3-megagpu-8g"}]},
 "model": "llama3.1-8b",
 "workload": {"gbs": 64, "seq_len": 4096, "top": 5}}
JSON
start gcp 120 30 "" "tui $tmp/gcp.json"
wait_ready gcp || bad "no plans for the a3-mega pool"
keys gcp 1
wait_for gcp "NODES" || bad "no Cluster view in the gcp session"
screen gcp | grep -qE '│ Transport +tcpxo ▶' && ok || bad "the pool's transport does not read tcpxo: $(screen gcp | grep -i transport)"
keys gcp Enter
wait_for gcp "NICs per node" || bad "no pool fields in the gcp session"
keys gcp j j j j j j j j j j Right
wait_for gcp "Transport         gcp-rdma ▶" && ok || bad "Right did not step tcpxo to gcp-rdma: $(screen gcp | grep -i transport)"
keys gcp Escape w
wait_for gcp "Save workspace to:" || bad "w did not prompt in the gcp session"
keys gcp Enter
wait_for gcp "saved $tmp/gcp.json" || bad "w did not save the gcp workspace: $(screen gcp | tail -1)"
grep -qE '"transport":[[:space:]]*"gcp-rdma"' "$tmp/gcp.json" && ok || bad "the saved workspace lacks transport gcp-rdma: $(cat "$tmp/gcp.json")"
$HP report "$tmp/gcp.json" -o "$tmp/gcp-r.json" >/dev/null 2>"$tmp/err" &&
	grep -qE '"transport":[[:space:]]*"gcp-rdma"' "$tmp/gcp-r.json" && ok ||
	bad "the saved gcp workspace does not load as gcp-rdma: $(cat "$tmp/err")"
keys gcp Enter   # the pool's fields keep their selection: transport
wait_for gcp "NICs per node" || bad "no pool fields in the gcp session again"
keys gcp Right
wait_for gcp "Transport         ib ▶" && ok || bad "Right did not wrap gcp-rdma to ib: $(screen gcp | grep -i transport)"
keys gcp Escape w
wait_for gcp "Save workspace to:" || bad "w did not prompt the second time"
keys gcp Enter
sleep 0.5
keys gcp q q
wait_for gcp "EXITED:0" || bad "q did not quit the gcp session"
grep -q '"transport"' "$tmp/gcp.json" && bad "the default ib was written: $(cat "$tmp/gcp.json")" || ok
finish tui_cluster
