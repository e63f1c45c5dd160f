#!/bin/sh
# test_hard51.sh — hardening leftovers of review 51 (docs/hardening.md,
# "Round hard51"). Each block failed before its fix. Run from the
# repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh
EU=$(printf '\342\202\254')   # the euro sign, 3 bytes in UTF-8
E10="$EU$EU$EU$EU$EU$EU$EU$EU$EU$EU"

# 1. Names cut with a byte precision inside a UTF-8 character; the
# terminal sink then drew the cut byte as "\xE2" or "\xE2\x82". None of
# the names or paths below holds a backslash, so any "\x" in a message is
# a cut byte.

# 1a. search.c, the nearest memory miss: its plan label is cut at 60
# bytes ("%.60s"). Four pools named a1EE..a4EE (E the euro sign, 8 bytes
# each) give the label "a1EE tp4 pp1 + a2EE tp4 pp1 + a3EE tp4 pp1 + a4EE
# tp4 pp1": segments of 8 + 8 bytes, joined by " + ", so the fourth name
# starts at byte 3 x 19 = 57 and its first euro takes bytes 59..61 (hand
# count); the cut at 60 fell inside it. The whole-character cut ends the
# label at "+ a4".
printf '{"name": "e", "pools": [' >"$T/c4.json"
for i in 1 2 3 4; do
	[ $i = 1 ] || printf ', ' >>"$T/c4.json"
	case $i in 1|3) g=L4 ;; *) g=A10G ;; esac
	case $i in 1|2) n=8 ;; *) n=4 ;; esac
	printf '{"name": "a%d%s%s", "gpu": "%s", "nodes": 1, "gpus_per_node": %d}' \
		$i "$EU" "$EU" $g $n >>"$T/c4.json"
done
printf ']}\n' >>"$T/c4.json"
expect 4 "the nearest miss is " $H plan -c "$T/c4.json" -m llama3.1-70b --gbs 64
grep -q '\\x' "$T/err" && bad "nearest miss label cut inside a character: $(head -c 300 "$T/err")" || ok
grep -qF "+ a4, dp" "$T/err" && ok || bad "nearest miss label: $(head -c 300 "$T/err")"

# 1b. workspace.c: the workspace path is cut at 120 bytes ("%.120s") in
# its serve messages, and at 100 in the precision's source. A path under
# a directory of 40 euro signs crosses byte 120 inside that directory;
# the three prefixes move the cut by one byte each, so one of them lands
# inside a character whatever the scratch directory's length.
E40="$E10$E10$E10$E10"
for pre in a ab abc; do
	d="$T/$pre/$E40"
	mkdir -p "$d" || { bad "mkdir $pre"; continue; }
	printf '{"version": 1, "cluster": {"name": "s", "pools": [{"name": "h", "gpu": "H100-SXM", "nodes": 1}]}, "model": "llama3.1-8b", "serve": {"isl": 100, "osl": 100}}\n' >"$d/ws.json"
	expect 3 ': serve: give "rate"' $H report "$d/ws.json" -o "$T/r.md"
	grep -q '\\x' "$T/err" && bad "workspace $pre: path cut inside a character: $(head -c 300 "$T/err")" || ok
	python3 -c "open('$T/err', encoding='utf-8').read()" 2>/dev/null && ok ||
		bad "workspace $pre: message is not UTF-8"
done

# 1c. cmd_launch.c: a plan file's path is cut at 250 bytes ("%.250s")
# when its framework is estimate-only. Two directories of 40 euro signs
# put byte 250 inside one; three prefixes as in 1b.
for pre in a ab abc; do
	d="$T/l$pre/$E40/$E40"
	mkdir -p "$d" || { bad "mkdir l$pre"; continue; }
	printf '{"mbs": 1, "gbs": 8, "framework": "internlm", "replicas": [{"count": 8, "stages": [{"pool": "a", "first_layer": 0, "last_layer": 23}]}]}' >"$d/il.json"
	expect 2 "is estimate-only" $H launch --pool 1x8xA100-SXM4-80GB,name=a -m gpt-1.7b --plan "$d/il.json"
	grep -q '\\x' "$T/err" && bad "launch $pre: path cut inside a character: $(head -c 400 "$T/err")" || ok
done
# 2. Numeric flags parsed with strtod directly took a leading space, '+'
# and hex ("0x1" is 1 to strtod, "0x1p-4" is 0.0625), none of which a
# user types for a decimal number; util.h's parsers, which the other
# flags use (--gbs, --tokens, --isl), refuse them. Each is exit 2 naming
# the flag now. inf and nan were refused by the range checks already and
# still are.
S="$H serve --pool 1x8xH100-SXM -m llama3.1-8b --isl 100 --osl 100"
for v in " 1" "+1" "0x1" "inf" "nan"; do
	expect 2 "--rate: expected requests/s above 0" $S --rate "$v"
	expect 2 "--ttft-p99: expected seconds above 0" $S --rate 1 --ttft-p99 "$v"
	expect 2 "--tpot-p99: expected seconds above 0" $S --rate 1 --tpot-p99 "$v"
	expect 2 "--step-overhead: expected seconds above 0" $S --rate 1 --step-overhead "$v"
	expect 2 "--nic-gbps: expected a line rate" $H comm --collective allreduce --bytes 1G \
		--gpu H100-SXM --gpus-per-node 8 --nodes 2 --nics 8 --nic-gbps "${v}00"
done
for v in " 0.5" "+0.5" "0x1p-1" "inf" "nan"; do
	expect 2 "--gpu-util: expected a share from 0.1 to 1" $S --rate 1 --gpu-util "$v"
done
for v in " 0.05" "+0.05" "0x1p-5" "nan"; do
	expect 2 "--mem-headroom: expected a fraction from 0 to 0.5" $H plan --pool 1x8xH100-SXM \
		-m llama3.1-8b --mem-headroom "$v"
	expect 2 "--mem-headroom: expected a fraction from 0 to 0.5" $H estimate --pool 1x8xH100-SXM \
		-m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 8 --mem-headroom "$v"
done
# plain decimals still read
expect 0 "" $S --rate 1e0 --ttft-p99 .5 --tpot-p99 0.1 --gpu-util 0.9 --step-overhead 0.009
expect 0 "" $H estimate --pool 1x8xH100-SXM -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 8 \
	--mem-headroom .05
expect 0 "" $H comm --collective allreduce --bytes 1G --gpu H100-SXM --gpus-per-node 8 \
	--nodes 2 --nics 8 --nic-gbps 4e2

# 3. Markdown export: esc_md wrote '>' as "&gt;", which shows as "&gt;"
# in a viewer that does not decode HTML entities; a plan label such as
# "east>west pp2" (a pipeline from pool east to pool west) sits in the
# report's "Chosen plan" heading. Markdown gives '>' a meaning only first
# on a line (a block quote, CommonMark 0.31 section 5.1), so it stays as
# it is after text. llama2-13b on two 4-GPU A100-40GB pools: the best
# plan is the pp2 pipeline across both (its label written by hand from
# the label's form, "A>B ppN").
printf '{"name": "we", "pools": [{"name": "west", "gpu": "A100-SXM4-40GB", "nodes": 1, "gpus_per_node": 4}, {"name": "east", "gpu": "A100-SXM4-40GB", "nodes": 1, "gpus_per_node": 4}]}\n' >"$T/we.json"
expect 0 "" $H plan -c "$T/we.json" -m llama2-13b --gbs 64 --top 3 --format md -o "$T/we.md"
grep -qx '## Chosen plan: rank 1, east>west pp2' "$T/we.md" && ok ||
	bad "md heading: $(grep -m1 'Chosen plan' "$T/we.md")"
grep -q '&gt;' "$T/we.md" && bad "md: '>' written as &gt;: $(grep -m1 '&gt;' "$T/we.md")" || ok
# esc_md does not know whether its text starts a line, so a text that
# starts with '>' is written "\>" (CommonMark 2.4: shows as ">")
expect 0 "" $H plan --pool '1x8xH100-SXM,name=>edge' -m llama3.1-8b --gbs 64 --top 1 --format md
grep -qF '| \>edge | H100-SXM |' "$T/out" && ok || bad "md: '>edge': $(grep -m1 edge "$T/out")"

# 4. A pool's price source names the offer's machine; when the node holds
# fewer or more GPUs than that machine, the node's price is a share of the
# machine's and the text says which (pricing.c node_share). Embedded
# snapshot offers (data/prices.csv, `hetplan prices`): gcp a2-megagpu-16g
# 16 x A100 40GB 55.740 $/h, aws g6e.12xlarge 4 x L40S 10.493 $/h. By
# hand: a node of 8 A100s is 16/8 = half the machine (27.870), of 8 L40S
# twice a g6e.12xlarge (20.985), of 3 L40S 3/4 of one (7.869), of 4 the
# machine itself (10.493, no share).
expect 0 "" $H plan --pool '1x8xA100-SXM4-40GB,provider=gcp,name=a' --pool 1x8xL40S,name=l8 \
	--pool 1x4xL40S,name=l4 --pool 1x3xL40S,name=l3 -m llama3.1-8b --gbs 64 --top 1 --format md
for want in '| 27.870 | 3.484 | gcp a2-megagpu-16g us-central1 on-demand / 2 |' \
	'| 20.985 | 2.623 | aws g6e.12xlarge us-west-2 on-demand x 2 |' \
	'| 10.493 | 2.623 | aws g6e.12xlarge us-west-2 on-demand |' \
	'| 7.869 | 2.623 | aws g6e.12xlarge us-west-2 on-demand x 3/4 |'; do
	grep -qF -- "$want" "$T/out" && ok || bad "price source: want '$want': $(grep -F ' | ' "$T/out" | grep -F -- '-demand' | head -4)"
done

finish test_hard51
