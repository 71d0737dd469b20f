#!/usr/bin/env python3
"""verdicts.py BUILD DIR...: afmt-validate --json (strict, then --lenient)
on every file of each DIR/expected.tsv, with AFMT_MARKER_DIR set to an
empty directory; one PASS/FAIL line per file and mode, then one for the
marker directory (it must still be empty: afmt runs nothing).

For a file expected ok: the arrays afmt lists must be expected.tsv's
tensors in order: name (key path), dtype and shape; strides when afmt's
JSON has them; and the absolute byte offset (the record's data offset
in the zip plus storage offset x element size) for stored records.
No torch needed (run.sh runs it with build/venv's python all the same).
"""

import json
import os
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import texpect  # noqa: E402
import tpickle  # noqa: E402
import tzip  # noqa: E402

TIMEOUT = 60   # seconds for one afmt-validate run


def run_validate(build, paths, lenient, marker_dir):
    """{path: JSON object} from afmt-validate --json over `paths` (one run;
    if it dies or hangs, one run per file so the rest still get verdicts)."""
    command = [os.path.join(build, 'afmt-validate'), '--json', '-j', '1']
    if lenient:
        command.append('--lenient')
    env = dict(os.environ, AFMT_MARKER_DIR=marker_dir)
    try:
        done = subprocess.run(command + ['--'] + paths, capture_output=True, env=env,
                              timeout=TIMEOUT * 4)
        if done.returncode in (0, 1):
            lines = [json.loads(line) for line in done.stdout.decode().splitlines() if line]
            if len(lines) == len(paths):
                return dict(zip(paths, lines))
    except subprocess.TimeoutExpired:
        pass
    results = {}
    for path in paths:
        try:
            done = subprocess.run(command + ['--', path], capture_output=True, env=env,
                                  timeout=TIMEOUT)
            text = done.stdout.decode().strip()
            results[path] = json.loads(text) if done.returncode in (0, 1) and text else \
                {'failure': 'exit status %d: %s' % (done.returncode,
                                                   done.stderr.decode().strip()[:200])}
        except subprocess.TimeoutExpired:
            results[path] = {'failure': 'no verdict in %d s' % TIMEOUT}
    return results


def byte_offsets(path, tensors):
    """The absolute byte offset of each expected tensor's first element,
    or None where the record is not stored as is (deflated)."""
    with open(path, 'rb') as checkpoint:
        data = checkpoint.read()
    try:
        with zipfile.ZipFile(path) as archive:
            methods = {info.filename: info.compress_type for info in archive.infolist()}
        offsets = tzip.member_offsets(data)
    except (zipfile.BadZipFile, OSError, KeyError):
        return [None] * len(tensors)
    folder = next(iter(offsets)).split('/', 1)[0]
    result = []
    for tensor in tensors:
        name = '%s/data/%s' % (folder, tensor['storage'])
        if name not in offsets or methods.get(name) != zipfile.ZIP_STORED:
            result.append(None)
        else:
            result.append(offsets[name][1] + tensor['offset'] * tpickle.ELEMENT_SIZE[tensor['dtype']])
    return result


def compare_arrays(path, row, arrays):
    """None if afmt's arrays are the expected tensors, else why not."""
    expected = row['tensors']
    if len(arrays) != len(expected):
        return '%d arrays, expected %d (%s)' % (len(arrays), len(expected),
                                                ', '.join(t['name'] for t in expected[:8]))
    offsets = byte_offsets(path, expected)
    for index, (got, want) in enumerate(zip(arrays, expected)):
        for field in ('name', 'dtype', 'shape'):
            if got.get(field) != want[field]:
                return 'array %d %s: %s, expected %s' % (index, field, json.dumps(got.get(field)),
                                                        json.dumps(want[field]))
        if 'strides' in got and got['strides'] != want['strides']:
            return 'array %d (%s) strides: %s, expected %s' % (index, want['name'],
                                                              got['strides'], want['strides'])
        numel = 1
        for dim in want['shape']:
            numel *= dim
        if offsets[index] is not None and numel and got.get('offset') != offsets[index]:
            return 'array %d (%s) offset: %s, expected %d (record data/%s + %d elements)' % (
                index, want['name'], got.get('offset'), offsets[index], want['storage'],
                want['offset'])
    return None


def verdict_line(mode, row, path, result):
    want = row[mode]
    label = '%s %s' % (mode, row['file'])
    if 'failure' in result:
        return 'FAIL torch %s: %s' % (label, result['failure'])
    got = 'ok' if result.get('valid') else 'invalid'
    if got != want:
        error = result.get('error') or {}
        why = ('%s at offset %s: %s' % (error.get('field'), error.get('offset'), error.get('message'))
               if error else 'valid')
        return 'FAIL torch %s: expected %s (%s), afmt says %s: %s' % (
            label, want, row['class'], got, why)
    if got == 'ok':
        problem = compare_arrays(path, row, result.get('arrays', []))
        if problem:
            return 'FAIL torch %s: %s' % (label, problem)
    return 'PASS torch %s' % label


def main():
    if len(sys.argv) < 3:
        sys.exit('usage: verdicts.py BUILD DIR...')
    build, dirs = sys.argv[1], sys.argv[2:]
    marker_dir = tempfile.mkdtemp(prefix='afmt-marker-')
    failed = 0
    for directory in dirs:
        rows = texpect.read_tsv(os.path.join(directory, 'expected.tsv'))
        paths = [os.path.join(directory, row['file']) for row in rows]
        for mode in ('strict', 'lenient'):
            results = run_validate(build, paths, mode == 'lenient', marker_dir)
            for row, path in zip(rows, paths):
                line = verdict_line(mode, row, path, results[path])
                failed += line.startswith('FAIL')
                print(line)
    left = sorted(os.listdir(marker_dir))
    if left:
        print('FAIL torch marker: afmt-validate left %s in AFMT_MARKER_DIR' % ', '.join(left))
        failed += 1
    else:
        print('PASS torch marker: no payload ran while afmt checked the corpora')
    os.rmdir(marker_dir) if not left else None
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
