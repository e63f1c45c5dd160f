#!/bin/sh
# test_review51.sh — hostile input found in review 51 (docs/review51.md).
# Each block failed before its fix: a crash, input accepted that means
# something else, or a name cut inside a UTF-8 character. Run from the
# repository root after `make`; under `make asan` on the instrumented binary.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

# 1. estimate/launch without --dp divide the pool's GPUs by tp x pp x cp.
# Each flag may be up to 2^24 (HP_MAX_GPUS), and the product was taken in
# int: 65536 x 65536 = 2^32 wrapped to 0 and the division killed the
# program with SIGFPE (exit 136). Now: exit 3 and the product in 64 bits,
# 65536 x 65536 x 1 = 4294967296 (hand calculation).
for cmd in estimate launch; do
	expect 3 "tp 65536 x pp 65536 x cp 1 = 4294967296 GPUs; pool 'h100-sxm' has 16" \
		$H $cmd --pool 2x8xH100-SXM -m llama3.1-8b --tp 65536 --pp 65536 --mbs 1 --gbs 16
done
# 2^24 x 2^24 x 1024 = 2^58 = 288230376151711744 still fits in 64 bits
expect 3 "= 288230376151711744 GPUs" $H estimate --pool 2x8xH100-SXM -m llama3.1-8b \
	--tp 16777216 --pp 16777216 --cp 1024 --mbs 1 --gbs 16

# 2. --isl/--osl distributions take at most two numbers after the name:
# parse_num stops at ':', so a third field was read as the end of the
# second and "lognormal:500:0.5:junk" planned for lognormal:500:0.5. The
# same parser reads a workspace's serve.isl (src/workspace.c).
S="$H serve --pool 1x8xH100-SXM -m llama3.1-8b --rate 1"
expect 2 "got 'lognormal:500:0.5:junk'" $S --isl lognormal:500:0.5:junk --osl 100
expect 2 "got 'uniform:100:200:300'" $S --isl 100 --osl uniform:100:200:300
expect 2 "got 'uniform:1:2:'" $S --isl uniform:1:2: --osl 100
expect 0 "" $S --isl lognormal:500:0.5 --osl uniform:100:200
# and decimal numbers only, as util.h's parsers and the settings table
# read them: strtod also took hex ("0x100", 256 tokens), a leading space
# and '+'
expect 2 "got '0x100'" $S --isl 0x100 --osl 100
expect 2 "got 'lognormal:500:0x1p-1'" $S --isl lognormal:500:0x1p-1 --osl 100
expect 2 "got ' 100'" $S --isl " 100" --osl 100
expect 2 "got 'uniform:100:+200'" $S --isl 100 --osl uniform:100:+200
expect 0 "" $S --isl 1e3 --osl exp:.5e3

# 3. The list of a cluster's pools in "no pool named" messages (--on, and a
# plan file's stage) was cut at byte 199 by strncat: with 8 pools named
# with euro signs (3 bytes each) the cut fell inside one and the message
# ended in '\xE2'. Whole names only now, then ", ..." (hand count: five
# names of 31 bytes and four ", " take 163 bytes; a sixth needs 2 + 31
# more and room for ", ..." (5), 201 > 199 usable bytes: the list holds 5).
E10='\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254\342\202\254'
{
	printf '{"name": "euro", "pools": ['
	for i in 0 1 2 3 4 5 6 7; do
		[ $i = 0 ] || printf ', '
		printf '{"name": "'"$E10"'%d", "gpu": "H100-SXM", "nodes": 1}' $i
	done
	printf ']}\n'
} >"$T/euro.json"
printf '{"mbs":1,"gbs":8,"replicas":[{"count":1,"stages":[{"pool":"nope","tp":8,"first_layer":0,"last_layer":31}]}]}\n' >"$T/plan.json"
expect 3 "no pool named 'nope'" $H estimate -c "$T/euro.json" -m llama3.1-8b --tp 8 --pp 1 \
	--mbs 1 --gbs 8 --on nope
grep -q 'x[0-9A-F][0-9A-F]' "$T/err" && bad "--on: a name cut inside a character: $(cat "$T/err")" || ok
grep -qF "$(printf "$E10")4, ...)" "$T/err" && ok || bad "--on: list: $(cat "$T/err")"
expect 3 'no pool named "nope"' $H estimate -c "$T/euro.json" -m llama3.1-8b --plan "$T/plan.json"
grep -q 'x[0-9A-F][0-9A-F]' "$T/err" && bad "plan file: a name cut inside a character: $(cat "$T/err")" || ok
grep -qF "$(printf "$E10")4, ...)" "$T/err" && ok || bad "plan file: list: $(cat "$T/err")"

# 4. JSON error messages quote what the file holds, cut with a byte
# precision: a value at 60 bytes ("%.60s"), an unknown key at 80 ("%.80s"),
# a key that appears twice at 63 and its path at 255 (snprintf). A name of
# 'a' or 'k' then euro signs (3 bytes each) was cut inside a character
# and the message showed '\xE2\x82'. Now each cut ends on a whole one:
# "a" and 19 euro signs is 58 bytes (one more is 61 > 60).
EU=$(printf '\342\202\254')
E30=$(printf "$E10$E10$E10")
printf '{"mbs": "a%s", "gbs": 8}\n' "$E30" >"$T/j1.json"
printf '{"k%s": 1, "mbs": 1, "gbs": 8}\n' "$E30" >"$T/j2.json"
printf '{"a": {"k%s": 1, "k%s": 2}}\n' "$E30" "$E30" >"$T/j3.json"
printf '{"k%s": {"k%s": {"k%s": {"d": 1, "d": 2}}}}\n' "$E30" "$E30" "$E30" >"$T/j4.json"
for j in j1 j2 j3 j4; do
	expect 3 "$T/$j.json: " $H estimate --pool 1x8xH100-SXM -m llama3.1-8b --plan "$T/$j.json"
	grep -q 'x[0-9A-F][0-9A-F]' "$T/err" && bad "$j: cut inside a character: $(cat "$T/err")" || ok
done
E19="$(printf "$E10")$EU$EU$EU$EU$EU$EU$EU$EU$EU"
expect 3 "got \"a$E19\"" $H estimate --pool 1x8xH100-SXM -m llama3.1-8b --plan "$T/j1.json"

# 5. A price or GPU source URL holding ESC (a --source argument, a
# config file's source, HETPLAN_GPUS_URL) was fetched, and curl's failure
# printed it raw: "hetplan prices: json:https://...\e[31m... failed" and
# the source table turned the terminal red. pricing_url_ok now refuses a
# URL with a space or control byte (RFC 3986 section 2; curl refuses it
# too): exit 2 for the flag, 3 for the environment, shown escaped. No
# network is needed: the refusal comes before any fetch.
ESC=$(printf '\033')
X="env XDG_CACHE_HOME=$T/cache XDG_CONFIG_HOME=$T/cfg"
expect 2 "needs an http:// or https:// URL" $X $H prices --update --source "json:https://127.0.0.1:1/${ESC}[31mRED"
grep -q "$ESC" "$T/out" "$T/err" && bad "prices: ESC reached the terminal" || ok
expect 2 "expected an http:// or https:// URL" $X $H gpus --update --source "https://127.0.0.1:1/${ESC}[31mRED"
grep -q "$ESC" "$T/out" "$T/err" && bad "gpus: ESC reached the terminal" || ok
expect 3 "HETPLAN_GPUS_URL: expected an http(s):// URL" $X HETPLAN_GPUS_URL="https://x/${ESC}[2J" $H gpus --update
grep -q "$ESC" "$T/out" "$T/err" && bad "HETPLAN_GPUS_URL: ESC reached the terminal" || ok
expect 2 "needs an http:// or https:// URL" $X $H prices --update --source "json:https://127.0.0.1:1/a b"

# 6. `report WS.json` with objective deadline and no deadline_s printed
# the workspace's path raw (ui/cmd_report.c); a path holding ESC reached
# the terminal. It goes through cli_shown now, as every other message
# quoting an argument does.
WS="$T/ws${ESC}[31m.json"
printf '{"version": 1, "cluster": {"name": "s", "pools": [{"name": "h100", "gpu": "H100-SXM", "nodes": 1, "gpus_per_node": 2}]}, "model": "llama3.1-8b", "workload": {"gbs": 64, "seq_len": 4096, "tokens": 1e11, "objective": "deadline"}}\n' >"$WS"
expect 3 "workload.deadline_s: the objective deadline needs one" $H report "$WS" -o "$T/r.md"
grep -q "$ESC" "$T/err" && bad "report: ESC of the path reached the terminal" || ok

# 7. Every message is cut at 1023 bytes (struct hp_err). A plan file
# under directories of euro signs gives a message over that length, and
# the cut fell inside a character: vsnprintf left "\xE2\x82" at the end,
# and the terminal form then cut its own escape to "\x" or "\". The three
# prefixes move the cut by one byte each, so one of them lands inside a
# character whatever the scratch directory's length. The message must end
# on a whole character: no "\x" escape at all (the path holds no
# backslash), and valid UTF-8.
E84=$(printf "$E10$E10$E10$E10$E10$E10$E10$E10")$EU$EU$EU$EU
for pre in a ab abc; do
	d="$T/$pre/${E84}x/${E84}x/${E84}x/${E84}x"
	mkdir -p "$d" && printf '{"mbs": 0}\n' >"$d/p.json" || { bad "mkdir $pre"; continue; }
	expect 3 "" $H estimate --pool 1x8xH100-SXM -m llama3.1-8b --plan "$d/p.json"
	[ "$(wc -c <"$T/err")" -gt 1000 ] && ok || bad "$pre: message not cut: $(wc -c <"$T/err") bytes"
	grep -q '\\' "$T/err" && bad "$pre: cut inside a character: $(tail -c 40 "$T/err")" || ok
	python3 -c "open('$T/err', encoding='utf-8').read()" 2>/dev/null && ok ||
		bad "$pre: message is not UTF-8: $(tail -c 40 "$T/err" | od -c | tail -3)"
done

finish test_review51
