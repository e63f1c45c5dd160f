# lib.sh — what every shell suite shares. Sourced from the repository root
# (`. tests/lib.sh`) by tests/test_*.sh and tests/tui_lib.sh.
#
# Defines:
#   pass, fail   counters
#   ok           counts a check that held
#   bad MESSAGE  counts one that did not, printing "FAIL: MESSAGE"
#   finish NAME  prints the closing "NAME: N passed, N failed" line that
#                tests/run.sh adds up, and returns non-zero on any failure
#                (the suite's last command, so it is the exit status)
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() {
	echo "$1: $pass passed, $fail failed"
	[ "$fail" = 0 ]
}
