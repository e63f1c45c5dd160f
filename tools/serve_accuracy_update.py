#!/usr/bin/env python3
"""Write the serving model's measured accuracy where the reports quote it.

    build/tests/test_serve_accuracy | python3 tools/serve_accuracy_update.py

From the one measurement (tests/test_serve_accuracy.c's output) it
rewrites src/serve_accuracy.h, the figures `hetplan serve --format html`
prints in its accuracy table. tests/test_serve_report.sh fails when the
header no longer holds what test_serve_accuracy prints.
"""
import os
import re
import sys
import tempfile

OUT = "src/serve_accuracy.h"


def parse(text):
    """The figures, as {macro: value}; exits naming a line it cannot find."""
    got = {}
    m = re.search(r"^cross-validated: offline ([\d.]+)% \((\d+) rows.*?TTFT ([\d.]+)% \((\d+)\), "
                  r"ITL ([\d.]+)% \((\d+)\), saturation ([\d.]+)% \((\d+)\)", text, re.M)
    if not m:
        sys.exit("serve_accuracy_update: no 'cross-validated:' line in the input")
    for i, k in enumerate(("OFFLINE", "TTFT", "ITL", "SAT")):
        got["SACC_%s_MAPE" % k] = m.group(2 * i + 1)
        got["SACC_%s_ROWS" % k] = m.group(2 * i + 2)
    m = re.search(r"^blind by metric\s+throughput (\d+): ([\d.]+)%\s+TTFT (\d+): ([\d.]+)%\s+"
                  r"ITL (\d+): ([\d.]+)%", text, re.M)
    if not m:
        sys.exit("serve_accuracy_update: no 'blind by metric' line in the input")
    for i, k in enumerate(("THR", "TTFT", "ITL")):
        got["SACC_BLIND_%s_ROWS" % k] = m.group(2 * i + 1)
        got["SACC_BLIND_%s_MAPE" % k] = m.group(2 * i + 2)
    m = re.search(r"^hetero placement, the measured layout scored: (\d+) rows MAPE ([\d.]+)%",
                  text, re.M)
    if not m:
        sys.exit("serve_accuracy_update: no 'hetero placement, the measured layout' line")
    got["SACC_PLACE_ROWS"], got["SACC_PLACE_MAPE"] = m.group(1), m.group(2)
    return got


def render(got):
    lines = ["/* serve_accuracy.h — written by tools/serve_accuracy_update.py from",
             " * tests/test_serve_accuracy.c's output; do not edit. The serving model's",
             " * measured errors (MAPE, %) and row counts that the serving report quotes. */",
             "#ifndef HP_SERVE_ACCURACY_H", "#define HP_SERVE_ACCURACY_H"]
    lines += ["#define %s %s" % (k, got[k]) for k in sorted(got)]
    lines += ["#endif", ""]
    return "\n".join(lines)


def main():
    text = render(parse(sys.stdin.read()))
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        cur = open(OUT, encoding="utf-8").read() if os.path.exists(OUT) else ""
        if cur != text:
            sys.exit("serve_accuracy_update: %s is stale; run the pipeline in its header" % OUT)
        return
    fd, tmp = tempfile.mkstemp(dir="src")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, OUT)


if __name__ == "__main__":
    main()
