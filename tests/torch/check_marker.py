#!/usr/bin/env python3
"""check_marker.py [--unsafe] [--markdown FILE] [--timeout S] DIR...: what
torch itself does with every file of the corpora (DIR/expected.tsv).

Each file is loaded in a process of its own, forked from this one after
torch is imported (nothing has started a thread by then), with
AFMT_MARKER_DIR set to a fresh directory, its address space capped, and
a timeout: torch.load(f, weights_only=True) -- loads / refuses (the
exception) / crash (the signal) / timeout -- and which marker files
appeared.  With --unsafe also torch.load(f, weights_only=False), which
runs what the file says: that proves each payload live (its marker
appears), so afmt's empty marker directory (run.sh) means something.

Printed: one line per file and mode; with --markdown FILE, a table.
Asserted (FAIL lines, exit 1), about the corpora, not about torch:
- a file expected valid (strict ok) loads with weights_only=True and its
  tensors are expected.tsv's (load_with_keys agrees with torch.load);
- with --unsafe, every file whose note says [payload] creates its
  marker ran-<stem> when loaded unsafely.
torch's behaviour on the invalid files is reported, never asserted.
"""

import argparse
import json
import os
import re
import resource
import select
import shutil
import signal
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import texpect  # noqa: E402

ADDRESS_SPACE = 16 * 2 ** 30   # the 4 TiB storage must fail, not swap


def child(path, weights_only, marker_dir, write_end):
    """In the forked process: load, write one JSON result, exit."""
    os.environ['AFMT_MARKER_DIR'] = marker_dir
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE, ADDRESS_SPACE))
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    import warnings
    warnings.simplefilter('ignore')
    import torch
    try:
        value = torch.load(path, weights_only=weights_only)
        result = {'outcome': 'loads', 'type': type(value).__name__}
    except BaseException as error:  # noqa: B902 -- report whatever torch raises
        result = {'outcome': 'refuses', 'error': type(error).__name__,
                  'message': reason(str(error))}
    os.write(write_end, json.dumps(result).encode())
    os._exit(0)


BOILERPLATE = ('Weights only load failed', 'Check the documentation', 'In PyTorch 2.6',
               '(1) ', '(2) ', 'This is an internal miniz error')


def reason(message):
    """The sentence of torch's message that says why (weights_only wraps
    it in paragraphs of advice), on one line, at most 200 characters."""
    message = re.sub(r'\x1b\[[0-9;]*m', '', message)
    if 'WeightsUnpickler error:' in message:
        message = message.split('WeightsUnpickler error:', 1)[1]
    for paragraph in re.split(r'\n\s*\n', message):
        text = ' '.join(paragraph.split())
        if text and not text.startswith(BOILERPLATE):
            text = text.split('. This is an internal miniz error')[0]
            return text[:200]
    return ' '.join(message.split())[:200]


def load_in_child(path, weights_only, timeout):
    """{'outcome', ..., 'markers': [...]} for one load in a forked child."""
    marker_dir = tempfile.mkdtemp(prefix='afmt-marker-')
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        try:
            child(path, weights_only, marker_dir, write_end)
        finally:
            os._exit(3)
    os.close(write_end)
    chunks, deadline = [], time.monotonic() + timeout
    while True:
        remaining = deadline - time.monotonic()
        ready = select.select([read_end], [], [], max(remaining, 0))[0] if remaining > 0 else []
        if not ready:
            os.kill(pid, signal.SIGKILL)
            result = {'outcome': 'timeout'}
            break
        chunk = os.read(read_end, 65536)
        if not chunk:
            result = None
            break
        chunks.append(chunk)
    os.close(read_end)
    _, status = os.waitpid(pid, 0)
    if result is None:
        if chunks:
            result = json.loads(b''.join(chunks))
        elif os.WIFSIGNALED(status):
            result = {'outcome': 'crash', 'signal': signal.Signals(os.WTERMSIG(status)).name}
        else:
            result = {'outcome': 'crash', 'exit': os.WEXITSTATUS(status)}
    result['markers'] = sorted(os.listdir(marker_dir))
    shutil.rmtree(marker_dir, ignore_errors=True)
    return result


def describe(result):
    outcome = result['outcome']
    if outcome == 'loads':
        text = 'loads (%s)' % result['type']
    elif outcome == 'refuses':
        text = 'refuses: %s: %s' % (result['error'], result['message'])
    elif outcome == 'crash':
        text = 'crash: %s' % (result.get('signal') or 'exit %s' % result.get('exit'))
    else:
        text = outcome
    if result['markers']:
        text += ' MARKER ' + ','.join(result['markers'])
    return text


def check_valid(path, row, problems):
    import torch
    try:
        loaded = torch.load(path, weights_only=True)
        value, keys = texpect.load_with_keys(open(path, 'rb').read())
    except Exception as error:  # noqa: B902
        problems.append('%s: expected valid, torch says %s: %s' % (row['file'], type(error).__name__,
                                                                    error))
        return
    if not texpect.same_values(loaded, value):
        problems.append('%s: torch.load and the keyed unpickler disagree' % row['file'])
    rows = texpect.tensor_rows(value, keys)
    if rows != row['tensors']:
        problems.append('%s: torch reports tensors %s, expected.tsv %s'
                        % (row['file'], json.dumps(rows), json.dumps(row['tensors'])))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('dirs', nargs='+')
    parser.add_argument('--unsafe', action='store_true')
    parser.add_argument('--markdown')
    parser.add_argument('--timeout', type=float, default=60)
    options = parser.parse_args()
    import warnings
    warnings.simplefilter('ignore')
    import torch  # noqa: F401 -- imported once, before any fork
    problems, table, valid = [], [], []
    for directory in options.dirs:
        for row in texpect.read_tsv(os.path.join(directory, 'expected.tsv')):
            path = os.path.join(directory, row['file'])
            safe = load_in_child(path, True, options.timeout)
            unsafe = load_in_child(path, False, options.timeout) if options.unsafe else None
            print('%s: weights_only=True: %s' % (row['file'], describe(safe)))
            if unsafe:
                print('%s: weights_only=False: %s' % (row['file'], describe(unsafe)))
            if row['strict'] == 'ok':
                valid.append((path, row))
            if unsafe and '[payload]' in row['note']:
                want = 'ran-' + os.path.splitext(row['file'])[0]
                if want not in unsafe['markers']:
                    problems.append('%s: the payload did not run under weights_only=False '
                                    '(no %s): %s' % (row['file'], want, describe(unsafe)))
            table.append((row, safe, unsafe))
    for path, row in valid:   # in this process, after the last fork
        check_valid(path, row, problems)
    if options.markdown:
        write_markdown(options.markdown, table, options.unsafe)
    for problem in problems:
        print('FAIL check_marker ' + problem)
    if not problems:
        print('PASS check_marker: %d files; every valid one loads as expected.tsv says%s'
              % (len(table), '; every payload runs when loaded unsafely' if options.unsafe else ''))
    return 1 if problems else 0


def write_markdown(path, table, unsafe):
    with open(path, 'w') as out:
        out.write('| file | afmt strict/lenient | class | torch.load(weights_only=True) |%s\n'
                  % (' weights_only=False |' if unsafe else ''))
        out.write('|---|---|---|---|%s\n' % ('---|' if unsafe else ''))
        for row, safe, unsafe_result in table:
            cells = [row['file'], '%s/%s' % (row['strict'], row['lenient']), row['class'],
                     describe(safe).replace('|', '\\|')]
            if unsafe:
                cells.append(describe(unsafe_result).replace('|', '\\|'))
            out.write('| ' + ' | '.join(cells) + ' |\n')


if __name__ == '__main__':
    sys.exit(main())
