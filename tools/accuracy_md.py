#!/usr/bin/env python3
"""Print the accuracy tables for README.md from the test runners' output.

    python3 tools/accuracy_md.py training  < <(build/tests/test_accuracy)
    python3 tools/accuracy_md.py comm      < <(build/tests/test_comm_accuracy)
"""
import re, sys

def training(lines):
    skipped = []
    # Cross-validated table first: the figure that says how hetplan does on
    # runs it never saw.
    print("| source group | rows | in-sample MAPE | held-out MAPE | worst held-out row | CONF:high held-out |")
    print("|---|---:|---:|---:|---:|---:|")
    for l in lines:
        m = re.match(r"(\S+)\s+(\d+)\s+([\d.]+)%\s+([\d.]+)%\s+([\d.]+)%(?:\s+([\d.]+)% \((\d+)\))?\s*$", l)
        if m and int(m.group(2)) > 0:
            hi = "%s%% (%s rows)" % (m.group(6), m.group(7)) if m.group(6) else "-"
            print("| %s | %s | %s%% | %s%% | %s%% | %s |" % (m.group(1), m.group(2), m.group(3),
                  m.group(4), m.group(5), hi))
    for l in lines:
        if l.startswith(("cross-validated", "vTrain")):
            print("\n" + l.strip() + "  ")
    print()
    print("| row | conf | model | predicted | measured | error |")
    print("|---|---|---|---:|---:|---:|")
    for l in lines:
        m = re.match(r"(\S+)\s+(\S+)\s+(.{28})\s+([\d.]+ (?:s|GiB))\s+([\d.]+ (?:s|GiB))\s+([+-][\d.]+%)(.*)", l)
        if m:
            note = " (known miss)" if "KNOWN" in m.group(7) else ""
            if "EXCLUDED" in m.group(7):
                note = " (excluded: %s)" % m.group(7).split("EXCLUDED:")[1].strip()
            print("| %s | %s | %s | %s | %s | %s%s |" % (m.group(1), m.group(2), m.group(3).strip(),
                  m.group(4), m.group(5), m.group(6), note))
        elif re.match(r"  \S+\s{2,}\S", l) and not l.startswith("  tests/"):
            skipped.append(l.strip())
    for l in lines:
        if l.startswith(("CONF:high", "other step-time", "memory rows")):
            print("\n" + l.strip() + "  ")
    if skipped:
        print("\nRows with no prediction, and why:\n")
        for s_ in skipped:
            i, why = s_.split(None, 1)
            print("- %s: %s" % (i, why))

def comm(lines):
    out = [l for l in lines if re.match(r"V\d+ ", l) and "skipped" not in l]
    print("```")
    for l in lines:
        if l.startswith(("id ", "ID ", "row ")):
            print(l.rstrip())
    for l in out:
        print(l.rstrip())
    print("```")
    for l in lines:
        if l.startswith(("summary", "  >=64", "  1-64", "  8-byte", "  1K")):
            print(l.rstrip() + "  ")

lines = sys.stdin.read().splitlines()
{"training": training, "comm": comm}[sys.argv[1]](lines)
