#!/usr/bin/env bash
# docs/AT-SCALE.md's Dask script, as the doc writes it, run as a script
# on a local cluster (two worker processes): it ends (the doc's
# `if __name__ == "__main__":` guard is what lets Dask's workers start)
# and prints every key that is not valid, once.  Needs Dask with
# distributed: build/venv (make deps-test; AFMT_VENV names another venv),
# else the python3 on PATH; skips saying so when neither has it.
set -u
SUITE=at-scale-dask
. "$(dirname "$0")/lib.sh" "$@"
S="$REPO/corpus"

VENV=${AFMT_VENV:-$BUILD/venv}
PY=""
for py in "$VENV/bin/python" python3; do
    if "$py" -c 'import dask.bag, dask.distributed' 2> /dev/null; then PY=$py; break; fi
done
if [ -z "$PY" ]; then
    echo "SKIP at-scale-dask: Dask is not importable (dask and distributed from PyPI: make deps-test puts them in build/venv; Debian: python3-dask python3-distributed)"
    exit 0
fi

# the script: the doc's python block that begins "# check_keys.py"
awk '/^```python$/ { inside = 1; n = 0; next } /^```$/ { if (keep) exit; inside = 0; next }
     inside && n++ == 0 && /^# check_keys.py/ { keep = 1 } keep { print }' \
    "$REPO/docs/AT-SCALE.md" > "$T/check_keys.py"
check "docs/AT-SCALE.md holds the Dask script" grep -q 'def check_partition' "$T/check_keys.py"
check "... behind the __main__ guard" grep -q '^if __name__ == "__main__":' "$T/check_keys.py"

# 2,500 keys (three partitions of 1000): 40 valid files named many times,
# one cut short, one missing, each twice
mkdir -p "$T/d"
for i in $(seq 1 40); do cp "$S/npy/f4_2x3_fortran.npy" "$T/d/m$i.npy"; done
head -c 9 "$S/npy/f8_2x3.npy" > "$T/d/cut.npy"
python3 - "$T" << 'PY'
import sys
t = sys.argv[1]
keys = ["%s/d/m%d.npy" % (t, i % 40 + 1) for i in range(2496)]
keys[700:700] = [t + "/d/cut.npy", t + "/d/gone.npy"]
keys[1900:1900] = [t + "/d/cut.npy", t + "/d/gone.npy"]
open(t + "/keys.txt", "w").write("".join(k + "\n" for k in keys))
PY
start=$(date +%s)
(cd "$T" && PATH="$BUILD:$PATH" timeout 300 "$PY" check_keys.py keys.txt > out.jsonl 2> err.txt)
rc=$?
secs=$(( $(date +%s) - start ))
check "the script ends, exit 0, on a local cluster ($secs s)" test "$rc" = 0
if python3 - "$T/out.jsonl" "$T" << 'PY' 2> "$T/py.err"
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1])]
t = sys.argv[2]
got = sorted((o["path"], o["verdict"]) for o in objs)
want = sorted([(t + "/d/cut.npy", "invalid"), (t + "/d/gone.npy", "error")] * 2)
assert got == want, got
assert all(o["error"]["code"] in ("truncated", "io") for o in objs), objs
PY
then pass "it prints the 4 keys that are not valid (cut short, missing), as JSON lines"
else fail "it prints the 4 keys that are not valid (cut short, missing), as JSON lines" \
    "$(tail -1 "$T/py.err"); stderr: $(tail -c 400 "$T/err.txt")"; fi

# the guard is what makes it work: the same script without it fails
sed 's/^if __name__ == "__main__":/if True:/' "$T/check_keys.py" > "$T/no_guard.py"
head -1 "$T/keys.txt" > "$T/one.txt"
(cd "$T" && PATH="$BUILD:$PATH" timeout 120 "$PY" no_guard.py one.txt > /dev/null 2>&1)
check "without the guard the same script does not succeed (status $?)" test $? -ne 0
exit $FAILED
