"""What the Python end-to-end suites share: where the repository and the
build are, and PASS/FAIL lines that tests/run.sh counts.

    from checks import Suite
    s = Suite("progress")        # REPO, BUILD (argv[1], default build)
    s.check("name", ok, "why it failed")
    sys.exit(s.failed)
"""
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Suite:
    def __init__(self, name):
        self.name = name
        self.failed = 0
        arg = sys.argv[1] if len(sys.argv) > 1 else "build"
        self.build = os.path.abspath(arg if os.path.isdir(arg) else os.path.join(REPO, arg))
        self.afmt = os.path.join(self.build, "afmt")
        self.validate = os.path.join(self.build, "afmt-validate")

    def check(self, name, ok, why=""):
        if ok:
            print("PASS %s: %s" % (self.name, name))
        else:
            print("FAIL %s: %s: %s" % (self.name, name, why))
            self.failed = 1
