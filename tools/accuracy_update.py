#!/usr/bin/env python3
"""Write the training model's accuracy figures where people read them.

    build/tests/test_accuracy | python3 tools/accuracy_update.py

From the one measurement (tests/test_accuracy.c's output) it rewrites:
  - docs/accuracy.md from its "## Results" heading on (the text above the
    heading is kept): the cross-validated table by source group, every row,
    the rows with no prediction and why;
  - README.md's accuracy table and its five summary lines;
  - src/report_accuracy.h, the figures the reports quote.
tests/test_accuracy.c fails when README.md or docs/accuracy.md no longer
hold the lines it computes, so a model change cannot leave them stale.
"""
import os
import re
import subprocess
import sys
import tempfile

SUMMARY = ("CONF:high step-time rows", "other step-time rows", "memory rows",
           "cross-validated CONF:high", "vTrain single-node rows")


def write(path, text):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)) or ".")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, path)


def main():
    lines = sys.stdin.read().splitlines()
    summary = {k: next((l.strip() for l in lines if l.startswith(k)), None) for k in SUMMARY}
    if not all(summary.values()):
        sys.exit("accuracy_update: the input is not test_accuracy's output")
    here = os.path.dirname(os.path.abspath(__file__))
    tool = os.path.join(here, "accuracy_md.py")
    if not os.path.exists(tool):
        tool = os.path.join(here, "accuracy_md.py")
    md = subprocess.run([sys.executable, tool, "training"],
                        input="\n".join(lines), capture_output=True, text=True, check=True).stdout

    doc = open("docs/accuracy.md", encoding="utf-8").read()
    head = doc[:doc.index("## Results")]
    write("docs/accuracy.md", head + "## Results\n\n" + md)

    groups = []
    for l in lines:
        m = re.match(r"(\S+)\s+(\d+)\s+([\d.]+)%\s+([\d.]+)%\s+([\d.]+)%", l)
        if m and int(m.group(2)) > 0 and m.group(1) != "group":
            groups.append("| %s | %s | %s%% | %s%% |" % (m.group(1), m.group(2), m.group(4),
                                                        m.group(3)))
    block = ["| source group | rows | held-out MAPE | in-sample MAPE |", "|---|---:|---:|---:|"]
    block += groups + [""] + [summary[k] + "  " for k in SUMMARY] + [""]
    readme = open("README.md", encoding="utf-8").read().split("\n")
    a = readme.index("| source group | rows | held-out MAPE | in-sample MAPE |")
    b = next(i for i in range(a, len(readme)) if readme[i].startswith("vTrain single-node rows"))
    readme[a:b + 2] = block
    write("README.md", "\n".join(readme))

    def nums(key):
        return [float(x) for x in re.findall(r"[\d.]+", summary[key].split(":", 1)[1])]
    hi, ot, me = nums("CONF:high step-time rows"), nums("other step-time rows"), nums("memory rows")
    cv = nums("cross-validated CONF:high")
    write("src/report_accuracy.h",
          "/* report_accuracy.h — written by tools/accuracy_update.py from\n"
          " * tests/test_accuracy.c's output; do not edit. The training figures the\n"
          " * reports quote (rows, mean |error| %%, max |error| %%). */\n"
          "#define ACC_HIGH_ROWS %d\n#define ACC_HIGH_MEAN %.1f\n#define ACC_HIGH_MAX %.1f\n"
          "#define ACC_OTHER_ROWS %d\n#define ACC_OTHER_MEAN %.1f\n"
          "#define ACC_MEM_ROWS %d\n#define ACC_MEM_MEAN %.1f\n#define ACC_MEM_MAX %.1f\n"
          "/* leave-one-source-group-out: rows, MAPE %%, worst group's MAPE %% */\n"
          "#define ACC_CV_ROWS %d\n#define ACC_CV_MAPE %.1f\n#define ACC_CV_WORST %.1f\n"
          % (hi[0], hi[1], hi[2], ot[0], ot[1], me[0], me[2], me[3], cv[0], cv[1], cv[2]))
    print("docs/accuracy.md, README.md and src/report_accuracy.h written")


if __name__ == "__main__":
    main()
