#!/usr/bin/env python3
"""Which constructs of the spec language the spec fuzzer's generator uses:
item kinds, field kinds and keys, layouts, repeats, table and entry keys,
top-level keys, expression operators, functions, limits, literals and
the longest name, counted over N specs (default 2000) of a family.

  python3 fuzz/specs/coverage.py [N] [FAMILY] [FIRST_SEED]

(specfuzz.py's seeds: a run's specs are those of seeds FIRST..FIRST+N-1)

Every construct of spec/LANGUAGE.md should appear (issue 21, point 2);
the counts show how often.  The last line lists the expected constructs
no spec used (none: "missing: -")."""
import collections
import os
import random
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import specgen  # noqa: E402

ITEM_KEYS = ["text_header", "text_value", "let", "lookup", "check", "array", "repeat", "region", "switch", "pad",
             "struct", "var", "set", "directory"]
seen = collections.Counter()
maxname = 0


def expr_feats(e):
    """Count the operators, functions, limits and literals of expression text e."""
    if not isinstance(e, str):
        return
    for op in ["<<", ">>", "<=", ">=", "==", "!=", "&&", "||", "?"]:
        if op in e: seen["op " + op] += 1
    for op in re.findall(r"(?<![<>=!&|])([-+*/%&|^~!<>])(?![<>=&|])", e): seen["op " + op] += 1
    for fn in re.findall(r"([a-z_]+)\(", e): seen["fn " + fn] += 1
    for l in re.findall(r"limits\.([a-z_]+)", e): seen["limit " + l] += 1
    if re.search(r"\.size\b", e): seen["fn .size"] += 1
    if re.search(r"\[", e): seen["op []"] += 1
    if re.search(r"\"[^\"]*\"|'[^']*'", e): seen["string literal"] += 1
    for lit in re.findall(r"\b0x[0-9a-fA-F_]+|\b0b[01_]+", e): seen["literal " + lit[:2]] += 1
    if "true" in e or "false" in e:
        seen["true/false"] += 1


def names_of(o, out):
    """Every name a spec gives (items, tables, structures)."""
    if isinstance(o, dict):
        for k, v in o.items():
            if k in ("field", "let", "array", "repeat", "region", "switch", "pad", "lookup", "var", "struct",
                     "directory", "text_header") and isinstance(v, str):
                out.add(v)
            if k in ("tables", "structs") and isinstance(v, dict):
                out.update(v.keys())
            names_of(v, out)
    elif isinstance(o, list):
        for x in o:
            names_of(x, out)


def c_affixed(spec):
    """Does a name of spec make C names another's make too (specgen.C_AFFIXES)?"""
    names = set()
    names_of(spec, names)
    return any(pre + n + post in names for n in names for pre, post in specgen.C_AFFIXES) or \
        any(n in names for n in specgen.C_OWN)


def walk(o, path=""):
    global maxname
    if isinstance(o, dict):
        if "text_header" in o and "/structs/" in path: seen["text_header in struct"] += 1
        if "text_header" in o and "/region" in path: seen["text_header in region"] += 1
        if "field" in o and "type" in o:
            t = o["type"]; k = "field " + (t if t in ("bytes", "text", "string") else "int")
            if "count" in o: k += " count"
            seen[k] += 1
            for x in ["equals", "in", "range", "check", "each", "order", "first", "last", "increasing_within", "text", "write", "code", "lenient"]:
                if x in o: seen["field." + x] += 1
        else:
            for k in ITEM_KEYS:
                if k in o and (k != "check" or "expr" not in o): seen["item " + k] += 1; break
        if "layout" in o: seen["layout " + o["layout"]] += 1
        elif "array" in o: seen["layout dense"] += 1
        if "compressed" in o: seen["lz4"] += 1
        if "tiles" in o: seen["repeat tiles"] += 1
        if "until" in o: seen["repeat until " + o["until"]] += 1
        if "repeat" in o and "count" in o: seen["repeat count"] += 1
        for k in ["unique", "unique_as", "skip", "min", "exact", "else", "fill", "block", "when", "write_key", "encoding", "warn", "sidecar", "read_only", "endian", "detect", "extensions", "trailer", "structs", "dims", "metadata", "title", "holds"]:
            if k in o: seen["key " + k] += 1
        for k, v in o.items():
            if k in ("field", "let", "array", "repeat", "region", "switch", "pad", "lookup", "var", "struct", "directory") and isinstance(v, str):
                maxname = max(maxname, len(v))
            if k in ("check", "expr", "value", "write", "count", "size", "on", "when", "each", "first", "last", "align", "nnz", "with_columns", "compressed") and isinstance(v, str):
                expr_feats(v)
            if k == "args":
                for a in v: expr_feats(a)
            walk(v, path + "/" + (k if "region" not in o or k != "body" else "region"))
    elif isinstance(o, list):
        for x in o: walk(x, path)
EXPECTED = ["item " + k for k in ITEM_KEYS] + [
    "field int", "field int count", "field bytes", "field text", "field string", "field string count",
    "layout dense", "layout csr", "layout coo", "layout zeros", "layout columns", "lz4", "repeat count",
    "repeat until end", "repeat until tiled", "key unique", "key unique_as", "key block", "key when", "key write_key",
    "key encoding", "key warn", "key sidecar", "key read_only", "key detect", "key structs", "key dims", "key title",
    "key holds", "text_header in struct", "text_header in region", "names meeting in C", "string literal", "op []", "fn .size", "fn skipped_comments", "fn remaining", "fn offset"] + [
    "op " + o for o in ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "==", "!=", "<", "<=", ">", ">=", "&&",
                        "||", "?", "!", "~"]] + [
    "fn " + f for f in ["prod", "sum", "len", "sizeof", "roundup", "ceil_div", "min", "max", "rank", "dim", "count",
                        "elsize", "nbytes", "sparse", "narrays", "compress"]] + [
    "limit " + x for x in ["max_rank", "max_header_bytes", "max_total_bytes", "max_items", "max_decoded_bytes"]]


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    family = sys.argv[2] if len(sys.argv) > 2 else "any"
    first = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    for s in range(first, first + n):
        spec = specgen.make_spec(random.Random(s), "fz%d" % s, [], family)
        walk(spec)
        if c_affixed(spec): seen["names meeting in C"] += 1
    for k in sorted(seen):
        print("%-28s %d" % (k, seen[k]))
    print("longest name", maxname)
    missing = [k for k in EXPECTED if not seen[k]]
    print("missing:", " ".join(missing) if missing else "-")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
