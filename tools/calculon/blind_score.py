#!/usr/bin/env python3
"""blind_score.py ROWS.jsonl BLIND_COMPARE.csv -- hetplan vs calculon, blind rows.

ROWS.jsonl: tests/test_blind_train.sh's BLIND_ROWS output (hetplan's
prediction in hetplan_s, the measured step time in measured_s, the regime).
BLIND_COMPARE.csv: run_calculon.py's output for the same rows. Prints, per
regime and over all rows calculon predicted, both tools' mean absolute
percentage error on exactly those rows, and the rows neither could run.
"""

import csv
import json
import sys


def main():
    if len(sys.argv) != 3:
        sys.stderr.write('usage: blind_score.py ROWS.jsonl BLIND_COMPARE.csv\n')
        return 2
    rows = {}
    with open(sys.argv[1]) as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                rows[r['id']] = r
    calc = {}
    with open(sys.argv[2], newline='') as f:
        for c in csv.DictReader(f):
            calc[c['id']] = c
    both, only = [], []
    for rid, r in sorted(rows.items()):
        c = calc.get(rid)
        if c is None or not c['predicted_s']:
            only.append((rid, c['note'] if c else 'no calculon system for %s' % r['gpu']))
            continue
        m = r['measured_s']
        both.append((r['regime'], rid, m, r['hetplan_s'], float(c['predicted_s'])))
    print('%-20s %-10s %9s %9s %8s %9s %8s' % ('regime', 'id', 'measured', 'hetplan', 'err',
                                              'calculon', 'err'))
    for reg, rid, m, h, c in sorted(both):
        print('%-20s %-10s %9.3f %9.3f %+7.1f%% %9.3f %+7.1f%%' % (
            reg, rid, m, h, 100 * (h - m) / m, c, 100 * (c - m) / m))

    def mape(sel, k):
        return sum(abs(x[k] - x[2]) / x[2] for x in sel) * 100 / len(sel)
    print()
    for reg in sorted(set(x[0] for x in both)) + ['all']:
        sel = [x for x in both if reg in ('all', x[0])]
        print('MAPE %-20s hetplan %6.1f%%  calculon %6.1f%%  (%d rows)' % (
            reg, mape(sel, 3), mape(sel, 4), len(sel)))
    for rid, why in only:
        print('not compared: %s (%s)' % (rid, why))
    return 0


if __name__ == '__main__':
    sys.exit(main())
