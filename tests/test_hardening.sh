#!/bin/sh
# test_hardening.sh — hostile input, files and terminals (issue 14). Each
# block is a reproducer from the review: it failed (crash, hang, wrong output
# or a file touched outside -o) before the fix. Run from the repository root
# after `make`; under `make asan` the same cases run on the instrumented
# binary, so a memory error aborts the command and the exit code check fails.
set -u
H=${HETPLAN:-./hetplan}
D=tests/data/hardening
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect CODE 'stderr substring' -- command...
expect() {
	code=$1 want=$2; shift 2
	"$@" >"$T/out" 2>"$T/err"; rc=$?
	if [ "$rc" != "$code" ]; then bad "$* -> exit $rc, want $code ($(head -c 300 "$T/err"))"; return; fi
	if [ -n "$want" ] && ! grep -qF -- "$want" "$T/err"; then
		bad "$* -> stderr lacks '$want': $(head -c 300 "$T/err")"; return; fi
	ok
}

E="$H estimate --pool 1x8xH100-SXM -m llama3.1-8b"

# 1. An unknown key in a plan file: the list of the plan's 30 known keys
# (263 characters) overflowed a 256-byte stack buffer. The message must end
# with the last key of plan.c's list, "pareto".
expect 3 "typo: unknown key" $E --plan $D/plan_typo.json
grep -qF "links, pareto)" "$T/err" && ok || bad "plan key list truncated: $(cat "$T/err")"

echo "hardening: $pass passed, $fail failed"
[ "$fail" = 0 ]
