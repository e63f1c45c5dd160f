#!/bin/sh
# test_man.sh — the manual: groff finds nothing to warn about, it has the
# sections a man page needs, and every option and TUI key binding the
# program has (from its own tables: --list-options, --list-keys) is
# documented, options in their command's OPTIONS subsection. Run from the
# repository root after `make`.
set -u
H=${HETPLAN:-./hetplan}
M=man/hetplan.1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# groff warnings are errors
groff -ww -man -z "$M" >"$T/groff.out" 2>&1
if [ $? = 0 ] && [ ! -s "$T/groff.out" ]; then ok; else bad "groff -ww: $(head -5 "$T/groff.out")"; fi
# it renders to text
groff -man -Tascii "$M" >"$T/page.txt" 2>/dev/null && [ -s "$T/page.txt" ] && ok || bad "groff -Tascii"

for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS KEYS FILES ENVIRONMENT "EXIT STATUS" \
	EXAMPLES "SEE ALSO"; do
	grep -q "^\.SH \"\{0,1\}$s\"\{0,1\}\$" "$M" && ok || bad "no $s section"
done

$H --list-options >"$T/options" 2>"$T/err" && [ -s "$T/options" ] && ok ||
	bad "--list-options: $(cat "$T/err")"
python3 - "$M" "$T/options" <<'PY' && ok || bad "options missing from the man page (above)"
import re, sys
src = open(sys.argv[1]).read()
norm = src.replace("\\-", "-").replace("\\&", "").replace("\\~", " ")
# subsections: .SS "TITLE" up to the next .SS or .SH
subs = {}
for m in re.finditer(r'^\.SS "?([^"\n]+)"?\n(.*?)(?=^\.S[SH] )', norm, re.S | re.M):
    subs[m.group(1).strip().lower()] = m.group(2)
missing = []
def has(text, opt):
    return re.search(r"(?<![\w-])" + re.escape(opt) + r"(?![\w-])", text) is not None
for line in open(sys.argv[2]):
    cmd, opt = line.split()
    if cmd in ("hetplan", "tui"):    # the interface's options are global ones
        where = subs.get("global options")
        name = "Global options"
    else:
        key = next((k for k in subs if "options" in k and re.search(r"\b" + re.escape(cmd) + r"\b", k)), None)
        where = subs.get(key) if key else None
        name = f'"{cmd} options"'
    if where is None:
        missing.append(f"{cmd} {opt}: no {name} subsection")
    elif not has(where, opt):
        missing.append(f"{cmd} {opt}: not in {name}")
for m in missing:
    print("  missing:", m)
sys.exit(1 if missing else 0)
PY

# TUI key bindings, from the TUI's key tables (ui/tui.h: tui_keys)
if $H --list-keys >"$T/keys" 2>"$T/err" && [ -s "$T/keys" ]; then
	python3 - "$M" "$T/keys" <<'PY' && ok || bad "key bindings missing from KEYS (above)"
import re, sys
src = open(sys.argv[1]).read().replace("\\-", "-").replace("\\&", "").replace("\\(ha", "^")
m = re.search(r"^\.SH KEYS\n(.*?)(?=^\.SH )", src, re.S | re.M)
keys = m.group(1) if m else ""
missing = []
for line in open(sys.argv[2]):
    view, k, desc = line.rstrip("\n").split("\t", 2)
    for tok in k.split():
        if not re.search(r"(?<![\w-])" + re.escape(tok) + r"(?![\w-])", keys):
            missing.append(f"{view}: '{tok}' ({desc})")
for x in missing:
    print("  missing key:", x)
sys.exit(1 if missing or not keys else 0)
PY
else
	bad "--list-keys: $(cat "$T/err")"
fi

echo "man: $pass passed, $fail failed"
[ "$fail" = 0 ]
