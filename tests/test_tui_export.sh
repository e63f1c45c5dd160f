#!/bin/sh
# test_tui_export.sh — `e` and `L` in the Plans view export the row selected, in
# the real binary under a private tmux server.
#
# The default workspace (4 nodes of 8 H100-SXM, 8 of 8 A100-80GB,
# Llama-3.1 70B) lists the ranked plans, then the best plan on each pool
# alone. With the last row selected (G: pool a100's best), `e` writes that
# plan: its label and tokens/s are `hetplan plan --format json`'s
# single_pool entry for a100 on the same cluster (the CLI's own parser and
# JSON, not the TUI's), and not ranked plan 1's. A pool's best plan is not
# among the ranked plans the shared .html report details, so `e` to .html
# refuses by name rather than detailing plan 1.
#
# `L` writes the same row's launch config: the file is byte for byte what
# `hetplan launch` writes for that plan (the CLI reads the plan from the
# `plan` object of the TUI's own JSON export, or as rank N of `hetplan plan
# --format json`, with the workload's 2T tokens), in the format its name
# asks for (.json DeepSpeed, .sh Slurm, else Megatron-LM arguments). Pool
# a100's best plan runs the interleaved schedule, which DeepSpeed's
# pipeline does not run (runs_on.c: 1F1B only), so its .json status line
# carries the CLI's verdict. A plan edited to an estimate-only framework
# (InternLM) is refused with launch's own sentence, and no file is written;
# so is one edited until it no longer fits in GPU memory.
# Run from the repository root; $HETPLAN names the binary (./hetplan).
. tests/tui_lib.sh
TUI_DIR=$tmp
wait_file() {   # FILE: written within ~10 s (the TUI writes it atomically)
	i=0
	while [ $i -lt 50 ] && [ ! -s "$1" ]; do sleep 0.2; i=$((i + 1)); done
	[ -s "$1" ]
}

start ex 120 40 "" ""
wait_plans ex || bad "no plans: $(screen ex | tail -1)"
keys ex G
wait_for ex "a100 tp8 pp2" || bad "no per-pool rows: $(screen ex | sed -n 14,16p)"
keys ex e
wait_for ex "Export plan to" || bad "e did not prompt: $(screen ex | tail -1)"
keys ex C-u pool.json Enter
# the message names the plan written (from Compare or Prices, e writes the
# Detail view's plan, which is not on the screen)
if wait_for ex "exported pool.json: best on a100: a100 tp8 pp2" && [ -s "$tmp/pool.json" ]; then ok; else bad "no pool.json: $(screen ex | tail -1)"; fi
keys ex w
wait_for ex "Save workspace to" || bad "w did not prompt"
keys ex C-u ws.json Enter
wait_for ex "saved ws.json" || bad "no ws.json: $(screen ex | tail -1)"
python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))["cluster"], open(sys.argv[2], "w"))' \
	"$tmp/ws.json" "$tmp/cluster.json"
"$HP" plan -c "$tmp/cluster.json" -m llama3.1-70b --gbs 1024 --seq-len 8192 --tokens 2T \
	--format json >"$tmp/cli.json" 2>"$tmp/err" || bad "hetplan plan: $(cat "$tmp/err")"
python3 - "$tmp/pool.json" "$tmp/cli.json" <<'PY' && ok || bad "pool.json is not pool a100's best plan"
import json, sys
e = json.load(open(sys.argv[1]))["estimate"]
cli = json.load(open(sys.argv[2]))
best = [p for p in cli["single_pool"] if p["pool"] == "a100"][0]
assert e["label"] == best["label"], (e["label"], best["label"])
assert abs(e["tokens_per_s"] / best["tokens_per_s"] - 1) < 1e-9, (e["tokens_per_s"], best["tokens_per_s"])
assert e["label"] != cli["plans"][0]["label"], "plan 1 exported"
# what runs it and whether it fits, as plan's JSON says (they were missing)
for k in ("runs_on", "runs_on_why", "memory_verdict", "mem_need_bytes", "mem_capacity_bytes"):
    assert e[k] == best["plan"][k], (k, e.get(k), best["plan"][k])
PY
keys ex e
wait_for ex "Export plan to" || bad "second e did not prompt"
keys ex C-u pool.html Enter
wait_for ex "pool.html: a pool's best plan exports as .md or .json" && ok ||
	bad ".html of a pool's best plan: $(screen ex | tail -1)"
[ ! -e "$tmp/pool.html" ] && ok || bad "pool.html was written"
# .md: the schedule with its chunk count, as the JSON export's plan has it
# (the Settings line said "interleaved 1F1B" without the count)
keys ex e
wait_for ex "Export plan to" || bad "third e did not prompt"
keys ex C-u pool.md Enter
wait_for ex "exported pool.md" || bad "no pool.md: $(screen ex | tail -1)"
python3 - "$tmp/pool.json" "$tmp/pool.md" <<'PY' && ok || bad "pool.md's Settings line lacks the plan's schedule"
import json, sys
sch = json.load(open(sys.argv[1]))["plan"]["schedule"]
md = open(sys.argv[2]).read()
want = ("interleaved 1F1B (%s chunks per stage)" % sch.split(":")[1]
        if sch.startswith("interleaved:") else "1F1B,")
assert want in md, (sch, [l for l in md.splitlines() if l.startswith("micro-batch")])
PY

# L: launch configs, compared with `hetplan launch` for the same plan
python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))["plan"], open(sys.argv[2], "w"))' \
	"$tmp/pool.json" "$tmp/poolplan.json"
cli_launch() {   # OUT ARGS...: hetplan launch on the saved cluster
	out=$1; shift
	"$HP" launch -c "$tmp/cluster.json" -m llama3.1-70b "$@" >"$tmp/$out" 2>"$tmp/err" ||
		bad "hetplan launch $*: $(cat "$tmp/err")"
}
keys ex L
wait_for ex "Launch config to" || bad "L did not prompt: $(screen ex | tail -1)"
keys ex C-u pool-ds.json Enter
# a short "wrote FILE" first, the verdict after it (a narrow status line
# cuts the end: both must show)
wait_for ex "wrote pool-ds.json; 2 notes: DeepSpeed does not run this plan as planned" && ok ||
	bad "no DeepSpeed verdict: $(screen ex | tail -1)"
[ -s "$tmp/pool-ds.json" ] && ok || bad "pool-ds.json was not written"
cli_launch cli-ds.json --plan "$tmp/poolplan.json" --tokens 2T --format deepspeed
grep -qF "DeepSpeed does not run this plan as planned" "$tmp/err" && ok ||
	bad "the CLI gave no verdict either: $(cat "$tmp/err")"
cmp "$tmp/pool-ds.json" "$tmp/cli-ds.json" && ok || bad "pool-ds.json differs from hetplan launch"
keys ex g
wait_gone ex "DeepSpeed does not run" || bad "g left the message up"
keys ex L
wait_for ex "Launch config to" || bad "L did not prompt on plan 1"
keys ex Enter
# plan 1 spans two GPU types: the file's name, then the note
wait_file "$tmp/hetplan-launch.txt" && wait_status ex '^ *wrote hetplan-launch\.txt; [0-9]+ notes: GPU types: the plan runs on' 300 && ok ||
	bad "default launch name: $(screen ex | tail -1)"
cli_launch cli-1.txt --plan "$tmp/cli.json" --rank 1
cmp "$tmp/hetplan-launch.txt" "$tmp/cli-1.txt" && ok || bad "plan 1's Megatron arguments differ"
keys ex L
wait_for ex "Launch config to" || bad "L did not prompt again"
keys ex C-u plan1.sh Enter
wait_file "$tmp/plan1.sh" && ok || bad "plan1.sh: $(screen ex | tail -1)"
cli_launch cli-1.sh --plan "$tmp/cli.json" --rank 1 --format slurm
cmp "$tmp/plan1.sh" "$tmp/cli-1.sh" && ok || bad "plan 1's Slurm script differs"
# At 80 columns the status line leads with "wrote FILE", a long name cut
# in its middle so the verdict still shows. It led with the notes ("3
# notes: GPU types: the plan runs on ...; wrote ..."), and the cut hid
# whether the file was written.
$T resize-window -t ex -x 80 -y 40
keys ex L
wait_for ex "Launch config to" || bad "L did not prompt at 80 columns"
keys ex C-u plan-one-for-the-two-gpu-types-run.sh Enter
wait_file "$tmp/plan-one-for-the-two-gpu-types-run.sh" || bad "the long-named script was not written"
wait_status ex '^ *wrote plan-one-for~pu-types-run\.sh; [0-9]+ notes: GPU types' 300 && ok ||
	bad "80 columns, L: $(screen ex | tail -1)"
cmp "$tmp/plan-one-for-the-two-gpu-types-run.sh" "$tmp/cli-1.sh" && ok || bad "the long-named script differs"
$T resize-window -t ex -x 120 -y 40
# the what-if view: plan 1 edited to an estimate-only framework
keys ex E
wait_for ex "What if: #1" || bad "E did not open the plan editor"
# to the framework row, found on the screen (the plan keys start on line
# 4; counting rows broke when a key was added above it)
row=$(screen ex | awk '/^ framework / { print NR; exit }')
i=4
keys ex g
while [ "$i" -lt "${row:-4}" ]; do keys ex j; i=$((i + 1)); done
i=0
while [ $i -lt 12 ] && ! screen ex | grep -qE "^[ *]framework +internlm"; do
	keys ex l
	sleep 0.2
	i=$((i + 1))
done
screen ex | grep -qE "^[ *]framework +internlm" || bad "framework row never read internlm"
keys ex L
wait_for ex "Launch config to" || bad "L did not prompt in the plan editor"
keys ex C-u edited.txt Enter
"$HP" launch -c "$tmp/cluster.json" -m llama3.1-70b --tp 8 --pp 2 --mbs 1 --gbs 1024 \
	--framework internlm >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && ok || bad "the CLI did not refuse internlm as a usage error"
verdict=$(sed 's/^hetplan[a-z ]*: --framework: //' "$tmp/err" | cut -c1-60)
wait_for ex "the plan's framework: $verdict" && ok ||
	bad "no estimate-only refusal ($verdict): $(screen ex | tail -1)"
[ ! -e "$tmp/edited.txt" ] && ok || bad "edited.txt was written"
# reset, then plan 1 at 16K tokens a sequence (seq_len, the third key):
# its stages outgrow the GPUs; L refuses it with launch's own sentence for
# the same plan (read back from the TUI's JSON export), and writes nothing
keys ex r
wait_gone ex "internlm" || bad "r did not reset the framework"
keys ex g j j Enter
wait_for ex "seq_len (tokens):" || bad "Enter on seq_len did not prompt: $(screen ex | tail -1)"
keys ex C-u 16384 Enter
wait_for ex "memory: does-not-fit" || bad "seq_len 16384 still fits: $(screen ex | sed -n 18,20p)"
keys ex e
wait_for ex "Export plan to" || bad "e did not prompt in the plan editor"
keys ex C-u big.json Enter
wait_for ex "exported big.json" || bad "big.json: $(screen ex | tail -1)"
python3 -c 'import json, sys; json.dump(json.load(open(sys.argv[1]))["plan"], open(sys.argv[2], "w"))' \
	"$tmp/big.json" "$tmp/bigplan.json"
"$HP" launch -c "$tmp/cluster.json" -m llama3.1-70b --plan "$tmp/bigplan.json" >/dev/null 2>"$tmp/err"
[ $? -eq 4 ] && ok || bad "the CLI did not refuse the plan as not fitting: $(cat "$tmp/err")"
nofit=$(sed -n 's/^hetplan launch: \(the plan does not fit.*\); --force writes it anyway$/\1/p' "$tmp/err" | cut -c1-100)
[ -n "$nofit" ] || bad "no fit message from the CLI: $(cat "$tmp/err")"
keys ex L
wait_for ex "Launch config to" || bad "L did not prompt for the big plan"
keys ex C-u big.txt Enter
wait_for ex "$nofit" && ok || bad "no fit refusal ($nofit): $(screen ex | tail -1)"
[ ! -e "$tmp/big.txt" ] && ok || bad "big.txt was written"
# micro-batch 16 does not divide replica group 1's 292 sequences: the
# estimator refuses the plan, and L says there is nothing to launch
keys ex g Enter
wait_for ex "mbs:" || bad "Enter on mbs did not prompt: $(screen ex | tail -1)"
keys ex C-u 16 Enter
wait_for ex "no estimate: edited plan" || bad "mbs 16 was estimated: $(screen ex | sed -n 18,20p)"
keys ex L
wait_for ex "the edited plan has no estimate (the view says why): nothing to launch" && ok ||
	bad "L on a refused plan: $(screen ex | tail -1)"
# Compare shows plans A and B (#1 and #2 here) while the Detail view
# holds the plan last opened: L writes neither, nor the Detail view's
# plan, and says where to press it (in 67 cells, whole at 80 columns)
keys ex Escape 3 j j j j Enter
wait_for ex "Detail" || bad "Enter did not open plan 5"
keys ex 6
wait_for ex "A " || bad "6 did not show Compare"
keys ex L
wait_for ex "Compare holds A and B: press L on the one wanted in Plans or Detail" && ok || bad "L in Compare: $(screen ex | tail -1)"
screen ex | grep -qF "Launch config to" && bad "L prompted in Compare" || ok
# Serve: its plans are serving plans, whose engine commands e exports
keys ex 7
keys ex L
wait_for ex "L writes training plans; e exports these serving plans with their commands" && ok ||
	bad "L in Serve: $(screen ex | tail -1)"
screen ex | grep -qF "Launch config to" && bad "L prompted in Serve" || ok
keys ex q q
wait_for ex "EXITED:0" && ok || bad "quit"

finish test_tui_export
