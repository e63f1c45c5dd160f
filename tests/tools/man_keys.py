#!/usr/bin/env python3
"""man_keys.py HETPLAN — print the man page's KEYS section from the TUI's
key tables (`hetplan tui --list-keys`). tests/test_tui.sh checks that
man/hetplan.1 holds exactly this text; after changing a key table, paste
the output over the section between `.SH KEYS` and the next `.SH`."""
import subprocess, sys

def roman(s):
    """Escape text for groff: hyphens, backslashes, leading dots."""
    s = s.replace("\\", "\\e").replace("-", "\\-")
    return "\\&" + s if s[:1] in ".'" else s

rows = subprocess.run([sys.argv[1], "tui", "--list-keys"], check=True,
                      capture_output=True, text=True).stdout.splitlines()
out = [".SH KEYS",
       "The interface opens on the Plans view. Keys are looked up in the",
       "current view's table first, then in the table every view shares;",
       "the footer shows the main ones and",
       ".B ?",
       "lists them all. Below, keys separated by spaces do the same thing;",
       ".B C\\-x",
       "is Control with x."]
views = []
for r in rows:
    v, k, d = r.split("\t")
    if v not in views:
        views.append(v)
for v in ["any"] + [x for x in views if x != "any"]:
    out.append('.SS "%s"' % ("Every view" if v == "any" else v + " view"))
    for r in rows:
        rv, k, d = r.split("\t")
        if rv != v:
            continue
        out.append(".TP")
        out.append(".B %s" % ('"' + roman(k) + '"' if " " in k else roman(k)))
        out.append(roman(d) + ".")
print("\n".join(out))
