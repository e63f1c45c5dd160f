#!/bin/sh
# test_docs.sh — the documentation says what the binary does:
#   - every `$ hetplan ...` example in README.md, HACKING.md and docs/*.md
#     prints what the page shows (tools/docs_examples.py; `...` elides);
#   - every screen marked `<!-- golden: FILE -->` is that golden file;
#   - every option of a command shown without output exists;
#   - every relative link points at a file in the tree;
#   - README.md stays at most 15 KB (15,360 bytes): the rest is in docs/.
# After an intended change of output: python3 tools/docs_examples.py update
# ./hetplan README.md docs/*.md (read the diff before committing).
set -u
H=${HETPLAN:-./hetplan}
. tests/lib.sh

size=$(wc -c <README.md)
[ "$size" -le 15360 ] && ok || bad "README.md is $size bytes (at most 15360)"

files="README.md docs/*.md"
[ -f HACKING.md ] && files="$files HACKING.md"
# shellcheck disable=SC2086
out=$(python3 - $files <<'PY'
import os, re, sys
bad = 0
for path in sys.argv[1:]:
    text = open(path, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        if not os.path.exists(os.path.join(os.path.dirname(path), target)):
            print(f"{path}: broken link {target}")
            bad += 1
sys.exit(1 if bad else 0)
PY
) && ok || bad "links: $out"

# shellcheck disable=SC2086
out=$(python3 tools/docs_examples.py check "$H" $files 2>&1)
echo "$out" | grep '^FAIL\|^   ' | head -40
p=$(echo "$out" | sed -n 's/^docs: \([0-9]*\) passed, \([0-9]*\) failed$/\1/p')
f=$(echo "$out" | sed -n 's/^docs: \([0-9]*\) passed, \([0-9]*\) failed$/\2/p')
if [ -z "$p" ]; then
	bad "tools/docs_examples.py gave no result: $(echo "$out" | tail -3)"
else
	pass=$((pass + p)) fail=$((fail + f))
fi
finish docs
