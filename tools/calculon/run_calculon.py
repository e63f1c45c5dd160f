#!/usr/bin/env python3
"""run_calculon.py -- run calculon on make_inputs.py's files, write the CSV.

Usage: python3 tools/calculon/run_calculon.py CALCULON_DIR COMMIT IN_DIR OUT_CSV

Imports calculon from CALCULON_DIR (its own code, unchanged), runs
Llm.compile/run for every row IN_DIR/manifest.jsonl marks "run", and
writes OUT_CSV with the columns
  id, calculon_commit, predicted_s, measured_s, config, note,
  predicted_no_dp_overlap_s
predicted_s is calculon's get_total_time() for one training step (blank
where calculon cannot express the row or refuses it; the note says why);
predicted_no_dp_overlap_s is the same with data_par_overlap off (equal to
predicted_s where the run had no DP overlap): calculon's DP-overlap
window goes negative under full recompute (its block_re_flops_time runs
above the block's whole recompute time), which makes the overlapped step
slower than the unoverlapped one; docs/compare.md reports both;
config is the row's signature from test_compare, so the test can tell a
prediction made for a configuration the row no longer has.

calculon imports numpy only for its JSON writer (calculon/io.py), and
pandas and psutil only for its search commands (llm/all_executions.py,
llm/optimal_execution.py); this script uses none of them. Where one is
not installed, an empty stand-in module takes its place (numpy's with the
four type names that writer tests against), so the Debian python3 alone
runs it.
"""

import csv
import json
import logging
import os
import sys
import tempfile
import types


def import_calculon(calculon_dir):
    for mod in ('numpy', 'pandas', 'psutil'):
        try:
            __import__(mod)
        except ImportError:
            stand_in = types.ModuleType(mod)
            if mod == 'numpy':
                for name in ('integer', 'floating', 'ndarray', 'bool_'):
                    setattr(stand_in, name, type(name, (), {}))
            sys.modules[mod] = stand_in
    sys.path.insert(0, calculon_dir)
    import calculon  # noqa: E402
    from calculon.llm import Llm  # noqa: E402
    return calculon, Llm


def main():
    if len(sys.argv) != 5:
        sys.stderr.write('usage: run_calculon.py CALCULON_DIR COMMIT IN_DIR OUT_CSV\n')
        return 2
    cdir, commit, ind, out_csv = sys.argv[1:]
    manifest = os.path.join(ind, 'manifest.jsonl')
    if not os.path.isfile(manifest):
        sys.stderr.write('%s: missing (run make_inputs.py first)\n' % manifest)
        return 3
    try:
        calculon, Llm = import_calculon(cdir)
    except ImportError as e:
        sys.stderr.write('%s: cannot import calculon (%s)\n' % (cdir, e))
        return 3
    log = logging.getLogger('calculon')
    log.addHandler(logging.NullHandler())
    rows = []
    with open(manifest) as f:
        for line in f:
            m = json.loads(line)
            pred = alt = ''
            note = m['note']
            if m['status'] == 'run':
                def load(k):
                    with open(os.path.join(ind, '%s.%s.json' % (m['id'], k))) as g:
                        return json.load(g)
                def step(exe_json):
                    syst = calculon.System(load('sys'))
                    model = Llm(Llm.Application(load('app')), log)
                    model.compile(syst, Llm.Execution.from_json(exe_json))
                    model.run(syst)
                    return model
                try:
                    exe = load('exe')
                    model = step(exe)
                    pred = '%.6g' % model.get_total_time()
                    alt = pred
                    if exe['data_par_overlap']:
                        alt = '%.6g' % step(dict(exe, data_par_overlap=False)).get_total_time()
                    # calculon's memory model, against the GPU's capacity
                    need = model.get_mem_tier1_cap_req() / 2**30
                    if need > m['gpu_gib']:
                        extra = 'calculon memory %.0f GiB > %.0f' % (need, m['gpu_gib'])
                        note = '; '.join(x for x in (note, extra) if x)
                except (Llm.Error, AssertionError, ZeroDivisionError, KeyError) as e:
                    msg = str(e) or type(e).__name__
                    note = 'calculon refuses: ' + ' '.join(msg.split())[:160]
            else:
                note = 'cannot: ' + note
            rows.append([m['id'], commit, pred, '%.6g' % m['measured_s'], m['sig'], note, alt])
    d = os.path.dirname(os.path.abspath(out_csv))
    fd, tmp = tempfile.mkstemp(dir=d, prefix='.calculon_compare.')
    with os.fdopen(fd, 'w', newline='') as f:
        w = csv.writer(f, lineterminator='\n')
        w.writerow(['id', 'calculon_commit', 'predicted_s', 'measured_s', 'config', 'note',
                    'predicted_no_dp_overlap_s'])
        w.writerows(rows)
    os.replace(tmp, out_csv)
    n = sum(1 for r in rows if r[2])
    sys.stderr.write('run_calculon: %d rows predicted, %d without (%s)\n'
                     % (n, len(rows) - n, out_csv))
    return 0


if __name__ == '__main__':
    sys.exit(main())
