#!/bin/sh
# test_tui.sh — start the real binary in a private tmux server, read the
# screen, quit with q, and check that the program ended and the terminal
# came back. Run from the repository root after `make`.
set -u
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
S="hetplan-test-$$"
T="tmux -L $S -f /dev/null"
cleanup() { $T kill-server 2>/dev/null; }
trap cleanup EXIT
$T new-session -d -x 80 -y 24 "${HETPLAN:-./hetplan}; echo EXITED:\$?; sleep 30"
i=0
while [ $i -lt 50 ]; do
	$T capture-pane -p | grep -q "hetplan" && break
	sleep 0.1; i=$((i + 1))
done
screen=$($T capture-pane -p)
echo "$screen" | grep -q "hetplan 0" && ok || bad "header missing: $screen"
echo "$screen" | grep -q "27 GPU types and 23 model presets" && ok || bad "catalog line missing"
echo "$screen" | grep -q "q quit" && ok || bad "footer missing"
$T send-keys q
i=0
while [ $i -lt 50 ]; do
	$T capture-pane -p | grep -q "EXITED:" && break
	sleep 0.1; i=$((i + 1))
done
$T capture-pane -p | grep -q "EXITED:0" && ok || bad "q did not quit with status 0: $($T capture-pane -p | tail -3)"
echo "tui: $pass passed, $fail failed"
[ "$fail" = 0 ]
