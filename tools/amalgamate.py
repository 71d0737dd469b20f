#!/usr/bin/env python3
"""afmt's amalgamation: the runtime, the chosen formats and the format
registry as one afmt.c and one afmt.h, to vendor as zstd's and sqlite's
single files are vendored (make amalgamate FORMATS=...; docs/VENDORING.md).

    tools/amalgamate.py --gen DIR --out DIR [FORMAT...]

DIR given to --gen holds what afmt-gen wrote for the formats
(<format>.c, <format>.h and afmt_formats.c, the registry's table of
just those); the sources of the runtime are runtime/ and registry/ beside
this script's folder.

afmt.h is runtime/afmt.h then each <format>.h, their includes of afmt.h
dropped.  afmt.c is the POSIX feature macro (first, before any system
header: three runtime files need POSIX and say so themselves, which in
one file only the first line can), afmt.h, then every internal header
once where it is first included, then each .c file:

  - a macro a .c file defines is #undef'd after it: file-local macros
    (NAME_CAP, PIECE) stay file-local;
  - every static function and variable of a .c file (put, at,
    field_magic, which several files define) is renamed FILE__NAME in
    that file, except after '.' or '->' (a member of a struct keeps its
    name), so that no two files clash and none shadows another's
    (-Wshadow); so is a type a .c file defines (walker, value, ctx) unless
    a header names it; nothing else is touched;
  - afmt_fileio.c's copy_file_range path is left out
    (AFMT_NO_COPY_FILE_RANGE: its declaration needs _GNU_SOURCE, which
    would change strerror_r for every other file): OUT files are then
    written with write() alone.

Every file is marked with #line, so a compiler's messages name the source
file and line.  Nothing is guessed: a construct this script does not know
(an include of a local header that is not there) is an error.
"""
import argparse
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RUNTIME = os.path.join(ROOT, "runtime")
REGISTRY = os.path.join(ROOT, "registry", "afmt_registry.c")

# The include block afmt-gen writes (a header beside the file, else an
# installed afmt's): one include in the amalgamation.
GEN_INCLUDE = re.compile(
    r'#if defined\(__has_include\)\n#if __has_include\("(?P<h>[\w.]+)"\)\n#include "(?P=h)"\n'
    r'#else\n#include <afmt/(?P=h)>\n#endif\n#else\n#include "(?P=h)"\n#endif\n')
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$')
DEFINE = re.compile(r'^\s*#\s*define\s+([A-Za-z_]\w*)')
# The feature macros the three POSIX files set for themselves
FEATURE = re.compile(r'^\s*#\s*(define|undef)\s+_(POSIX_C|GNU|DEFAULT|XOPEN)_SOURCE\b|'
                     r'^\s*#\s*if !defined\(_POSIX_C_SOURCE\) \|\| _POSIX_C_SOURCE < 200809L\s*$')
# C tokens that hold no identifier to rename: comments, strings, chars,
# and the names of included files
SKIP = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|'
                  r'^[ \t]*#[ \t]*include[^\n]*', re.S | re.M)
STATIC_FN = re.compile(r'^static\s[^(=;]*?\b([A-Za-z_]\w*)\s*\(', re.M)
STATIC_VAR = re.compile(r'^static\s[^(=;]*?\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)*(?:=|;)', re.M)
STATIC_TYPE = re.compile(r'^(?:typedef\s+)?(?:struct|union|enum)\s+([A-Za-z_]\w*)\s*\{', re.M)
TYPEDEF_END = re.compile(r'^\}\s*([A-Za-z_]\w*)\s*;', re.M)


HEADER_BEGIN = ("#if defined(__clang__)\n#pragma clang diagnostic push\n"
                "#pragma clang diagnostic ignored \"-Wunused-function\"\n#endif\n")
HEADER_END = "#if defined(__clang__)\n#pragma clang diagnostic pop\n#endif\n"


def fail(msg):
    sys.stderr.write("amalgamate: %s\n" % msg)
    sys.exit(1)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def file_statics(text):
    """The names a .c file defines for itself: its static functions and
    variables."""
    code = SKIP.sub(" ", text)
    return set(STATIC_FN.findall(code)) | set(STATIC_VAR.findall(code))


def file_types(text):
    """The struct, union, enum and typedef names a .c file defines."""
    code = SKIP.sub(" ", text)
    return set(STATIC_TYPE.findall(code)) | set(TYPEDEF_END.findall(code))


def struct_bodies(text):
    """The [start, end) spans of the struct and union bodies in text
    (whose braces are counted outside comments and strings)."""
    code = SKIP.sub(lambda m: " " * len(m.group(0)), text)
    spans = []
    for m in re.finditer(r"\b(?:struct|union)\b\s*\w*\s*\{", code):
        depth, i = 0, m.end() - 1
        while i < len(code):
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            if depth == 0:
                break
            i += 1
        spans.append((m.end(), i))
    return spans


def rename(text, names, types, prefix):
    """Each identifier in names (or in types, which names includes) as
    prefix + name, outside comments, strings, include lines and member
    accesses; inside a struct or union body only types are renamed, its
    members keeping their names."""
    if not names:
        return text
    ident = re.compile(r'(?<![\w.])(?<!->)\b(%s)\b' % "|".join(sorted(names, key=len, reverse=True)))
    spans = struct_bodies(text)
    skips = [(m.start(), m.end()) for m in SKIP.finditer(text)]

    def inside(pos, ranges):
        return any(a <= pos < b for a, b in ranges)

    def sub(m):
        name, pos = m.group(1), m.start(1)
        if inside(pos, skips) or (name not in types and inside(pos, spans)):
            return name
        return prefix + name
    return ident.sub(sub, text)


class Amalgamation:
    def __init__(self, gen_dir):
        self.gen_dir = gen_dir
        self.done = set()  # headers inlined already (and afmt.h, in afmt.h)
        self.out = []

    def find(self, name, includer):
        for d in (os.path.dirname(includer), RUNTIME, self.gen_dir):
            # normalised: runtime/core/../afmt.h is runtime/afmt.h, included once
            p = os.path.normpath(os.path.join(d, name))
            if os.path.isfile(p):
                return p
        if os.path.isfile(os.path.join(ROOT, "spec", name[:-2] + ".json")):
            fail("%s includes %s (its format is read through %s's): FORMATS needs %s too"
                 % (os.path.basename(includer), name, name[:-2], name[:-2]))
        fail("%s: no such header beside it, in runtime/ or in %s" % (name, self.gen_dir))

    def emit(self, path, text=None, undef=False):
        """path's text, its local includes inlined once, after a #line.  A
        header's static inline helpers are the file's own now: clang, which
        says nothing of an unused one in a header, would (-Wunused-function)."""
        text = GEN_INCLUDE.sub(lambda m: '#include "%s"\n' % m.group("h"), read(path) if text is None else text)
        rel = os.path.relpath(path, ROOT) if path.startswith(ROOT) else os.path.basename(path)
        header = path.endswith(".h")
        if header:
            self.out.append(HEADER_BEGIN)
        self.emit_lines(path, rel, text, undef)
        if header:
            self.out.append(HEADER_END)

    def emit_lines(self, path, rel, text, undef):
        self.out.append('#line 1 "%s"\n' % rel)
        defined = []
        for n, line in enumerate(text.splitlines(True), 1):
            m = INCLUDE.match(line)
            if m:
                h = self.find(m.group(1), path)
                if h not in self.done:
                    self.done.add(h)
                    self.emit(h)
                self.out.append('#line %d "%s"\n' % (n + 1, rel))
                continue
            if FEATURE.match(line):
                self.out.append("/* (feature macro: set once, first) */\n" if "#if" not in line else "#if 0\n")
                continue
            d = DEFINE.match(line)
            if d and undef:
                defined.append(d.group(1))
            self.out.append(line)
        if not text.endswith("\n"):
            self.out.append("\n")
        for name in dict.fromkeys(defined):
            self.out.append("#undef %s\n" % name)


def build_header(formats, gen_dir):
    lines = ["/* afmt.h: the amalgamation of afmt's public API and the formats %s,\n"
             " * made by tools/amalgamate.py (make amalgamate).  Do not edit: make it\n"
             " * again.  Compile afmt.c with it; see docs/VENDORING.md. */\n" % ", ".join(formats)]
    lines.append(read(os.path.join(RUNTIME, "afmt.h")))
    for f in formats:
        text = GEN_INCLUDE.sub("", read(os.path.join(gen_dir, f + ".h")))
        if re.search(r'^\s*#\s*include\s+"', text, re.M):
            fail("%s.h includes a header the amalgamation does not know" % f)
        lines.append("\n" + text)
    return "".join(lines)


def build_source(formats, gen_dir):
    sources = sorted(glob.glob(os.path.join(RUNTIME, "*", "*.c")))
    sources += [os.path.join(gen_dir, f + ".c") for f in formats]
    sources += [os.path.join(gen_dir, "afmt_formats.c"), REGISTRY]
    texts = {p: read(p) for p in sources}
    # a .c file's own types are renamed, but those a header names (a .c
    # file completing a header's opaque struct keeps its name)
    headers = sorted(glob.glob(os.path.join(RUNTIME, "*.h")) + glob.glob(os.path.join(RUNTIME, "*", "*.h")))
    headers += [os.path.join(gen_dir, f + ".h") for f in formats]
    header_types = file_types("".join(read(h) for h in headers))
    header_types |= set(re.findall(r"\b(?:struct|union|enum)\s+(\w+)",
                                   SKIP.sub(" ", "".join(read(h) for h in headers))))
    a = Amalgamation(gen_dir)
    a.done.add(os.path.join(RUNTIME, "afmt.h"))
    for f in formats:
        a.done.add(os.path.join(gen_dir, f + ".h"))
    a.out.append("/* afmt.c: the amalgamation of afmt's runtime, the formats %s and\n"
                 " * the format registry, made by tools/amalgamate.py (make amalgamate).\n"
                 " * Do not edit: make it again.  Build it with afmt.h beside it:\n"
                 " *   cc -std=c11 -c afmt.c\n"
                 " * Three parts of the runtime use POSIX (files, the file sink): hence the\n"
                 " * feature macro first, for every part at once. */\n" % ", ".join(formats))
    a.out.append("#if !defined(_POSIX_C_SOURCE) || _POSIX_C_SOURCE < 200809L\n#undef _POSIX_C_SOURCE\n"
                 "#define _POSIX_C_SOURCE 200809L\n#endif\n"
                 "/* copy_file_range needs _GNU_SOURCE, which would change strerror_r for\n"
                 " * the other parts: OUT files are written with write() alone */\n"
                 "#define AFMT_NO_COPY_FILE_RANGE 1\n"
                 '#include "afmt.h"\n')
    for p in sources:
        stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(p))[0])
        types = file_types(texts[p]) - header_types
        a.emit(p, rename(texts[p], file_statics(texts[p]) | types, types, stem + "__"), undef=True)
    return "".join(a.out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--gen", required=True, help="what afmt-gen wrote for the formats")
    ap.add_argument("--out", required=True, help="the folder afmt.c and afmt.h go to")
    ap.add_argument("formats", nargs="*", help="the formats (default: every one in --gen)")
    args = ap.parse_args()
    if not args.formats:
        args.formats = sorted(n[:-2] for n in os.listdir(args.gen)
                              if n.endswith(".h") and os.path.isfile(os.path.join(args.gen, n[:-2] + ".c")))
    for f in args.formats:
        for ext in (".c", ".h"):
            if not os.path.isfile(os.path.join(args.gen, f + ext)):
                fail("%s: no %s%s in %s (run afmt-gen on its spec first)" % (f, f, ext, args.gen))
    if not os.path.isfile(os.path.join(args.gen, "afmt_formats.c")):
        fail("no afmt_formats.c in %s" % args.gen)
    os.makedirs(args.out, exist_ok=True)
    for name, text in (("afmt.h", build_header(args.formats, args.gen)),
                       ("afmt.c", build_source(args.formats, args.gen))):
        tmp = os.path.join(args.out, name + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, os.path.join(args.out, name))
    print("amalgamate: %s/afmt.c and afmt.h (%s)" % (args.out, ", ".join(args.formats)))


if __name__ == "__main__":
    main()
