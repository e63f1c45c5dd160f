#!/bin/sh
# bench_tui.sh — wall-clock timings of the real TUI in a private tmux server
# (`make bench`; never part of `make check`, because a busy machine makes
# them long without anything being wrong). Prints medians:
#   - start to the first ranked plans on screen;
#   - view switches (1 <-> 3) with no price update running;
#   - the same switches while a price download trickles in (one byte every
#     0.5 s from tests/tools/fixture_http.py).
# Each time includes tmux send-keys and capture-pane round trips, so the
# idle row is the harness's own floor: compare the update row with it.
set -u
HP=${HETPLAN:-./hetplan}
case $HP in /*) ;; *) HP=$PWD/$HP ;; esac
S="hetplan-bench-$$"
T="tmux -L $S -f /dev/null"
tmp=$(mktemp -d)
srv=""
cleanup() {
	$T kill-server 2>/dev/null
	[ -n "$srv" ] && kill "$srv" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
command -v tmux >/dev/null 2>&1 || { echo "bench_tui: tmux not installed; skipped"; exit 0; }
mkdir -p "$tmp/cfg"
unset http_proxy https_proxy all_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY
start() {
	$T new-session -d -s "$1" -x 80 -y 24 \
		"cd '$PWD' && env XDG_CONFIG_HOME='$tmp/cfg' XDG_CACHE_HOME='$tmp/cache' LANG=C.UTF-8 LC_ALL=C.UTF-8 ${2:-} '$HP' ${3:-}; sleep 60"
}
screen() { $T capture-pane -p -t "$1"; }
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

starts=""
for k in 1 2 3 4 5; do
	start "s$k"
	starts="$starts $(ready "s$k")"
	$T kill-session -t "s$k"
done
echo "tui start to plans on screen:          median $(median $starts) ms  (runs:$starts)"

start idle
ready idle >/dev/null
all=$(switches idle)
echo "tui view switch, idle:                 median $(median $all) ms  (runs:$all)"

mkdir -p "$tmp/www"
python3 tests/tools/fixture_http.py "$tmp/www" "$tmp/port" &
srv=$!
i=0
while [ ! -s "$tmp/port" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
start slow "HETPLAN_HTTP_TIMEOUT=60" "--skypilot-url http://127.0.0.1:$(cat "$tmp/port")/slow"
ready slow >/dev/null
$T send-keys -t slow 5 r
sleep 1
all=$(switches slow)
echo "tui view switch, price update running: median $(median $all) ms  (runs:$all)"
