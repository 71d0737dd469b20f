"""The C extension afmt._afmt for `pip install .` (pyproject.toml has the rest).

Its sources are the library itself, compiled in as docs/VENDORING.md says
(runtime/, every generated format, the registry), the few CLI files whose
rules the package shares with afmt-validate and afmt convert, and
python/src/.  The Makefile's `python` target compiles the same list.
"""
import glob
import os
import sys

from setuptools import Extension, setup

CLI_SHARED = ["cli/closest.c", "cli/identify.c", "cli/fail.c", "cli/out_format.c", "cli/visitor.c",
              "cli/signal_guard.c"]
SOURCES = (sorted(glob.glob("runtime/*/*.c")) + sorted(glob.glob("generated/*.c"))
           + ["registry/afmt_registry.c"] + CLI_SHARED + sorted(glob.glob("python/src/*.c")))

link_args = []
if sys.platform.startswith("linux"):
    # only PyInit__afmt is exported: the library inside stays private
    link_args.append("-Wl,--version-script=python/exports.map")

setup(
    ext_modules=[Extension(
        "afmt._afmt",
        sources=SOURCES,
        include_dirs=["runtime", "generated", "cli", "python/src"],
        extra_compile_args=["-std=c11", "-fvisibility=hidden"],
        extra_link_args=link_args,
        depends=sorted(glob.glob("runtime/*.h") + glob.glob("runtime/*/*.h") + glob.glob("python/src/*.h")),
    )],
    # setuptools' own build tree, away from the Makefile's objects in build/;
    # the 90-odd files compiled on every core (47 s on one here)
    options={"build": {"build_base": "build/setuptools"},
             "build_ext": {"parallel": os.cpu_count() or 1}},
)
