#!/bin/sh
# run.sh CALCULON_DIR [COMMIT] — rebuild tests/data/calculon_compare.csv.
#
# CALCULON_DIR: a checkout of github calculon-ai/calculon (never committed
# here). COMMIT: its commit, read with git when the directory is a
# checkout. Needs python3 only (numpy is stood in for, see
# run_calculon.py). Run from the repository root; docs/compare.md.
set -eu
dir=${1:?usage: tools/calculon/run.sh CALCULON_DIR [COMMIT]}
commit=${2:-$(git -C "$dir" rev-parse HEAD 2>/dev/null || true)}
[ -n "$commit" ] || { echo "run.sh: $dir is not a git checkout; give its commit" >&2; exit 2; }
[ -f "$dir/calculon/llm/llm.py" ] || { echo "run.sh: $dir: no calculon/llm/llm.py" >&2; exit 3; }
make --no-print-directory build/tests/test_compare >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
build/tests/test_compare --rows | python3 tools/calculon/make_inputs.py "$dir" "$tmp"
python3 tools/calculon/run_calculon.py "$dir" "$commit" "$tmp" tests/data/calculon_compare.csv
