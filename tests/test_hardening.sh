#!/bin/sh
# test_hardening.sh — hostile input, files and terminals (issue 14). Each
# block is a reproducer from the review: it failed (crash, hang, wrong output
# or a file touched outside -o) before the fix. Run from the repository root
# after `make`; under `make asan` the same cases run on the instrumented
# binary, so a memory error aborts the command and the exit code check fails.
set -u
H=${HETPLAN:-./hetplan}
case $H in /*) HA=$H ;; *) HA=$PWD/$H ;; esac
D=tests/data/hardening
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh


E="$H estimate --pool 1x8xH100-SXM -m llama3.1-8b"

# 1. An unknown key in a plan file: the list of the plan's known keys (263
# characters then, over 400 now) overflowed a 256-byte stack buffer. The
# message must end with the last key of plan.c's list, "mem_capacity_bytes".
expect 3 "typo: unknown key" $E --plan $D/plan_typo.json
grep -qF "mem_need_bytes, mem_capacity_bytes)" "$T/err" && ok || bad "plan key list truncated: $(cat "$T/err")"

# 3. Names in launch scripts: a model display name and a pool name with
# $(), backticks and quotes went into # comments raw; the names are now one
# shell word each. The script parses, and running it in an empty PATH (so
# srun and scontrol fail at once) creates no PWNED file. The newline case
# is in test_escape.c (the parsers refuse control characters).
mkdir -p "$T/run"
expect 0 "" $H launch -c $D/cluster_evil.json -m $D/model_evil.json --tp 8 --pp 1 \
	--mbs 1 --gbs 16 --format slurm -o "$T/run/job.sh"
bash -n "$T/run/job.sh" && ok || bad "launch script does not parse"
(cd "$T/run" && PATH=/nonexistent /bin/bash job.sh >/dev/null 2>&1)
ls "$T/run" | grep -q PWNED && bad "launch script ran a name: $(ls "$T/run")" || ok
grep -qF "# Pool 'p\$(/usr/bin/touch PWNED3)'\''\`x\`' (H100-SXM" "$T/run/job.sh" && ok ||
	bad "pool name not quoted: $(grep Pool "$T/run/job.sh")"

# 4. Atomic writes. The temporary file is a fresh O_EXCL|O_NOFOLLOW name, so
# a symlink planted next to the output is never followed; the mode of the
# file replaced is kept (it became 0644); a temporary file left by a killed
# process (pid 2^22+1 cannot exist: Linux's pid_max is at most 2^22) is
# removed; -o onto a symlink replaces the link, never its target.
L="launch --pool 1x8xH100-SXM -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 8"
mkdir -p "$T/w"
echo keep >"$T/victim"
for i in 0 1 2 3 4 5 6 7 8 9; do ln -s "$T/victim" "$T/w/.out.sh.hp-tmp.$i"; done
echo old >"$T/w/out.sh"; chmod 600 "$T/w/out.sh"
echo stale >"$T/w/.out.sh.hp-tmp.4194305.0badf00d"
expect 0 "" $H $L -o "$T/w/out.sh"
[ "$(stat -c %a "$T/w/out.sh")" = 600 ] && ok || bad "mode not kept: $(stat -c %a "$T/w/out.sh")"
[ "$(cat "$T/victim")" = keep ] && ok || bad "symlink target overwritten"
[ -e "$T/w/.out.sh.hp-tmp.4194305.0badf00d" ] && bad "stale temporary file left" || ok
[ "$(ls -A "$T/w" | grep -vc '^\.out\.sh\.hp-tmp\.[0-9]$')" = 1 ] && ok || bad "files left: $(ls -A "$T/w")"
# a stale temporary file of the current form (".hp-tmp.PID.RANDOM"),
# of a process that cannot exist, is removed too
echo stale >"$T/w/.hp-tmp.4194305.0badf00d"
expect 0 "" $H $L -o "$T/w/out.sh"
[ -e "$T/w/.hp-tmp.4194305.0badf00d" ] && bad "stale short temporary file left" || ok
# Any legal name can be written: 255 bytes is Linux's NAME_MAX (ext4's
# and tmpfs's too), and 240 bytes; the older temporary name
# (".NAME.hp-tmp.PID.RANDOM", 1 + 8 + 7 + 1 + 8 = 25 bytes more than NAME
# at a 7-digit PID) went past 255 from NAME ~230. A 256-byte name is
# refused by the kernel (ENAMETOOLONG), named in the error.
for n in 240 255; do
	long=$(printf "%${n}s" "" | tr ' ' 'x')
	expect 0 "" $H $L -o "$T/w/$long"
	[ -s "$T/w/$long" ] && ok || bad "a $n-byte name was not written"
	rm -f "$T/w/$long"
done
long=$(printf "%256s" "" | tr ' ' 'x')
expect 1 "File name too long" $H $L -o "$T/w/$long"
ln -s "$T/victim" "$T/w/link.sh"
expect 0 "" $H $L -o "$T/w/link.sh"
[ "$(cat "$T/victim")" = keep ] && [ ! -L "$T/w/link.sh" ] && ok || bad "-o followed a symlink"

# 4b. -o onto a descriptor name writes to the descriptor the shell opened,
# at its offset, as `>&1` would: a header echoed first stays on line 1, and
# -o /dev/stdout >>log appends (the file was opened anew at byte 0 and the
# CSV overwrote "# header" and the log's first line). Same for /dev/fd/N,
# /proc/self/fd/N and report's -o. A closed descriptor is an error.
P="plan --pool 1x8xH100-SXM -m llama3.1-8b --gbs 64 --format csv"
{ echo "# header"; $H $P -o /dev/stdout; } >"$T/hdr.csv" 2>"$T/err"
[ "$(head -n 1 "$T/hdr.csv")" = "# header" ] && [ "$(sed -n 2p "$T/hdr.csv" | cut -d, -f1-2)" = rank,label ] &&
	ok || bad "-o /dev/stdout overwrote the header: $(head -c 200 "$T/hdr.csv")"
printf 'line one\nline two\n' >"$T/log"
$H $P -o /dev/stdout >>"$T/log" 2>"$T/err"
[ "$(head -n 2 "$T/log" | tr '\n' ' ')" = "line one line two " ] && [ "$(sed -n 3p "$T/log" | cut -c1-4)" = rank ] &&
	ok || bad "-o /dev/stdout >>log: $(head -c 200 "$T/log")"
echo first >"$T/fd3"
{ $H $P -o /dev/fd/3 && $H $P -o /proc/self/fd/3; } 3>>"$T/fd3" 2>"$T/err"
[ "$(head -n 1 "$T/fd3")" = first ] && [ "$(grep -c '^rank,label' "$T/fd3")" = 2 ] &&
	ok || bad "-o /dev/fd/3 twice onto >>: $(head -c 300 "$T/fd3")"
{ echo "# report"; $H report tests/data/report/workspace.json --format csv -o /dev/stdout; } >"$T/rep.csv" 2>"$T/err"
[ "$(head -n 1 "$T/rep.csv")" = "# report" ] && [ "$(wc -l <"$T/rep.csv")" -gt 2 ] &&
	ok || bad "report -o /dev/stdout: $(head -c 200 "$T/rep.csv")"
expect 1 "/dev/fd/9: Bad file descriptor" $H $P -o /dev/fd/9
# the same name reached without /dev/ in it (run in /dev): still the
# descriptor, and /dev/stdout stays a link (as root the atomic rename
# would have put a regular file there)
{ echo "# rel"; (cd /dev && "$HA" $P -o stdout); } >"$T/rel.csv" 2>"$T/err"
[ "$(head -n 1 "$T/rel.csv")" = "# rel" ] && [ "$(sed -n 2p "$T/rel.csv" | cut -d, -f1)" = rank ] &&
	[ -L /dev/stdout ] && ok || bad "-o stdout in /dev: $(head -c 200 "$T/rel.csv") $(cat "$T/err")"

# 4c. A link anywhere is never written through, /dev/shm (mode 1777: any
# user may plant one there) included: it was followed because its name
# began /dev/. The link is replaced by the new file and its target is left
# as it was. A link to a device is refused, not replaced; /dev/null named
# as itself is written into and stays a character device.
if [ -d /dev/shm ] && [ -w /dev/shm ]; then
	S=$(mktemp -u /dev/shm/hetplan-test.XXXXXX)
	echo keep >"$T/victim2"
	ln -s "$T/victim2" "$S.json"
	$H $P -o "$S.json" 2>"$T/err"; rc=$?
	[ $rc = 0 ] && [ "$(cat "$T/victim2")" = keep ] && [ -f "$S.json" ] && [ ! -L "$S.json" ] &&
		ok || bad "-o through a /dev/shm link: exit $rc, victim '$(head -c 80 "$T/victim2")'"
	ln -s /dev/null "$S.dev"
	expect 2 "a symbolic link to something other than a regular file" $H $P -o "$S.dev"
	[ -L "$S.dev" ] && ok || bad "a link to /dev/null was replaced"
	rm -f "$S.json" "$S.dev"
fi
expect 0 "" $H $P -o /dev/null
[ -c /dev/null ] && ok || bad "/dev/null is no longer a device"

# 6. A FIFO named like a cache file blocked every command that loads the
# price book (stat, then fopen, which waits for a writer). It is skipped
# with a warning; 60 s is a generous bound for a command that takes well
# under a second, so only a hang fails it.
mkdir -p "$T/cache/hetplan"
mkfifo "$T/cache/hetplan/prices-evil.cache"
XDG_CACHE_HOME="$T/cache" timeout 60 $H prices >"$T/out" 2>"$T/err"; rc=$?
[ "$rc" = 0 ] && grep -qF "prices-evil.cache: not a regular file" "$T/err" && ok ||
	bad "FIFO cache file: exit $rc, $(head -c 300 "$T/err")"

# 2. Counts that multiply. 1e6 replicas x TP 8 x CP 1024 = 8,192,000,000
# GPUs does not fit in int: it printed "on -397934592 GPUs" and passed the
# pool-size check. 2^31-1 nodes x 8, and 3 pools of 1e6 x 1024 GPUs, wrapped
# the cluster's total; --gbs 2^31-1 wrapped the batch split in the search.
expect 3 "count 1000000 x tp 8 x cp 1024 = 8192000000 GPUs, more than hetplan's limit of 16777216" $E --plan $D/plan_huge.json
expect 2 "expected at most 1000000, got 2147483647" $H plan --pool 2147483647x8xH100-SXM -m llama3.1-8b --gbs 64
expect 2 "more than hetplan's limit of 16777216" $H plan --pool 1000x1024xH100-SXM \
	--pool 1000x1024xH100-SXM --pool 1000000x1024xH100-SXM -m llama3.1-8b --gbs 64
expect 2 "--gbs: expected an integer from 1 to 100000000" $H plan --pool 8x8xH100-SXM -m llama3.1-8b --gbs 2147483647
expect 2 "--gbs: expected an integer from 1 to 100000000" $E --tp 8 --pp 1 --mbs 1 --gbs 2147483647

# 7. Numeric flags have ranges: a line rate of 1e-300 Gb/s and a deadline
# of 1e306 weeks were accepted.
expect 2 "--nic-gbps: expected a line rate from 1 to 100000" $H comm --nic-gbps 1e-300
expect 2 "--deadline: expected a duration up to 100 years" $H plan --pool 8x8xH100-SXM \
	-m llama3.1-8b --gbs 64 --objective deadline --deadline 1e306w

# 5. Output injection.
# Terminal: ESC ] 0 ; ... BEL retitles a terminal, ESC [ 2 J clears it. A
# cluster file's pool name with them is refused, and the message shows
# them in caret notation (ESC = ^[, BEL = ^G), never raw.
esc=$(printf '\033')
expect 3 'expected printable UTF-8 text' $H estimate -c $D/cluster_esc.json -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 8
grep -qF '^[]0;pwn^G^[[2J' "$T/err" && ok || bad "escape not shown as ^[: $(cat -v "$T/err")"
grep -q "$esc" "$T/err" && bad "raw ESC on stderr: $(cat -v "$T/err")" || ok
expect 2 'name: expected printable UTF-8 text' $H plan --pool "1x8xH100-SXM,name=a$(printf '\033[2J')" -m llama3.1-8b --gbs 64
grep -q "$esc" "$T/err" && bad "raw ESC on stderr: $(cat -v "$T/err")" || ok
expect 2 "--tp: expected a positive integer, got 'a^[[2J'" $E --tp "a$(printf '\033[2J')" --pp 1 --mbs 1 --gbs 8
grep -q "$esc" "$T/err" && bad "raw ESC on stderr: $(cat -v "$T/err")" || ok
# A file name as given reaches every load error (cli_fail): a plan file
# named with ESC ] 0 ; ... BEL shows them as ^[ and ^G.
bad_name="$T/x$(printf '\033]0;pwn\007').json"
printf '{}' >"$bad_name"
$H launch --plan "$bad_name" --pool 1x8xH100-SXM -m llama3.1-8b >"$T/out" 2>"$T/err"
grep -qF 'x^[]0;pwn^G.json' "$T/err" && ok || bad "file name not shown as ^[: $(cat -v "$T/err")"
grep -q "$esc" "$T/err" && bad "raw ESC on stderr: $(cat -v "$T/err")" || ok
rm -f "$bad_name"
# Invalid UTF-8 (a lone 0xFF byte) in a name would make --format json
# output invalid JSON; it is refused and shown as \xFF.
expect 2 'name: expected printable UTF-8 text' $H plan --pool "1x8xH100-SXM,name=a$(printf '\377')" -m llama3.1-8b --gbs 64
grep -qF "got 'a\\xFF'" "$T/err" && ok || bad "0xFF not shown as \\xFF: $(cat -v "$T/err")"
# CSV: a pool name with a comma once split the plan --format csv header
# into one more column than the rows have (RFC 4180 quoting was missing);
# the header is now fixed (REPORT_CSV_COLUMNS) and the name sits, quoted,
# in the gpus_by_pool cell.
expect 0 "" $H plan -c $D/cluster_comma.json -m llama3.1-8b --gbs 64 --top 2 --format csv
python3 -c "
import csv, sys
rows = list(csv.reader(open('$T/out')))
assert rows[0][3] == 'gpus_by_pool' and rows[1][3].startswith('a,b:'), rows[:2]
assert all(len(r) == len(rows[0]) for r in rows), [len(r) for r in rows]
" && ok || bad "CSV header: $(head -2 "$T/out")"
# Markdown: renderers pass raw HTML through; a pool name is text.
expect 0 "" $H plan --pool '1x8xH100-SXM,name=<img src=x onerror=alert(1)>' -m llama3.1-8b \
	--gbs 64 --top 1 --format md
grep '^|' "$T/out" | grep -q '<img' && bad "raw HTML in a Markdown table: $(grep img "$T/out")" || ok
# the label's short name (plan_label.h): 8 head columns, "~", 5 tail
# ('>' after text opens no tag and stays as it is: esc_md)
grep -qF '| &lt;img src\~t(1)> tp1' "$T/out" && ok || bad "Markdown cell not escaped"

# 7. A file without end: -c /dev/zero read 512 MiB before saying "larger
# than 256 MiB"; the limit is now checked while reading.
expect 3 "/dev/zero: file larger than 256 MiB" $H estimate -c /dev/zero -m llama3.1-8b \
	--tp 1 --pp 1 --mbs 1 --gbs 8

# 7. JSON nested 1001 levels (cJSON's limit is 1000) was "malformed JSON,
# column 1001".
expect 3 "deep.json: line 1, column 1001: JSON nested deeper than 1000 levels" \
	$H estimate -c $D/deep.json -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8

# 7. A \u0000 escape in a JSON string: cJSON decodes it to a NUL byte, so
# the pool "h100\u0000evil" was planned as "h100" without a word. Refused,
# with the line and column of the escape (56 characters before it:
# {"pools": [{"gpu": "H100-SXM", "nodes": 1, "name": "h100).
printf '{"pools": [{"gpu": "H100-SXM", "nodes": 1, "name": "h100\\u0000evil"}]}' >"$T/nul.json"
expect 3 'nul.json: line 1, column 57: a string holds \u0000 (NUL)' \
	$H estimate -c "$T/nul.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
# An escaped backslash before "u0000" is text, not a NUL.
printf '{"pools": [{"gpu": "H100-SXM", "nodes": 1, "name": "h\\\\u0000"}]}' >"$T/bs.json"
expect 4 "" $H estimate -c "$T/bs.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
# A raw NUL or other control byte (below 0x20) in a string: RFC 8259
# section 7 requires it escaped; cJSON copied it, so the pool "h100<NUL>evil"
# planned as "h100" and a NUL in a key read "pools[0].na: unknown key".
# Column 57: 56 characters before the byte, as for nul.json above; the key
# "na<NUL>me" has 46 before it ({"pools": [{"gpu": "H100-SXM", "nodes": 1, "na).
printf '{"pools": [{"gpu": "H100-SXM", "nodes": 1, "name": "h100\000evil"}]}' >"$T/rawnul.json"
expect 3 'rawnul.json: line 1, column 57: a raw NUL byte, which JSON text may not hold' \
	$H estimate -c "$T/rawnul.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
printf '{"pools": [{"gpu": "H100-SXM", "nodes": 1, "na\000me": "h100"}]}' >"$T/rawkey.json"
expect 3 'rawkey.json: line 1, column 47: a raw NUL byte' \
	$H estimate -c "$T/rawkey.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
printf '{"pools": [{"gpu": "H100-SXM", "nodes": 1, "name": "h100\033x"}]}' >"$T/rawesc.json"
expect 3 'rawesc.json: line 1, column 57: raw control byte 0x1B, which JSON allows only as the escape \u001B' \
	$H estimate -c "$T/rawesc.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
# Tab, line feed and carriage return between tokens are JSON white space.
printf '{"pools":\r\n\t[{"gpu": "H100-SXM", "nodes": 1, "name": "h100"}]}' >"$T/ws.json"
expect 4 "" $H estimate -c "$T/ws.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
# A key twice in one object: cJSON read the first "nodes" (1), Python's
# json the last (8), so one file planned two clusters. Refused, naming it.
printf '{"pools": [{"gpu": "H100-SXM", "nodes": 1, "nodes": 8}]}' >"$T/dup.json"
expect 3 'dup.json: pools[0]: key "nodes" appears twice in one object' \
	$H estimate -c "$T/dup.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
# The same in an object of 200000 keys, one of them twice: found by sorting
# the names, so the answer comes at once (pairwise, 2e10 comparisons).
python3 -c "
k = ','.join('\"k%d\": 1' % i for i in range(200000))
open('$T/many.json', 'w').write('{\"pools\": [{\"gpu\": \"H100-SXM\", \"nodes\": 1}], \"x\": {' + k + ', \"k5\": 2}}')
"
expect 3 'many.json: x: key "k5" appears twice in one object' \
	timeout 60 $H estimate -c "$T/many.json" -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8

# 7. -o - is standard output (it created a file named "-").
mkdir -p "$T/dash"
(cd "$T/dash" && "$HA" $L -o - >out 2>err) && ok || bad "launch -o -: $(cat "$T/dash/err")"
[ -e "$T/dash/-" ] && bad "launch -o - created a file named -" || ok
head -1 "$T/dash/out" | grep -q '^# Megatron-LM arguments for' && ok || bad "launch -o - wrote nothing"
(cd "$T/dash" && "$HA" report "$OLDPWD/tests/data/report/workspace.json" -o - --format json >r.json 2>err) &&
	python3 -c "import json; d=json.load(open('$T/dash/r.json')); assert 'plans' in d" && ok ||
	bad "report -o -: $(cat "$T/dash/err")"
[ -e "$T/dash/-" ] && bad "report -o - created a file named -" || ok
# serve -o - too (the man page: "as for plan"; it wrote a file named -).
(cd "$T/dash" && "$HA" serve --pool 1x8xH100-SXM -m llama3.1-8b --isl 1000 --osl 100 \
	--rate 1 --format json -o - >s.json 2>err) &&
	python3 -c "import json; d=json.load(open('$T/dash/s.json')); assert d['plans']" && ok ||
	bad "serve -o -: $(cat "$T/dash/err")"
[ -e "$T/dash/-" ] && bad "serve -o - created a file named -" || ok

# -o onto a FIFO (or a device: /dev/null, /dev/full) writes into it, as a
# shell redirection does; the atomic rename replaced the FIFO with a
# regular file (and, run as root, /dev/null itself). A reader on the FIFO
# gets the JSON; the FIFO is still one afterwards.
mkfifo "$T/dash/fifo"
timeout 20 cat "$T/dash/fifo" > "$T/dash/fromfifo" &
reader=$!
timeout 20 "$HA" plan --pool 1x8xH100-SXM -m llama3.1-8b --gbs 64 --top 1 --format json \
	-o "$T/dash/fifo" 2>"$T/dash/err" || bad "plan -o FIFO: $(cat "$T/dash/err")"
[ -p "$T/dash/fifo" ] && ok || bad "plan -o FIFO replaced the FIFO with a file"
# unblock the reader if the FIFO was replaced and nothing opened it
[ -p "$T/dash/fifo" ] || kill "$reader" 2>/dev/null
wait "$reader"
python3 -c "import json; d=json.load(open('$T/dash/fromfifo')); assert d['plans']" 2>/dev/null && ok ||
	bad "plan -o FIFO: the reader got no plan JSON"

# Standard output that cannot be written (redirected onto a full disk;
# /dev/full fails every write with ENOSPC) is an I/O failure, exit 1: the
# table and the JSON were lost and the exit status was 0.
if [ -c /dev/full ]; then
	for fmt in table json; do
		$H plan --pool 1x8xH100-SXM -m llama3.1-8b --gbs 64 --top 1 --format $fmt \
			>/dev/full 2>"$T/err"
		rc=$?
		[ $rc = 1 ] && grep -q "standard output" "$T/err" && ok ||
			bad "plan --format $fmt > /dev/full: exit $rc, $(cat "$T/err")"
	done
	# The failure is said once: with -o - (and -o /dev/stdout) the write's
	# own error and the check at exit both printed a line
	# ("No space left on device", then "write error").
	for o in - /dev/stdout; do
		for c in "plan --pool 1x8xH100-SXM -m llama3.1-8b --gbs 64 --top 1" \
			"launch --pool 1x8xH100-SXM -m llama3.1-8b --tp 8 --pp 1 --mbs 1 --gbs 8"; do
			$H $c -o $o >/dev/full 2>"$T/err"
			rc=$?
			[ $rc = 1 ] && [ "$(grep -c "standard output\|/dev/stdout" "$T/err")" = 1 ] && ok ||
				bad "${c%% *} -o $o > /dev/full: exit $rc, $(cat "$T/err")"
		done
	done
fi

# 9. The catalog key clock_ref (a reference part's tdp_w, sm_count and
# bf16_tflops; src/catalog.c) in a user catalog: each hostile value stops
# hetplan with exit 3 and a message naming the file and the field. A
# copy of the built-in GB300 (1400 W, 160 SMs, 2500 TFLOP/s bf16, its
# clock_ref GB200 1200 W, 148, 2500) gets the value under test. Before
# the fix, a fractional sm_count ran, a clock_ref with 1000x figures
# (a slip of unit: 1e5 W, 0.001 PFLOP/s written as TFLOP/s) ran at a
# rate 30-2000x too slow (a 62-day step for 8B on 4 GPUs), and a
# clock_ref on a part without tdp_w, or beside gemm16_tflops_measured,
# was ignored without a word.
mkdir -p "$T/cr/hetplan"
clockref() {
	python3 - "$T/cr/hetplan/gpus.json" "$1" "$2" <<'PY' || bad "clock_ref catalog $1 $2"
import json, sys
g = next(x for x in json.load(open("data/gpus.json"))["gpus"] if x["name"] == "GB300")
g = dict(g, name="CR", aliases=[])
g.pop("defaults", None)
how, val = sys.argv[2], sys.argv[3]
if how == "ref":
    g["clock_ref"] = "@REF@"
elif how == "drop":
    del g[val]
else:
    g[how] = json.loads(val)
s = json.dumps({"gpus": [g]}).replace('"@REF@"', val)
open(sys.argv[1], "w").write(s)
PY
}
CR="env XDG_CONFIG_HOME=$T/cr $H estimate --pool 1x4xCR -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8"
F="$T/cr/hetplan/gpus.json: gpus[0].clock_ref"
for c in '-5|tdp_w' '0|tdp_w' '1e999|tdp_w' '"1200"|tdp_w' 'null|tdp_w' 'true|tdp_w'; do
	clockref ref "{\"tdp_w\": ${c%|*}, \"sm_count\": 148, \"bf16_tflops\": 2500}"
	expect 3 "$F.tdp_w: expected a number from 1 to 100000" $CR
done
clockref ref '{"tdp_w": 1200, "sm_count": 148.5, "bf16_tflops": 2500}'
expect 3 "$F.sm_count: expected an integer from 1 to 100000, got 148.5" $CR
clockref ref '{"tdp_w": 1200, "sm_count": -148, "bf16_tflops": 2500}'
expect 3 "$F.sm_count: expected an integer" $CR
clockref ref '{"tdp_w": 1200, "sm_count": 148, "bf16_tflops": 1e308}'
expect 3 "$F.bf16_tflops: expected a number from 0.001 to 1e+06" $CR
clockref ref '{"tdp_w": 1200, "sm_count": 148}'
expect 3 "$F.bf16_tflops: missing" $CR
clockref ref '{}'
expect 3 "$F.tdp_w: missing" $CR
clockref ref '"GB200"'
expect 3 "$F: expected an object" $CR
clockref ref '[1200, 148, 2500]'
expect 3 "$F: expected an object" $CR
clockref ref '{"tdp_w": 1200, "sm_count": 148, "bf16_tflops": NaN}'
expect 3 "gpus.json: line 1" $CR
# figures a unit slip away from the part's own
clockref ref '{"tdp_w": 100000, "sm_count": 148, "bf16_tflops": 2500}'
expect 3 "$F.tdp_w: 100000 is more than 8x away from the part's own 1400" $CR
clockref ref '{"tdp_w": 1.2, "sm_count": 148, "bf16_tflops": 2500}'
expect 3 "$F.tdp_w: 1.2 is more than 8x away" $CR
clockref ref '{"tdp_w": 1200, "sm_count": 14800, "bf16_tflops": 2500}'
expect 3 "$F.sm_count: 14800 is more than 8x away from the part's own 160" $CR
clockref ref '{"tdp_w": 1200, "sm_count": 148, "bf16_tflops": 2.5}'
expect 3 "$F.bf16_tflops: 2.5 is more than 8x away from the part's own 2500" $CR
# a clock_ref with nothing of the part's own to scale against, or beside
# a measured rate that already says what it would estimate
clockref drop tdp_w
expect 3 "$F: needs the part's own tdp_w" $CR
clockref drop sm_count
expect 3 "$F: needs the part's own sm_count" $CR
clockref drop tflops
expect 3 "$F: needs the part's own tflops.bf16" $CR
clockref gemm16_tflops_measured 1500
expect 3 "$F: give either clock_ref or gemm16_tflops_measured" $CR
# a clock_ref naming the part itself (its "part" and "source" are notes,
# never read) and one equal to the part (power and SM ratios 1) run
clockref ref '{"part": "CR", "tdp_w": 1400, "sm_count": 160, "bf16_tflops": 2500}'
expect 0 "" $CR
clockref ref '{"tdp_w": 1200, "sm_count": 148, "bf16_tflops": 2500}'
expect 0 "" $CR

# 7/8. HTTP. Retry-After: 99999999999999999999 overflowed curl's parser and
# read as "no Retry-After"; it is a wait of 1e20 s. An ETag with a bare CR
# was stored and replayed in If-None-Match; it is dropped instead.
(
unset http_proxy https_proxy all_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY no_proxy NO_PROXY
export XDG_CACHE_HOME="$T/hc" XDG_CONFIG_HOME="$T/hcfg" HETPLAN_HTTP_TIMEOUT=5
python3 $D/server.py "$T/port" "$T/srvlog" &
SRV=$!
i=0
while [ ! -s "$T/port" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
export HETPLAN_SKYPILOT_URL="http://127.0.0.1:$(cat "$T/port")/v8"
expect 1 "asks to wait 100000000000000000000 s (longer than hetplan waits); try again after more than 100 years" \
	$H prices --update --source skypilot:gcp
expect 0 "" $H prices --update --source skypilot:aws
expect 0 "" $H prices --update --source skypilot:aws
grep -c "aws/vms.csv inm=None" "$T/srvlog" | grep -qx 2 && ok || bad "ETag with CR replayed: $(cat "$T/srvlog")"
kill $SRV
echo "sub: $pass $fail" >"$T/sub"
)
read -r _ p2 f2 <"$T/sub"; pass=$p2 fail=$f2

# A small stack: the search's per-pool results live on the heap and its
# threads get their own 16 MB stacks (hp_thread_start), so a user's
# `ulimit -s 256` neither crashes the planner nor changes its answer.
# (Before, a 2-pool deadline search on 2 threads died at 560 KB: 16
# per-pool results of 29 KB each made one 466 KB frame.)
sargs="plan --model mixtral-8x22b --gbs 1024 --pool 32x8xH100-SXM,max=32 --pool 64x8xA100-80GB,max=64 --objective deadline --tokens 1T --deadline 30d --threads 2 --format json"
# The calling thread takes search work too, on the user's stack. Under
# `make asan` every stack object gets redzones and frames grow (the
# AddressSanitizer documentation puts stack use at up to about 3x), so the
# instrumented build gets 4 x 256 KB: the same small-stack question.
stack=256
case $H in *build-asan*) stack=1024 ;; esac
( ulimit -s $stack 2>/dev/null && exec $H $sargs ) >"$T/small.json" 2>"$T/small.err"
rc=$?
[ $rc -eq 0 ] && ok || bad "plan under ulimit -s $stack: exit $rc: $(tail -c 300 "$T/small.err")"
$H $sargs >"$T/big.json" 2>/dev/null
python3 - "$T/small.json" "$T/big.json" <<'PY' && ok || bad "plans under ulimit -s $stack differ from the default stack's"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
key = lambda d: [(p["label"], p["step_time_s"]) for p in d["plans"]]
assert key(a) == key(b) and key(a), (key(a)[:2], key(b)[:2])
PY

# host_mem_gb (pool key, GB per node): negative, zero, NaN, infinite,
# huge, a string, a boolean, an array: refused with the key named, not
# taken as "no host" or wrapped (a flag: usage 2; a cluster file: input 3).
for v in -1 0 nan -inf 1e400 x; do
	expect 2 "host_mem_gb: expected a number from 1 to 100000" $E --tp 8 --pp 1 --mbs 1 \
		--gbs 8 --pool "1x8xH100-SXM,host_mem_gb=$v"
done
for v in -1 1e6 '"960"' false '[960]'; do
	printf '{"pools": [{"gpu": "GB200", "nodes": 1, "host_mem_gb": %s}]}\n' "$v" >"$T/hm.json"
	expect 3 "pools[0].host_mem_gb" $H estimate -c "$T/hm.json" -m llama3.1-8b --tp 4 \
		--pp 1 --mbs 1 --gbs 4
done

# A plan file's "tokens" (hetplan plan --format json writes it; launch
# reads it for the step count): 1e300 and 1e400 (inf to strtod) ran the
# step count through a double-to-long-long overflow, and the scripts said
# --max_steps -1152921504606846975 and --train-samples
# -9223372036854775800 (the Trainer reads max_steps <= 0 as "train by
# epochs"). The file's value has --tokens's range, 1 to 1e18, and the
# refusal names the file and key (input: 3). 1e18 itself still launches:
# 1e18 / 2048 (gpt-1.7b's sequence) = 488281250000000 sequences, / 8 =
# 61035156250000 steps.
for t in 1e300 1e400 1e19 0.5; do
	printf '{"tokens": %s, "plans": [{"mbs": 1, "gbs": 8, "replicas": [{"count": 8, "stages": [{"pool": "a100-sxm4-80gb", "tp": 1, "first_layer": 0, "last_layer": 23}]}]}]}' \
		"$t" >"$T/tok.json"
	for f in hf-trainer megatron; do
		expect 3 "$T/tok.json: tokens: expected a token count from 1 to 1e+18" $H launch \
			--pool 1x8xA100-SXM4-80GB -m gpt-1.7b --plan "$T/tok.json" --format $f
	done
done
printf '{"tokens": 1e18, "plans": [{"mbs": 1, "gbs": 8, "replicas": [{"count": 8, "stages": [{"pool": "a100-sxm4-80gb", "tp": 1, "first_layer": 0, "last_layer": 23}]}]}]}' >"$T/tok.json"
expect 0 "" $H launch --pool 1x8xA100-SXM4-80GB -m gpt-1.7b --plan "$T/tok.json" --format hf-trainer
grep -qx '	--max_steps 61035156250000' "$T/out" && ok || bad "1e18 tokens: $(grep max_steps "$T/out")"

# A user catalog part without memory_bw_tbps (only name and memory_gb are
# required): every memory-bound op divides by the HBM bandwidth, so the
# training side refuses it as input (exit 3, naming the pool and the
# field), as serving does, where before estimate printed "step time -"
# with exit 0 and plan answered "no plan fits" (docs/hardening.md).
mkdir -p "$T/nobw/hetplan"
printf '{"gpus": [{"name": "NOBW", "memory_gb": 80, "bf16_tflops": 900}]}' >"$T/nobw/hetplan/gpus.json"
expect 3 "pool 'nobw' (NOBW): the catalog has no memory bandwidth for it (memory_bw_tbps)" env XDG_CONFIG_HOME="$T/nobw" $H estimate --pool 1x8xNOBW -m llama3.1-8b --tp 1 --pp 1 --mbs 1 --gbs 8
expect 3 "the catalog has no memory bandwidth for it" env XDG_CONFIG_HOME="$T/nobw" $H plan --pool 1x8xNOBW -m llama3.1-8b --gbs 8

finish hardening
