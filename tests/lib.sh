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
# and, for suites that set T to a scratch directory first:
#   expect CODE TEXT CMD...  runs CMD (stdout in $T/out, stderr in $T/err)
#                and checks its exit status is CODE and, unless TEXT is
#                empty, that its stderr holds TEXT; a suite with another
#                notion of expect defines its own after sourcing this file
#   json PY      runs the Python statement PY with d = the JSON in $T/out
#   est_json NAME ARGS...  runs `$H estimate ARGS --format json` into
#                $T/NAME.json; exit 0 or 4 holds (a plan that does not fit
#                still has its times), any other is a failed check
#   report_checks FILE  counts a driver's report: each "OK ..." line as a
#                check that held, each "FAIL ..." line as one that did not
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
finish() {
	echo "$1: $pass passed, $fail failed"
	[ "$fail" = 0 ]
}
expect() {
	code=$1 want=$2; shift 2
	"$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ "$rc" != "$code" ]; then bad "$* -> exit $rc, want $code ($(head -c 300 "$T/err"))"; return; fi
	if [ -n "$want" ] && ! grep -qF -- "$want" "$T/err"; then
		bad "$* -> stderr lacks '$want': $(head -c 300 "$T/err")"; return; fi
	ok
}
json() {
	python3 -c "import json,sys; d=json.load(open('$T/out')); $1" 2>"$T/pyerr" ||
		{ bad "json check: $1 ($(tail -1 "$T/pyerr"))"; return 1; }
	ok
}
est_json() {
	n=$1
	shift
	"$H" estimate "$@" --format json > "$T/$n.json" 2>"$T/err"
	rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 4 ] || bad "$n: exit $rc: $(cat "$T/err")"
}
report_checks() {
	while read -r kind rest; do
		case $kind in
		OK) ok ;;
		FAIL) bad "$rest" ;;
		esac
	done <<REPORT_EOF
$(grep -E '^(OK|FAIL) ' "$1" 2>/dev/null)
REPORT_EOF
}
