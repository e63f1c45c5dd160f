#!/bin/sh
# test_tui_walk.sh — what an engineer met walking the TUI through a
# heterogeneous cluster (16 nodes of H100 on one cloud, 40 of A100 40GB
# and a rack of L40S on another), each a fact read off the screen:
#
#   - A prompt whose title is long (a pool's Price at 80 columns) keeps
#     room for the value: the title ends in "…" and the text typed past
#     the room scrolls so that its end and the cursor show (before, the
#     title took 77 of 80 cells and "30.001234" read "30.").
#   - The help screen moves with the keys it lists for every view: PgDn,
#     G/End to the last rows, g/Home back to the first (before, only j
#     and k moved it).
#   - The fabric's oversubscription reads "1:1", a ratio, not "1 :1"; the
#     GPU field's picker mark reads "...", not "..".
#   - A model name that is neither a preset nor a file, typed into the
#     Model preset picker, is refused naming the picker's field, not the
#     command line's "-m".
#   - The Detail's header gives the optimality gap with its number, as
#     `hetplan plan` does ("optimality gap 22.8%"; it read "within-gap").
#   - L in Compare and in Serve, where it writes nothing, says what to
#     press in a message whole at 80 columns (the end, which said it, was
#     cut before).
#   - The too-small screen's i and q work with a prompt open (they were
#     typed into the hidden prompt), and its q asks over unsaved edits
#     (it quit at once, the edits lost).
#   - ? in the Serve, Cluster and Model views says what each field is
#     (Serve: with its `hetplan serve` flag): a choice field (PF apart,
#     Availability, Cross-pool PP) is cycled, never prompted, so its meaning
#     was shown nowhere.
#   - o (open a workspace) over unsaved edits asks first, as q does: n
#     keeps the edits, y opens the file (before, the edits went silently).
#   - The Plans view's "Best plan on one pool" row names a plan as `hetplan
#     plan`'s "Best plan on each pool alone" does: on this cluster the
#     best H100 plan is the ranked #1 (once "h100 tp8 pp2 vpp2" in both,
#     when the row read "h100 tp8 pp2", interleaving dropped, beside it).
# Run from the repository root; $HETPLAN names the binary (./hetplan).
. tests/tui_lib.sh
TUI_DIR=$tmp

cat >"$tmp/walk.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "two-clouds",
             "pools": [{"name": "h100", "gpu": "H100-SXM", "nodes": 16, "provider": "aws", "region": "us-east-1"},
                       {"name": "a100", "gpu": "A100-40GB", "nodes": 40, "provider": "gcp", "region": "us-central1"},
                       {"name": "l40s", "gpu": "L40S", "nodes": 4, "provider": "gcp", "region": "us-central1"}]},
 "model": "llama3.1-70b",
 "workload": {"gbs": 512, "seq_len": 8192, "tokens": 300e9, "top": 5}}
JSON

start w 80 24 "" walk.json
wait_plans w || bad "no plans on the two-cloud cluster: $(screen w | tail -1)"

# ---- the best plan on one pool, in `hetplan plan`'s words
# `plan`'s own line for pool h100 (the label is its second word on).
python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))["cluster"], open(sys.argv[2], "w"))' \
	"$tmp/walk.json" "$tmp/cluster.json"
(cd "$tmp" && "$HP" plan -c cluster.json -m llama3.1-70b --gbs 512 --seq-len 8192 \
	--tokens 300B --top 5) >"$tmp/plan.txt" 2>&1
want=$(awk '/^Best plan on each pool alone/ { p = 1; next } p && $1 == "h100" {
	sub(/^ *h100 +/, ""); sub(/ +[0-9.]+K tokens\/s.*/, ""); print; exit }' "$tmp/plan.txt")
case $want in
"h100 tp8 "*) ok ;;
*) bad "hetplan plan's best H100 plan reads '$want', the test expects an h100 tp8 plan" ;;
esac
screen w | awk '/Best plan on one pool/ { getline; print }' >"$tmp/single"
grep -qF "  $want  " "$tmp/single" && ok ||
	bad "the Plans view's single-pool row does not read '$want': $(cat "$tmp/single")"

# ---- the Detail names plan 1's optimality gap as `plan` does
gap=$(awk '$1 == "1*" || $1 == "1" { for (i = 1; i < NF; i++) if ($i == "gap") { print $(i + 1); exit } }' \
	"$tmp/plan.txt")
[ -n "$gap" ] || bad "hetplan plan's plan 1 has no gap: $(sed -n 4p "$tmp/plan.txt")"
keys w Enter
wait_for w "Layout: replicas" || bad "Enter did not open plan 1's detail"
screen w | sed -n 3p | grep -qF "optimality gap $gap" && ok ||
	bad "the Detail's header does not read 'optimality gap $gap': $(screen w | sed -n 3p)"

# ---- the Price prompt at 80 columns keeps the value in view
keys w 1 Enter
wait_for w "Pool h100" || bad "Cluster view's pool editor did not open"
# the GPU field's "..." (Enter opens the catalog picker) whole
screen w | grep -qE '^ GPU +H100-SXM \.\.\.$' && ok ||
	bad "the GPU field does not end in '...': $(screen w | grep -E '^ GPU ')"
# Price: the 15th field of the pool (after the PCIe link, transport,
# provider, region and site); j moves over the fields.
keys w j j j j j j j j j j j j j j Enter
wait_for w "Price (USD per node-hour;" || bad "Enter on Price did not prompt: $(screen w | tail -1)"
last=$(screen w | tail -1)
case $last in
# the catalog's aws p5.48xlarge price, 55.04 $/node-h, after the whole
# title where it fits (the hint was shortened to fit 80 columns) or its
# cut end
*"… 55.04"* | *"owned): 55.04"*) ok ;;
*) bad "the Price prompt's title does not give way to the value: '$last'" ;;
esac
keys w 123456789012345678901234567890
wait_for w "1234567890123456789012345678901234567890" 30 ||
	wait_for w "4567890123456789012345678901234567890" 30 ||
	wait_for w "234567890" || bad "typed text past the room does not show its end: $(screen w | tail -1)"
screen w | tail -1 | grep -qE '234567890 *$' && ok ||
	bad "the end of the typed value is not on screen: '$(screen w | tail -1)'"
keys w Escape
wait_gone w "Price (USD" || bad "Esc did not close the prompt"

# ---- the oversubscription is a ratio
keys w G
wait_for w "Oversubscription" || bad "the fabric's fields are not on screen"
screen w | grep -qE 'Oversubscription +1:1( |$)' && ok ||
	bad "oversubscription does not read 1:1: $(screen w | grep Oversubscription)"
keys w Escape

# ---- help: the paging keys it lists move it
keys w 3 '?'
wait_for w "Keys in the Plans view" || bad "? did not open the Plans view's help"
wait_for w "help rows 1-21 of" || bad "help footer: $(screen w | tail -1)"
keys w G
wait_for w "k/Up back" 30 && ! screen w | tail -1 | grep -qF "j/Down for more" && ok ||
	bad "G in help did not reach the last rows: $(screen w | tail -1)"
keys w g
wait_for w "help rows 1-21 of" 30 && ok || bad "g in help did not go back to the top: $(screen w | tail -1)"
keys w NPage
# one page is the 21 rows the help shows at 80x24 (24 less header, tabs
# and footer)
wait_for w "help rows 22-" 30 && ok || bad "PgDn in help did not move a page: $(screen w | tail -1)"
keys w End
wait_for w "k/Up back" 30 && ok || bad "End in help did not reach the end: $(screen w | tail -1)"
keys w Home
wait_for w "help rows 1-21 of" 30 && ok || bad "Home in help did not go to the top: $(screen w | tail -1)"
keys w q
wait_gone w "Keys in the Plans view" || bad "q did not close the help"

# ---- a model that is neither a preset nor a file
keys w 2 Enter
wait_for w "Model preset" || bad "Enter on Preset did not open the picker: $(screen w | tail -3)"
keys w n o s u c h Enter
wait_for w "Model preset: unknown model 'nosuch'" && ok ||
	bad "the unknown model is not refused by the field's name: $(screen w | tail -1)"
screen w | tail -1 | grep -qF -- "-m:" && bad "the message names the command line's -m" || ok

# ---- L where it writes nothing says what to press, whole at 80 columns
keys w 6
wait_for w "B vs A" || bad "6 did not open Compare"
keys w L
wait_for w "Compare holds A and B: press L on the one wanted in Plans or Detail" && ok ||
	bad "L in Compare at 80 columns: '$(screen w | tail -1)'"
keys w 7
wait_for w "Serving Llama-3.1 70B" || bad "7 did not open Serve"
keys w L
wait_for w "L writes training plans; e exports these serving plans with their commands" && ok ||
	bad "L in Serve at 80 columns: '$(screen w | tail -1)'"

# help_pages NAME FILE: every page of the open help screen into FILE,
# from the top, a page at a time (PgDn) until the footer says the end.
help_pages() {
	keys "$1" g
	wait_for "$1" "help rows 1-" 30 || true
	: >"$2"
	i=0
	while [ $i -lt 8 ]; do
		screen "$1" >>"$2"
		screen "$1" | tail -1 | grep -qF "j/Down for more" || return 0
		top=$(screen "$1" | tail -1 | sed -n 's/.*help rows \([0-9]*\)-.*/\1/p')
		keys "$1" NPage
		wait_gone "$1" "help rows $top-" 30 || true
		i=$((i + 1))
	done
}

# ---- ? in Serve says what each field is, by its `hetplan serve` flag;
# every flag it names is one `hetplan serve --help` lists
keys w Escape '?'
wait_for w "Keys in the Serve view" || bad "? in Serve: $(screen w | tail -1)"
help_pages w "$tmp/serve.pages"
grep -qF "Serve fields" "$tmp/serve.pages" || bad "the Serve help has no field notes"
grep -qF "PF apart          --prefill-apart: prompts in iterations of their own" "$tmp/serve.pages" && ok ||
	bad "the Serve help does not say what PF apart is: $(grep -A2 'Serve fields' "$tmp/serve.pages")"
grep -qF "TPOT p99          --tpot-p99: milliseconds per output token" "$tmp/serve.pages" && ok ||
	bad "the Serve help does not give TPOT's unit as typed (ms): $(grep TPOT "$tmp/serve.pages")"
"$HP" serve --help >"$tmp/serve.help" 2>&1
nfl=0
for fl in $(grep -oE '^   [A-Za-z/ 0-9]{1,17} +--[a-z0-9-]+:' "$tmp/serve.pages" | grep -oE -- '--[a-z0-9-]+' | sort -u); do
	nfl=$((nfl + 1))
	grep -qF -- "$fl " "$tmp/serve.help" ||
		bad "the Serve help names $fl, which hetplan serve --help does not list"
done
# the flags of the view's fields: --isl --osl --rate --ttft-p99
# --tpot-p99 --engine --precision --kv-precision --objective, and the
# settings table's --prefill-apart --sched-steps --eager --overlap-sched
# --engine-build: 14
[ "$nfl" -ge 14 ] && ok || bad "the Serve help names $nfl flags, not 14"
keys w q
wait_gone w "Keys in the Serve view" || bad "q did not close the help"

# ---- ? in Cluster and Model says what each field is, choice fields too
keys w 1 '?'
wait_for w "Keys in the Cluster view" || bad "? in Cluster: $(screen w | tail -1)"
help_pages w "$tmp/cluster.pages"
grep -qF "Availability      fixed: the pool's nodes, all there; rent up to N" "$tmp/cluster.pages" && ok ||
	bad "the Cluster help does not say what Availability is: $(grep -A1 Availability "$tmp/cluster.pages")"
keys w q 2 '?'
wait_for w "Keys in the Model view" || bad "? in Model: $(screen w | tail -1)"
help_pages w "$tmp/model.pages"
grep -qF "Cross-pool PP     allowed: a pipeline may run its first stages on one pool" "$tmp/model.pages" && ok ||
	bad "the Model help does not say what Cross-pool PP is: $(grep -A1 'Cross-pool PP' "$tmp/model.pages")"
keys w q
wait_gone w "Keys in the Model view" || bad "q did not close the Model help"

# ---- o with unsaved edits asks first; n keeps them
keys w 1 +
wait_for w "walk.json [+]" || bad "+ did not mark the workspace edited: $(screen w | head -1)"
wait_for w " h100     H100-SXM          17" || bad "+ did not add a node: $(screen w | sed -n 4p)"
keys w o C-u walk.json Enter
wait_for w "Unsaved changes will be lost; open walk.json? (y/n)" && ok ||
	bad "o over unsaved edits did not ask: $(screen w | tail -1)"
keys w n
wait_gone w "Unsaved changes will be lost" || bad "n did not close the question"
screen w | grep -qF " h100     H100-SXM          17" && screen w | head -1 | grep -qF "walk.json [+]" &&
	ok || bad "n lost the edit: $(screen w | sed -n 1p; screen w | sed -n 4p)"
keys w o C-u walk.json Enter
wait_for w "open walk.json? (y/n)" || bad "o did not ask again: $(screen w | tail -1)"
keys w y
# the file's 16 nodes again, and no edit mark
wait_for w " h100     H100-SXM          16" && ! screen w | head -1 | grep -qF "[+]" && ok ||
	bad "y did not open the file: $(screen w | sed -n 1p; screen w | sed -n 4p)"

# ---- too small with a prompt open and an edit unsaved: i and q are the
# screen's, not letters of the search; q asks before the edit goes
keys w 1 +
wait_for w "walk.json [+]" || bad "+ did not mark the workspace edited"
keys w /
wait_for w "Find pool:" || bad "/ did not open the pool search"
$T resize-window -t w -x 60 -y 20
wait_for w "Terminal too small" || bad "no too-small screen at 60x20: $(screen w)"
keys w q
wait_for w "unsaved changes: q again quits; i, then w, saves" && ok ||
	bad "q on the too-small screen over an unsaved edit did not ask: $(screen w)"
screen w | grep -q "EXITED" && bad "one q quit over an unsaved edit" || ok
keys w i
wait_gone w "Terminal too small" || bad "i did not leave the too-small screen"
[ "$(screen w | tail -1 | sed 's/ *$//')" = "Find pool:" ] && ok ||
	bad "the keys of the too-small screen went into the prompt: '$(screen w | tail -1)'"
keys w Escape
$T resize-window -t w -x 80 -y 24
wait_for w "Enter edit" || bad "the Cluster view did not come back at 80x24"
keys w q q
wait_for w "EXITED:0" && ok || bad "q q did not quit: $(screen w | tail -2)"

$T kill-server 2>/dev/null
finish test_tui_walk
