#!/usr/bin/env python3
# fields_update.py — splice the settings documentation that hetplan prints
# (`hetplan --list-fields=md|man`, src/fields_doc.h) into the marked
# regions of docs/formats.md and man/hetplan.1.
#
#   python3 tools/fields_update.py [--check] ./hetplan FILE...
#
# A region in FILE runs from a BEGIN marker line to the next END marker:
#   Markdown: <!-- fields: NAME -->  ...  <!-- end fields -->
#   man:      .\" BEGIN fields: NAME  ...  .\" END fields
# The binary's output is a series of such regions (markers included); each
# region of FILE gets the text of the region of the same name (a name may
# appear more than once in FILE). Files ending in .md take the md output,
# the others the man output.
#
# Without --check each file is rewritten (atomically) when it changed.
# With --check nothing is written; every region that differs is named
# ("man/hetplan.1: region plan-flags is not current") and the exit status
# is 1. A region of FILE that the binary does not print, or an unclosed
# one, is an error (status 2) either way. `make fields-docs` runs this.
import os
import re
import subprocess
import sys
import tempfile

MARKERS = {
    "md": (re.compile(r"^<!-- fields: (\S+) -->$"), re.compile(r"^<!-- end fields -->$")),
    "man": (re.compile(r'^\.\\" BEGIN fields: (\S+)$'), re.compile(r'^\.\\" END fields$')),
}


def regions(lines, fmt, where):
    """[(name, begin index, end index)] of the marked regions in lines."""
    begin, end = MARKERS[fmt]
    out, cur = [], None
    for i, line in enumerate(lines):
        m = begin.match(line)
        if m:
            if cur:
                sys.exit(f"{where}:{i + 1}: region {m.group(1)} begins inside region {cur[0]}")
            cur = (m.group(1), i)
        elif end.match(line):
            if not cur:
                sys.exit(f"{where}:{i + 1}: an end marker outside any region")
            out.append((cur[0], cur[1], i))
            cur = None
    if cur:
        sys.exit(f"{where}: region {cur[0]} is not closed")
    return out


def generated(binary, fmt):
    text = subprocess.run([binary, f"--list-fields={fmt}"], check=True, capture_output=True,
                          text=True).stdout
    lines = text.splitlines()
    return {name: lines[b + 1:e] for name, b, e in regions(lines, fmt, f"{binary} --list-fields={fmt}")}


def main(argv):
    check = "--check" in argv
    args = [a for a in argv if a != "--check"]
    if len(args) < 2:
        print(__doc__ or "usage: fields_update.py [--check] HETPLAN FILE...", file=sys.stderr)
        return 2
    binary, files = args[0], args[1:]
    gen = {}
    stale = 0
    for path in files:
        fmt = "md" if path.endswith(".md") else "man"
        if fmt not in gen:
            gen[fmt] = generated(binary, fmt)
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        found = regions(lines, fmt, path)
        changed = 0
        if not found:
            print(f"{path}: no fields regions", file=sys.stderr)
            return 2
        for name, b, e in reversed(found):
            if name not in gen[fmt]:
                print(f"{path}:{b + 1}: region {name}: hetplan prints no such region "
                      f"(it has {', '.join(gen[fmt])})", file=sys.stderr)
                return 2
            if lines[b + 1:e] != gen[fmt][name]:
                stale += 1
                changed += 1
                if check:
                    print(f"{path}:{b + 1}: region {name} is not current; "
                          "run `make fields-docs`")
                lines[b + 1:e] = gen[fmt][name]
        if changed and not check:
            d = os.path.dirname(path) or "."
            fd, tmp = tempfile.mkstemp(dir=d, prefix=".fields-")
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write("\n".join(lines))
            os.chmod(tmp, os.stat(path).st_mode & 0o777)
            os.replace(tmp, path)
            print(f"{path}: regions rewritten")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
