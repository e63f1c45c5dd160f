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
. tests/lib.sh

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
for font in ("\\fB", "\\fI", "\\fR", "\\fP"):
    norm = norm.replace(font, " ")
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

# SYNOPSIS against the command table: each command `hetplan --help` lists
# has a .SY block, every option a block shows is in that command's
# synopsis (the first paragraph of `hetplan COMMAND --help`, which prints
# the table's usage), and each synopsis form ("hetplan CMD ..." line) has
# a block showing all of its required options (those outside [ ]).
"$H" --help >"$T/help" 2>&1
for c in $(sed -n '/^commands:/,/^$/s/^  \([a-z]*\) .*/\1/p' "$T/help"); do
	printf '== %s\n' "$c"
	"$H" "$c" --help | sed '/^$/q'
done >"$T/usage"
python3 - "$M" "$T/usage" <<'PY' && ok || bad "SYNOPSIS and the command table disagree (above)"
import re, sys
src = open(sys.argv[1]).read()
sec = re.search(r"^\.SH SYNOPSIS\n(.*?)(?=^\.SH )", src, re.S | re.M).group(1)
def words(text):
    t = text.replace("\\-", "-").replace("\\&", "").replace("\\~", " ")
    return re.sub(r"^\.\w+ ?", "", t, flags=re.M).replace('"', " ").split()
OPT = re.compile(r"^-(-[a-z0-9][a-z0-9-]*|[a-z])$")
def opts(ws):
    found = set()
    for x in ws:
        w = re.sub(r"[][()|.]+$", "", x.lstrip("[("))
        if OPT.match(w):
            found.add(w)
    return found
blocks = {}
for b in re.findall(r"^\.SY hetplan\n(.*?)^\.YS", sec, re.S | re.M):
    ws = words(b)
    cmd = ws[0] if ws and re.match(r"^[a-z]+$", ws[0]) else "tui"
    if ws and ws[0].startswith("-"):
        continue                        # --help | --version
    blocks.setdefault(cmd, []).append(opts(ws))
usage, cmd = {}, None
for line in open(sys.argv[2]):
    if line.startswith("== "):
        cmd = line.split()[1]; usage[cmd] = []
        continue
    line = line.replace("usage: ", "", 1).rstrip()
    if re.match(r"^\s*hetplan\b", line):
        usage[cmd].append("")
    if usage[cmd]:
        usage[cmd][-1] += " " + line
def required(form):
    depth, req = 0, set()
    for tok in re.findall(r"\[|\]|[^\s\[\]]+", form):
        if tok == "[": depth += 1
        elif tok == "]": depth -= 1
        elif depth == 0:
            w = re.sub(r"[()|.]+$", "", tok.lstrip("("))
            if OPT.match(w): req.add(w)
    return req
bad = []
for cmd, forms in usage.items():
    if cmd not in blocks:
        bad.append(f"{cmd}: no .SY block in SYNOPSIS"); continue
    table = set().union(*(opts(f.split()) for f in forms))
    for o in sorted(set().union(*blocks[cmd]) - table):
        bad.append(f"{cmd}: SYNOPSIS shows {o}, which its usage lacks")
    for f in forms:
        req = required(f)
        if not any(req <= b for b in blocks[cmd]):
            best = max(blocks[cmd], key=lambda b: len(req & b))
            form = " ".join(f.split())
            bad.append(f"{cmd}: no block shows {' '.join(sorted(req - best))} of '{form[:60]}...'")
if len(usage) < 10:
    bad.append(f"only {len(usage)} commands read from --help")
for b in bad:
    print("  synopsis:", b)
sys.exit(1 if bad else 0)
PY

# The settings documentation is current: the regions that
# `hetplan --list-fields=md|man` prints (src/fields_doc.h) are spliced into
# docs/formats.md and the man page exactly as printed; a stale region is
# named with the command that rewrites it (make fields-docs).
if python3 tools/fields_update.py --check "$H" docs/formats.md "$M" >"$T/fields" 2>&1; then
	ok
else
	bad "settings docs not current: $(cat "$T/fields")"
fi
# ... and the check can fail: a region with a changed line is named.
sed 's/^\(.*\)micro-batch, sequences\(.*\)$/\1micro-batch\2/' "$M" >"$T/stale.1"
if python3 tools/fields_update.py --check "$H" "$T/stale.1" 2>&1 | grep -q "region plan-keys is not current"; then
	ok
else
	bad "fields_update.py --check missed a stale plan-keys region"
fi

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

finish man
