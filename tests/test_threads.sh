#!/bin/sh
# test_threads.sh — `hetplan plan` prints the same plans whatever --threads
# says: the search splits its global settings across workers and merges
# their results in a fixed order, so the JSON output with 1, 2 and 3 threads
# is byte-identical, for every objective, and so is a second run. The one
# line that may differ is the search's own wall time ("seconds" in the
# "search" object), which is removed before comparing.
# Run from the repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export XDG_CACHE_HOME="$T/cache" XDG_CONFIG_HOME="$T/config"

# run NAME THREADS ARGS... — plan into $T/NAME.THREADS, without the timing line
run() {
	name=$1 th=$2; shift 2
	"$H" plan "$@" --threads "$th" --format json > "$T/raw" 2> "$T/err"
	rc=$?
	[ $rc = 0 ] || { bad "$name --threads $th: exit $rc: $(cat "$T/err")"; return 1; }
	grep -v '^		"seconds":	' "$T/raw" > "$T/$name.$th"
}

# same () NAME ARGS... — 1, 2 and 3 threads, and 1 thread again, agree
same() {
	name=$1; shift
	run "$name" 1 "$@" && run "$name" 2 "$@" && run "$name" 3 "$@" || return
	cp "$T/$name.1" "$T/$name.first"
	run "$name" 1 "$@" || return
	# a plan was found, and the timing line was the only one removed
	grep -q '"plans":' "$T/$name.1" && ok || bad "$name: no plans in the output"
	[ "$(wc -l < "$T/raw")" = "$(($(wc -l < "$T/$name.1") + 1))" ] && ok ||
		bad "$name: expected exactly one timing line in the JSON"
	for th in 2 3 first; do
		cmp -s "$T/$name.1" "$T/$name.$th" && ok ||
			bad "$name: --threads 1 and $th differ: $(diff "$T/$name.1" "$T/$name.$th" | head -5)"
	done
}

# a small heterogeneous case with pools to rent: two A100 types, so every
# objective has mixes of nodes and uneven splits to choose among
SMALL="--pool 1x8xA100-80GB,name=a100,max=2 --pool 1x8xA100-40GB,name=a40,max=3 -m llama3.1-8b --gbs 64 --tokens 20B --top 5"
same thr $SMALL --objective throughput
same cost $SMALL --objective cost
same deadline $SMALL --objective deadline --deadline 20d
same budget $SMALL --objective budget --budget 50000

# three GPU types and a larger model: more global settings than threads
MIX="--pool 2x8xH100-SXM,name=h100 --pool 4x8xA100-40GB,name=a100 --pool 2x8xL40S,name=l40s -m llama3.1-70b --gbs 256 --top 5"
same mix $MIX

# a mixture-of-experts model: its settings differ in the EP degree too
MOE="--pool 2x8xH100-SXM,name=h100,max=2 --pool 3x8xA100-80GB,name=a100,max=3 -m mixtral-8x7b --gbs 64 --tokens 20B --top 3"
same moe $MOE --objective budget --budget 200000

echo "threads: $pass passed, $fail failed"
[ "$fail" = 0 ]
