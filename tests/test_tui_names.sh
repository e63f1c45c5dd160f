#!/bin/sh
# test_tui_names.sh — names that are not plain ASCII, typed and shown in
# the real binary under a private tmux server.
#
#   - The prompt takes UTF-8 as typed (a multi-byte key arrives byte by
#     byte): "Tōkyō" typed as a pool name is the name saved, not "Tky".
#   - Left and Backspace move over whole characters: on "ab東京", Left then
#     Backspace removes 東 (3 bytes), leaving "ab京", valid UTF-8.
#   - A / search longer than it holds is cut on a character, and so is a
#     refused Serve field value echoed in the footer.
#   - A multi-byte character goes in only once it is whole and valid: a
#     lead byte cut short by another key, an overlong form, a surrogate
#     and a stray continuation byte are dropped.
#   - A typed name loses the spaces around it; spaces only, or over the 31
#     bytes a pool name holds, is refused with a message.
#   - The Cluster table keeps its columns with wide (CJK, 2 cells each) and
#     multi-byte names: the GPU column starts in the same terminal cell on
#     every row, a name too long for its cells (8, more where the row has
#     room) is cut head~tail on whole characters, and the WHERE column
#     ends in "~" on a whole character.
#   - `c` names a long UTF-8 pool's copy from its name cut on a character.
#   - The header cuts a long UTF-8 file name on a character.
#   - A footer message in wide characters is cut in cells and shows.
#   - The Plans view's RUNS ON list, too long at 80 columns, keeps whole
#     framework names and ends in "+…".
#   - Every view, at 60x20 and 80x24, with wide, emoji and combining pool
#     names on transports off InfiniBand: no line wider than the terminal,
#     no control character; the pool heading and the Detail's transport
#     line show 31-byte names whole; the Prices view's YOUR POOLS never
#     reads two pools alike; control bytes and 200 characters are refused
#     by name, typed or in the file, and never reach the terminal.
# Cells are counted with Unicode's East Asian Width (W and F take 2), as
# the terminal draws them; tmux's capture gives each wide character once.
# Run from the repository root; $HETPLAN names the binary (./hetplan).
. tests/tui_lib.sh
TUI_DIR=$tmp

cat >"$tmp/names.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "lab", "pools": [
   {"name": "東京東京東京", "gpu": "H100-SXM", "nodes": 2, "provider": "日本クラウド", "region": "ap-東京-1"},
   {"name": "x\"y'z", "gpu": "A100-SXM4-80GB", "nodes": 2},
   {"name": "h100", "gpu": "H100-SXM", "nodes": 1}]},
 "model": "llama3.1-8b",
 "workload": {"gbs": 64, "seq_len": 4096, "precision": "bf16", "objective": "throughput", "top": 5}}
JSON

# cells_before RE: the terminal cells of the text before the first match
# of the regular expression RE in each line of stdin, one per line.
cells_before() {
	python3 -c '
import re, sys, unicodedata
pat = re.compile(sys.argv[1])
for line in sys.stdin:
    m = pat.search(line)
    if m:
        pre = line[:m.start()]
        print(sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in pre))
' "$1"
}

start nm 100 30 "" "tui names.json"
wait_ready nm || bad "no plans for names.json: $(screen nm | tail -1)"
keys nm 1
wait_for nm "NODES" || bad "no Cluster view"
screen nm >"$tmp/cl.txt"
# The header's GPU column and each pool row's GPU name start in one cell.
starts=$(sed -n '3,6p' "$tmp/cl.txt" | cells_before ' (GPU |H100-SXM|A100-SXM4-80GB)' | sort -u)
[ "$(echo "$starts" | wc -l)" = 1 ] && ok || bad "GPU column not aligned (cells $starts): $(sed -n 3,6p "$tmp/cl.txt")"
# FABRIC, after NODES and GPU/N, starts in one cell too.
fab=$(sed -n '3,6p' "$tmp/cl.txt" | cells_before ' (FABRIC|NVS\+)' | sort -u)
[ "$(echo "$fab" | wc -l)" = 1 ] && ok || bad "FABRIC column not aligned (cells $fab)"
# The POOL column at 100 columns: 10 cells (8, and the 2 the row has to
# spare: GPU 16, WHERE 20, 96 of the 98). The 12-cell name is cut as plan
# labels cut it, head~tail on whole characters: 東京東 (6), "~", 京 (2),
# and a cell of padding.
grep -q '^ 東京東~京  H100-SXM ' "$tmp/cl.txt" && ok || bad "wide name not cut to 10 cells: $(sed -n 4p "$tmp/cl.txt")"
grep -q "^ x\"y'z      A100" "$tmp/cl.txt" && ok || bad "quoted name: $(sed -n 5p "$tmp/cl.txt")"
# WHERE is 20 cells at 100 columns: 日本クラウド (12) + "/ap-" (4) + 東 (2) + "~".
grep -q ' 日本クラウド/ap-東~ ' "$tmp/cl.txt" && ok || bad "WHERE not cut on a character: $(sed -n 4p "$tmp/cl.txt")"

# A / search longer than the search holds (63 bytes) is cut on a
# character: "a" and 25 東 (76 bytes) search as "a" and 20 (61 bytes), and
# the footer's "no match" shows them, no split byte (\xE6).
keys nm / "a$(python3 -c 'print("東" * 25)')" Enter
wait_for nm "no match for 'a東東東" || bad "no 'no match' for a long search: $(screen nm | tail -1)"
screen nm | tail -1 | grep -q "'a$(python3 -c 'print("東" * 20)')'" && ok ||
	bad "a long UTF-8 search: $(screen nm | tail -1)"

# Rename the third pool, typing UTF-8: Tab to the fields, Name is the
# first field.
keys nm j j Enter
wait_for nm "── Pool h100 " || bad "no fields of pool h100"
keys nm Enter
wait_for nm "Name: h100" || bad "Enter on Name did not prompt: $(screen nm | tail -1)"
keys nm C-u "Tōkyō" Enter
wait_for nm "── Pool Tōkyō " && ok || bad "the typed UTF-8 name was not taken: $(screen nm | grep -- '── Pool')"
keys nm Enter
wait_for nm "Name: Tōkyō" || bad "no Name prompt the second time: $(screen nm | tail -1)"
keys nm C-u "ab東京" Left BSpace Enter
wait_for nm "── Pool ab京 " && ok || bad "Left, Backspace did not remove one whole character: $(screen nm | grep -- '── Pool')"
keys nm Escape w
wait_for nm "Save workspace to" || bad "w did not prompt"
keys nm C-u saved.json Enter
if wait_for nm "saved saved.json" && [ -s "$tmp/saved.json" ]; then ok; else bad "no saved.json: $(screen nm | tail -1)"; fi
python3 - "$tmp/saved.json" <<'PY' && ok || bad "saved names: $(head -c 400 "$tmp/saved.json")"
import json, sys
raw = open(sys.argv[1], "rb").read()
raw.decode("utf-8")          # strict: a split character raises
names = [p["name"] for p in json.loads(raw)["cluster"]["pools"]]
assert names == ["東京東京東京", "x\"y'z", "ab京"], names
PY
"$HP" report "$tmp/saved.json" -o "$tmp/r.md" >/dev/null 2>"$tmp/err" && ok ||
	bad "hetplan report refuses the saved workspace: $(cat "$tmp/err")"
# Spaces around a typed name are dropped; spaces only are no name; a name
# over the 31 bytes a pool name holds is refused (11 CJK characters are
# 33 bytes), not cut inside a character.
keys nm Enter Enter   # the fields again (Esc left them), then Name
wait_for nm "Name: ab京" || bad "no Name prompt the third time: $(screen nm | tail -1)"
keys nm C-u "   " Enter
wait_for nm "Name: a pool needs a name" && ok || bad "a name of spaces: $(screen nm | tail -1)"
keys nm Enter
wait_for nm "Name: ab京" || bad "no Name prompt the fourth time"
keys nm C-u "$(python3 -c 'print("東" * 11)')" Enter
wait_for nm "Name: at most 31 bytes, got 33" && ok || bad "a 33-byte name: $(screen nm | tail -1)"
keys nm Enter
wait_for nm "Name: ab京" || bad "no Name prompt the fifth time"
keys nm C-u "  lab b  " Enter
wait_for nm "── Pool lab b ──" && ok || bad "spaces around a name: $(screen nm | grep -- '── Pool')"
keys nm q q
wait_for nm "EXITED:0" && ok || bad "quit"

# ---- `c` duplicates a pool whose UTF-8 name fills its 31 bytes: the copy
# is named from the first 24 bytes and "-2", cut on a character: "a" and
# 7 CJK characters (22 bytes), not 22 bytes and two of the eighth's three
# (which saved a name `hetplan report` refuses as invalid UTF-8).
cat >"$tmp/dup.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "lab", "pools": [{"name": "a東京東京東京東京東京", "gpu": "H100-SXM", "nodes": 1}]},
 "model": "llama3.1-8b",
 "workload": {"gbs": 64, "seq_len": 4096, "precision": "bf16", "objective": "throughput", "top": 5}}
JSON
start dp 100 30 "" "tui dup.json"
wait_ready dp || bad "no plans for dup.json: $(screen dp | tail -1)"
keys dp 1
wait_for dp "NODES" || bad "no Cluster view for dup.json"
keys dp c
wait_for dp "added pool a東京東京東京東-2" && ok || bad "c: $(screen dp | tail -1)"
keys dp w
wait_for dp "Save workspace to" || bad "w did not prompt (dup)"
keys dp C-u dup2.json Enter
if wait_for dp "saved dup2.json" && [ -s "$tmp/dup2.json" ]; then ok; else bad "no dup2.json"; fi
"$HP" report "$tmp/dup2.json" -o "$tmp/dup2.md" >/dev/null 2>"$tmp/err" && ok ||
	bad "hetplan report refuses the duplicated pool's name: $(cat "$tmp/err")"
keys dp q
wait_for dp "EXITED:0" && ok || bad "quit dup"

# ---- a long message in wide characters still shows: the Serve view's
# Model field given 40 CJK characters answers "Model: no preset '...'",
# wider in cells than in characters; the footer shows its start, cut in
# cells, not a blank line.
start wm 80 24 "" ""
wait_ready wm || bad "no plans at 80x24"
keys wm 7
wait_for wm "Serving Llama-3.1 70B" || bad "no Serve view at 80x24"
keys wm Enter
wait_for wm "Model (a preset name" || bad "Enter on Model did not prompt: $(screen wm | tail -1)"
keys wm C-u "$(python3 -c 'print("東京" * 20)')" Enter
wait_status wm "Model: no preset '東京東京" 300 && ok || bad "the footer of a wide message: '$(screen wm | tail -1)'"
keys wm q q
wait_for wm "EXITED:0" && ok || bad "quit wm"

# ---- a refused value is echoed cut on a character: the Serve view's
# Rate field (the fourth) given "ab" and 14 times 東 (2 + 42 bytes)
# answers "... got '<the first 40 bytes>'", here "ab" and 12 times 東
# (2 + 36 bytes; 40 bytes would end in two of the thirteenth's three,
# drawn as \xE6\x9D).
start rt 120 30 "" ""
wait_ready rt || bad "no plans for the rate run"
keys rt 7
wait_for rt "Serving Llama-3.1 70B" || bad "no Serve view for the rate run"
keys rt j j j Enter
wait_for rt "Rate (requests/s" || bad "Enter on Rate did not prompt: $(screen rt | tail -1)"
keys rt C-u "ab$(python3 -c 'print("東" * 14)')" Enter
want="Rate: expected requests/s above 0, at most 10000000, or offline; got 'ab$(python3 -c 'print("東" * 12)')'"
wait_status rt " $want *\$" 300 && ok || bad "the refused rate's echo: '$(screen rt | tail -1)'"
keys rt q q
wait_for rt "EXITED:0" && ok || bad "quit rt"

# ---- the line editor keeps a typed UTF-8 character aside until it is
# whole and valid (RFC 3629 section 4). tmux's send-keys -H types raw
# bytes: a lead byte E6 followed by "b" (a character cut short), E0 80 80
# (an overlong form of U+0000), ED A0 80 (the surrogate U+D800) and a
# stray continuation byte 80 are dropped; C3 A9 (U+00E9, é) and F0 9F 98
# 80 (U+1F600) go in. The name typed is "a" E6 "b" E0 80 80 "c" ED A0 80
# "d" 80 C3 A9 F0 9F 98 80 ".json": saved as "abcdé😀.json".
start le 120 30 "" ""
wait_ready le || bad "no plans for the line editor run"
keys le w
wait_for le "Save workspace to" || bad "w did not prompt: $(screen le | tail -1)"
keys le C-u a
keys le -H e6
keys le b
keys le -H e0 80 80
keys le c
keys le -H ed a0 80
keys le d
keys le -H 80 c3 a9 f0 9f 98 80
keys le .json Enter
name="abcdé$(printf '\360\237\230\200').json"
wait_for le "saved $name" && ok || bad "the typed name with bad UTF-8: '$(screen le | tail -1)'"
[ -s "$tmp/$name" ] && ok || bad "no $name written: $(ls "$tmp" | tr '\n' ' ')"
keys le q
wait_for le "EXITED:0" && ok || bad "quit le"

# ---- a workspace file named in UTF-8, longer than the header's 60 bytes:
# "a" and 25 times 東京 (151 bytes) is cut to 60 bytes on a character,
# "a" and 19 CJK characters (1 + 57 bytes), never a split one (drawn as
# \xE6).
long="a$(python3 -c 'print("東京" * 25)').json"
cp "$tmp/names.json" "$tmp/$long"
start lf 120 30 "" "tui $long"
wait_ready lf || bad "no plans for the long file name: $(screen lf | tail -1)"
head1=$(screen lf | head -1)
case $head1 in
*"│ a東京東京東京東京東京東京東京東京東京東 │"*) ok ;;
*) bad "header with a long UTF-8 file name: $head1" ;;
esac
keys lf q
wait_for lf "EXITED:0" && ok || bad "quit long file name"

# ---- cut cells: a RUNS ON list too long for its column (10 cells at 80
# columns) keeps whole framework names and ends in "+…", never a name cut
# short ("mcore+ds+t"). The L40S pool's best plan, TP 1 on one GPU, runs
# on Megatron-Core, DeepSpeed and torchtitan (14 characters). Every row's
# last word is a "+" list of the short names of `hetplan plan`'s legend
# (mcore, mlm, ds, titan), or none.
big3_workspace "$tmp/big.json" '{"gbs": 1024, "seq_len": 8192, "tokens": 2e12, "objective": "throughput", "top": 10}'
start ro 80 24 "" "tui big.json"
wait_plans ro 600 || bad "no plans for big.json at 80x24: $(screen ro | tail -1)"
screen ro >"$tmp/ro.txt"
grep -q '^ *l40s tp1 pp1 .* mcore+ds+…$' "$tmp/ro.txt" && ok ||
	bad "the l40s row's RUNS ON: $(grep 'l40s tp1' "$tmp/ro.txt")"
sed -n '4,17p' "$tmp/ro.txt" | grep -E '[0-9.]+ [dy] ' | awk '{ print $NF }' >"$tmp/ro.words"
[ -s "$tmp/ro.words" ] && ! grep -vE '^(none|(mcore|mlm|ds|titan)(\+(mcore|mlm|ds|titan))*(\+…)?)$' "$tmp/ro.words" &&
	ok || bad "a RUNS ON cell is cut inside a name: $(tr '\n' ' ' <"$tmp/ro.words")"
keys ro q
wait_for ro "EXITED:0" && ok || bad "quit big.json"

# --- two pools whose names differ only after 10 columns: a100-sxm4-40gb and
# a100-sxm4-80gb (14 columns). The Plans rows and the Detail's boxes and
# memory table give each 14 columns: whole. A blind cut read "a100-sxm4-"
# in Plans and "a100-sxm" in the Detail.
cat >"$tmp/twins.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "twins", "pools": [
   {"name": "a100-sxm4-40gb", "gpu": "A100-SXM4-40GB", "nodes": 2},
   {"name": "a100-sxm4-80gb", "gpu": "A100-SXM4-80GB", "nodes": 2}]},
 "model": "llama3.1-8b",
 "workload": {"gbs": 256, "seq_len": 8192, "objective": "throughput", "top": 4}}
JSON
start tw 120 40 "" "tui twins.json"
wait_plans tw || bad "no plans for twins.json: $(screen tw | tail -1)"
screen tw >"$tmp/tw.txt"
grep -q '^  1 .*a100-sxm4-40gb tp8 pp1 + a100-sxm4-80gb tp' "$tmp/tw.txt" && ok ||
	bad "Plans row 1 over both A100 pools: $(sed -n 4p "$tmp/tw.txt")"
grep -q 'a100-sxm4-[ >]' "$tmp/tw.txt" && bad "Plans: a blind cut: $(grep 'a100-sxm4-' "$tmp/tw.txt" | head -1)" || ok
keys tw 4
# (runs on megatron-core where both replica groups share one layout and
# batch share, else no stock framework: either way a runs-on line)
wait_for tw "runs on " || bad "Detail: no runs-on line: $(sed -n 3,12p "$tmp/tw.txt")"
screen tw >"$tmp/twd.txt"
grep -q 'memory: fits, fullest stage .* free; the plan keeps 5% of each GPU free' "$tmp/twd.txt" && ok ||
	bad "Detail: no memory line"
grep -q '│ a100-sxm4-40gb 1 node' "$tmp/twd.txt" && grep -q '│ a100-sxm4-80gb 1 node' "$tmp/twd.txt" && ok ||
	bad "Detail boxes: $(grep 'node' "$tmp/twd.txt" | head -2)"
grep -q 'a100-sxm ' "$tmp/twd.txt" && bad "Detail: a blind cut at 8: $(grep 'a100-sxm ' "$tmp/twd.txt" | head -1)" || ok
keys tw q
wait_for tw "EXITED:0" && ok || bad "quit twins.json"

# ---- hostile names on every view, at 60x20 (past the too-small screen's
# i) and at 80x24: pool names of wide characters filling their 31 bytes
# ("a" and 10 CJK, 21 cells), of 4-byte emoji (7, 14 cells) and of
# combining accents (9 x "e" U+0301 and "e": 10 cells in 28 bytes), on
# transports off InfiniBand; a wide provider, region and site. No line of
# any view is wider than the terminal in cells (East Asian Width W and F
# take 2, a combining mark 0), none holds a control character or U+FFFD,
# and the screen has no more rows than the terminal.
python3 - "$tmp/hostile.json" <<'PY'
import json, sys
ws = {"version": 1,
      "cluster": {"name": "東京クラスタ", "pools": [
          {"name": "a" + "東京" * 5, "gpu": "H100-SXM", "nodes": 2, "transport": "gcp-rdma",
           "provider": "日本クラウド", "region": "ap-東京-1", "site": "東京" * 7},
          {"name": "\U0001F600" * 7, "gpu": "A100-80GB", "nodes": 2, "transport": "tcpx"},
          {"name": "e\u0301" * 9 + "e", "gpu": "L40S", "nodes": 1}]},
      "model": "llama3.1-8b",
      "workload": {"gbs": 64, "seq_len": 4096, "top": 10}}
json.dump(ws, open(sys.argv[1], "w"), ensure_ascii=False)
PY
# fits W H NAME: the screen of session NAME against the rules above.
fits() {
	screen "$3" | python3 -c '
import sys, unicodedata
cols, rows = int(sys.argv[1]), int(sys.argv[2])
lines = sys.stdin.read().split("\n")
while lines and lines[-1] == "":
    lines.pop()
bad = ["%d rows" % len(lines)] if len(lines) > rows else []
for i, l in enumerate(lines, 1):
    w = sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
            for c in l)
    if w > cols:
        bad.append("row %d: %d cells" % (i, w))
    if any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 or c == "\uFFFD" for c in l):
        bad.append("row %d: a control character or U+FFFD" % i)
print("; ".join(bad))
sys.exit(1 if bad else 0)' "$1" "$2"
}
for size in "60 20" "80 24"; do
	set -- $size
	s=h$1
	start $s $1 $2 "" "tui hostile.json"
	[ "$1" -lt 80 ] && { wait_for $s "Terminal too small" || bad "no too-small screen at $1x$2"; keys $s i; }
	wait_ready $s 600 || bad "no plans for hostile.json at $1x$2: $(screen $s | tail -1)"
	# view: the keys that open it, then a text that shows it is up
	for view in "1|NODES" "Enter|Name " "Escape 2|Training workload" "3|PLAN" "4|Layout: replicas" \
		"NPage|links: " "NPage|Memory per GPU" "G|Communication per step" "5|Price per GPU-hour" \
		"6|time to train" "7|Serving Llama" "4 E|What if: #1" "d|Edited plan" "?|Keys in the"; do
		k=${view%%|*} txt=${view#*|}
		# shellcheck disable=SC2086
		keys $s $k
		wait_for $s "$txt" || bad "$1x$2: '$k' did not show '$txt': $(screen $s | sed -n 3p)"
		why=$(fits $1 $2 $s) && ok || bad "$1x$2 after '$k': $why"
	done
	keys $s q q q
	wait_for $s "EXITED:0" && ok || bad "quit hostile.json at $1x$2"
done
# The Cluster view's heading names a pool whose name fills its 31 bytes
# whole (it was cut at 30 bytes, dropping the last 京), and the Detail
# view names the two pools off InfiniBand with their transports, whole.
start hw 120 40 "" "tui hostile.json"
wait_ready hw 600 || bad "no plans for hostile.json at 120x40"
keys hw 1
wait_for hw "── Pool a東京東京東京東京東京 ─" && ok || bad "the pool heading: $(screen hw | grep -- '── Pool')"
keys hw 3 Enter
# (plan 1 may use one of the two pools since the WAN between sites is
# shared, 8c66d1a: the line names whichever it uses, whole)
wait_for hw "transport: a東京東京東京東京東京 gcp-rdma" && ok ||
	bad "the Detail's transport line: $(screen hw | grep 'transport')"
keys hw q
wait_for hw "EXITED:0" && ok || bad "quit hostile.json at 120x40"

# ---- the Prices view's YOUR POOLS names pools as the plan labels do:
# h100-reserved-east and h100-reserved-west (18 columns, past the labels'
# 14) read "h100-res~-east" and "h100-res~-west"; a cut at 12 bytes read
# "h100-reserve" twice.
cat >"$tmp/res.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "res", "pools": [
   {"name": "h100-reserved-east", "gpu": "H100-SXM", "nodes": 1},
   {"name": "h100-reserved-west", "gpu": "H100-SXM", "nodes": 1}]},
 "model": "llama3.1-8b",
 "workload": {"gbs": 64, "seq_len": 4096}}
JSON
start rs 160 40 "" "tui res.json"
wait_ready rs || bad "no plans for res.json"
keys rs 5
wait_for rs "YOUR POOLS" || bad "no Prices view at 160 columns"
screen rs | grep -E '^ H100-SXM ' | grep -q ' h100-res~-east 6\.880, h100-res~-west 6\.880 *$' && ok ||
	bad "YOUR POOLS: $(screen rs | grep -E '^ H100-SXM ')"
keys rs q
wait_for rs "EXITED:0" && ok || bad "quit res.json"

# ---- names no pool may have: control bytes (an ESC sequence that would
# colour the terminal) and 200 characters. The workspace is refused before
# the screen starts, exit 3, with the field named and the bytes shown as
# ^A and ^[ (never sent to the terminal); typed into the Name prompt, a
# C1 control (U+0085) is refused with the message showing it escaped.
python3 - "$tmp" <<'PY'
import json, sys
for f, name in (("ctl.json", "a\x01b\x1b[31mred"), ("long.json", "x" * 200)):
    json.dump({"version": 1, "cluster": {"name": "c", "pools": [
        {"name": name, "gpu": "H100-SXM", "nodes": 1}]}, "model": "llama3.1-8b"},
        open(sys.argv[1] + "/" + f, "w"))
PY
start ct 60 20 "" "tui ctl.json"
wait_for ct "EXITED:3" && ok || bad "a control byte in a pool name: $(screen ct)"
screen ct | tr -d '\n' | grep -qF 'pools[0].name: expected printable UTF-8 text (no control characters), got "a^Ab^[[31mred"' && ok ||
	bad "the control-byte message: $(screen ct)"
$T capture-pane -e -p -t ct | grep -q "$(printf '\033')\[31m" && bad "the name's ESC sequence reached the terminal" || ok
start lg 60 20 "" "tui long.json"
wait_for lg "EXITED:3" && ok || bad "a 200-character pool name: $(screen lg)"
screen lg | tr -d '\n' | grep -qF 'pools[0].name: expected a string of at most 31 bytes' && ok ||
	bad "the long-name message: $(screen lg)"
start tc 80 24 "" "tui hostile.json"
wait_ready tc 600 || bad "no plans for the typed-control run"
keys tc 1 Enter
wait_for tc "── Pool a東京" || bad "no pool fields"
keys tc Enter
wait_for tc "Name: a東京" || bad "no Name prompt: $(screen tc | tail -1)"
keys tc C-u n
keys tc -H c2 85
keys tc m Enter
wait_for tc 'pool n\xC2\x85m.name: expected printable UTF-8 text' && ok || bad "a typed C1 control: $(screen tc | tail -1)"
fits 80 24 tc >/dev/null && ok || bad "the typed control's message: $(fits 80 24 tc)"
keys tc q q
wait_for tc "EXITED:0" && ok || bad "quit the typed-control run"

finish test_tui_names
