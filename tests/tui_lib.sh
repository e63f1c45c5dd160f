# tui_lib.sh — the harness of the shell tests that drive hetplan's TUI in a
# private tmux server (send-keys, capture-pane). Sourced from the repository
# root by tests/test_tui.sh, test_tui_pickers.sh and test_serve_tui.sh.
#
# Defines:
#   HP          the binary ($HETPLAN, default ./hetplan), as an absolute path
#   pass, fail, ok, bad, finish   from tests/lib.sh
#   T           tmux on a socket of its own; tmp, a directory removed at exit
#   start NAME W H [ENV [ARGS]]
#               the program in a new session of W x H, run in $TUI_DIR
#               (default: the directory the test runs in) with environment
#               assignments ENV and arguments ARGS; the catalog's user
#               overrides and the price cache point at empty directories, so
#               screens match on every machine and prices are the embedded
#               snapshot
#   screen NAME, keys NAME KEYS...
#   wait_for NAME TEXT [TENTHS]   until the screen shows TEXT (fixed string)
#   wait_gone NAME TEXT [TENTHS]  until the screen no longer shows TEXT
#   wait_ready NAME [TENTHS]      until the footer ends in "N plans"
#   wait_plans NAME [TENTHS]      until the Plans view is up and its footer
#                                 ends in "N plans" (in one capture)
#   wait_serving NAME [TENTHS]    until the footer ends in "N serving plans"
# Waits default to 30 s (the Serve view's 60 s), far above any normal wait,
# so only a hang fails, never a busy machine.
#
# What to wait for. send-keys returns before the program has read the
# keys, so the screen a wait first sees may be the one from before them:
# wait for text the keys bring (a new view's heading, a field's new value,
# a prompt going away), never for text that was already there. Wait for
# state that stays (a field, a view's content, the footer's count), not a
# message that a later event may replace; and a file another process
# writes is whole only once the program says so ("exported", "saved"),
# not when it first has bytes. The footer's counts (wait_ready,
# wait_plans, wait_serving) show only while no message is up: after an
# edit whose re-plan may end in a message ("no plan: the Plans view (3)
# says why", kept until the next key), wait for the view's content.
#
# A test that needs more at exit redefines cleanup_extra after sourcing
# this file.
set -u
HP=${HETPLAN:-./hetplan}
case $HP in /*) ;; *) HP=$PWD/$HP ;; esac
. tests/lib.sh
T="tmux -L hetplan-test-$$ -f /dev/null"
tmp=$(mktemp -d)
TUI_DIR=$PWD
cleanup_extra() { :; }
cleanup() {
	$T kill-server 2>/dev/null
	cleanup_extra
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
mkdir -p "$tmp/cfg"

start() {
	$T new-session -d -s "$1" -x "$2" -y "$3" \
		"trap '' INT; cd '$TUI_DIR' && env XDG_CONFIG_HOME='$tmp/cfg' XDG_CACHE_HOME='$tmp/cache' LANG=C.UTF-8 LC_ALL=C.UTF-8 ${4:-} '$HP' ${5:-}; echo EXITED:\$?; sleep 60"
}
screen() { $T capture-pane -p -t "$1"; }
# golden_verdict FILE NAME HINT: the verdict on a captured screen
# $tmp/NAME.txt against its golden FILE, once the caller's waits are
# done: a missing golden fails naming HINT (how to write it), a differing
# one fails with the first lines of the diff.
golden_verdict() {
	if [ ! -f "$1" ]; then
		bad "golden $1 missing ($3 writes it)"
	elif cmp -s "$1" "$tmp/$2.txt"; then
		ok
	else
		bad "screen $2 differs from $1:"
		diff "$1" "$tmp/$2.txt" | head -20
	fi
}
keys() { n=$1; shift; $T send-keys -t "$n" "$@"; }
wait_for() {
	i=0
	while [ $i -lt "${3:-300}" ]; do
		screen "$1" | grep -qF -- "$2" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
wait_gone() {
	i=0
	while [ $i -lt "${3:-300}" ]; do
		screen "$1" | grep -qF -- "$2" || return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# The status line (the screen's last) matches the extended regular
# expression $2, tried every 0.1 s up to $3 times.
wait_status() {
	i=0
	while [ $i -lt "$3" ]; do
		screen "$1" | tail -1 | grep -qE "$2" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
wait_ready() { wait_status "$1" ' [0-9]+ plans *$' "${2:-300}"; }
# After a key that opens the Plans view (3) the screen may still be the
# view before it, whose footer also ends in "N plans": the Plans view's
# column heading (the third line) and a finished planner, in one capture.
wait_plans() {
	i=0
	while [ $i -lt "${2:-300}" ]; do
		screen "$1" >"$tmp/wait_plans"
		sed -n 3p "$tmp/wait_plans" | grep -qE '^ +# +(t )?PLAN ' &&
			tail -1 "$tmp/wait_plans" | grep -qE ' [0-9]+ plans *$' && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# The Serve view's re-plan after an edit has finished: the status line
# reads "N serving plans", not "planning serving" (ASan and a busy machine
# make the solve take seconds).
wait_serving() { wait_status "$1" ' [0-9]+ serving plans? *$' "${2:-600}"; }

# big3_workspace FILE WORKLOAD: the 320-GPU, three-pool workspace (16 nodes
# of H100, 16 of A100 80GB, 8 of L40S; Llama 3.1 70B) several suites plan
# on, with WORKLOAD as its "workload" object.
big3_workspace() {
	cat >"$1" <<JSON
{"version": 1,
 "cluster": {"name": "big3",
             "pools": [{"name": "h100", "gpu": "H100-SXM", "nodes": 16},
                       {"name": "a100", "gpu": "A100-80GB", "nodes": 16},
                       {"name": "l40s", "gpu": "L40S", "nodes": 8}]},
 "model": "llama3.1-70b",
 "workload": $2}
JSON
}
