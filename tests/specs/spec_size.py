"""Issue 33's limit on the three formats' specs: each at most 600 JSON
values (objects, arrays, strings, numbers, booleans and nulls, each
counted once; an object's keys are not values), no bigger than
spec/gguf.json.  One PASS/FAIL line per spec (tests/run.sh).
    python3 tests/specs/spec_size.py"""
import json
import pathlib
import sys

LIMIT = 600
REPO = pathlib.Path(__file__).resolve().parents[2]


def values(v):
    if isinstance(v, dict):
        return 1 + sum(values(x) for x in v.values())
    if isinstance(v, list):
        return 1 + sum(values(x) for x in v)
    return 1


failed = 0
for name in ["fits", "mat5", "nifti1", "gguf"]:
    n = values(json.loads((REPO / "spec" / (name + ".json")).read_text()))
    if n <= LIMIT:
        print("PASS spec size: spec/%s.json holds %d JSON values (at most %d)" % (name, n, LIMIT))
    else:
        print("FAIL spec size: spec/%s.json holds %d JSON values, more than %d" % (name, n, LIMIT))
        failed = 1
sys.exit(failed)
