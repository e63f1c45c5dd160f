#!/bin/sh
# run_blind.sh CALCULON_DIR [COMMIT] — calculon on the blind training rows.
#
# The same chain as run.sh (docs/compare.md), fed with the rows of
# tests/data/blind_train.csv as tests/test_blind_train.sh builds them
# (BLIND_ROWS: one JSON object a row, with hetplan's own prediction in
# "hetplan_s"). Writes tools/calculon/blind_compare.csv (run_calculon.py's
# columns) and prints hetplan's and calculon's MAPE on the rows calculon
# can run (tools/calculon/blind_score.py). Rows on a GPU make_inputs.py
# has no system for (RTX-4090) are left to hetplan alone. Needs python3
# only; run from the repository root after make.
set -eu
dir=${1:?usage: tools/calculon/run_blind.sh CALCULON_DIR [COMMIT]}
commit=${2:-$(git -C "$dir" rev-parse HEAD 2>/dev/null || true)}
[ -n "$commit" ] || { echo "run_blind.sh: $dir is not a git checkout; give its commit" >&2; exit 2; }
[ -f "$dir/calculon/llm/llm.py" ] || { echo "run_blind.sh: $dir: no calculon/llm/llm.py" >&2; exit 3; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
BLIND_ROWS="$tmp/rows.jsonl" HETPLAN=${HETPLAN:-./hetplan} sh tests/test_blind_train.sh >"$tmp/test.out" ||
	{ tail -5 "$tmp/test.out" >&2; echo "run_blind.sh: tests/test_blind_train.sh failed" >&2; exit 3; }
grep -v '"gpu": "RTX-4090"' "$tmp/rows.jsonl" | python3 tools/calculon/make_inputs.py "$dir" "$tmp/in"
python3 tools/calculon/run_calculon.py "$dir" "$commit" "$tmp/in" tools/calculon/blind_compare.csv
python3 tools/calculon/blind_score.py "$tmp/rows.jsonl" tools/calculon/blind_compare.csv
