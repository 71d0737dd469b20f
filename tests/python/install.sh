#!/usr/bin/env bash
# `pip install .` as docs/PYTHON.md says, from what a clone holds, into a
# fresh virtual environment (tests/run.sh runs it): the package builds,
# imports, and gives afmt-validate's verdict on every file of examples/,
# and a view equal to numpy's.  pip takes setuptools and numpy from the
# index (PyPI): without one it skips, saying so.
# Usage: tests/python/install.sh [BUILD_DIR]   (from anywhere)
set -u
BUILD=${1:-build}
cd "$(dirname "$0")/../.."
if [ -n "${AFMT_SANITIZED:-}" ]; then
    echo "SKIP python-install: a sanitizer run (make asan) builds no wheel"
    exit 0
fi
PYTHON3=${AFMT_INSTALL_PYTHON:-python3}
if ! "$PYTHON3" -m venv --help > /dev/null 2>&1; then
    echo "SKIP python-install: $PYTHON3 has no venv module (Debian: python3-venv, make deps)"
    exit 0
fi
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# what a clone holds: the tracked files and the new ones not ignored
mkdir "$TMP/src"
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
    git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' f; do
        [ -e "$f" ] && printf '%s\0' "$f"
    done | xargs -0 cp --parents -t "$TMP/src"
else
    tar --exclude=./build -cf - . | tar -xf - -C "$TMP/src"
fi
"$PYTHON3" -m venv "$TMP/venv"
if ! (cd "$TMP/src" && "$TMP/venv/bin/pip" install -q --disable-pip-version-check .) > "$TMP/pip.log" 2>&1; then
    if grep -qi "no matching distribution\|could not find a version\|network is unreachable\|connection" "$TMP/pip.log"; then
        echo "SKIP python-install: pip cannot reach an index for setuptools and numpy: $(grep -i 'error' "$TMP/pip.log" | head -n 1)"
        exit 0
    fi
    echo "FAIL python-install: pip install . failed: $(grep -v '^WARNING: Location' "$TMP/pip.log" | grep -i 'error' | head -n 3 | tr '\n' ' ')"
    exit 1
fi
echo "PASS python-install: pip install . from a clone into a fresh venv"
# outside the source tree, so that the installed package is the one imported
cd "$TMP" && "$TMP/venv/bin/python" - "$OLDPWD" "$BUILD" <<'PY'
import json, os, subprocess, sys
repo, build = sys.argv[1], sys.argv[2]
validate = os.path.join(repo, build, "afmt-validate") if not os.path.isabs(build) else os.path.join(build, "afmt-validate")
import afmt
import numpy as np
where = os.path.dirname(afmt.__file__)
ok = where.startswith(os.path.join(os.getcwd(), "venv"))
print("%s python-install: the package imported is the installed one (%s)" % ("PASS" if ok else "FAIL", where))
examples = os.path.join(repo, "examples")
names = sorted(n for n in os.listdir(examples) if os.path.isfile(os.path.join(examples, n)))
wrong = []
for n in names:
    p = os.path.join(examples, n)
    cli = subprocess.run([validate, "--json", p], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    # one line per input, or per member of an archive (then the
    # archive's verdict is theirs together, and its format is not named)
    lines = [json.loads(line) for line in cli.stdout.decode().splitlines()]
    valid = bool(lines) and all(line.get("valid") for line in lines)
    fmt = lines[0].get("format") if len(lines) == 1 and lines[0].get("member") is None else None
    got = afmt.validate(p)
    if bool(got.ok) != valid or (fmt is not None and got.ok and got.format != fmt):
        wrong.append((n, got.ok, got.format, valid, fmt))
print("%s python-install: afmt.validate agrees with afmt-validate on the %d files of examples/%s"
      % ("PASS" if names and not wrong else "FAIL", len(names), "" if not wrong else ": %r" % wrong[:3]))
npys = [n for n in names if n.endswith(".npy") and afmt.validate(os.path.join(examples, n)).ok]
same = True
for n in npys:
    p = os.path.join(examples, n)
    with afmt.open(p) as f:
        for key in f:
            same = same and np.array_equal(np.asarray(f[key]), np.load(p), equal_nan=True)
print("%s python-install: afmt.open's arrays equal np.load's for the %d valid .npy examples"
      % ("PASS" if npys and same else "FAIL", len(npys)))
PY
