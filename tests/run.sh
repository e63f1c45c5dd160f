#!/bin/sh
# run.sh BUILD — run every test suite and add up their closing lines.
# C suites are $BUILD/tests/test_*; shell suites are tests/test_*.sh (run
# from the repository root, using ./hetplan). Each prints "name: N passed,
# N failed"; the last line here is the total.
set -u
build=${1:-build}
pass=0 fail=0 broken=""
run_one() {
	name=$1; shift
	out=$("$@" 2>&1); rc=$?
	line=$(printf '%s\n' "$out" | grep -E '^[A-Za-z_0-9-]+: [0-9]+ passed, [0-9]+ failed' | tail -1)
	if [ -z "$line" ]; then
		printf '%s\n' "$out" | tail -20
		echo "$name: no result line (exit $rc)"
		fail=$((fail + 1)); broken="$broken $name"; return
	fi
	p=$(echo "$line" | sed -E 's/.*: ([0-9]+) passed.*/\1/')
	f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	pass=$((pass + p)); fail=$((fail + f))
	if [ "$rc" != 0 ] || [ "$f" != 0 ]; then
		# each failure with the lines it prints after it (a golden's diff)
		printf '%s\n' "$out" | grep -E -A12 'FAIL|^  [^ ].*:[0-9]+:' | head -80
		broken="$broken $name"
		[ "$f" = 0 ] && fail=$((fail + 1))
	fi
	echo "$line"
}
for t in "$build"/tests/test_*; do
	[ -x "$t" ] || continue
	case "$t" in *.sh) continue ;; esac
	run_one "$(basename "$t")" "$t"
done
for t in tests/test_*.sh; do
	[ -f "$t" ] || continue
	run_one "$(basename "$t" .sh)" sh "$t"
done
[ -n "$broken" ] && echo "failing:$broken"
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
