#!/usr/bin/env python3
"""A stand-in afmt-validate for testing the harness (run.sh's self-test):
answers --json for files of a corpus from the expected.tsv beside them,
as afmt will once it knows torch, so verdicts.py can be shown to pass a
right answer and fail a wrong one before the C side exists.

MOCK_BREAK=FILE:WHAT makes one answer wrong (WHAT: verdict, dtype,
offset, strides, count); MOCK_TOUCH=1 creates a file in AFMT_MARKER_DIR
(what afmt must never do).  Not a validator: it reads no checkpoint
beyond the zip directory.
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import texpect  # noqa: E402
import verdicts  # noqa: E402


def answer(path, lenient, broken):
    rows = {row['file']: row for row in
            texpect.read_tsv(os.path.join(os.path.dirname(path), 'expected.tsv'))}
    row = rows[os.path.basename(path)]
    valid = row['lenient' if lenient else 'strict'] == 'ok'
    what = broken.get(row['file'])
    if what == 'verdict':
        valid = not valid
    result = {'path': path, 'verdict': 'valid' if valid else 'invalid',
              'format': 'torch', 'valid': valid, 'arrays': [], 'warnings': [],
              'error': None if valid else {'code': 'format', 'offset': 0, 'field': row['member'],
                                           'message': 'mock: ' + row['class']}}
    if valid:
        offsets = verdicts.byte_offsets(path, row['tensors'])
        for index, tensor in enumerate(row['tensors']):
            result['arrays'].append({'index': index, 'name': tensor['name'],
                                     'dtype': tensor['dtype'], 'shape': tensor['shape'],
                                     'strides': tensor['strides'],
                                     'offset': offsets[index] if offsets[index] is not None else 0})
        if result['arrays'] and what in ('dtype', 'offset', 'strides'):
            first = result['arrays'][-1]
            first['dtype'] = 'u8' if what == 'dtype' else first['dtype']
            first['offset'] += 4 if what == 'offset' else 0
            first['strides'] = [s + 1 for s in first['strides']] if what == 'strides' else first['strides']
        if what == 'count':
            result['arrays'].append(dict(result['arrays'][0], index=len(result['arrays'])))
    result['array_count'] = len(result['arrays'])
    return result


def main():
    args = [arg for arg in sys.argv[1:] if arg not in ('--json', '--', '-j', '1')]
    lenient = '--lenient' in args
    paths = [arg for arg in args if not arg.startswith('--')]
    broken = dict(item.split(':', 1) for item in os.environ.get('MOCK_BREAK', '').split(',') if item)
    if os.environ.get('MOCK_TOUCH'):
        open(os.path.join(os.environ['AFMT_MARKER_DIR'], 'ran-mock'), 'w').close()
    status = 0
    for path in paths:
        result = answer(path, lenient, broken)
        status |= 0 if result['valid'] else 1
        print(json.dumps(result))
    return status


if __name__ == '__main__':
    sys.exit(main())
