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
#   wait_ready NAME [TENTHS]      until the footer ends in "N plans"
#   wait_file FILE                until FILE exists and is not empty
# Waits default to 30 s, far above any normal wait, so only a hang fails,
# never a busy machine. A test that needs more at exit redefines
# cleanup_extra after sourcing this file.
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
# The Serve view's re-plan after an edit has finished: the status line
# reads "N serving plans", not "planning serving" (ASan and a busy machine
# make the solve take seconds).
wait_serving() { wait_status "$1" ' [0-9]+ serving plans? *$' "${2:-600}"; }
wait_file() {
	i=0
	while [ $i -lt 300 ] && [ ! -s "$1" ]; do
		sleep 0.1
		i=$((i + 1))
	done
	[ -s "$1" ]
}
