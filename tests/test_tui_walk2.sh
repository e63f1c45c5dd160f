#!/bin/sh
# test_tui_walk2.sh — a second walk of the TUI as an infrastructure
# engineer: a cluster of 16 H100 nodes on one cloud, 40 of A100 40GB and a
# rack of L40S on another, built and changed in the screen. Each check is
# a fact read off the screen that was wrong before:
#
#   - Provider and Region typed into a pool move its site (the pool key
#     site's default is {provider}/{region}, src/cluster.c
#     pool_apply_defaults): pools put on two clouds are joined by the WAN.
#     Before, the site stayed as the pool was made (none, for a pool added
#     in the screen), so the live plans ran the clouds over one spine, and
#     the Detail's links read "leaf and spine" where the saved workspace,
#     opened again, and `hetplan plan` read "WAN 100G between sites"; the
#     best plan's tokens/s differed (263.4K live against 256.9K). A site
#     given by hand stays.
#   - The Cluster view's POOL column told pools apart: h100-east-aws and
#     h100-east-gcp both read "h100-ea~", at 80 columns and at 200 (where
#     70 columns of the row were empty). The column now widens to the
#     widest name where the row has room, and a name cut is cut as plan
#     labels cut it (head~tail, pools told apart).
#   - The Detail's memory table put its header's words over other
#     columns: "GROUP STAGE POOL TP" over "G0 S0  h100-east-aws TP8", POOL
#     over the stage and TP over the pool's name. It reads "STAGE  POOL
#     TP", each word over its values.
#   - A pool's Price of 1000001 and an Oversubscription of 1e300 were
#     taken and saved, and the saved workspace was then refused by
#     `hetplan report` (exit 3: price_per_node_hour is 0 to 1e6,
#     oversubscription 1 to 1000, src/cluster.c). They are refused in the
#     prompt with the setting's range. A number in hex ("0x10", which
#     strtod read as 16) is not a number a workspace holds: refused too.
#   - The Detail's first row, a plan's label and its Pareto mark and gap,
#     was cut at the screen's edge: at 80 columns the three-pool plan 1
#     read "... a100-40-gcp tp8 pp5 5", its "58/57 micro-batches", mark and
#     gap gone. A label too long wraps at its spaces, the marks under it.
# Run from the repository root; $HETPLAN names the binary (./hetplan).
. tests/tui_lib.sh
TUI_DIR=$tmp

# Two pools with no place yet: the engineer puts them on two clouds.
cat >"$tmp/two.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "two-clouds",
             "pools": [{"name": "h100", "gpu": "H100-SXM", "nodes": 4},
                       {"name": "a100", "gpu": "A100-40GB", "nodes": 8},
                       {"name": "dc", "gpu": "L40S", "nodes": 2, "site": "rack7"}]},
 "model": "llama3.1-70b",
 "workload": {"gbs": 512, "seq_len": 8192, "tokens": 300e9, "top": 5}}
JSON

# set_where NAME POOLROW PROVIDER REGION: in the Cluster view, type the
# provider and region of the pool on row POOLROW (0 = first).
set_where() {
	keys "$1" g
	r=0
	while [ $r -lt "$2" ]; do keys "$1" j; r=$((r + 1)); done
	keys "$1" Enter
	wait_for "$1" "Provider" || bad "no pool fields: $(screen "$1" | tail -1)"
	# Provider is the 12th field (Name, GPU, GPUs per node, Nodes,
	# Availability, Scale-up, Scale-up speed, NICs, NIC speed, PCIe link,
	# Transport)
	keys "$1" g j j j j j j j j j j j Enter
	wait_for "$1" "Provider:" || bad "Enter on Provider did not prompt: $(screen "$1" | tail -1)"
	keys "$1" C-u "$3" Enter
	wait_for "$1" " Provider           $3" || bad "Provider $3 not taken: $(screen "$1" | grep Provider)"
	keys "$1" j Enter
	wait_for "$1" "Region:" || bad "Enter on Region did not prompt: $(screen "$1" | tail -1)"
	keys "$1" C-u "$4" Enter
	wait_for "$1" " Region             $4" || bad "Region $4 not taken: $(screen "$1" | grep Region)"
	keys "$1" Tab
}

start s 80 40 "" two.json
wait_plans s || bad "no plans: $(screen s | tail -1)"
keys s 1
wait_for s "NODES" || bad "no Cluster view"
set_where s 0 aws us-east-1
keys s Enter
wait_for s " Site               aws/us-east-1" && ok ||
	bad "the h100 pool's site did not follow its provider/region: $(screen s | grep ' Site ')"
keys s Tab
set_where s 1 gcp us-central1
keys s Enter
wait_for s " Site               gcp/us-central1" && ok ||
	bad "the a100 pool's site did not follow: $(screen s | grep ' Site ')"
# moved again: the site follows the new region
keys s Tab
set_where s 1 gcp europe-west4
keys s Enter
wait_for s " Site               gcp/europe-west4" && ok ||
	bad "the a100 pool's site did not follow a second region: $(screen s | grep ' Site ')"
# a site given by hand stays
keys s Tab
set_where s 2 gcp us-central1
keys s Enter
wait_for s " Site               rack7" && ok ||
	bad "the dc pool's own site did not stay: $(screen s | grep ' Site ')"
keys s Tab
# the live plans against the saved workspace opened again: same best plan
keys s 3
wait_plans s || bad "no plans after the edits: $(screen s | tail -1)"
live=$(screen s | awk '$1 == "1" { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9.]+K$/) { print $i; exit } }')
keys s w C-u saved.json Enter
wait_for s "saved saved.json" || bad "w did not save: $(screen s | tail -1)"
start r 80 40 "" saved.json
wait_plans r || bad "the saved workspace has no plans: $(screen r | tail -1)"
again=$(screen r | awk '$1 == "1" { for (i = 2; i <= NF; i++) if ($i ~ /^[0-9.]+K$/) { print $i; exit } }')
[ -n "$live" ] && [ "$live" = "$again" ] && ok ||
	bad "plan 1 reads $live tokens/s live and $again once saved and opened again"
# the Detail of a plan over both clouds names the WAN, as `plan` does
keys s Enter
wait_for s "Layout: replicas" || bad "Enter did not open the Detail"
keys s j j j j j j j j j j j j j j j j j j j j
if screen s | grep -qF "h100" && screen s | grep -qF "a100" &&
	screen s | grep -qE '^  (pp|dp) links:'; then
	screen s | grep -qF "WAN" && ok ||
		bad "plan 1 spans both clouds and its links name no WAN: $(screen s | grep links)"
fi

# ---- the POOL column tells two pools apart, and is whole where there is room
cat >"$tmp/east.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "east",
             "pools": [{"name": "h100-east-aws", "gpu": "H100-SXM", "nodes": 2},
                       {"name": "h100-east-gcp", "gpu": "H100-SXM", "nodes": 2}]},
 "model": "llama3.1-8b",
 "workload": {"gbs": 64, "seq_len": 4096, "top": 3}}
JSON
for g in 80x24 200x60; do
	start e$g ${g%x*} ${g#*x} "" east.json
	keys e$g 1
	wait_for e$g "NODES" || bad "no Cluster view at $g"
	a=$(screen e$g | awk '$2 == "H100-SXM" { print $1 }' | sed -n 1p)
	b=$(screen e$g | awk '$2 == "H100-SXM" { print $1 }' | sed -n 2p)
	[ -n "$a" ] && [ "$a" != "$b" ] && ok ||
		bad "at $g the two pools read '$a' and '$b' in the POOL column"
	if [ $g = 200x60 ]; then
		[ "$a" = h100-east-aws ] && [ "$b" = h100-east-gcp ] && ok ||
			bad "at 200 columns the names are cut: '$a' '$b'"
	fi
	# the header's columns stay over their values: GPU over H100-SXM
	hx=$(screen e$g | sed -n 3p | awk '{ print index($0, "GPU ") }')
	vx=$(screen e$g | sed -n 4p | awk '{ print index($0, "H100-SXM") }')
	[ "$hx" = "$vx" ] && ok || bad "at $g GPU is at column $hx, H100-SXM at $vx"
done

# ---- the Detail's memory table: each header word over its values
keys e80x24 3
wait_plans e80x24 || bad "no plans on the east cluster: $(screen e80x24 | tail -1)"
keys e80x24 Enter
wait_for e80x24 "Layout: replicas" || bad "Enter did not open the Detail"
i=0
while [ $i -lt 12 ] && ! screen e80x24 | grep -qE '^  G0 S0 '; do
	keys e80x24 NPage
	sleep 0.3
	i=$((i + 1))
done
screen e80x24 >"$tmp/mem.txt"
hdr=$(grep -E 'MEMORY +USED' "$tmp/mem.txt")
row=$(grep -E '^  G0 S0 ' "$tmp/mem.txt" | sed -n 1p)
[ -n "$hdr" ] && [ -n "$row" ] || bad "no memory table on screen: $(cat "$tmp/mem.txt")"
at() { awk -v s="$2" '{ print index($0, s) }' <<EOT
$1
EOT
}
[ "$(at "$hdr" STAGE)" = "$(at "$row" "G0 S0")" ] && ok || bad "STAGE is not over G0 S0: '$hdr' / '$row'"
[ "$(at "$hdr" POOL)" = "$(at "$row" h100-)" ] && ok || bad "POOL is not over the pool: '$hdr' / '$row'"
tpx=$(awk '{ print match($0, / TP[0-9]+ /) }' <<EOT
$row
EOT
)
[ "$(at "$hdr" " TP ")" = "$tpx" ] && ok || bad "TP is not over the row's TP: '$hdr' / '$row'"

# ---- out-of-range values are refused where they are typed
# type_field NAME TEXT: open the selected field's prompt and type TEXT
type_field() {
	keys "$1" Enter C-u
	$T send-keys -t "$1" -l -- "$2"
	keys "$1" Enter
}
start v 80 24 "" two.json
wait_plans v || bad "no plans: $(screen v | tail -1)"
keys v 1 Enter G
wait_for v "WAN latency" || bad "the fabric fields are not on screen"
# from WAN latency up: WAN link, Oversubscription, (the heading), Spot, Price
keys v k k
type_field v 1e300
wait_for v "Oversubscription: expected a number from 1 to 1000, got '1e300'" && ok ||
	bad "an oversubscription of 1e300 was not refused: $(screen v | tail -1)"
keys v k k
type_field v 1000001
wait_for v "Price: expected a number from 0 to 1e+06, got '1000001'" && ok ||
	bad "a price of 1000001 was not refused: $(screen v | tail -1)"
type_field v 0x10
wait_for v "Price: expected a number, got '0x10'" && ok ||
	bad "a price in hex was not refused: $(screen v | tail -1)"
screen v | grep -qE '^ Price +[0-9.]+ \$/node-h' && ! screen v | grep -qE '^ Price +(16\.00|1000001)' &&
	ok || bad "the price changed: $(screen v | grep ' Price ')"
keys v w C-u hostile.json Enter
wait_for v "saved hostile.json" || bad "w did not save: $(screen v | tail -1)"
(cd "$tmp" && "$HP" report hostile.json -o hostile.md) >/dev/null 2>"$tmp/err" && ok ||
	bad "the saved workspace does not load: $(cat "$tmp/err")"

# ---- the Detail's title at 80 columns: the whole label, then the gap
cat >"$tmp/walk.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "two-clouds",
             "pools": [{"name": "h100-east-aws", "gpu": "H100-SXM", "nodes": 16, "provider": "aws", "region": "us-east-1"},
                       {"name": "a100-40-gcp", "gpu": "A100-40GB", "nodes": 40, "provider": "gcp", "region": "us-central1"},
                       {"name": "l40s-rack", "gpu": "L40S", "nodes": 4, "provider": "gcp", "region": "us-central1"}]},
 "model": "llama3.1-70b",
 "workload": {"gbs": 1024, "seq_len": 8192, "tokens": 2e12, "top": 3}}
JSON
python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))["cluster"], open(sys.argv[2], "w"))' \
	"$tmp/walk.json" "$tmp/walkc.json"
(cd "$tmp" && XDG_CONFIG_HOME="$tmp/cfg" XDG_CACHE_HOME="$tmp/cache" "$HP" plan -c walkc.json -m llama3.1-70b --gbs 1024 --seq-len 8192 --tokens 2T \
	--top 3 -o walk-plans.json) >/dev/null 2>&1
# plan 1's whole label and gap, from `plan`'s JSON
lab=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["plans"][0]["list_label"])' "$tmp/walk-plans.json")
[ -n "$lab" ] || bad "hetplan plan gave no label for plan 1"
start d 80 24 "" walk.json
wait_plans d || bad "no plans on the walk cluster: $(screen d | tail -1)"
keys d Enter
wait_for d "tokens/s  MFU" || bad "Enter did not open the Detail"
# the title rows: from the third line to the one before "tokens/s  MFU"
title=$(screen d | awk 'NR >= 3 && /tokens\/s  MFU/ { exit } NR >= 3 { sub(/^ +/, ""); sub(/ +$/, ""); printf "%s ", $0 }')
# the title ends on the gap (uneven plans name their micro-batches before
# it: "... 37/36 micro-batches ... optimality gap N%")
case $lab in *" mb"*) want="*micro-batches*optimality gap [0-9]*" ;; *) want="*optimality gap [0-9]*" ;; esac
# shellcheck disable=SC2254
case $title in
$want) ok ;;
*) bad "the Detail's title at 80 columns lost its end: '$title'" ;;
esac
if [ -n "$lab" ]; then
	case $title in
	"#1 $lab "*) ok ;;
	*) bad "the Detail's title is not plan's label '$lab': '$title'" ;;
	esac
fi

$T kill-server 2>/dev/null
finish test_tui_walk2
