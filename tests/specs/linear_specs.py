#!/usr/bin/env python3
"""Specs of one shape at a given size, for tests/specs/linear.sh: the
shapes that once made afmt-gen quadratic (issue 37.8).

    python3 tests/specs/linear_specs.py SHAPE N OUT.json

structs: N structures of 12 fields named alike (numbered C names);
repeats, regions, cases: N of them at the top, each a function of its own
that captures from the body's (its caller's text was scanned again at
each one's end)."""
import json
import sys


def spec_of(shape, n):
    body = [{"field": "code", "type": "u8"}, {"lookup": "el", "table": "t", "key": ["code"]}]
    spec = {"format": "linear", "read_only": "a test of afmt-gen's work",
            "tables": {"t": {"entries": [{"key": [1], "dtype": "u8"}]}}}
    if shape == "structs":
        spec["structs"] = {"s%d" % i: {"params": ["p"], "body": [
            {"field": "x%d" % k, "type": "u16", "check": "x%d <= p + %d" % (k, k), "doc": "field %d" % k}
            for k in range(12)]} for i in range(n)}
        body += [{"struct": "u%d" % i, "use": "s%d" % i, "args": ["code"]} for i in range(n)]
    elif shape == "repeats":
        body += [{"repeat": "r%d" % i, "count": "2", "body": [
            {"field": "a%d" % i, "type": "u8", "check": "a%d < code + 9" % i}, {"field": "b%d" % i, "type": "u16"}]}
            for i in range(n)]
    elif shape == "regions":
        for i in range(n):
            body += [{"field": "sz%d" % i, "type": "u8"},
                     {"region": "g%d" % i, "size": "sz%d" % i, "body": [{"field": "a%d" % i, "type": "u8", "check": "a%d < 9" % i}]}]
    elif shape == "cases":
        body += [{"field": "k", "type": "u16"},
                 {"switch": "sw", "on": "k", "cases": [
                     {"when": [i], "body": [{"field": "c%d" % i, "type": "u32", "check": "c%d < code + %d" % (i, i)}]}
                     for i in range(n)]}]
    else:
        sys.exit("linear_specs.py: no shape " + shape)
    spec["body"] = body + [{"field": "n", "type": "u8"},
                           {"array": "data", "dtype": "el", "shape": ["n"], "order": "row-major"}]
    return spec


if __name__ == "__main__":
    with open(sys.argv[3], "w") as f:
        json.dump(spec_of(sys.argv[1], int(sys.argv[2])), f, indent=1)
