#!/usr/bin/env python3
"""Every example of every --help text and man page runs as written.

The examples are taken from the texts mechanically, so that a new one is
tested as soon as it is written:

  - --help (afmt, each afmt command, afmt-validate): the lines of a block
    that begins with a line "Example:" or "Examples ...:" and ends at a
    blank line.  A comment after "  # " may say "exit N" (default 0).
  - README.md: the lines of the sh block under "## Using it", run from a
    folder where build/ is the build (a comment saying "exit N" as above);
  - man pages (docs/*.1): in the EXAMPLES section, each line "$ COMMAND"
    (troff escapes undone); the lines after it, up to the next command or
    request, are what it prints: each must be in its output.  Its exit
    status must be 0, or 1 when a line it prints says ": invalid".

Each command runs with bash in a temporary folder holding a copy of the
repository's examples/ and spec/, the build's tools first on PATH.

Usage: tests/e2e/examples.py [BUILD_DIR]   One PASS/FAIL line per example.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import REPO, Suite  # noqa: E402

SUITE = Suite("examples")
HELPS = [["afmt", "--help"], ["afmt-validate", "--help"]] + [
    ["afmt", cmd, "--help"] for cmd in ("formats", "info", "dump", "convert", "random")]
MAN_PAGES = sorted(f for f in os.listdir(os.path.join(REPO, "docs")) if f.endswith(".1"))


def help_examples(text):
    """(command, exit status) from the Example blocks of a --help text."""
    out, inside = [], False
    for line in text.splitlines():
        if re.match(r"^Examples?\b.*:$", line):
            inside = True
            continue
        if inside and not line.strip():
            inside = False
        if inside:
            cmd, _, comment = line.strip().partition("  # ")
            m = re.search(r"\bexit (\d)", comment)
            out.append((cmd.strip(), int(m.group(1)) if m else 0))
    return out


def readme_examples(path):
    """(command, exit status) from the sh block under README's "## Using it"."""
    text = open(path, encoding="utf-8").read()
    m = re.search(r"^## Using it\n.*?```sh\n(.*?)```", text, re.S | re.M)
    out = []
    for line in (m.group(1) if m else "").splitlines():
        cmd, _, comment = line.partition("  # ")
        e = re.search(r"\bexit (\d)", comment)
        if cmd.strip():
            out.append((cmd.strip(), int(e.group(1)) if e else 0))
    return out


def troff_plain(line):
    for esc, plain in ((r"\-", "-"), (r"\(dq", '"'), (r"\e", "\\"), (r"\(aq", "'"), (r"\&", "")):
        line = line.replace(esc, plain)
    return re.sub(r"\\f[BIRP]", "", line)


def man_examples(path):
    """(command, lines it prints) from the EXAMPLES section of a man page."""
    out, inside = [], False
    with open(path, encoding="utf-8") as f:
        for raw in f.read().splitlines():
            if raw.startswith(".SH"):
                inside = raw.strip() == ".SH EXAMPLES"
                continue
            if not inside:
                continue
            if raw.startswith("."):
                if out:
                    out[-1] = (out[-1][0], out[-1][1], True)
                continue
            line = troff_plain(raw)
            if line.startswith("$ "):
                out.append((line[2:].strip(), [], False))
            elif out and not out[-1][2] and line.strip():
                out[-1][1].append(line)
    return [(cmd, shown) for cmd, shown, _ in out]


def run(cmd, cwd, env):
    p = subprocess.run(["bash", "-c", cmd], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def main():
    work = tempfile.mkdtemp(prefix="afmt-examples.")
    try:
        for sub in ("examples", "spec"):
            shutil.copytree(os.path.join(REPO, sub), os.path.join(work, sub))
        env = dict(os.environ, PATH=SUITE.build + os.pathsep + os.environ.get("PATH", ""),
                   ASAN_OPTIONS="detect_leaks=0")
        for argv in HELPS:
            name = " ".join(argv)
            _, text, _ = run(" ".join(argv), work, env)
            found = help_examples(text)
            SUITE.check("'%s' has examples" % name, len(found) > 0, "no Example block")
            for cmd, want in found:
                rc, out, err = run(cmd, work, env)
                SUITE.check("%s: '%s' exits %d" % (name, cmd, want), rc == want,
                            "exit %d; stdout %r; stderr %r" % (rc, out[:200], err[:300]))
        os.symlink(SUITE.build, os.path.join(work, "build"))
        found = readme_examples(os.path.join(REPO, "README.md"))
        SUITE.check("README.md has examples", len(found) > 0, "no sh block under '## Using it'")
        for cmd, want in found:
            rc, out, err = run(cmd, work, env)
            SUITE.check("README.md: '%s' exits %d" % (cmd, want), rc == want,
                        "exit %d; stdout %r; stderr %r" % (rc, out[:200], err[:300]))
        for page in MAN_PAGES:
            found = man_examples(os.path.join(REPO, "docs", page))
            SUITE.check("%s has examples" % page, len(found) > 0, "no '$ ' line in EXAMPLES")
            for cmd, shown in found:
                rc, out, err = run(cmd, work, env)
                want = 1 if any(": invalid" in s for s in shown) else 0
                missing = [s for s in shown if s not in (out + err).splitlines()]
                SUITE.check("%s: '%s' exits %d" % (page, cmd, want), rc == want,
                            "exit %d; stdout %r; stderr %r" % (rc, out[:200], err[:300]))
                SUITE.check("%s: '%s' prints what the page shows" % (page, cmd), not missing,
                            "missing %r; stdout %r" % (missing, out[:300]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return SUITE.failed


if __name__ == "__main__":
    sys.exit(main())
