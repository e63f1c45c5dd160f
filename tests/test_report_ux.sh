#!/bin/sh
# test_report_ux.sh — the reports as their readers see them: what a
# Markdown renderer shows, what the HTML page says where, and what the
# summary tells a reader who reads nothing else. Each check names what a
# reader saw before it was fixed. The expected strings come from the
# CommonMark spec, `hetplan plan`'s detail and `hetplan estimate` of the
# same plan, or the README's accuracy lines, never from the report itself.
# Run from the repository root after `make`.
# Copyright (C) 2026 the hetplan authors. GPL-3.0-or-later.
set -u
H=${HETPLAN:-./hetplan}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. tests/lib.sh

# A one-pool workspace: 8 nodes of H100-SXM, Llama-3.1 70B.
cat >"$T/ws.json" <<'EOF'
{"version": 1,
 "cluster": {"name": "h100-lab", "pools": [{"name": "h100", "gpu": "H100-SXM", "nodes": 8}]},
 "model": "llama3.1-70b",
 "workload": {"gbs": 1024, "seq_len": 8192, "tokens": 1e12, "objective": "throughput", "top": 3}}
EOF
for f in md html; do
	"$H" report "$T/ws.json" -o "$T/r.$f" 2>"$T/err" || bad "report -o r.$f: $(cat "$T/err")"
done

# 1. Code spans. CommonMark 0.31 section 6.1: "backslash escapes do not
# work in code spans", so `tests/test\_accuracy.c` renders with the
# backslash. The accuracy table's "measured by" cells read that way.
if grep -qF '`tests/test\_' "$T/r.md"; then
	bad "md: a backslash escape inside a code span: $(grep -F '`tests/test\_' "$T/r.md" | head -1)"
else ok; fi
grep -qF '| `tests/test_accuracy.c` |' "$T/r.md" && ok ||
	bad "md: the accuracy table does not name \`tests/test_accuracy.c\` as code"
grep -qF '| `tests/test_comm_accuracy.c` |' "$T/r.md" && ok ||
	bad "md: the accuracy table does not name \`tests/test_comm_accuracy.c\` as code"

finish test_report_ux
