#!/usr/bin/env python3
"""The runtime files a vendored format needs, and a copy of just those
(make vendor VENDOR_FORMATS=... VENDOR_DIR=...; docs/VENDORING.md).

    tools/runtime_parts.py --build BUILD [--copy DIR] FORMAT...

Which .c files: found from the compiled objects of a build (BUILD/obj),
not guessed.  The roots are the formats' own objects (and those of the
formats their archive members are: npz's are npy's) and every file of
the parts any program of the public API calls into: common/ (errors),
io/ (sources, sinks, files), core/ (validation, views, finding an array)
and array/ (views, decoding to plain memory).  Then, until nothing is
added, the runtime object defining each symbol a chosen object leaves
undefined (nm).  So npy takes text/ (its header) but no archive/, pickle/
or model/; torch takes archive/ and pickle/ but no text/afmt_cards.c.

Which headers: every one (afmt_internal.h, which generated code
includes, declares the whole runtime); they hold no code a build would
compile.  Calling the model-set or sidecar functions of afmt.h needs
model/ or text/ besides: vendor all of runtime/ then (docs/VENDORING.md).

Prints the runtime .c files chosen, one a line (paths under runtime/);
with --copy, fills DIR as docs/VENDORING.md's afmt/ folder: the headers,
those .c files (their runtime/ folders kept) and the formats' generated
<format>.{c,h}, and DIR/RUNTIME_PARTS.txt says what was taken.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RUNTIME = os.path.join(ROOT, "runtime")
GENERATED = os.path.join(ROOT, "generated")
# The parts whose every file is taken: what afmt.h's core API is made of.
BASE_PARTS = ("common", "io", "core", "array")


def fail(msg):
    sys.stderr.write("runtime_parts: %s\n" % msg)
    sys.exit(1)


def symbols(obj):
    """(defined, undefined) external symbols of an object file (nm -P)."""
    out = subprocess.run(["nm", "-P", "-g", obj], capture_output=True, text=True)
    if out.returncode != 0:
        fail("nm %s: %s" % (obj, out.stderr.strip()))
    defined, undefined = set(), set()
    for line in out.stdout.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        (undefined if f[1] in "Uw" else defined).add(f[0])
    return defined, undefined


def runtime_sources():
    """runtime/<part>/<file>.c, as paths relative to runtime/."""
    return sorted(os.path.join(d, n) for d in sorted(os.listdir(RUNTIME))
                  if os.path.isdir(os.path.join(RUNTIME, d))
                  for n in os.listdir(os.path.join(RUNTIME, d)) if n.endswith(".c"))


def member_formats(fmt, seen):
    """fmt and, first, the formats its generated .c includes (npz: npy)."""
    if fmt in seen:
        return []
    seen.add(fmt)
    src = os.path.join(GENERATED, fmt + ".c")
    if not os.path.isfile(src):
        fail("%s: no generated/%s.c (only shipped formats; vendor all of runtime/ for your own)" % (fmt, fmt))
    out = []
    with open(src, encoding="utf-8") as f:
        for dep in re.findall(r'^#include "([a-z0-9_]+)\.h"$', f.read(), re.M):
            if dep != fmt and os.path.isfile(os.path.join(GENERATED, dep + ".c")):
                out += member_formats(dep, seen)
    return out + [fmt]


def needed(build, formats):
    """The runtime .c files (relative to runtime/) the formats need."""
    sources = runtime_sources()
    syms = {}
    for s in sources:
        obj = os.path.join(build, "obj", "runtime", s[:-2] + ".o")
        if not os.path.isfile(obj):
            fail("no %s: build first (make)" % obj)
        syms[s] = symbols(obj)
    where = {}
    for s, (defined, _) in syms.items():
        for name in defined:
            where[name] = s
    chosen, todo = set(), []
    for fmt in formats:
        obj = os.path.join(build, "obj", "generated", fmt + ".o")
        if not os.path.isfile(obj):
            fail("no %s: build first (make)" % obj)
        todo += symbols(obj)[1]
    for s in sources:
        if s.split(os.sep)[0] in BASE_PARTS:
            chosen.add(s)
            todo += syms[s][1]
    while todo:
        s = where.get(todo.pop())
        if s is not None and s not in chosen:
            chosen.add(s)
            todo += syms[s][1]
    return sorted(chosen)


def copy(dest, formats, chosen):
    os.makedirs(dest, exist_ok=True)
    headers = [n for n in os.listdir(RUNTIME) if n.endswith(".h")]
    headers += [os.path.join(d, n) for d in os.listdir(RUNTIME) if os.path.isdir(os.path.join(RUNTIME, d))
                for n in os.listdir(os.path.join(RUNTIME, d)) if n.endswith(".h")]
    for rel in sorted(headers) + chosen:
        os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
        shutil.copy(os.path.join(RUNTIME, rel), os.path.join(dest, rel))
    for fmt in formats:
        for ext in (".c", ".h"):
            shutil.copy(os.path.join(GENERATED, fmt + ext), dest)
    left = [s for s in runtime_sources() if s not in chosen]
    with open(os.path.join(dest, "RUNTIME_PARTS.txt"), "w", encoding="utf-8") as f:
        f.write("afmt runtime parts for %s (tools/runtime_parts.py): every header, and the\n"
                "%d of %d .c files these formats call into; not taken: %s\n"
                % (" ".join(formats), len(chosen), len(chosen) + len(left), " ".join(left) or "none"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", required=True, help="the build folder holding obj/ (make's BUILD)")
    ap.add_argument("--copy", help="fill this folder with the headers, those files and the formats")
    ap.add_argument("formats", nargs="+")
    args = ap.parse_args()
    seen, formats = set(), []
    for fmt in args.formats:
        formats += member_formats(fmt, seen)
    chosen = needed(args.build, formats)
    if args.copy:
        copy(args.copy, formats, chosen)
    for s in chosen:
        print(s)


if __name__ == "__main__":
    main()
