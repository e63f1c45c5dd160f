#!/bin/sh
# test_tui.sh — drive the real binary in a private tmux server (send-keys,
# capture-pane) and check what a user would see.
#
#   start -> plans within a second -> a plan's detail -> edit a pool's node
#   count -> the plans change -> export JSON and Markdown -> save -> reopen;
#   the Edit plan view: a key toggled moves the step time as `hetplan
#   estimate` does, fp8 on A100 is refused by name, r resets;
#   golden screens at 80x24 and 120x40; after an edit on 320 GPUs the best
#   plans so far ("refining") and then `hetplan plan`'s table; resize below
#   80x24 and back;
#   what runs where: a tcpxo pool's plans flagged in the Plans view, the
#   Detail view's links and transport as `hetplan plan` words them, a V100
#   DGX-1 plan at TP 2;
#   NO_COLOR, --ascii and a C locale without colour codes or non-ASCII bytes;
#   the screen answers keys while a price download trickles in; a
#   download's end joins the user's message instead of replacing it;
#   Ctrl-C restores the terminal.
#
# Golden screens live in tests/golden/*.txt. After an intended change to a
# screen, regenerate them with `make golden` (UPDATE_GOLDEN=1 sh
# tests/test_tui.sh) and read the diff before committing. They hold no
# clock and no timings, so they only change when the screen does.
#
# Run from the repository root; $HETPLAN names the binary (./hetplan).
. tests/tui_lib.sh
srv="" srv2=""
cleanup_extra() {
	[ -n "$srv" ] && kill "$srv" 2>/dev/null
	[ -n "$srv2" ] && kill "$srv2" 2>/dev/null
	return 0
}
G=tests/golden
# golden NAME SESSION: compare the screen with tests/golden/NAME.txt. On a
# busy machine a capture can land mid-redraw, so a differing screen is
# captured again for up to 3 s before it counts as different.
golden() {
	f=$G/$1.txt
	screen "$2" >"$tmp/$1.txt"
	n=0
	# Writing a golden: wait until the screen holds still for a second (a
	# search posts a preview before its full answer; on a loaded machine
	# the full answer can come seconds later), at most 20 s.
	while [ "${UPDATE_GOLDEN:-}" = 1 ] && [ $n -lt 20 ]; do
		sleep 1
		screen "$2" >"$tmp/$1.again"
		cmp -s "$tmp/$1.txt" "$tmp/$1.again" && break
		mv "$tmp/$1.again" "$tmp/$1.txt"
		n=$((n + 1))
	done
	n=0
	# Checking: a screen that differs is captured again for up to 30 s
	# (the full answer after a preview, on a loaded machine), the bound
	# of every other wait.
	while [ "${UPDATE_GOLDEN:-}" != 1 ] && [ -f "$f" ] && ! cmp -s "$f" "$tmp/$1.txt" &&
		[ $n -lt 300 ]; do
		sleep 0.1
		screen "$2" >"$tmp/$1.txt"
		n=$((n + 1))
	done
	if [ "${UPDATE_GOLDEN:-}" = 1 ]; then
		mkdir -p $G
		cp "$tmp/$1.txt" "$f"
		echo "updated $f"
		ok
	else
		golden_verdict "$f" "$1" "make golden"
	fi
}

# ---- 0. the man page's KEYS section is the key tables, word for word
python3 tests/tools/man_keys.py "$HP" >"$tmp/keys.man" 2>&1
awk '/^\.SH KEYS/ { p = 1; print; next } /^\.SH / { p = 0 } p' man/hetplan.1 >"$tmp/man.keys"
cmp -s "$tmp/keys.man" "$tmp/man.keys" && ok ||
	bad "man/hetplan.1 KEYS differs from the key tables (python3 tests/tools/man_keys.py ./hetplan)"

# ---- the bench mode draws every view at two sizes on /dev/null
"$HP" tui --bench >"$tmp/bench" 2>&1 && grep -q "view switch 200x60" "$tmp/bench" && ok ||
	bad "hetplan tui --bench: $(tail -3 "$tmp/bench")"

# ---- 1. start, plans appear, detail, edit, re-plan, export, save
# No wall-clock limits here: a busy machine must not fail the suite. How
# fast the plans appear and views switch is measured by `make bench`
# (tests/bench_tui.sh). The bounds below (30 s) only catch a hang.
start flow 80 24
wait_ready flow 300 && ok || bad "no plans: $(screen flow)"
screen flow | grep -q '^  1 ' && ok || bad "no ranked plan row 1"
golden plans-80x24 flow
before=$(screen flow | sed -n 4p)
keys flow Enter
wait_for flow "Layout: replicas x pipeline stages" && ok || bad "Enter did not open the detail view"
# The settings line of plan 1 (interleaved:2) is wider than 80 columns: it
# goes on in the row below, whole, not cut at the edge after "interleaved:2,".
screen flow | grep -qE '^ +CP [0-9]+, EP [0-9]+ *$' && ok ||
	bad "the Detail view's settings lack CP and EP at 80x24: $(screen flow | sed -n 6,7p)"
golden detail-80x24 flow
# Scroll to the communication table.
keys flow G
wait_for flow "Communication per step" && ok || bad "G did not scroll to the end of the detail"
screen flow | grep -qE '^  (tp|pp|dp) ' && ok || bad "no communication rows"
golden detail-80x24-end flow
# Cluster view: pool h100 (the first), field Nodes (the fourth), set 8.
keys flow 1 Enter j j j Enter
wait_for flow "Nodes:" && ok || bad "Enter on Nodes did not prompt"
keys flow C-u 8 Enter
# 8x8 H100 + 8x8 A100 = 128 GPUs.
wait_for flow "128 GPUs" && ok || bad "the header does not count 128 GPUs"
keys flow 3
wait_plans flow || bad "no plans after the edit"
after=$(screen flow | sed -n 4p)
[ "$before" != "$after" ] && ok || bad "the best plan did not change after adding 4 H100 nodes: $after"
screen flow | grep -q 'default workspace \[+\]' && ok || bad "the header does not mark unsaved changes"
# Export the selected plan as JSON, then Markdown.
keys flow e
wait_for flow "Export plan to" && ok || bad "e did not ask where to export"
keys flow C-u "$tmp/plan.json" Enter
wait_for flow "exported" && ok || bad "no export message: $(screen flow | tail -1)"
python3 -m json.tool "$tmp/plan.json" >/dev/null 2>&1 && ok || bad "exported JSON is not valid"
python3 - "$tmp/plan.json" <<'EOF' && ok || bad "exported JSON lacks the edited cluster or the plan"
import json, sys
d = json.load(open(sys.argv[1]))
pools = {p["name"]: p for p in d["cluster"]["pools"]}
assert pools["h100"]["nodes"] == 8, pools["h100"]
assert pools["a100"]["nodes"] == 8
assert d["model"]["layers"] == 80          # Llama-3.1 70B
assert d["workload"]["gbs"] == 1024 and d["workload"]["seq_len"] == 8192
assert d["plan"]["gbs"] == 1024 and d["plan"]["replicas"]
assert d["estimate"]["tokens_per_s"] > 0
EOF
keys flow e C-u "$tmp/plan.md" Enter
wait_for flow "exported $tmp/plan.md" && ok || bad "no Markdown export"
head -1 "$tmp/plan.md" 2>/dev/null | grep -q '^# hetplan plan: ' && ok || bad "Markdown export has no title"
grep -q '^| tokens/s | ' "$tmp/plan.md" 2>/dev/null && ok || bad "Markdown export has no metrics table"
# Save, then quit: no unsaved-changes warning after a save.
keys flow w C-u "$tmp/ws.json" Enter
wait_for flow "saved $tmp/ws.json" && ok || bad "w did not save"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["cluster"]["pools"][0]["nodes"] == 8' \
	"$tmp/ws.json" 2>/dev/null && ok || bad "saved workspace lacks the edit"
keys flow q
wait_for flow "EXITED:0" && ok || bad "q did not quit with status 0"
# Reopen the saved workspace.
start reopen 80 24 "" "tui $tmp/ws.json"
wait_for reopen "ws.json" && wait_for reopen "128 GPUs" && ok || bad "reopening the workspace: $(screen reopen | head -1)"
keys reopen q
wait_for reopen "EXITED:0" && ok || bad "q after reopening"

# ---- 1a. the pool's scale-up speed reaches the step-time model
# The field shows the rate an intra-node hop is priced at: H100's NVLink 4
# at NCCL's 20.6 GB/s a link out of 25 (comm.c), 18 links x 25 x 20.6/25
# = 370.8 GB/s, marked as the catalog's. Typing 1 stores the pool key intra_gbyte_s = 1, which the
# exported cluster carries, and the re-plan prices TP inside an H100 node
# at 1 GB/s, so the best plan's step changes.
start sus 80 24
wait_ready sus || bad "no plans before the scale-up edit"
sbefore=$(screen sus | sed -n 4p)
keys sus 1
wait_for sus "catalog: 370.8 GB/s" && ok || bad "Scale-up speed is not NCCL's H100 rate: $(screen sus | grep 'Scale-up speed')"
keys sus Enter j j j j j j Enter
wait_for sus "Scale-up speed (per GPU" && ok || bad "Enter on Scale-up speed did not prompt"
# The catalog's rate is not offered as a value: Enter on the empty prompt
# keeps the catalog's (it would otherwise pin 370.8 as a measurement).
screen sus | tail -1 | grep -q 'catalog): *$' && ok || bad "the prompt offers a value: $(screen sus | tail -1)"
keys sus Enter
# The field reads the catalog's rate under the prompt too: first the
# prompt goes, then the field is read.
wait_gone sus "Scale-up speed (per GPU" || bad "Enter did not close the prompt: $(screen sus | tail -1)"
wait_for sus "catalog: 370.8 GB/s" && ok || bad "Enter on the empty prompt changed the field: $(screen sus | grep 'Scale-up speed')"
keys sus Enter
wait_for sus "Scale-up speed (per GPU" || bad "Enter on Scale-up speed did not prompt again"
keys sus C-u 1 Enter
wait_for sus " 1 GB/s" && ok || bad "Scale-up speed after the edit: $(screen sus | grep 'Scale-up speed')"
keys sus 3
wait_plans sus || bad "no plans after the scale-up edit"
[ "$sbefore" != "$(screen sus | sed -n 4p)" ] && ok || bad "the best plan did not change with H100 TP at 1 GB/s"
keys sus e C-u "$tmp/sus.json" Enter
wait_for sus "exported $tmp/sus.json" && ok || bad "export after the scale-up edit: $(screen sus | tail -1)"
python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["cluster"]["pools"]; assert p[0]["intra_gbyte_s"] == 1 and p[1].get("intra_gbyte_s", 0) == 0, p' \
	"$tmp/sus.json" 2>/dev/null && ok || bad "the exported cluster lacks intra_gbyte_s 1: $(head -c 300 "$tmp/sus.json")"
keys sus q q
wait_for sus "EXITED:0" && ok || bad "quit after the scale-up edit"

# ---- 1a'. a price of 0 is a price (hardware already owned)
# As `--pool ...,price=0` does, 0 in the Price field keeps the pool at
# $0.00/h: h100 (4 nodes) drops out of the total, which is then a100's 8
# nodes x 8 GPUs x the catalog's $2.945625/GPU-h = $188.53/h, with no
# "unpriced" pool. Empty gives the pool back to the catalog: 4 x 8 x
# $6.88/GPU-h = $220.16/h, and the total $408.69/h.
start own 80 24
wait_ready own || bad "no plans before the price edit"
keys own 1 Enter j j j j j j j j j j j j j j Enter   # Price: 15th field (after pcie, transport)
# At 80 columns the prompt's title and the value both show (a longer
# title gives way, ending in "…", so the value keeps 24 cells).
wait_for own "Price (USD per node-hour; empty: catalog's; 0: owned): 55.04" && ok ||
	bad "Enter on Price did not prompt: $(screen own | tail -1)"
keys own C-u 0 Enter
wait_for own '  $0.00 fixed' && ok || bad "price 0 shows as: $(screen own | sed -n 4p)"
screen own | grep -q ' \$188.53/h *$' && ok || bad "the total with an owned pool: $(screen own | sed -n 7p)"
keys own Enter C-u Enter
wait_for own ' $220.16 fixed' && ok || bad "empty price did not give back the catalog's: $(screen own | sed -n 4p)"
screen own | grep -q ' \$408.69/h *$' && ok || bad "the total after the catalog's price: $(screen own | sed -n 7p)"
keys own q q
wait_for own "EXITED:0" && ok || bad "quit after the price edit"

# ---- 1b. the Edit plan view: a what-if on the best plan's keys
# E in the Detail view opens plan #1 with every key of the plan table.
# Toggling tp_overlap must move the step time the way `hetplan estimate`
# does for the same plan file with --tp-overlap: the CLI reaches the
# estimator through its argument parser, the TUI through the field table.
start pe 80 24
wait_ready pe || bad "no plans before the Edit plan view"
keys pe Enter
wait_for pe "Layout: replicas x pipeline stages" || bad "no detail before E"
keys pe E
wait_for pe "What if: #1 " && ok || bad "E in the Detail view did not open the plan editor: $(screen pe | sed -n 3p)"
screen pe | grep -q "^ grad_reduce_fp32 *default: " && ok ||
	bad "the editor lacks the plan table's last key, or its default"
golden planedit-80x24 pe
# Unchanged, the edited plan is the planner's: export it with its inputs.
keys pe e C-u "$tmp/pe0.json" Enter
wait_for pe "exported $tmp/pe0.json" && ok || bad "e in the editor: $(screen pe | tail -1)"
# step_row: the change column of the step time row ("same", "+20.8%").
step_row() { screen pe | awk '/ step time / { print $NF; exit }'; }
[ "$(step_row)" = same ] && ok || bad "the unedited plan's step time differs: $(step_row)"
# The memory line names the fullest stage's total, the allocator's reserve
# included, as the memory headroom row and the Detail view's bars count it,
# and its live bytes, as `hetplan estimate` words it (the largest
# total_bytes / capacity_bytes stage of its JSON). It named the live bytes
# alone: "62.5 GiB of 79.6 GiB" beside a memory headroom of 15%.
screen pe | awk -F'│' '/│ memory: / { on = 1 } on && $2 ~ /^ *$/ { exit } on { sub(/^ /, "", $2); printf "%s ", $2 }' >"$tmp/pe-mem"
python3 - "$HP" "$tmp" <<'PY' && ok || bad "the editor's memory line vs hetplan estimate: $(cat "$tmp/pe-mem")"
import json, subprocess, sys
hp, tmp = sys.argv[1:]
d = json.load(open(tmp + "/pe0.json"))
for k in ("cluster", "model", "plan"):
    json.dump(d[k], open("%s/pem-%s.json" % (tmp, k), "w"))
out = subprocess.run([hp, "estimate", "-c", tmp + "/pem-cluster.json", "-m", tmp + "/pem-model.json",
                      "--plan", tmp + "/pem-plan.json", "--format", "json"], capture_output=True, text=True)
w = max(json.loads(out.stdout)["memory"], key=lambda s: s["total_bytes"] / s["capacity_bytes"])
gib = lambda b: "%.1f GiB" % (b / 2**30)
want = "fullest stage %s of %s with the allocator's reserve, %s live" % (
    gib(w["total_bytes"]), gib(w["capacity_bytes"]), gib(w["total_bytes"] - w["allocator_cache_bytes"]))
line = " ".join(open(tmp + "/pe-mem").read().split())
assert want in line, (want, line)
PY
row=$(screen pe | awk '/^ tp_overlap / { print NR; exit }')
i=4
keys pe g
while [ "$i" -lt "${row:-4}" ]; do keys pe j; i=$((i + 1)); done
keys pe l
wait_for pe "*tp_overlap" && ok || bad "l did not change tp_overlap: $(screen pe | grep tp_overlap)"
change=$(step_row)
golden planedit-80x24-tp-overlap pe
# The memory headroom row's change is the difference of its two values as
# printed (they were whole percents: 15% and 17% beside "+1.6 pts"; then
# 15.0% and 16.5% beside "+1.6 pts", the unrounded difference).
screen pe | awk -F'│' '$2 ~ /memory headroom/ { print $2; exit }' | tr -d '%' |
	awk '{ exit !(NF == 6 && $6 == "pts" && $5 == sprintf("%+.1f", $4 - $3)) }' && ok ||
	bad "memory headroom row: $(screen pe | grep 'memory headroom')"
keys pe e C-u "$tmp/pe1.json" Enter
wait_for pe "exported $tmp/pe1.json" && ok || bad "exporting the edited plan: $(screen pe | tail -1)"
# The CLI: the exported cluster, model and plan without its tp_overlap key
# (a key in the file wins over a flag), then with the flag turned over.
python3 - "$HP" "$tmp" "$change" <<'PY' && ok || bad "tp_overlap in the editor vs hetplan estimate --tp-overlap"
import json, subprocess, sys
hp, tmp, change = sys.argv[1:]
d = json.load(open(tmp + "/pe0.json"))
for k in ("cluster", "model"):
    json.dump(d[k], open("%s/pe-%s.json" % (tmp, k), "w"))
plan = d["plan"]
on = plan.pop("tp_overlap")
assert any(s["tp"] > 1 for r in plan["replicas"] for s in r["stages"]), "plan #1 has no TP"
json.dump(plan, open(tmp + "/pe-plan.json", "w"))
def step(*flags):
    out = subprocess.run([hp, "estimate", "-c", tmp + "/pe-cluster.json", "-m",
                          tmp + "/pe-model.json", "--plan", tmp + "/pe-plan.json",
                          "--format", "json", *flags], capture_output=True, text=True)
    return json.loads(out.stdout)["step_time_s"]
a, b = step(), step("--tp-overlap", "off" if on else "on")
want = "%+.1f%%" % (100 * (b - a) / a)
assert b != a, "the flag changes nothing"
assert change == want, "screen %s, estimate %s (%g s -> %g s)" % (change, want, a, b)
e = json.load(open(tmp + "/pe1.json"))
assert e["plan"]["tp_overlap"] == (not on), e["plan"]
assert abs(e["estimate"]["step_time_s"] - b) <= 1e-9 * b, (e["estimate"]["step_time_s"], b)
assert e["estimate"]["label"].startswith("edited ")
PY
# A precision the A100 pool lacks: the estimator's message names the GPU.
# The choices' order is the dtype enum's: step with l until fp8, each time
# waiting for the row to change so no key overtakes the screen.
precision() { screen pe | awk '/^.precision / { print $2; exit }'; }
keys pe g j j j
i=0
while [ $i -lt 5 ] && [ "$(precision)" != fp8 ]; do
	was=$(precision)
	keys pe l
	j=0
	while [ $j -lt 300 ] && [ "$(precision)" = "$was" ]; do sleep 0.1; j=$((j + 1)); done
	i=$((i + 1))
done
wait_for pe "has no fp8" && ok || bad "fp8 on A100: $(screen pe | sed -n 18,22p)"
screen pe | grep -q "A100-SXM4-80GB" && ok || bad "the fp8 message does not name the GPU"
keys pe r
wait_for pe "the planner's plan again" && ok || bad "r did not reset"
[ "$(step_row)" = same ] && ! screen pe | grep -q '^\*' && ok || bad "after r: $(step_row)"
keys pe Escape
wait_for pe "Layout: replicas x pipeline stages" && ok || bad "Esc did not go back to the detail"
keys pe q
wait_for pe "EXITED:0" && ok || bad "quit after the plan editor"
start pebig 120 40
wait_ready pebig || bad "no plans at 120x40 (editor)"
keys pebig E
wait_for pebig "What if: #1 " && ok || bad "E in the Plans view did not open the plan editor"
golden planedit-120x40 pebig
# pp_layout, the last key: an uneven layout of plan #1's interleaved:2
# (80 layers, 25 + 20 on the first rank, 20 + 15 on the second) changes
# the estimate; clearing it is no layout again, the planner's split, so
# every row reads "same" (the editor had kept the layout's 45/35 split).
tokens_row() { screen pebig | awk -F'│' '$2 ~ / tokens\/s / { n = split($2, f, " "); print f[n]; exit }'; }
keys pebig G Enter
wait_for pebig "pp_layout:" || bad "Enter on pp_layout did not ask for a value"
keys pebig 'Et*25|t*20|t*20|t*15L' Enter
wait_for pebig "*pp_layout          Et*25|t*20|t*20|t*15L" && ok || bad "the layout was not taken: $(screen pebig | grep pp_layout)"
[ "$(tokens_row)" != same ] && ok || bad "an uneven layout changed nothing"
keys pebig Enter
wait_for pebig "pp_layout:" || bad "Enter on pp_layout did not ask again"
keys pebig C-u Enter
wait_for pebig " pp_layout          -" && ok || bad "the layout was not cleared: $(screen pebig | grep pp_layout)"
[ "$(tokens_row)" = same ] && ok || bad "a cleared layout kept its split: tokens/s $(tokens_row)"
keys pebig q
wait_for pebig "EXITED:0" && ok || bad "quit at 120x40 (editor)"

# ---- 2. golden screens at 120x40: plans, detail, cluster, model
start big 120 40
wait_ready big || bad "no plans at 120x40"
golden plans-120x40 big
keys big Enter
wait_for big "Layout: replicas x pipeline stages" && ok || bad "no detail at 120x40"
golden detail-120x40 big
keys big G
wait_for big "Communication per step" && ok || bad "detail at 120x40 does not reach the comm table"
golden detail-120x40-end big
keys big 1
wait_for big "Between pools" && ok || bad "cluster view at 120x40"
golden cluster-120x40 big
keys big 2
wait_for big "Training workload" && ok || bad "model view"
golden model-120x40 big
keys big '?'
wait_for big "Keys in the Model view" && ok || bad "? did not open help"
screen big | grep -qE '^ +p +Pick a model preset' && ok || bad "help lacks the model view's p key"
# the Model view's help now ends in its fields' notes, past 37 rows
keys big q
wait_gone big "Keys in the Model view" && wait_for big "Training workload" && ok || bad "q did not close the help"
# at 120x40 the Prices view's help (no notes) fits its 37 rows: no
# scroll hint
keys big 5 '?'
wait_for big "Keys in the Prices view" || bad "? did not open the Prices help"
screen big | grep -qF "help rows" && bad "a scroll hint on a help that fits" || ok
keys big q
wait_gone big "Keys in the Prices view" || bad "q did not close the Prices help"
keys big q
wait_for big "EXITED:0" && ok || bad "quit at 120x40"

# ---- 2a0. the help at 80x24 scrolls to its last page and no further
# j past the end leaves the help's last key (C-l) on row 22, above the
# blank row that ends the list (row 23) and the footer. The scroll was
# clamped after drawing, so the screen showed blank rows past the end.
start help 80 24
wait_ready help || bad "no plans before the help"
# (the Prices view: its help ends in the keys of every view, C-l last;
# the Cluster view's now ends in its fields' notes)
keys help 5 '?'
wait_for help "Keys in the Prices view" || bad "? did not open the Prices view's help"
# the help is longer than its 24 - 3 = 21 rows (tab bar, header and footer
# apart): the footer says which rows show and how to see the rest
wait_for help "help rows 1-21 of " && ok || bad "no scroll hint in the help's footer: '$(screen help | sed -n 24p)'"
screen help | sed -n 24p | grep -qF "j/Down for more" && ok || bad "the hint does not name the key: '$(screen help | sed -n 24p)'"
keys help j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j j
i=0
while [ $i -lt 300 ] && ! screen help | sed -n 22p | grep -q '^ *C-l  *Redraw the screen'; do
	sleep 0.1
	i=$((i + 1))
done
screen help | sed -n 22p | grep -q '^ *C-l  *Redraw the screen' && ok ||
	bad "help scrolled past its end: rows 20-23 '$(screen help | sed -n 20,23p)'"
# at the end: the last 21 rows of N, N - 20 to N, and no "more"
foot=$(screen help | sed -n 24p)
echo "$foot" | grep -qF "k/Up back" && ! echo "$foot" | grep -qF "for more" && ok ||
	bad "footer at the help's end: '$foot'"
# shellcheck disable=SC2046
set -- $(echo "$foot" | sed -n 's/.*help rows \([0-9]*\)-\([0-9]*\) of \([0-9]*\).*/\1 \2 \3/p')
[ $# = 3 ] && [ "$2" = "$3" ] && [ $(($2 - $1 + 1)) = 21 ] && ok || bad "help rows at the end: '$foot'"
keys help q q
wait_for help "EXITED:0" && ok || bad "quit after the help"

# ---- 2a. figures wider than their column keep their unit
# One A100 node at $500,000 an hour training Llama-3.1 8B on 1e15 tokens:
# the best plan takes about 1,160 years, costs about $5.08T, and $5,080 per
# million tokens. At 100 columns TIME is 7 characters wide and COST and
# $/1M 6 and 5: "1159.9 y", "$5080425.86M" and "5080.43" lost their
# units or digits ("1159.9", "$50804", "5080."), reading as thousands of
# dollars where the plan costs trillions. The expected cells are the CLI's
# figures for the same inputs, rounded by hand: years to a whole year, the
# cost to three digits in trillions, $/1M to whole dollars.
cat >"$tmp/dear.json" <<'JSON'
{"version": 1,
 "cluster": {"name": "dear", "pools": [{"name": "a100", "gpu": "A100-SXM4-80GB", "nodes": 1,
                                        "price_per_node_hour": 500000}]},
 "model": "llama3.1-8b",
 "workload": {"gbs": 8, "seq_len": 8192, "tokens": 1e15, "top": 1}}
JSON
printf '{"name": "dear", "pools": [{"name": "a100", "gpu": "A100-SXM4-80GB", "nodes": 1, "price_per_node_hour": 500000}]}' >"$tmp/dearc.json"
"$HP" plan -c "$tmp/dearc.json" -m llama3.1-8b --gbs 8 --seq-len 8192 --tokens 1e15 --top 1 --format json |
	python3 -c 'import json, sys
p = json.load(sys.stdin)["plans"][0]
print("%.0f" % (p["usd_per_hour"] / 3600 / p["tokens_per_s"] * 1e6))
print("%.0f y" % (p["time_to_train_s"] / (365 * 86400)))
print("$%.2fT" % (p["cost_to_train_usd"] / 1e12))' >"$tmp/dear.cells"
start dear 100 30 "" "$tmp/dear.json"
wait_ready dear || bad "no plans for the \$500,000/h pool: $(screen dear | tail -1)"
row=$(screen dear | awk 'NR > 3 && $1 == "1" { print; exit }')
while read -r cell; do
	case "$row" in *" $cell "*) ok ;; *) bad "plan 1's row lacks '$cell': $row" ;; esac
done <"$tmp/dear.cells"
keys dear q
wait_for dear "EXITED:0" && ok || bad "quit after the dear pool"

# ---- 2b. the Serve view: golden screens, an edit re-plans, nearest misses
# Its defaults: Llama-3.1 70B on the workspace's cluster at 40 requests/s of
# 1500 prompt and 300 output tokens, p99 TTFT 2 s and TPOT 50 ms.
# serve_row N: the plan row of rank N, as "REQ/S TOK/S $/H $/MTOK".
serve_row() {
	screen "$1" | awk -v n="$2" '$1 == n && / (yes|no) *$/ {
		for (i = 1; i <= NF; i++) if ($i ~ /^\$/) { u = i; break }
		print $(u - 1), $(u - 2), $u, $(u + 1); exit }'
}
start srv 80 24
wait_ready srv || bad "no plans before the Serve view"
keys srv 7
wait_for srv "Serving Llama-3.1 70B" && ok || bad "7 did not open the Serve view: $(screen srv | tail -1)"
wait_serving srv || bad "no serving plans: $(screen srv | tail -1)"
golden serve-80x24 srv
# At 80x24 the launch section has two rows: the first command, cut, and a
# count of all of them, the number `hetplan serve` prints for the same
# cluster and workload (the default workspace's cluster, written out).
# The rows' end cut the command silently ("--max-model-len 1800" lost)
# and the other instances' commands went unmentioned.
cat >"$tmp/defc.json" <<'JSON'
{"name": "default",
 "pools": [{"name": "h100", "gpu": "H100-SXM", "gpus_per_node": 8, "nodes": 4, "intra": "nvswitch",
            "nics": 8, "nic_gbps": 400},
           {"name": "a100", "gpu": "A100-SXM4-80GB", "gpus_per_node": 8, "nodes": 8, "intra": "nvswitch",
            "nics": 8, "nic_gbps": 200}],
 "fabric": {"oversubscription": 1, "inter_pool_gbps": 100, "inter_pool_latency_us": 1000}}
JSON
n=$(env XDG_CONFIG_HOME="$tmp/cfg" XDG_CACHE_HOME="$tmp/cache" "$HP" serve -c "$tmp/defc.json" -m llama3.1-70b \
	--isl 1500 --osl 300 --rate 40 --ttft-p99 2 --tpot-p99 0.05 | grep -c '^  vllm serve ')
[ "$n" -gt 1 ] && screen srv | grep -q "cut here, $n commands in all: a taller screen shows them, e exports them" && ok ||
	bad "the launch section at 80x24 does not count $n commands: $(screen srv | sed -n 20,23p)"
row=$(serve_row srv 1)
# Fixed lengths: 40 req/s x 300 output tokens = 12,000 output tokens/s.
case "$row" in "40.00 12.0K "*) ok ;; *) bad "serve plan 1 is not 40 req/s, 12.0K tok/s: $row" ;; esac
# $ per million output tokens = $/h / (tokens/s x 3600 s) x 1e6.
echo "$row" | awk '{ gsub(/\$/, ""); t = 12000; e = $3 / (t * 3600) * 1e6
	exit !(($4 - e) ^ 2 < 0.006 ^ 2) }' && ok || bad "serve \$/Mtok is not \$/h per output token: $row"
screen srv | grep -q 'vllm serve meta-llama/Llama-3.1-70B-Instruct --tensor-parallel-size' && ok ||
	bad "no vllm launch line for the plan"
# Rate (the fourth field) to 20: 20 x 300 = 6,000 output tokens/s.
keys srv j j j Enter
wait_for srv "Rate (requests/s" && ok || bad "Enter on Rate did not prompt"
keys srv C-u 20 Enter
wait_for srv " 20 req/s" && ok || bad "the Rate field does not show 20"
i=0
while [ $i -lt 600 ] && ! serve_row srv 1 | grep -q '^20.00 6.00K '; do sleep 0.1; i=$((i + 1)); done
serve_row srv 1 | grep -q '^20.00 6.00K ' && ok || bad "serve plan after the rate edit: $(serve_row srv 1)"
# The next preset (data/models.json order) is Llama-3.1 405B: within TPOT
# 50 ms no configuration of the 96 GPUs serves it; the nearest miss shows.
keys srv k k k l
wait_for srv "Serving Llama-3.1 405B" && ok || bad "l on Model did not pick the next preset"
# The solve's answer, not the footer: a message can hold the footer (below).
wait_for srv "Nearest miss:" 600 && ok || bad "no nearest miss for 405B within the SLOs: $(screen srv | sed -n 14,20p)"
screen srv | grep -q "meets the SLOs" && ok || bad "the miss does not name the SLOs"
# Fits nowhere: one node of 8 H100 (80 GB) cannot hold 405B x 2 bytes.
keys srv 1 j x y
wait_for srv "32 GPUs" && ok || bad "deleting the a100 pool: $(screen srv | head -1)"
keys srv Enter j j j Enter C-u 1 Enter
wait_for srv ", 8 GPUs" && ok || bad "one h100 node: $(screen srv | head -1)"
keys srv 7
# Not wait_serving: the training planner finds no plan for 70B on 8 H100,
# and when its answer comes after 7 the footer holds "no plan: the Plans
# view (3) says why" until the next key instead of "N serving plans".
wait_for srv "fits nowhere" 600 && ok || bad "405B on 8 H100: $(screen srv | sed -n 14,20p)"
screen srv | grep -q "Nearest miss: 1x H100-SXM" && ok || bad "no nearest miss on H100"
keys srv '?'
wait_for srv "Keys in the Serve view" && ok || bad "? in the Serve view"
keys srv q q q
wait_for srv "EXITED:0" && ok || bad "quit from the Serve view"
start srvbig 120 40
wait_ready srvbig || bad "no plans at 120x40"
keys srvbig 7
wait_for srvbig "Serving Llama-3.1 70B" && ok || bad "Serve view at 120x40"
wait_serving srvbig || bad "no serving plans at 120x40: $(screen srvbig | tail -1)"
golden serve-120x40 srvbig
keys srvbig q
wait_for srvbig "EXITED:0" && ok || bad "quit at 120x40 (serve)"

# ---- 2c. re-planning never blocks: best plans so far, then the full answer
# 320 GPUs in 3 pools; switching the objective from cost to deadline (150 d)
# starts a search of seconds here. HETPLAN_TUI_FIRST_MS=0 ends the first
# pass after its first batch of settings, so the preview is sure to come
# before the full answer (the default, 150 ms, lets a quick search answer in
# one pass). The full run repeats the search from the start, which on a
# fast machine with many cores takes tens of milliseconds: the preview
# could come and go between two captures. HETPLAN_TUI_REFINE_HOLD_FILE
# holds the full run back after each preview while $tmp/hold exists; the
# test removes it once it has read the preview, so the order does not
# depend on the machine's speed. The screen must show the "refining"
# marker with plan rows, then the full table, and that table must be `hetplan plan`'s for the same
# inputs (the CLI: cmd_plan.c's own parser and table, not the TUI's).
big3_workspace "$tmp/big.json" '{"gbs": 1024, "seq_len": 8192, "tokens": 2e12, "objective": "cost", "deadline_s": 12960000, "top": 10}'
python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))["cluster"], open(sys.argv[2], "w"))' \
	"$tmp/big.json" "$tmp/big-cluster.json"
start prev 120 40 "HETPLAN_TUI_FIRST_MS=0 HETPLAN_TUI_REFINE_HOLD_FILE=$tmp/hold" "tui $tmp/big.json"
wait_ready prev 600 || bad "no plans for the 320-GPU workspace: $(screen prev | tail -2)"
: >"$tmp/hold"
# Model view, workload pane, Objective (the fifth field): cost -> deadline.
keys prev 2 Tab j j j j
wait_for prev "Objective          cost" || bad "the Objective field is not cost: $(screen prev | grep Objective)"
keys prev l 3
# The preview stays until the hold file goes.
seen="" i=0
while [ $i -lt 600 ]; do
	screen prev >"$tmp/prev.txt"
	grep -qE "best so far \(in [0-9]+ ms\) - refining" "$tmp/prev.txt" &&
		grep -q "objective deadline" "$tmp/prev.txt" && { seen=1; break; }
	sleep 0.1
	i=$((i + 1))
done
[ -n "$seen" ] && ok || bad "no 'best so far - refining' marker before the full answer: $(sed -n 38,40p "$tmp/prev.txt")"
grep -q "^  1 " "$tmp/prev.txt" && grep -q "objective deadline" "$tmp/prev.txt" && ok ||
	bad "the preview has no plan rows for the deadline objective: $(sed -n 3,5p "$tmp/prev.txt")"
rm -f "$tmp/hold"
wait_ready prev 600 || bad "no full answer after the preview: $(screen prev | tail -2)"
screen prev >"$tmp/full.txt"
grep -qE "best so far|stale" "$tmp/full.txt" && bad "the full table is still marked: $(sed -n 38p "$tmp/full.txt")" || ok
grep -q "objective deadline" "$tmp/full.txt" && ok || bad "the full table is not for the deadline objective"
env XDG_CONFIG_HOME="$tmp/cfg" XDG_CACHE_HOME="$tmp/cache" "$HP" plan -c "$tmp/big-cluster.json" \
	-m llama3.1-70b --gbs 1024 --seq-len 8192 --tokens 2T --objective deadline --deadline 150d \
	--top 10 --format json >"$tmp/big-plan.json" 2>"$tmp/big-plan.err" ||
	bad "hetplan plan for the same inputs: $(head -2 "$tmp/big-plan.err")"
python3 - "$tmp/full.txt" "$tmp/big-plan.json" <<'PY' && ok || bad "the TUI's full table differs from hetplan plan's"
import json, re, sys
screen = open(sys.argv[1], encoding="utf-8").read().splitlines()
plans = json.load(open(sys.argv[2]))["plans"]
rows = [l for l in screen[3:] if re.match(r"^ +\d+ ", l)]
assert len(rows) == len(plans) == 10, (len(rows), len(plans))
units = {"K": 1e3, "M": 1e6, "": 1}
for i, (row, p) in enumerate(zip(rows, plans)):
    # "  1 *A  label ...   159.3K   55.3%    1.77   145.3 d   $3.54M   none":
    # the screen rounds; the CLI's JSON has the numbers whole.
    m = re.match(r"^ +(\d+) .{3} (.+?) {2,}([\d.]+)([KM]?) +([\d.]+)% +([\d.]+) +([\d.]+) d +\$([\d.]+)M ", row)
    assert m, row
    assert int(m.group(1)) == i + 1, row
    # the TUI's label may add the micro-batch split ("172/171 micro-batches")
    # or end in "\u2026" where the column is too narrow
    label = m.group(2).rstrip("\u2026")
    assert label.startswith(p["label"]) or p["label"].startswith(label), (label, p["label"])
    tps = float(m.group(3)) * units[m.group(4)]
    assert abs(tps - p["tokens_per_s"]) <= 0.051 * units[m.group(4)], (row, p["tokens_per_s"])
    assert abs(float(m.group(7)) - p["time_to_train_s"] / 86400) <= 0.051, (row, p["time_to_train_s"])
    assert abs(float(m.group(8)) - p["cost_to_train_usd"] / 1e6) <= 0.0051, (row, p["cost_to_train_usd"])
PY
# An edit, then Esc at once: whatever the planner found by then, the plan
# rows stay on screen with a marker that says they are not the full answer
# (never an empty list). Back to cost, then stop it.
keys prev 2 h Escape 3
wait_for prev "was stopped; R plans again" && ok || bad "no 'stopped' marker after Esc: $(screen prev | sed -n 38,40p)"
screen prev | grep -q "^  1 " && ok || bad "no plan rows after Esc: $(screen prev | sed -n 3,6p)"
keys prev R
# R is read on the next input poll: until then the stopped screen (with
# its "N plans" status) is still up, so wait for the marker to go first,
# then for the new search to finish (a busy machine may take seconds).
gone=0
i=0
while [ $i -lt 600 ]; do
	screen prev | grep -q "was stopped" || { gone=1; break; }
	sleep 0.1
	i=$((i + 1))
done
[ $gone = 1 ] && ok || bad "the marker stayed after R"
wait_ready prev 600 || bad "R did not plan again after Esc"
keys prev q q   # the objective was edited: q twice quits without saving
wait_for prev "EXITED:0" && ok || bad "quit from the preview workspace"

# ---- 2d. what runs where: a pool on GPUDirect-TCPXO, a V100 DGX-1 at TP 2
# docs/cloud-transport.md: a pool's transport (Google's a3-mega fabric,
# "tcpxo") changes how its collectives are priced; `hetplan plan`'s
# "Plan 1 in detail" names it and the links each dimension crosses, and
# the TUI says the same in the same words (plan_links_text, ui/common.c).
# Facts from the inputs: pool "mega" is on tcpxo and a100 on InfiniBand
# (the default for 200 Gb/s NICs); an H100-SXM node's TP group talks over
# its NVSwitch; the DP group of a plan over both pools is bounded by
# a100's 8 x 200G NICs, the slower side.
cat >"$tmp/mega-cluster.json" <<'JSON'
{"name": "mega",
 "pools": [{"name": "mega", "gpu": "H100-SXM", "nodes": 4, "transport": "tcpxo"},
           {"name": "a100", "gpu": "A100-80GB", "nodes": 4}]}
JSON
printf '{"version": 1, "cluster": %s, "model": "llama3.1-8b", "workload": {"gbs": 256, "seq_len": 8192}}\n' \
	"$(cat "$tmp/mega-cluster.json")" >"$tmp/mega.json"
start mega 80 24 "" "tui $tmp/mega.json"
wait_ready mega || bad "no plans for a tcpxo pool: $(screen mega | tail -1)"
# The Plans view: a "t" column, flagged on each plan that uses pool mega
# and blank on the plan of pool a100 alone.
screen mega | sed -n 3p | grep -qE '^  # +t PLAN ' && ok || bad "no t column: $(screen mega | sed -n 3p)"
screen mega | grep -qE '^  1 .{3} t mega tp' && ok || bad "plan 1 is not flagged: $(screen mega | sed -n 4p)"
screen mega | grep -qE '^ {10}a100 tp' && ok || bad "the a100 plan is flagged: $(screen mega | grep 'a100 tp. pp. ')"
screen mega | grep -q "t: a pool on a transport other than ib" && ok || bad "no note of the t column"
golden plans-tcpxo-80x24 mega
keys mega Enter
wait_for mega "Layout: replicas x pipeline stages" || bad "no detail of the tcpxo plan"
keys mega NPage
wait_for mega "transport: mega tcpxo" && ok || bad "the Detail view does not name mega's transport: $(screen mega)"
golden detail-tcpxo-80x24 mega
keys mega q
wait_for mega "EXITED:0" && ok || bad "quit the tcpxo workspace"
# 120x40: the lines are `hetplan plan`'s for plan 1, word for word.
start mega2 120 40 "" "tui $tmp/mega.json"
wait_ready mega2 || bad "no plans at 120x40 for the tcpxo pool"
keys mega2 Enter
wait_for mega2 "transport: mega tcpxo" && ok || bad "no transport at 120x40: $(screen mega2)"
golden detail-tcpxo-120x40 mega2
screen mega2 | grep -E '^  ((tp|pp|dp|cp|ep) links|transport): ' >"$tmp/mega.tui"
env XDG_CONFIG_HOME="$tmp/cfg" XDG_CACHE_HOME="$tmp/cache" "$HP" plan -c "$tmp/mega-cluster.json" \
	-m llama3.1-8b --gbs 256 --seq-len 8192 2>&1 |
	sed -n '/^Plan 1 in detail/,/^  to estimate/p' | grep -E '^  ((tp|pp|dp|cp|ep) links|transport): ' >"$tmp/mega.cli"
[ -s "$tmp/mega.cli" ] && cmp -s "$tmp/mega.cli" "$tmp/mega.tui" && ok ||
	bad "the Detail view's links differ from hetplan plan's: $(diff "$tmp/mega.cli" "$tmp/mega.tui")"
grep -qx '  tp links: NVSwitch (inside a node)' "$tmp/mega.tui" && ok || bad "H100 TP is not on NVSwitch: $(cat "$tmp/mega.tui")"
grep -q '^  dp links: 8x200G NIC (bottleneck)' "$tmp/mega.tui" && ok || bad "DP is not bounded by a100's NICs: $(cat "$tmp/mega.tui")"
keys mega2 q
wait_for mega2 "EXITED:0" && ok || bad "quit the tcpxo workspace at 120x40"
# A DGX-1 of V100s (NVLink without NVSwitch; docs/volta.md): a TP 4 plan
# (a quad of the cube mesh; TP 2 fell out of the list once V100 plans are
# costed with the unfused attention a stock framework runs there),
# found with / as a user does, has its TP over NVLink inside a node and
# its DP over the catalog's 4 x 100G NICs; its pool is on InfiniBand (the
# default), so no transport line and no t column.
printf '{"version": 1, "cluster": {"name": "dgx1", "pools": [{"name": "dgx1", "gpu": "V100-SXM2-32GB", "nodes": 2}]}, "model": "gpt-1.7b", "workload": {"gbs": 256, "precision": "fp16"}}\n' >"$tmp/dgx1.json"
start dgx1 80 24 "" "tui $tmp/dgx1.json"
wait_ready dgx1 || bad "no plans on a DGX-1: $(screen dgx1 | tail -1)"
screen dgx1 | sed -n 3p | grep -qE '^  # +PLAN ' && ok || bad "a t column without a pool off InfiniBand: $(screen dgx1 | sed -n 3p)"
keys dgx1 / "tp4 pp1" Enter
wait_for dgx1 "dgx1 tp4 pp1" || bad "no TP 4 plan on the DGX-1"
keys dgx1 Enter
wait_for dgx1 "Layout: replicas x pipeline stages" || bad "no detail of the DGX-1 plan"
screen dgx1 | grep -q '^ #[0-9]* dgx1 tp4 pp1' && ok || bad "the detail is not the TP 4 plan: $(screen dgx1 | sed -n 3p)"
# down a row at a time to the links lines under the layout (a page down
# passed them once the communication table grew its + allgather row)
down=0
while [ $down -lt 30 ] && ! screen dgx1 | grep -q '^  dp links: '; do
	keys dgx1 j
	sleep 0.1
	down=$((down + 1))
done
wait_for dgx1 "tp links: NVLink (inside a node)" && ok || bad "DGX-1 TP 4 links: $(screen dgx1)"
screen dgx1 | grep -q '^  dp links: 4x100G NIC, leaf and spine' && ok || bad "DGX-1 DP links: $(screen dgx1)"
screen dgx1 | grep -q '^  transport: ' && bad "a transport line for a pool on InfiniBand" || ok
keys dgx1 q
wait_for dgx1 "EXITED:0" && ok || bad "quit the DGX-1 workspace"

# ---- 3. resize below 80x24 and back
start rs 80 24
wait_ready rs || bad "no plans before resizing"
$T resize-window -t rs -x 70 -y 20
wait_for rs "Terminal too small" && ok || bad "no too-small screen at 70x20: $(screen rs)"
screen rs | grep -q "70x20; hetplan needs 80x24" && ok || bad "too-small screen does not give the sizes"
# At 30 columns the way out is still readable whole, on two lines (cut at
# the edge it read "Resize it, or press i to ignor").
$T resize-window -t rs -x 30 -y 10
wait_for rs "30x10; hetplan needs 80x24" || bad "no too-small screen at 30x10: $(screen rs)"
screen rs | grep -q "^ *i to ignore, q to quit\. *$" && ok || bad "too-small screen at 30x10: $(screen rs)"
$T resize-window -t rs -x 80 -y 24
wait_for rs "Pareto (time, cost)" && ok || bad "the plans did not come back at 80x24"
screen rs | grep -q "Terminal too small" && bad "too-small screen stayed" || ok
keys rs C-c
wait_for rs "EXITED:130" && ok || bad "Ctrl-C did not end the program with SIGINT"
# The terminal is back to normal: the shell's output is on the main screen.
[ "$($T display -p -t rs '#{alternate_on}')" = 0 ] && ok || bad "alternate screen still on after Ctrl-C"

# ---- 4. no colour, no non-ASCII
# any SGR colour parameter (30-49, 90-107) in capture-pane -e output?
has_colour() {
	python3 -c '
import re, sys
s = sys.stdin.read()
for m in re.finditer(r"\x1b\[([0-9;]*)m", s):
    for p in m.group(1).split(";"):
        # 39 and 49 only reset to the default colours
        if p.isdigit() and (30 <= int(p) <= 48 or 90 <= int(p) <= 107) and int(p) != 39:
            sys.exit(0)
sys.exit(1)'
}
non_ascii() { python3 -c 'import sys; sys.exit(0 if any(b > 127 for b in sys.stdin.buffer.read()) else 1)'; }
start col 80 24
wait_ready col || bad "colour run"
$T capture-pane -e -p -t col | has_colour && ok || bad "the default screen has no colour (the check would prove nothing)"
screen col | non_ascii && ok || bad "the default UTF-8 screen has no UTF-8 glyphs"
start nocol 80 24 NO_COLOR=1
wait_ready nocol || bad "NO_COLOR run"
keys nocol Enter
wait_for nocol "Layout: replicas" || bad "NO_COLOR detail"
$T capture-pane -e -p -t nocol | has_colour && bad "colour codes with NO_COLOR=1" || ok
start ascii 80 24 "" "--ascii --no-color"
wait_ready ascii || bad "--ascii run"
screen ascii | non_ascii && bad "non-ASCII bytes with --ascii (plans)" || ok
keys ascii Enter
wait_for ascii "Layout: replicas" || bad "--ascii detail"
screen ascii | non_ascii && bad "non-ASCII bytes with --ascii (detail)" || ok
golden detail-80x24-ascii ascii
keys ascii NPage NPage
wait_for ascii "Memory per GPU" || bad "--ascii detail scrolled"
screen ascii | non_ascii && bad "non-ASCII bytes with --ascii (bars)" || ok
golden detail-80x24-ascii-bars ascii
$T capture-pane -e -p -t ascii | has_colour && bad "colour codes with --no-color" || ok
keys ascii E
wait_for ascii "What if: #1" || bad "--ascii plan editor"
screen ascii | non_ascii && bad "non-ASCII bytes with --ascii (plan editor)" || ok
$T capture-pane -e -p -t ascii | has_colour && bad "colour codes with --no-color (plan editor)" || ok
start clocale 80 24 "LANG=C LC_ALL=C"
wait_ready clocale || bad "C locale run"
keys clocale 4
wait_for clocale "Layout: replicas" || bad "C locale detail"
screen clocale | non_ascii && bad "non-ASCII bytes in the C locale" || ok

# ---- 5. responsive while a price update trickles in; then a real one
# Never the internet: no proxies; every source is on 127.0.0.1.
unset http_proxy https_proxy all_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY
mkdir -p "$tmp/www/lambda"
cp tests/data/fixtures/skypilot-v8-lambda-vms.constructed.csv "$tmp/www/lambda/vms.csv"
python3 tests/tools/fixture_http.py "$tmp/www" "$tmp/port" &
srv=$!
i=0
while [ ! -s "$tmp/port" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
port=$(cat "$tmp/port" 2>/dev/null)
# /slow trickles 2 bytes a second: with a stall limit of 300 s the update
# is still running when the switches below end, however slow the machine
# (Esc ends it first).
start slow 80 24 "HETPLAN_HTTP_TIMEOUT=300" "--skypilot-url http://127.0.0.1:$port/slow"
wait_ready slow || bad "slow run"
keys slow 5 r
wait_for slow "fetching prices 0/5" && ok || bad "r did not start an update: $(screen slow | tail -1)"
sleep 1
# View switches while bytes trickle in: each new view's header appears
# (how soon is for `make bench`; 30 s only catches a blocked UI thread).
switched() {
	keys slow "$1"
	i=0
	while [ $i -lt 300 ]; do
		screen slow | sed -n 3p | grep -q "$2" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
for v in 1 3 1 3 1; do
	case $v in
	1) switched 1 "^ POOL " && ok || bad "switch to the cluster view during the update" ;;
	*) switched 3 "PLAN" && ok || bad "switch to the plans view during the update" ;;
	esac
done
screen slow | tail -1 | grep -q "fetching prices" && ok || bad "the update ended early: $(screen slow | tail -1)"
keys slow 3 4
wait_for slow "Layout: replicas" && ok || bad "keys after the switches"
keys slow Escape 5
wait_for slow "update cancelled" && ok || bad "Esc did not cancel the update: $(screen slow | sed -n 3,5p)"
keys slow q
wait_for slow "EXITED:0" 300 && ok || bad "quit after a cancelled update"

# The end of a download joins the user's message, which stays: `w`
# saves while a server of its own trickles /slow far below the 1 KiB/s
# stall floor with a stall window of 300 s, so the update is running when
# the save is on screen however slow the machine. The test then kills that
# server: the transfer under way ends short of its length and the sources
# after it find no server, so all five fail at once. The footer then reads
# "saved p.json; prices: 5 failed (5)", not the download's whole message
# alone.
python3 tests/tools/fixture_http.py "$tmp/www" "$tmp/port2" &
srv2=$!
i=0
while [ ! -s "$tmp/port2" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
port2=$(cat "$tmp/port2" 2>/dev/null)
TUI_DIR=$tmp   # p.json is written there
start stall 120 40 "HETPLAN_HTTP_TIMEOUT=300" "--skypilot-url http://127.0.0.1:$port2/slow"
TUI_DIR=$PWD
wait_ready stall || bad "stall run"
keys stall 5 r
wait_for stall "updating 0/5" && ok || bad "r did not start an update: $(screen stall | sed -n 3,4p)"
keys stall w C-u p.json Enter
wait_for stall "saved p.json" || bad "w did not save: $(screen stall | tail -1)"
screen stall | grep -q "updating [0-4]/5" && ok ||
	bad "the update ended before the save: $(screen stall | sed -n 4p)"
kill "$srv2"
wait "$srv2" 2>/dev/null
srv2=""
wait_status stall ' saved p\.json; prices: 5 failed \(5\) *$' 900 && ok ||
	bad "the download's end replaced the message: $(screen stall | tail -1)"
screen stall | grep -q "last update: 0 fetched or current, 5 failed" && ok ||
	bad "Prices view after the failed update: $(screen stall | sed -n 4p)"
keys stall q q
wait_for stall "EXITED:0" && ok || bad "quit after a failed update"

start fast 120 40 "" "--skypilot-url http://127.0.0.1:$port/fast"
wait_ready fast || bad "fast run"
keys fast 5
wait_for fast "embedded snapshot" && ok || bad "Prices view without sources"
# The snapshot (data/prices.csv): the cheapest H100-SXM on-demand is GCP's
# a3-highgpu-1g, host 1.18251 + GPU 4.20076 = 5.383 per GPU-hour; the h100
# pool (8 GPUs a node) is priced from an 8-GPU instance, AWS p5.48xlarge
# at 55.04 / 8 = 6.880 (unit prices to a tenth of a cent, table_rate, as
# `hetplan prices` writes them).
screen fast | grep -E '^ H100-SXM ' | grep -qE ' 5\.383 .*gcp a3-highgpu-1g .*h100 6\.880' && ok ||
	bad "snapshot H100 row: $(screen fast | grep -E '^ H100-SXM ')"
keys fast r
wait_for fast "skypilot:lambda  cache" 300 && ok || bad "lambda source not cached: $(screen fast | sed -n 3,8p)"
# The Lambda fixture: gpu_8x_h100_sxm5 at 23.92 / 8 = 2.990 and
# gpu_8x_a100_80gb_sxm4 at 14.32 / 8 = 1.790; the other four clouds are 404s.
screen fast | grep -E '^ H100-SXM ' | grep -qE ' 2\.990 .*lambda gpu_8x_h100_sxm5 .*h100 2\.990' && ok ||
	bad "H100 after the update: $(screen fast | grep -E '^ H100-SXM ')"
screen fast | grep -q "1 fetched or current, 4 failed" && ok || bad "update summary: $(screen fast | sed -n 4p)"
# The pools are repriced: 4 nodes x 23.92 + 8 nodes x 14.32 = 210.24 an hour.
keys fast 1
wait_for fast '$210.24/h' && ok || bad "cluster not repriced: $(screen fast | grep GPUs | head -2)"
keys fast q
wait_for fast "EXITED:0" && ok || bad "quit after an update"

finish tui
