#!/usr/bin/env python3
"""Write hetplan's comparison with calculon where people read it.

    build/tests/test_compare | python3 tools/compare_update.py

From the one measurement (tests/test_compare.c's output) it rewrites:
  - docs/compare.md's Results table: everything between the
    "<!-- compare-table begin" and "<!-- compare-table end -->" lines,
    markers included, is replaced by the block test_compare prints
    between the same markers;
  - docs/compare.md's count of the rows where calculon is closer
    ("calculon is closer than hetplan held out on N rows (M of them
    vTrain)");
  - README.md's sentence "On the N rows that calculon ... held-out MAPE
    is X% against calculon's Y%".
Run from the repository root.
"""
import os
import re
import sys
import tempfile

BEGIN = "<!-- compare-table begin"
END = "<!-- compare-table end -->"
DOC = "docs/compare.md"
README = "README.md"


def write(path, text):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)) or ".")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def block(lines, where):
    """The lines from the BEGIN marker to the END marker, both included."""
    a = next((i for i, l in enumerate(lines) if l.startswith(BEGIN)), None)
    b = next((i for i, l in enumerate(lines) if l.strip() == END), None)
    if a is None or b is None or b < a:
        sys.exit("compare_update: %s has no %s ... %s block" % (where, BEGIN, END))
    return a, b


def sub_once(pattern, repl, text, where):
    new, n = re.subn(pattern, repl, text, count=1, flags=re.S)
    if n != 1:
        sys.exit("compare_update: %s: no text matching %r" % (where, pattern))
    return new


def main():
    lines = sys.stdin.read().splitlines()
    a, b = block(lines, "the input (not test_compare's output?)")
    table = lines[a:b + 1]
    alls = [l for l in table if l.startswith("| **all** |")]
    if len(alls) != 1:
        sys.exit("compare_update: the table has no '| **all** |' line")
    m = re.match(r"\| \*\*all\*\* \| (\d+) \| [\d.]+% \| \*\*([\d.]+)%\*\* \| \*\*([\d.]+)%\*\* \|",
                 alls[0])
    if not m:
        sys.exit("compare_update: cannot read the all line: %s" % alls[0])
    n_all, held, calc = m.group(1), m.group(2), m.group(3)
    closer = next((re.match(r"calculon closer than hetplan held-out on (\d+) rows "
                            r"\((\d+) of them vTrain\)", l) for l in lines
                   if l.startswith("calculon closer than")), None)
    if not closer:
        sys.exit("compare_update: the input has no 'calculon closer than' line")

    doc = open(DOC, encoding="utf-8").read().split("\n")
    da, db = block(doc, DOC)
    doc[da:db + 1] = table
    text = sub_once(r"(calculon is closer than hetplan held out on )\d+( rows\s+\()\d+( of them vTrain\))",
                    lambda m: m.group(1) + closer.group(1) + m.group(2) + closer.group(2)
                    + m.group(3), "\n".join(doc), DOC)
    write(DOC, text)

    readme = open(README, encoding="utf-8").read()
    readme = sub_once(r"(On the )\d+( rows that calculon,\s+an\s+open analytic model,\s+can run,"
                      r"\s+hetplan's\s+held-out\s+MAPE\s+is\s+)[\d.]+(%\s+against\s+calculon's\s+)"
                      r"[\d.]+%",
                      lambda m: "%s%s%s%s%s%s%%" % (m.group(1), n_all, m.group(2), held,
                                                    m.group(3), calc), readme, README)
    write(README, readme)
    print("%s and %s written: %s rows, hetplan held-out %s%%, calculon %s%%"
          % (DOC, README, n_all, held, calc))


if __name__ == "__main__":
    main()
