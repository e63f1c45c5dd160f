#!/bin/sh
# test_consistency_nofit.sh — when no plan fits, every view says what would
# make one fit, in the same words (ui/advice.c): `hetplan plan`'s stderr
# and its JSON "advice", its Markdown report, `hetplan report` (Markdown,
# HTML, JSON, CSV) and the TUI's Plans view.
#
# Cases, with the facts checked by hand:
#   A. Llama 3.1 70B on one node of 8 H100-SXM (79.6 GiB usable each):
#      the smallest miss is TP 8, ZeRO-3, full recompute at 136.5 GiB a
#      GPU. 136.5 / 0.95 = 143.7 GiB is more than an H200's 140.4 GiB
#      (143771 MiB as the driver reports it) and less than a B200's, so
#      B200 is named and H200 is not; a second node halves the
#      ZeRO-3-sharded state, and the planner verifies that it fits.
#   B. The same with --zero 0 --recompute none: the advice names both
#      flags as what to leave free.
#   C. Llama 3.1 8B on one H100-SXM: 8.03e9 params x 16 bytes (bf16
#      weights and gradients, fp32 master and two Adam moments) = 120 GiB
#      does not fit in 79.6 GiB whatever the layout; with the optimizer
#      state in host memory (DeepSpeed ZeRO-Offload) only the 16-bit
#      weights and gradients stay, 8.03e9 x 4 bytes = 30 GiB plus the
#      activations, so the offload line appears; under --framework
#      megatron-core (whose optimizer offload hetplan does not model) it
#      does not.
# Run from the repository root after `make`.
. tests/tui_lib.sh
H=$HP
P70="--pool 1x8xH100-SXM -m llama3.1-70b --gbs 64 --seq-len 8192"

# A: stderr lines after the first (the "no plan" sentence)
"$H" plan $P70 >/dev/null 2>"$tmp/a.err"; rc=$?
[ $rc = 4 ] && ok || bad "A: exit $rc, want 4 (does not fit)"
tail -n +2 "$tmp/a.err" >"$tmp/a.adv"
grep -qxF "to make a plan fit: needs 8 more H100-SXM (1 node)" "$tmp/a.adv" && ok ||
	bad "A: no capacity line: $(cat "$tmp/a.adv")"
grep -q "^or more memory per GPU: .*136.5 GiB.* B200 (180 GB)" "$tmp/a.adv" && ok ||
	bad "A: no memory-per-GPU line naming B200: $(cat "$tmp/a.adv")"
grep -q "H200" "$tmp/a.adv" && bad "A: H200 (140.4 GiB usable) named for 143.7 GiB" || ok

# the same lines in plan's JSON, plan's Markdown and every report format
"$H" plan $P70 --format json >"$tmp/a.json" 2>/dev/null
python3 -c "
import json, sys
d = json.load(open('$tmp/a.json'))
want = open('$tmp/a.adv').read().splitlines()
assert d['advice'] == want, (d.get('advice'), want)" 2>"$tmp/py" && ok || bad "A: plan JSON advice: $(tail -1 "$tmp/py")"
"$H" plan $P70 --format md >"$tmp/a.md" 2>/dev/null
python3 - "$tmp/a.md" "$tmp/a.adv" <<'PY' && ok || bad "A: plan --format md: $(cat "$tmp/py")"
import html, sys
md = open(sys.argv[1]).read()
want = open(sys.argv[2]).read().splitlines()
sec = md.split("## What would make a plan fit\n\n", 1)[1].split("\n\n", 1)[0]
got = [html.unescape(l[2:]) for l in sec.splitlines()]
if got != want:
    open(sys.argv[1] + ".py", "w")
    sys.stderr.write("%r != %r" % (got, want)); sys.exit(1)
PY
cat >"$tmp/a.ws.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "one", "pools": [{"name": "h100-sxm", "gpu": "H100-SXM", "nodes": 1}]},
 "model": "llama3.1-70b",
 "workload": {"gbs": 64, "seq_len": 8192}}
JSON
for f in md html json csv; do
	"$H" report "$tmp/a.ws.json" -o "$tmp/r.$f" 2>"$tmp/r.err"; rc=$?
	[ $rc = 4 ] && ok || bad "report .$f: exit $rc, want 4"
	tail -n +2 "$tmp/r.err" | cmp -s - "$tmp/a.adv" && ok ||
		bad "report .$f: stderr advice differs from plan's: $(cat "$tmp/r.err")"
done
python3 - "$tmp" <<'PY' 2>"$tmp/py" && ok || bad "report formats: $(cat "$tmp/py")"
import csv, html, io, json, sys
t = sys.argv[1]
want = open(t + "/a.adv").read().splitlines()
assert json.load(open(t + "/r.json"))["advice"] == want, "json"
h = open(t + "/r.html").read()
for w in want:
    assert "<li>" + html.escape(w, quote=True).replace("&#x27;", "&#39;") + "</li>" in h, ("html", w)
rows = [r for r in csv.reader(io.StringIO(open(t + "/r.csv").read())) if r and r[0] == "advice"]
assert [r[1] for r in rows] == want, ("csv", rows)
md = open(t + "/r.md").read()
assert "## What would make a plan fit" in md, "md"
PY

# B: what the user fixed, named by its flag
"$H" plan $P70 --zero 0 --recompute none >/dev/null 2>"$tmp/b.err"
grep -q "^or leave free what was fixed: ZeRO 0 (--zero), recompute none (--recompute)" "$tmp/b.err" && ok ||
	bad "B: no line naming --zero and --recompute: $(cat "$tmp/b.err")"
grep -q "leave free" "$tmp/a.err" && bad "A: 'leave free' with nothing fixed" || ok

# C: optimizer offload
P8="--pool 1x1xH100-SXM -m llama3.1-8b --gbs 8"
"$H" plan $P8 >/dev/null 2>"$tmp/c.err"
grep -q "^or offload the optimizer state to host memory (DeepSpeed ZeRO-Offload" "$tmp/c.err" && ok ||
	bad "C: no offload line: $(cat "$tmp/c.err")"
"$H" plan $P8 --framework megatron-core >/dev/null 2>"$tmp/c2.err"
grep -q "offload" "$tmp/c2.err" && bad "C: offload advised under megatron-core: $(cat "$tmp/c2.err")" || ok

# The TUI: the same lines under the Plans view's "no plan" message.
TUI_DIR=$tmp
start nf 100 30 "" "tui a.ws.json"
keys nf 3
wait_for nf "to make a plan fit" 300 && ok || bad "TUI: no advice: $(screen nf)"
wait_for nf "B200 (180 GB)" 300 && ok || bad "TUI: no memory line: $(screen nf)"
# the wrapped lines, joined, hold each line of plan's stderr
screen nf | sed 's/^ *//' | tr '\n' ' ' | sed 's/  */ /g' >"$tmp/nf.txt"
while read -r l; do
	grep -qF -- "$l" "$tmp/nf.txt" && ok || bad "TUI lacks: $l"
done <"$tmp/a.adv"
finish consistency_nofit
