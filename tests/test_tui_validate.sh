#!/bin/sh
# test_tui_validate.sh — the Edit plan view as an entry point of
# plan_validate and of the dispatcher rule, driven in tmux and checked
# against `hetplan estimate` and `hetplan launch` of the exported plan.
#
# The workspace: 2 nodes of H100-SXM and 2 of A100-80GB, Mixtral 8x7B at
# gbs 256, seq 4096. In the editor on plan #1:
#   1. moe_dispatch is unset ("default: X"); e exports the plan; the file
#      leaves the key out (one rule: an unset key stays unset and is
#      resolved on load), and estimate's JSON moe_dispatch and launch's
#      --moe-token-dispatcher-type for that file both read X; the help
#      overlay says so ("resolved on load").
#   2. gbs 100000001 and 99999999999: refused in the CLI's words for
#      --gbs (the range), the plan unchanged.
#   3. gbs 257 (a prime: replica groups of a plan on more than one
#      replica get no whole micro-batches of it; the message names the
#      batch), then cp 3 on top: 4096 / 3 is no whole number, and the
#      editor names cp first, not the batch (plan_validate checks the
#      batch last, whatever the replica groups' shares); cp 1 again: the
#      batch message is back.
# Run from the repository root; $HETPLAN names the binary (./hetplan).
. tests/tui_lib.sh
. tests/tui_edit_lib.sh
G=tests/golden
cat >"$tmp/ws.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "mix", "pools": [{"name": "h100", "gpu": "H100-SXM", "nodes": 2},
                                      {"name": "a100", "gpu": "A100-80GB", "nodes": 2}]},
 "model": "mixtral-8x7b",
 "workload": {"gbs": 256, "seq_len": 4096, "top": 3}}
JSON
TUI_DIR=$tmp

# rtext S: the right pane's text, its lines joined by spaces
rtext() {
	screen "$1" | python3 -c '
import sys
print(" ".join(l.split("\u2502", 1)[1].strip() for l in sys.stdin if "\u2502" in l))'
}
# setnum S KEY N: type N at KEY's prompt
setnum() {
	goto "$1" "$2"
	keys "$1" Enter
	wait_status "$1" "^$2: " 300 || bad "Enter on $2 did not prompt: $(screen "$1" | tail -1)"
	keys "$1" C-u "$3" Enter
	w=0
	while [ $w -lt 300 ] && [ "$(val "$1" "$2")" != "$3" ]; do sleep 0.1; w=$((w + 1)); done
	[ "$(val "$1" "$2")" = "$3" ] && ok || bad "$2 did not take $3: $(screen "$1" | grep "$2")"
}

s=v
start "$s" 120 40 "" "ws.json"
wait_ready "$s" 600 || bad "no plans: $(screen "$s" | tail -3)"
keys "$s" E
wait_for "$s" "What if: #1" && ok || bad "E did not open the editor: $(screen "$s" | sed -n 3p)"
screen "$s" >"$tmp/rows"

# ---- 1. the unset dispatcher: the row, the file, estimate and launch
row=$(screen "$s" | awk '$1 == "moe_dispatch" { print $2, $3; exit }')
case $row in
"default: alltoall") d=alltoall; ok ;;
"default: flex") d=flex; ok ;;
*) d=; bad "moe_dispatch row: '$row'" ;;
esac
keys "$s" e C-u "$tmp/p.json" Enter
wait_for "$s" "exported $tmp/p.json" && ok || bad "export: $(screen "$s" | tail -1)"
python3 - "$tmp" <<'PY' && ok || bad "splitting the export"
import json, sys
t = sys.argv[1]
d = json.load(open(t + "/p.json"))
json.dump(d["cluster"], open(t + "/c.json", "w"))
json.dump(d["plan"], open(t + "/plan.json", "w"))
assert "moe_dispatch" not in d["plan"], d["plan"].get("moe_dispatch")
PY
"$HP" estimate -c "$tmp/c.json" -m mixtral-8x7b --plan "$tmp/plan.json" --format json >"$tmp/e.json" 2>"$tmp/err"
rc=$?
[ $rc = 0 ] || [ $rc = 4 ] || bad "estimate of the export: exit $rc: $(head -c 300 "$tmp/err")"
est=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["moe_dispatch"])' "$tmp/e.json")
[ "$est" = "$d" ] && ok || bad "estimate JSON moe_dispatch '$est', the editor's row '$d'"
"$HP" launch -c "$tmp/c.json" -m mixtral-8x7b --plan "$tmp/plan.json" --force >"$tmp/l.txt" 2>"$tmp/err" ||
	bad "launch of the export: $(head -c 300 "$tmp/err")"
grep -qF -- "--moe-token-dispatcher-type $d" "$tmp/l.txt" && ok ||
	bad "launch line: $(grep -o -- '--moe-token-dispatcher-type [a-z]*' "$tmp/l.txt" | head -1), the editor's row '$d'"
keys "$s" '?'
wait_for "$s" "resolved on load" && ok || bad "the help overlay does not say an unset key is resolved on load"
keys "$s" '?'
wait_gone "$s" "resolved on load" || bad "? did not close the help"

# ---- 2. a batch past its range reads as the CLI's --gbs does (the
# plan table's range, 1 to 1e8 sequences), whether or not it fits an int
gbs=$(val "$s" gbs)
for big in 100000001 99999999999; do
	goto "$s" gbs
	keys "$s" Enter
	wait_status "$s" "^gbs: " 300 || bad "Enter on gbs did not prompt: $(screen "$s" | tail -1)"
	keys "$s" C-u "$big" Enter
	wait_for "$s" "gbs: expected an integer from 1 to 100000000, got '$big'" && ok ||
		bad "gbs $big: $(screen "$s" | tail -1)"
	"$HP" estimate -c "$tmp/c.json" -m mixtral-8x7b --plan "$tmp/plan.json" --gbs "$big" >/dev/null 2>"$tmp/err"
	grep -qF -- "--gbs: expected an integer from 1 to 100000000, got '$big'" "$tmp/err" && ok ||
		bad "estimate --gbs $big: $(cat "$tmp/err")"
	[ "$(val "$s" gbs)" = "$gbs" ] && ok || bad "gbs $big changed the plan: $(val "$s" gbs)"
done

# ---- 3. the shape named before the batch
setnum "$s" gbs 257
wait_for "$s" "no estimate:" && ok || bad "gbs 257 kept an estimate: $(rtext "$s" | head -c 300)"
rtext "$s" | grep -qF "sequences per step, not a positive multiple of the micro-batch" && ok ||
	bad "gbs 257: the message names no batch: $(rtext "$s" | head -c 400)"
setnum "$s" cp 3
wait_for "$s" "cp 3 does not divide" && ok || bad "cp 3: $(rtext "$s" | head -c 400)"
rtext "$s" | grep -qF "no estimate: edited plan: cp 3 does not divide the sequence length 4096" && ok ||
	bad "cp 3 with gbs 257: $(rtext "$s" | head -c 400)"
rtext "$s" | grep -qF "sequences per step" && bad "cp 3 with gbs 257: the batch named too" || ok
setnum "$s" cp 1
wait_for "$s" "sequences per step" && ok || bad "cp 1 again: no batch message: $(rtext "$s" | head -c 400)"
setnum "$s" gbs "$gbs"
wait_gone "$s" "no estimate:" && ok || bad "gbs $gbs again: no estimate: $(rtext "$s" | head -c 400)"
finish tui_validate
