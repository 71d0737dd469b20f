#!/usr/bin/env python3
"""The spec fuzzer: random specs (fuzz/specs/specgen.py) through afmt-gen,
the C compilers and the generated code (docs/FUZZING.md, "The spec
fuzzer").

  fuzz/specs/specfuzz.py [--seconds N] [--seed S] [--count N] [--family F] [--build DIR] [--out DIR]

For each spec, until the time box (or --count specs) is used up:
  * afmt-gen refuses it with diagnostics that all name the spec's path
    (exit 1), or accepts it (exit 0); anything else (a crash, an internal
    error, exit 2) is a finding;
  * accepted: the C compiles with gcc and clang -std=c11 -pedantic -Wall
    -Wextra -Werror;
  * linked with fuzz/specs/driver.c and the runtime under ASan and UBSan:
    every file its writer writes for the driver's arrays has the size
    encoded_size said, validates strictly and reads back as written
    (driver write);
  * the validator, strict and lenient, on the writer's files, random bytes
    and mutants of the writer's files (fuzz/specs/mutate.py): no crash, no
    sanitizer report, no hang (driver validate);
  * when the reference interpreter is in the tree (interp/): it reports
    the same as the generated validator on every input (afmt_agree:
    verdict, code, field, offset, message, field reports, arrays,
    warnings, key-values), strict and lenient, with and without a
    visitor, and with one whose on_kv stops at a key-value (driver agree).
A finding is kept in OUT/findings/<kind>-<seed>/ (the spec, the inputs,
the logs); the run ends with one summary line and exits 1 if there was
one.  Same seed, same specs: `--seed S --count 1` replays one.
"""
import argparse
import concurrent.futures
import glob
import json
import os
import random
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import mutate  # noqa: E402
import specgen  # noqa: E402

SAN = ["-O1", "-g", "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-fno-omit-frame-pointer"]
WERROR = ["-std=c11", "-pedantic", "-Wall", "-Wextra", "-Werror"]
ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=0", UBSAN_OPTIONS="print_stacktrace=1")


def run(cmd, timeout=60, **kw):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout, env=ENV, **kw)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %d s" % timeout


def have_lz4():
    p = subprocess.run(["clang", "-E", "-"], input=b"#include <lz4.h>\n", stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return p.returncode == 0


def have_interp():
    """The reference interpreter (interp/, with afmt_agree) is in the tree."""
    return os.path.exists(os.path.join(ROOT, "interp", "afmt_agree.h"))


def prebuilt_archives(libs_dir):
    """The archives of a `make asan` build (libafmt.a: the runtime, the
    registry and the shipped formats, whose afmt_formats.c each spec's own
    replaces; libafmt-gen.a and libafmt-interp.a: afmt-gen's loader and the
    interpreter), compiled with these very flags (SAN), interpreter first;
    None when one is missing."""
    names = ["libafmt-interp.a", "libafmt-gen.a", "libafmt.a"]
    paths = [os.path.abspath(os.path.join(libs_dir, n)) for n in names]
    return paths if all(os.path.exists(p) for p in paths) else None


def build_driver(rt, feat, interp):
    """The driver's object (fuzz/specs/driver.c) under ASan + UBSan."""
    os.makedirs(rt, exist_ok=True)
    drv = os.path.join(rt, "driver.o")
    inc = ["-I" + os.path.join(ROOT, d) for d in ("runtime", "gen", "interp")]
    rc, _, err = run(["clang", "-std=c11"] + SAN + feat + inc + (["-DSPECFUZZ_INTERP"] if interp else []) +
                     ["-c", os.path.join(HERE, "driver.c"), "-o", drv], 300)
    if rc != 0:
        sys.exit("specfuzz: cannot build the driver: " + err[:500])
    return drv


def build_runtime(out, libs_dir=None):
    """The runtime and the registry under ASan + UBSan, and the driver:
    built again when a source is newer.  With the interpreter in the tree,
    it and afmt-gen's loader too (the driver's `agree`).  Returns the
    archives (the interpreter's first), the driver's object, the feature
    flags and whether the interpreter is in.  libs_dir: a `make asan`
    build whose archives serve instead (CI: they are built already, and
    building them again took a minute and a half)."""
    if libs_dir:
        archives = prebuilt_archives(libs_dir)
        if archives is None:
            sys.exit("specfuzz: --libs %s: no libafmt.a, libafmt-gen.a and libafmt-interp.a there "
                     "(make asan builds them in build/asan)" % libs_dir)
        feat = ["-DAFMT_HAVE_LZ4=1"] if have_lz4() else []
        return archives, build_driver(os.path.join(out, "rt"), feat, have_interp()), feat, have_interp()
    rt = os.path.join(out, "rt")
    lib = os.path.join(rt, "librt.a")
    # runtime/ holds a folder per part (runtime/README.md)
    srcs = sorted(glob.glob(os.path.join(ROOT, "runtime", "**", "*.c"), recursive=True))
    srcs += [os.path.join(ROOT, "registry", "afmt_registry.c")]
    interp = have_interp()
    isrcs = []
    if interp:
        isrcs = sorted(glob.glob(os.path.join(ROOT, "interp", "*.c")))
        isrcs += [f for f in sorted(glob.glob(os.path.join(ROOT, "gen", "*.c"))) if not f.endswith("/main.c")]
        isrcs += [os.path.join(ROOT, "generated", "gen", "expr_lexer.c")]
    hdrs = glob.glob(os.path.join(ROOT, "runtime", "**", "*.h"), recursive=True) + glob.glob(os.path.join(ROOT, "gen", "*.h"))
    hdrs += glob.glob(os.path.join(ROOT, "interp", "*.h"))
    drv = os.path.join(rt, "driver.o")
    ilib = os.path.join(rt, "libinterp.a")
    newest = max(os.path.getmtime(f) for f in srcs + isrcs + hdrs + [os.path.join(HERE, "driver.c")])
    feat = ["-DAFMT_HAVE_LZ4=1"] if have_lz4() else []
    inc = ["-I" + os.path.join(ROOT, d) for d in ("runtime", "gen", "interp")]
    posix = ["-D_POSIX_C_SOURCE=200809L", "-D_DEFAULT_SOURCE"]
    libs = [lib] + ([ilib] if interp else [])
    if all(os.path.exists(f) and os.path.getmtime(f) > newest for f in libs + [drv]):
        return libs[::-1], drv, feat, interp
    os.makedirs(rt, exist_ok=True)

    def compile_one(src, flags):
        o = os.path.join(rt, os.path.basename(os.path.dirname(src)) + "_" + os.path.basename(src)[:-2] + ".o")
        rc, _, err = run(["clang", "-std=c11"] + SAN + feat + flags + inc + ["-c", src, "-o", o], 300)
        return src, o, rc, err

    def compile_all(files, archive, flags):
        # one compile per core: about 150 files under the sanitizers took
        # a CI minute or more one at a time
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            done = list(pool.map(lambda src: compile_one(src, flags), files))
        objs = []
        for src, o, rc, err in done:
            if rc != 0:
                sys.exit("specfuzz: cannot build %s: %s" % (src, err[:500]))
            objs.append(o)
        if os.path.exists(archive):
            os.remove(archive)
        run(["ar", "rcs", archive] + objs)

    compile_all(srcs, lib, [])
    if interp:
        compile_all(isrcs, ilib, posix)
    build_driver(rt, feat, interp)
    return libs[::-1], drv, feat, interp


class Fuzzer:
    def __init__(self, args):
        self.args = args
        self.out = os.path.abspath(args.out)
        self.gen = os.path.abspath(os.path.join(args.build, "afmt-gen"))
        # the interpreter's archives first: they need the runtime after them
        self.archives, self.drv, self.feat, self.interp = build_runtime(self.out, args.libs)
        self.libs = ["-llz4"] if self.feat else []
        self.libs += (["-ljansson"] if self.interp else []) + ["-lm", "-ldl", "-lpthread"]
        self.stats = dict(specs=0, accepted=0, rejected=0, compiled=0, written=0, inputs=0, compared=0, findings=0)
        self.kinds = {}

    def finding(self, kind, seed, work, what):
        self.stats["findings"] += 1
        self.kinds[kind] = self.kinds.get(kind, 0) + 1
        dest = os.path.join(self.out, "findings", "%s-%d" % (kind, seed))
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(work, dest, ignore=shutil.ignore_patterns("*.o", "driver"))
        with open(os.path.join(dest, "FINDING.txt"), "w") as f:
            f.write("%s (seed %d)\n%s\n" % (kind, seed, what))
        print("FINDING %s seed %d: %s" % (kind, seed, what.strip().splitlines()[0][:300] if what.strip() else ""))

    def one(self, seed):
        rng = random.Random(seed)
        fmt = "fz%d" % (seed % 10 ** 8)
        work = os.path.join(self.out, "work")
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        spec_path = os.path.join(work, fmt + ".json")
        samples = []
        with open(spec_path, "w") as f:
            json.dump(specgen.make_spec(rng, fmt, samples, self.args.family), f, indent=1)
        self.stats["specs"] += 1
        gen = os.path.join(work, "gen")
        rc, out, err = run([self.gen, "-o", gen, spec_path], 60)
        if rc == 1:
            self.stats["rejected"] += 1
            bad = [ln for ln in err.splitlines() if ln and not ln.startswith(spec_path + ": ")
                   and not ln.startswith("afmt-gen: nothing written to ")]
            if bad or not err.strip():
                self.finding("diagnostic", seed, work, "a rejection without the spec's path:\n" + err)
            return
        if rc != 0:
            self.finding("afmt-gen", seed, work, "afmt-gen exit %s:\n%s" % (rc, err))
            return
        self.stats["accepted"] += 1
        csrc = os.path.join(gen, fmt + ".c")
        inc = ["-I" + os.path.join(ROOT, "runtime"), "-I" + gen]
        rc, _, err = run(["gcc"] + WERROR + ["-fsyntax-only"] + inc + [csrc], 120)
        if rc != 0:
            self.finding("compile-gcc", seed, work, "gcc -Werror:\n" + err[:4000])
            return
        # clang -Werror, and the object the sanitizer build links
        obj = os.path.join(work, fmt + ".o")
        rc, _, err = run(["clang"] + WERROR + SAN + self.feat + inc + ["-c", csrc, "-o", obj], 120)
        if rc != 0:
            self.finding("compile-clang", seed, work, "clang -Werror:\n" + err[:4000])
            return
        self.stats["compiled"] += 1
        exe = os.path.join(work, "driver")
        rc, _, err = run(["clang", "-std=c11"] + SAN + self.feat + inc + [obj, os.path.join(gen, "afmt_formats.c"), self.drv] +
                         self.archives + ["-o", exe] + self.libs, 300)
        if rc != 0:
            self.finding("link", seed, work, err[:4000])
            return
        written_dir = os.path.join(work, "written")
        os.makedirs(written_dir)
        rc, out, err = run([exe, "write", written_dir], 60)
        if rc != 0:
            self.finding("writer" if rc == 1 else "writer-crash", seed, work,
                         "driver write exit %s:\n%s\n%s" % (rc, out[-3000:], err[-3000:]))
            return
        written = sorted(glob.glob(os.path.join(written_dir, "*.bin")))
        self.stats["written"] += len(written)
        self.inputs(seed, rng, work, exe, written, samples)

    def inputs(self, seed, rng, work, exe, written, samples):
        """The writer's files (at most 8), the spec's sample files (made
        by specgen for specs no writer writes), random bytes, mutants."""
        idir = os.path.join(work, "inputs")
        os.makedirs(idir)
        datas = [open(p, "rb").read() for p in written[:8]] + samples
        ins = list(datas)
        ins += [mutate.random_bytes(rng) for _ in range(4)]
        for _ in range(self.args.mutants):
            if datas:
                d = rng.choice(datas)
                for _ in range(rng.randint(1, 3)):
                    d = mutate.mutant(rng, d)
                ins.append(d)
        paths = []
        for i, d in enumerate(ins):
            p = os.path.join(idir, "in%03d.bin" % i)
            with open(p, "wb") as f:
                f.write(d)
            paths.append(p)
        self.stats["inputs"] += len(paths)
        rc, out, err = run([exe, "validate"] + paths, 120)
        if rc != 0:
            self.finding("validator-crash" if rc is not None else "validator-hang", seed, work,
                         "driver validate exit %s:\n%s" % (rc, err[-4000:]))
            return
        if self.interp:
            self.compare(seed, work, exe, paths)

    def compare(self, seed, work, exe, paths):
        """The interpreter against the generated validator, input by input
        (afmt_agree: verdict, error, fields, views, warnings; strict and
        lenient, with and without a visitor, a visitor stopping at a
        key-value)."""
        spec_path = glob.glob(os.path.join(work, "*.json"))[0]
        rc, out, err = run([exe, "agree", spec_path] + paths, 300)
        if rc == 0:
            self.stats["compared"] += len(paths)
        elif rc == 1 and "DISAGREE" in out:
            self.stats["compared"] += len(paths)
            self.finding("disagree", seed, work, "\n".join(ln for ln in out.splitlines() if ln.startswith("DISAGREE"))[:4000])
        elif rc == 1:
            self.finding("interp-refuses", seed, work, "the interpreter refuses a spec afmt-gen accepts:\n" + err[-3000:])
        else:
            self.finding("interp-crash" if rc is not None else "interp-hang", seed, work,
                         "driver agree exit %s:\n%s" % (rc, err[-4000:]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=float(os.environ.get("FUZZ_SPECS_SECONDS", "75")))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("FUZZ_SPECS_SEED", "0")) or int(time.time()))
    ap.add_argument("--count", type=int, default=int(os.environ.get("FUZZ_SPECS_COUNT", "0")),
                    help="stop after this many specs (0: the time box only)")
    ap.add_argument("--family", choices=specgen.FAMILIES, default=os.environ.get("FUZZ_SPECS_FAMILY", "any"),
                    help="any spec (default), or only GGUF-like ones (directory)")
    ap.add_argument("--mutants", type=int, default=24, help="mutants of the writer's files per spec")
    ap.add_argument("--build", default=os.environ.get("BUILD", "build"))
    ap.add_argument("--out", default=None)
    ap.add_argument("--libs", default=os.environ.get("FUZZ_SPECS_LIBS") or None,
                    help="link the archives of this `make asan` build (build/asan) instead of building the runtime")
    args = ap.parse_args()
    os.chdir(ROOT)
    if args.out is None:
        args.out = os.path.join(args.build, "specfuzz")
    built = time.time()
    fz = Fuzzer(args)
    # the time box is the fuzzing's: building the runtime under the
    # sanitizers (a minute or more on a fresh tree) once left CI's 75 s
    # with no spec checked at all
    start = time.time()
    print("specfuzz: seed %d, %s s%s, interpreter: %s (runtime built in %.0f s)" % (
          args.seed, args.seconds, ", %d specs" % args.count if args.count else "",
          "interp/ (afmt_agree)" if fz.interp else "not in this tree", start - built))
    i = 0
    while (i == 0 or time.time() - start < args.seconds) and (not args.count or i < args.count):
        fz.one(args.seed + i)
        i += 1
    s = fz.stats
    print("specfuzz: %d specs in %.0f s (seeds %d..%d): %d accepted, %d rejected with diagnostics, %d compiled "
          "-Werror (gcc, clang), %d files written and validated, %d inputs validated, %d compared with the "
          "interpreter; %d findings%s" % (s["specs"], time.time() - start, args.seed, args.seed + i - 1, s["accepted"],
                                          s["rejected"], s["compiled"], s["written"], s["inputs"], s["compared"],
                                          s["findings"], (" " + json.dumps(fz.kinds)) if fz.kinds else ""))
    return 1 if s["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
