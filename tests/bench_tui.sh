#!/bin/sh
# bench_tui.sh — wall-clock timings of the real TUI in a private tmux server
# (`make bench`; never part of `make check`, because a busy machine makes
# them long without anything being wrong). Prints medians:
#   - start to the first ranked plans on screen;
#   - view switches (1 <-> 3) with no price update running;
#   - the same switches while a price download trickles in (one byte every
#     0.5 s from tests/tools/fixture_http.py);
#   - per objective, an edit (the objective turned) on 320 GPUs in 3 pools
#     to its first plans on screen (the best so far, tui_job.c) and to the
#     full answer; then the full answer again in one pass
#     (HETPLAN_TUI_FIRST_MS=10000: no preview), which is what the preview
#     costs.
# Each time includes tmux send-keys and capture-pane round trips, so the
# idle row is the harness's own floor: compare the update row with it.
. tests/tui_lib.sh
srv=""
cleanup_extra() { [ -n "$srv" ] && kill "$srv" 2>/dev/null; return 0; }
command -v tmux >/dev/null 2>&1 || { echo "bench_tui: tmux not installed; skipped"; exit 0; }
unset http_proxy https_proxy all_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY
ms() { date +%s%N | cut -c1-13; }
median() { printf '%s\n' "$@" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
ready() {   # until the footer ends in "N plans"; prints the ms taken
	t0=$(ms) i=0
	while [ $i -lt 3000 ]; do
		screen "$1" | tail -1 | grep -qE ' [0-9]+ plans *$' && break
		i=$((i + 1))
	done
	echo $(($(ms) - t0))
}
switch_ms() {
	t0=$(ms)
	$T send-keys -t "$1" "$2"
	i=0
	while [ $i -lt 3000 ]; do
		screen "$1" | sed -n 3p | grep -q "$3" && break
		i=$((i + 1))
	done
	echo $(($(ms) - t0))
}
switches() {
	all=""
	for v in 1 3 1 3 1 3 1 3 1; do
		case $v in 1) all="$all $(switch_ms "$1" 1 "^ POOL ")" ;;
		*) all="$all $(switch_ms "$1" 3 "PLAN")" ;; esac
	done
	echo "$all"
}

# edit_ms NAME OBJECTIVE: turn the Objective field (the Model view's
# workload pane, its row selected) to the next value and show the Plans
# view; prints "FIRST FULL READY": ms to the first plan rows for OBJECTIVE
# (the legend at 120 columns names the answer's objective) and to the full
# answer (the footer's "N plans" with no marker), as the harness sees them;
# READY is the TUI's own figure for a preview, the marker's "(in 93 ms)":
# from the edit's submission to the plans handed to the screen, without the
# tmux round trips ("-" when the first plans were the full answer).
edit_ms() {
	t0=$(ms) first="" ready="-" i=0
	$T send-keys -t "$1" 2 l 3
	while [ $i -lt 20000 ]; do
		screen "$1" >"$tmp/edit.txt"
		if [ -z "$first" ] && grep -q "objective $2\$" "$tmp/edit.txt" &&
		   grep -q '^  1 ' "$tmp/edit.txt"; then
			first=$(($(ms) - t0))
			r=$(sed -n 's/.*best so far (in \([0-9]*\) ms).*/\1/p' "$tmp/edit.txt")
			[ -n "$r" ] && ready=$r
		fi
		if [ -n "$first" ] && tail -1 "$tmp/edit.txt" | grep -qE ' [0-9]+ plans *$' &&
		   ! grep -qE 'best so far|stale' "$tmp/edit.txt"; then
			echo "$first $(($(ms) - t0)) $ready"
			return
		fi
		i=$((i + 1))
	done
	echo "- - -"
}
big3_workspace "$tmp/big.json" '{"gbs": 1024, "seq_len": 8192, "tokens": 2e12, "objective": "budget", "deadline_s": 12960000, "budget_usd": 5000000, "top": 10}'
# edits NAME ENV: three rounds of budget -> throughput -> cost -> deadline
# -> budget; prints one line per objective.
edits() {
	$T new-session -d -s "$1" -x 120 -y 40 \
		"cd '$PWD' && env XDG_CONFIG_HOME='$tmp/cfg' XDG_CACHE_HOME='$tmp/cache' LANG=C.UTF-8 LC_ALL=C.UTF-8 $2 '$HP' tui '$tmp/big.json'; sleep 60"
	ready "$1" >/dev/null
	$T send-keys -t "$1" 2 Tab j j j j
	sleep 0.5
	f_throughput="" f_cost="" f_deadline="" f_budget=""
	u_throughput="" u_cost="" u_deadline="" u_budget=""
	r_throughput="" r_cost="" r_deadline="" r_budget=""
	for round in 1 2 3; do
		for o in throughput cost deadline budget; do
			set -- "$1" $(edit_ms "$1" "$o")
			eval "f_$o=\"\$f_$o $2\" u_$o=\"\$u_$o $3\" r_$o=\"\$r_$o $4\""
		done
	done
	for o in throughput cost deadline budget; do
		eval "f=\$f_$o u=\$u_$o r=\$r_$o"
		rm=$(median $(printf '%s\n' $r | grep -v -- -))
		printf '  %-10s first plans %4s ms (runs:%s; in the TUI %s ms:%s)  full %5s ms (runs:%s)\n' \
			"$o" "$(median $f)" "$f" "${rm:--}" "$r" "$(median $u)" "$u"
	done
	$T kill-session -t "$1"
}

starts=""
for k in 1 2 3 4 5; do
	start "s$k" 80 24
	starts="$starts $(ready "s$k")"
	$T kill-session -t "s$k"
done
echo "tui start to plans on screen:          median $(median $starts) ms  (runs:$starts)"

start idle 80 24
ready idle >/dev/null
all=$(switches idle)
echo "tui view switch, idle:                 median $(median $all) ms  (runs:$all)"

echo "tui edit to plans, 320 GPUs in 3 pools, 120x40, medians (target: first plans < 200 ms;"
echo "  the harness adds about the idle view switch above):"
edits prev ""
echo "tui edit to plans in one pass (HETPLAN_TUI_FIRST_MS=10000, no preview):"
edits onepass HETPLAN_TUI_FIRST_MS=10000

mkdir -p "$tmp/www"
python3 tests/tools/fixture_http.py "$tmp/www" "$tmp/port" &
srv=$!
i=0
while [ ! -s "$tmp/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
start slow 80 24 "HETPLAN_HTTP_TIMEOUT=60" "--skypilot-url http://127.0.0.1:$(cat "$tmp/port")/slow"
ready slow >/dev/null
$T send-keys -t slow 5 r
sleep 1
all=$(switches slow)
echo "tui view switch, price update running: median $(median $all) ms  (runs:$all)"
