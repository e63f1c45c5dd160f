#!/bin/sh
# test_workspace.sh — names in the workspace's settings tables read alike:
# a serve engine build (--engine-build, the workspace's serve.engine_build)
# is read as a pool's network transport (--pool ...,transport=, a cluster
# file's transport) is: case, spaces, '-', '_' and '.' do not count.
#
# Each spelling below is applied to one name of each kind that has a '-'
# in it (the transport gcp-rdma, the build vllm-rocm-0.6), and the two must
# both take it, under the canonical name, or both refuse it. The names
# taken are what the settings' own tables list ("expected current or
# vllm-rocm-0.6", "expected ib, efa, tcp, tcpx, tcpxo or gcp-rdma"),
# written out here. Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

# serve on one MI300X node (a CDNA GPU: the build changes it, so it is
# not refused as changing nothing), JSON: engine_build names the build
S="--pool 1x8xMI300X -m llama3.1-8b --isl 1 --osl 1 --estimate --tp 1 --rate 1 --format json"
# estimate on two H100 nodes, JSON: transport names each pool's
E="-m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 64 --format json"

# spell WAY NAME: NAME written another way
spell() {
	case $1 in
	upper) printf '%s' "$2" | tr 'a-z' 'A-Z' ;;
	spaces) printf '%s' "$2" | tr '-' ' ' ;;
	under) printf '%s' "$2" | tr '-' '_' ;;
	padded) printf ' %s ' "$2" ;;
	mixed) printf '%s' "$2" | sed 's/-/ _/g' | tr 'a-m' 'A-M' ;;
	# refused by both: a name cut short, and one with a letter more
	short) printf '%s' "$2" | sed 's/.$//' ;;
	longer) printf '%sx' "$2" ;;
	esac
}

for way in upper spaces under padded mixed short longer; do
	b=$(spell $way vllm-rocm-0.6) t=$(spell $way gcp-rdma)
	"$H" serve $S --engine-build "$b" >"$T/b.json" 2>"$T/b.err"
	brc=$?
	"$H" estimate --pool "2x8xH100-SXM,name=g,transport=$t" $E >"$T/t.json" 2>"$T/t.err"
	trc=$?
	case $way in
	short | longer) want=2 ;;
	*) want=0 ;;
	esac
	[ "$brc" = "$want" ] && [ "$trc" = "$want" ] && ok ||
		bad "$way: --engine-build '$b' exit $brc, transport='$t' exit $trc, want both $want ($(head -c 200 "$T/b.err") $(head -c 200 "$T/t.err"))"
	[ "$want" = 0 ] || continue
	python3 - "$T/b.json" "$T/t.json" <<'PY' && ok || bad "$way: the canonical names ($b, $t)"
import json, sys
b, t = (json.load(open(f)) for f in sys.argv[1:])
assert b["engine_build"] == "vllm-rocm-0.6", b.get("engine_build")
assert t["transport"] == {"g": "gcp-rdma"}, t["transport"]
PY
done

# The refusal names the build as given and what the table lists.
expect 2 "--engine-build: expected current, vllm-rocm-0.6, vllm-v0 or tensorrt-llm-0.7, got 'rocm 0.6'" \
	"$H" serve $S --engine-build "rocm 0.6"
# A name longer than any key is refused, not cut down to one that matches.
long="vllm-rocm-0.6$(printf '%080d' 0)"
expect 2 "--engine-build: expected current, vllm-rocm-0.6, vllm-v0 or tensorrt-llm-0.7" "$H" serve $S --engine-build "$long"

# A workspace's serve.engine_build reads as the flag: the report's serving
# part names the build by its canonical name, as the cluster copy names a
# transport written loosely by its own ("GCP RDMA" -> gcp-rdma).
cat >"$T/ws.json" <<'EOF'
{"cluster": {"name": "lab", "pools": [
   {"name": "mi", "gpu": "MI300X", "nodes": 1},
   {"name": "g", "gpu": "H100-SXM", "nodes": 2, "transport": "GCP RDMA"}]},
 "model": "llama3.1-8b", "workload": {"gbs": 64},
 "serve": {"rate": 1, "isl": "1000", "osl": "200", "engine": "vllm",
           "engine_build": "VLLM ROCm 0.6"}}
EOF
expect 0 "" "$H" report "$T/ws.json" -o "$T/r.json"
python3 - "$T/r.json" <<'PY' && ok || bad "workspace: engine_build / transport not canonical"
import json, sys
d = json.load(open(sys.argv[1]))
pools = {p["name"]: p for p in d["inputs"]["cluster"]["pools"]}
assert pools["g"]["transport"] == "gcp-rdma", pools["g"]
s = json.dumps(d["serving"])
assert '"engine_build": "vllm-rocm-0.6"' in s, s[:300]
PY
sed 's/VLLM ROCm 0.6/rocm/' "$T/ws.json" >"$T/ws2.json"
expect 3 "engine_build" "$H" report "$T/ws2.json" -o "$T/r2.json"

finish workspace
