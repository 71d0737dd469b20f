#!/usr/bin/env python3
"""afmt-validate's progress line: on standard error when it is a terminal
(a pseudo-terminal here) and standard output is not, once the work has
taken more than a second; erased at the end and before an error line; never
when standard error is a file or standard output is the terminal too.

The work is made to last about two seconds by a FIFO among the inputs whose
writer waits before writing a valid file.

Usage: tests/e2e/progress.py [BUILD_DIR]   One PASS/FAIL line per check.
"""
import os
import pty
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import REPO, Suite  # noqa: E402

SUITE = Suite("progress")
AFMT, VALIDATE = SUITE.afmt, SUITE.validate
check = SUITE.check
RA = os.path.join(REPO, "corpus", "rawarray", "test.ra")


def slow_fifo(path, delay):
    """A FIFO whose writer waits `delay` seconds, then writes test.ra."""
    os.mkfifo(path)

    def writer():
        time.sleep(delay)
        with open(path, "wb") as f, open(RA, "rb") as src:
            f.write(src.read())
    t = threading.Thread(target=writer)
    t.start()
    return t


def run(args, stderr_tty, stdout_tty, tmp):
    """Run afmt-validate ARGS; standard error (and standard output) on a
    pseudo-terminal or a file.  Returns (status, stdout bytes, stderr bytes)."""
    out_path, err_path = os.path.join(tmp, "out"), os.path.join(tmp, "err")
    master = slave = None
    if stderr_tty or stdout_tty:
        master, slave = pty.openpty()
    with open(out_path, "wb") as out_f, open(err_path, "wb") as err_f:
        p = subprocess.Popen([VALIDATE] + args, stdin=subprocess.DEVNULL,
                             stdout=slave if stdout_tty else out_f,
                             stderr=slave if stderr_tty else err_f)
        tty = b""
        if slave is not None:
            os.close(slave)
            while True:
                try:
                    chunk = os.read(master, 4096)
                except OSError:  # EIO: the other side is closed
                    break
                if not chunk:
                    break
                tty += chunk
            os.close(master)
        rc = p.wait(timeout=60)
    with open(out_path, "rb") as f:
        out = f.read()
    with open(err_path, "rb") as f:
        err = f.read()
    if stderr_tty:
        err = tty
    if stdout_tty:
        out = tty
    return rc, out, err


tmp = tempfile.mkdtemp()
try:
    inputs = [RA] * 20

    # stderr a terminal, stdout a file: the line appears, then is erased.
    fifo = os.path.join(tmp, "slow1.ra")
    t = slow_fifo(fifo, 2.0)
    rc, out, err = run(["-j", "1"] + inputs + [fifo], True, False, tmp)
    t.join()
    check("a slow run exits 0 with every verdict on stdout",
          rc == 0 and out.count(b": ok rawarray") == 21, "rc %d, stdout %r" % (rc, out[-200:]))
    # The line is redrawn each second while the fifo is slow: how many times
    # (1s, 2s, ...) depends on the machine's load, its text does not.
    check("the line names the tool and counts the inputs checked",
          re.search(rb"\rafmt-validate: 20 checked, [1-9][0-9]*s\x1b\[K", err) is not None,
          "stderr %r" % err[-300:])
    check("the line is erased at the end", err.endswith(b"\r\x1b[K"), "stderr %r" % err[-100:])
    check("nothing else on stderr",
          re.sub(rb"afmt-validate: [0-9]+ checked, [0-9]+s", b"",
                 err.replace(b"\x1b[K", b"").replace(b"\r", b"")).strip() == b"",
          "stderr %r" % err[-300:])

    # An error line while the line is shown: erased first, then the error.
    fifo = os.path.join(tmp, "slow2.ra")
    t = slow_fifo(fifo, 2.0)
    missing = os.path.join(tmp, "missing.ra")
    rc, out, err = run(["-j", "1"] + inputs + [fifo, missing], True, False, tmp)
    t.join()
    check("an input error still exits 2", rc == 2, "rc %d" % rc)
    check("an error line starts on a clean line",
          b"\r\x1b[K" + missing.encode() + b": error: No such file or directory" in err,
          "stderr %r" % err[-300:])

    # stderr a file: no progress line.
    fifo = os.path.join(tmp, "slow3.ra")
    t = slow_fifo(fifo, 1.5)
    rc, out, err = run(["-j", "1"] + inputs + [fifo], False, False, tmp)
    t.join()
    check("no progress when stderr is a file", rc == 0 and err == b"", "rc %d, stderr %r" % (rc, err))

    # stdout the terminal too: its own lines show the progress.
    fifo = os.path.join(tmp, "slow4.ra")
    t = slow_fifo(fifo, 1.5)
    rc, out, err = run(["-j", "1"] + inputs + [fifo], True, True, tmp)
    t.join()
    check("no progress line when stdout is the terminal too",
          rc == 0 and b"checked," not in out and out.count(b": ok rawarray") == 21,
          "rc %d, terminal %r" % (rc, out[-300:]))

    # A quick run on a terminal: nothing (the line waits a second).
    rc, out, err = run(inputs, True, False, tmp)
    check("no progress for a run under a second", rc == 0 and err == b"", "stderr %r" % err)
finally:
    shutil.rmtree(tmp)

sys.exit(SUITE.failed)
