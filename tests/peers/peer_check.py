"""What the peer suites (tests/nifti1/run_nibabel.sh, tests/fits/
run_astropy.sh, tests/mat5/run_scipy.sh) share: one PASS/FAIL line per
check, afmt's commands run with their output, and the exit status.

Each suite's Python runs with this folder on sys.path (PYTHONPATH) and
AFMT, VALIDATE in its environment."""

import os
import subprocess
import sys

AFMT = os.environ.get("AFMT", "build/afmt")
VALIDATE = os.environ.get("VALIDATE", "build/afmt-validate")
_failed = [0]


def report(name, why):
    """PASS name when why is empty, else FAIL name: why (and the suite fails)."""
    if why:
        _failed[0] += 1
        print("FAIL %s: %s" % (name, why))
    else:
        print("PASS %s" % name)


def run(*args):
    """(exit status, stdout and stderr as one stripped text) of a command."""
    p = subprocess.run(args, capture_output=True, text=True)
    return p.returncode, (p.stdout + p.stderr).strip()


def finish():
    """Exit 1 when a check failed, else 0."""
    sys.exit(1 if _failed[0] else 0)
