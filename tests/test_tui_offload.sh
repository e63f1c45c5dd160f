#!/bin/sh
# test_tui_offload.sh — an offload plan in the Edit plan view, driven as a
# user drives it (tmux send-keys, capture-pane) and checked against
# `hetplan estimate` of the same plan, reached through the CLI's flags (an
# independent path: the CLI's argument parser, not the TUI's field table).
#
# The workspace (tests/data/tui_offload_ws.json) is one node of 8 H100s
# and Llama 3.1 8B at gbs 64, seq 4096. The planner's plan #1 there is
# tp1 pp1, mbs 2 (checked on screen before anything else). In the editor:
#   1. framework deepspeed, zero 2, offload optimizer (ZeRO-Offload);
#   2. r, then framework megatron-core, recompute none, offload
#      activations, offload_layers 16 (Megatron-Core's
#      --cpu-offloading-num-layers 16);
#   3. recompute full on top of 2: Megatron-Core refuses CPU offloading
#      with recompute, and the editor must say so, naming the keys, with
#      no number left in the edited column.
# After 1 and 2 the edited column's step time, tokens/s, MFU, $ per 1M
# tokens and memory headroom, and the memory line, equal `hetplan
# estimate`'s text and JSON to the printed precision; the step scale's
# legend names offload exactly when the estimate's breakdown_s.offload is
# above 0; with --ascii the edited bar's offload glyph ('h') takes the
# share of the bar that offload takes of the step (to a column).
# Both at 120x40 (UTF-8) and at 80x24 (--ascii), with golden screens.
#
# Run from the repository root; $HETPLAN names the binary (./hetplan).
# UPDATE_GOLDEN=1 rewrites tests/golden/planedit-offload-*.txt.
. tests/tui_lib.sh
. tests/tui_edit_lib.sh
G=tests/golden
WS=tests/data/tui_offload_ws.json
python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))["cluster"], open(sys.argv[2], "w"))' \
	"$WS" "$tmp/cluster.json" || bad "cannot read $WS"
# The same plan through the CLI: plan #1's shape and the workspace's batch.
est() {
	env XDG_CONFIG_HOME="$tmp/cfg" XDG_CACHE_HOME="$tmp/cache" "$HP" estimate -c "$tmp/cluster.json" \
		-m llama3.1-8b --tp 1 --pp 1 --mbs 2 --gbs 64 --seq-len 4096 "$@"
}

# rtext S: the right pane's text, its lines joined by spaces (a message
# wraps there at spaces).
rtext() {
	screen "$1" | python3 -c '
import sys
print(" ".join(l.split(sys.argv[1], 1)[1].strip() for l in sys.stdin if sys.argv[1] in l))' "$2"
}


# setnum S KEY N: type N at KEY's prompt.
setnum() {
	goto "$1" "$2"
	keys "$1" Enter
	wait_status "$1" "^$2: " 300 || bad "Enter on $2 did not prompt: $(screen "$1" | tail -1)"
	keys "$1" C-u "$3" Enter
	w=0
	while [ $w -lt 300 ] && [ "$(val "$1" "$2")" != "$3" ]; do sleep 0.1; w=$((w + 1)); done
	[ "$(val "$1" "$2")" = "$3" ] && ok || bad "$2 did not take $3: $(screen "$1" | grep "$2")"
}

# check S ASCII FLAGS...: the screen's edited plan against `hetplan
# estimate FLAGS` (text and JSON).
check() {
	s=$1 ascii=$2
	shift 2
	est "$@" >"$tmp/est.txt" 2>&1
	est "$@" --format json >"$tmp/est.json" 2>/dev/null
	# the screen after the last key's estimate: the edited column filled
	wait_for "$s" "fullest stage" || bad "no memory line: $(screen "$s" | sed -n 16,22p)"
	screen "$s" >"$tmp/screen.txt"
	python3 - "$tmp" "$ascii" "$*" <<'PY' && ok || bad "the editor vs hetplan estimate $*"
import json, re, sys
tmp, ascii, flags = sys.argv[1:]
txt = open(tmp + "/est.txt").read()
js = json.load(open(tmp + "/est.json"))
sep = "|" if ascii == "1" else "\u2502"
# the right pane: what follows the first separator on each line
right = [l.split(sep, 1)[1] if sep in l else "" for l in open(tmp + "/screen.txt").read().split("\n")]
# a value: "-", or a number with its unit ("3.14 s", "83.4K", "54.2%",
# "$0.183"); at 80 columns the values stand one space apart
VAL = re.compile(r"(?:^|(?<= ))(?:-(?= |$)|[+-]?\$?\d[\d.]*(?:[KMB%]| (?:s|ms|us|min|h|d|y|kW|pts)\b)?)")
def edited(name):
    for l in right:
        s = l.strip()
        if s.startswith(name + " "):
            v = VAL.findall(s[len(name):])
            assert len(v) >= 2, (name, l, v)
            return v[1]
    raise AssertionError("no row %r on the screen" % name)
def cli(pattern):
    m = re.search(pattern, txt, re.M)
    assert m, (pattern, txt[:400])
    return m.group(1)
errs = []
def same(what, screen, want):
    if screen != want:
        errs.append("%s: screen %r, hetplan estimate %r" % (what, screen, want))
same("step time", edited("step time"), cli(r"^  step time +(.+?)\s*$"))
same("tokens/s", edited("tokens/s"), cli(r"^  tokens/s +(\S+)"))
same("MFU", edited("MFU"), cli(r"^  MFU / HFU +(\S+) /"))
same("$ per 1M tokens", edited("$ per 1M tokens"), cli(r"^  cost +\S+, (\S+) per 1M tokens"))
# headroom: 1 - the fullest stage's total over its capacity (JSON)
w = max(js["memory"], key=lambda m: m["total_bytes"] / m["capacity_bytes"])
same("memory headroom", edited("memory headroom"), "%.1f%%" % (100 * (1 - w["total_bytes"] / w["capacity_bytes"])))
# the memory line, unwrapped (the TUI wraps at spaces), in the CLI's words
mem, on = [], False
for l in right:
    s = l.strip()
    if s.startswith("memory: "):
        on = True
    elif on and (not s or s.startswith("-") or s.startswith("\u2500")):
        break
    if on:
        mem.append(s)
mem = " ".join(mem)
verdict, tail = cli(r"^  memory: (\S+) \("), cli(r"^  memory: \S+ \((fullest stage .*? live)")
if not mem.startswith("memory: %s, %s" % (verdict, tail)):
    errs.append("memory line: screen %r, hetplan estimate %r (%s)" % (mem, tail, verdict))
# the step scale: the edited bar and the legend under it
rows = [l for l in right]
i = next(k for k, l in enumerate(rows) if "Step time, to scale" in l)
bars = {r.strip().split()[0]: r.strip().split(None, 1)[1] if len(r.strip().split()) > 1 else ""
        for r in rows[i + 1:i + 3]}
legend = " ".join(r.strip() for r in rows[i + 3:i + 6] if r.strip())
off = js["breakdown_s"]["offload"]
if (" offload" in " " + legend) != (off > 0):
    errs.append("legend %r with breakdown_s.offload %g" % (legend, off))
if ascii == "1":
    bar = bars.get("edited", "")
    share = bar.count("h") / max(1, len(bar))
    # to a column (each part's end is rounded)
    if abs(share - off / js["step_time_s"]) > 1.01 / max(1, len(bar)):
        errs.append("edited bar %r: offload glyph share %.3f, estimate %.3f" % (bar, share, off / js["step_time_s"]))
    if "h" in bars.get("planner", ""):
        errs.append("the planner's bar (no offload) has the offload glyph: %r" % bars["planner"])
if errs:
    print("\n".join(errs))
    sys.exit(1)
PY
}

# pts_agree S: every "B vs A" change in points on the screen is the
# difference of the two one-decimal percents printed beside it, as a
# reader subtracts them. It was the unrounded difference: MFU 53.7% ->
# 29.5% read "-24.1 pts" (ZeRO-Offload below, both sizes).
pts_agree() {
	screen "$1" | grep -oE '[0-9.]+% +[0-9.]+% +[+-][0-9.]+ pts' |
		awk '{ a = $1 + 0; b = $2 + 0; d = sprintf("%+.1f", b - a)
		       if (d != $3) { print; bad = 1 } } END { exit bad }' >"$tmp/pts" && ok ||
		bad "a change in points is not the difference of its two values: $(cat "$tmp/pts")"
}

# run S W H ARGS ASCII: the whole walk in a session of W x H.
run() {
	s=$1 ascii=$5 sep="│"
	[ "$ascii" = 1 ] && sep="|"
	start "$s" "$2" "$3" "" "$4"
	wait_ready "$s" || bad "no plans for $WS at $2x$3: $(screen "$s" | tail -3)"
	screen "$s" | grep -qE '^  1 .* h100 tp1 pp1 ' && ok ||
		bad "plan #1 is no longer h100 tp1 pp1 (the CLI flags below assume it): $(screen "$s" | sed -n 4p)"
	keys "$s" E
	wait_for "$s" "What if: #1 h100 tp1 pp1" && ok || bad "E did not open the editor: $(screen "$s" | sed -n 3p)"
	[ -f "$tmp/rows" ] || screen "$s" >"$tmp/rows"
	[ "$(val "$s" mbs)" = 2 ] && ok || bad "plan #1's mbs is not 2: $(val "$s" mbs)"
	# the planner's ZeRO stage, for the CLI's megatron-core plan below
	z=$(val "$s" zero)

	# ---- 1. DeepSpeed ZeRO-Offload
	cycle "$s" framework deepspeed
	setnum "$s" zero 2
	cycle "$s" offload optimizer
	check "$s" "$ascii" --framework deepspeed --zero 2 --offload optimizer
	golden "planedit-offload-optimizer-$2x$3" "$s"
	pts_agree "$s"

	# ---- 2. Megatron-Core activation offload of 16 layers
	keys "$s" r
	wait_for "$s" "the planner's plan again" || bad "r did not reset"
	cycle "$s" framework megatron-core
	cycle "$s" recompute none
	cycle "$s" offload activations
	# offload activations without a layer count is refused by name
	wait_for "$s" "no estimate:" || bad "offload activations with offload_layers 0 kept an estimate"
	rtext "$s" "$sep" | grep -qF "no estimate: edited plan: offload activations needs offload_layers between 1 and 31" && ok ||
		bad "offload activations with offload_layers 0: $(rtext "$s" "$sep")"
	setnum "$s" offload_layers 16
	check "$s" "$ascii" --framework megatron-core --zero "$z" --recompute none --offload activations --offload-layers 16
	golden "planedit-offload-activations-$2x$3" "$s"
	pts_agree "$s"

	# ---- 3. recompute full with activation offload: refused, by name
	cycle "$s" recompute full
	wait_for "$s" "no estimate:" && ok || bad "recompute full with offload: $(screen "$s" | sed -n 16,22p)"
	est --framework megatron-core --zero "$z" --recompute full --offload activations --offload-layers 16 \
		>/dev/null 2>&1
	[ $? = 3 ] && ok || bad "hetplan estimate took recompute full with offload activations"
	rtext "$s" "$sep" | grep -qF "no estimate: edited plan: offload activations needs recompute none" && ok ||
		bad "the message does not name offload and recompute: $(rtext "$s" "$sep")"
	# no stale number: every metric's edited value is "-"
	screen "$s" >"$tmp/screen.txt"
	python3 - "$tmp/screen.txt" "$ascii" <<'PY' && ok || bad "a number is left in the edited column"
import re, sys
sep = "|" if sys.argv[2] == "1" else "\u2502"
# the rows that show (at 80x24 the message takes the table's last rows),
# the first five at least; their edited value, the second, is "-"
names = ("GPUs", "tokens/s", "MFU", "step time", "$/hour", "$ per 1M tokens", "time to train",
         "cost to train", "memory headroom", "bubble", "exposed comm", "power")
seen = 0
for l in open(sys.argv[1]).read().split("\n"):
    if sep not in l:
        continue
    r = l.split(sep, 1)[1].strip()
    n = next((n for n in names if r.startswith(n + " ")), None)
    if n:
        seen += 1
        f = r[len(n):].split()
        assert f[-1] == "-" and len(f) in (2, 3), l
assert seen >= 5, seen
PY
	screen "$s" | grep -q "fullest stage" && bad "a memory line is left beside the refusal" || ok
	golden "planedit-offload-refused-$2x$3" "$s"
	keys "$s" q
	wait_for "$s" "EXITED:0" && ok || bad "q did not quit"
}

run big 120 40 "$WS" 0
run small 80 24 "$WS --ascii" 1

# ---- 4. an offload the node's host memory cannot hold (pool key
# host_mem_gb 20: 0.85 x 20 GB = 15.8 GiB usable): the GPUs hold the plan,
# so the editor's memory line must say does-not-fit and why, with the
# host bytes `hetplan estimate` gives for the same plan.
python3 -c 'import json, sys
w = json.load(open(sys.argv[1])); w["cluster"]["pools"][0]["host_mem_gb"] = 20
json.dump(w, open(sys.argv[2], "w")); json.dump(w["cluster"], open(sys.argv[3], "w"))' \
	"$WS" "$tmp/host_ws.json" "$tmp/host_cluster.json"
start host 120 40 "" "$tmp/host_ws.json"
wait_ready host || bad "no plans for the host-memory workspace: $(screen host | tail -3)"
keys host E
wait_for host "What if: #1 h100 tp1 pp1" || bad "E did not open the editor"
[ -f "$tmp/rows" ] || screen host >"$tmp/rows"
z=$(val host zero)
cycle host framework megatron-core
cycle host recompute none
cycle host offload activations
setnum host offload_layers 16
wait_for host "the host does not hold the offload" && ok ||
	bad "no host verdict in the editor: $(rtext host "│")"
need=$(env XDG_CONFIG_HOME="$tmp/cfg" XDG_CACHE_HOME="$tmp/cache" "$HP" estimate -c "$tmp/host_cluster.json" \
	-m llama3.1-8b --tp 1 --pp 1 --mbs 2 --gbs 64 --seq-len 4096 --framework megatron-core --zero "$z" \
	--recompute none --offload activations --offload-layers 16 2>&1 |
	sed -n 's/.*DOES NOT FIT THE HOST: the offload needs \([0-9.]* [KMGT]iB\).*/\1/p')
[ -n "$need" ] && ok || bad "hetplan estimate did not refuse the host side"
rtext host "│" | grep -qF "memory: does-not-fit" && ok || bad "verdict: $(rtext host "│")"
rtext host "│" | tr -s ' ' | grep -qF "$need a node, 15.8 GiB usable (host_mem_gb)" && ok ||
	bad "host bytes differ from the CLI's $need: $(rtext host "│")"
keys host q
wait_for host "EXITED:0" && ok || bad "q did not quit"
finish test_tui_offload
