# afmt: everything is reachable from make.  `make help` lists the targets.
#
# Layout: spec/ -> (build/afmt-gen) -> generated/ ; runtime/ + generated/ +
# cli/ -> build/afmt-validate, build/afmt.  generated/ is committed so users
# can build without jansson or re2c; `make check-regen` keeps it honest.

CC      ?= cc
# Quiet by default, as kbuild is: a line per target ("  CC      x.o");
# make V=1 prints the commands instead.
V ?= 0
ifeq ($(V),1)
  Q :=
  say =
else
  Q := @
  say = printf '  %-7s %s\n' '$(1)' '$(2)';
endif
# The library (runtime/, registry/, generated/) is plain ISO C11: a file
# that needs POSIX defines _POSIX_C_SOURCE itself, so a vendored copy builds
# with `cc -std=c11 -pedantic` and no -D flag (docs/VENDORING.md).  The
# CLI, afmt-gen, the tests and the fuzz harness are POSIX programs.
STD     := -std=c11
POSIX   := -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE
WARN    := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
# The library exports only what its headers mark AFMT_API (the public API)
# or AFMT_GEN_API (what generated code calls): runtime/afmt.h.
LIB_CFLAGS = $(STD) -pedantic $(WARN) $(CFLAGS) -fvisibility=hidden -Iruntime -Igenerated
ALL_CFLAGS = $(STD) $(POSIX) $(WARN) $(CFLAGS) -Iruntime -Igenerated
# Hot scan loops in the runtime are compiled at -O3 so they vectorise
# (BENCH-NOTES: plain -O2 byte loops run at a sixth of memory speed).
SCAN_CFLAGS = -O3
BUILD   ?= build
RE2C    ?= re2c
# re2c's output is committed: no date or version in it (reproducible),
# warnings on, no #line directives (the .c reads as code, not as the .re).
RE2C_FLAGS := -W -i --no-generation-date --no-version

HAVE_LZ4 := $(shell printf '\#include <lz4.h>\n' | $(CC) -E - >/dev/null 2>&1 && echo 1)
ifeq ($(HAVE_LZ4),1)
  FEATURE_CFLAGS += -DAFMT_HAVE_LZ4=1
  FEATURE_LIBS += -llz4
endif
# libarchive is not linked: afmt-validate opens it when it meets a tar
# shard (cli/libarchive.h), so a start costs no more than it must.
CLI_LIBS := -ldl -ljansson

SPECS         := $(sort $(wildcard spec/*.json))
# runtime/: afmt.h and afmt_internal.h at its top, each part of the
# runtime in a folder of its own (runtime/README.md).  Its .c files
# include the re2c output of its .re files (committed beside their
# source, so that copying runtime/ brings every .c).
RUNTIME_SRC   := $(sort $(wildcard runtime/*/*.c))
RUNTIME_RE    := $(sort $(wildcard runtime/*/*.re))
# Format lookup (afmt_format_by_name, _detect): optional for vendoring.
REGISTRY_SRC  := registry/afmt_registry.c
GENERATED_SRC := $(sort $(wildcard generated/*.c))
# afmt-gen shares the runtime's dtype table (one list of element types).
GEN_SRC       := $(sort $(wildcard gen/*.c)) generated/gen/expr_lexer.c runtime/common/afmt_dtype.c
CLI_COMMON    := $(filter-out cli/afmt_validate_main.c cli/afmt_main.c,$(sort $(wildcard cli/*.c)))
# The reference interpreter of the spec language (interp/): it loads specs
# with afmt-gen's own loader and checks, so afmt-gen's objects but its
# command line are a library both link (libafmt-gen.a, needs jansson).
INTERP_SRC    := $(sort $(wildcard interp/*.c))

RUNTIME_OBJ   := $(RUNTIME_SRC:%.c=$(BUILD)/obj/%.o)
GENERATED_OBJ := $(GENERATED_SRC:%.c=$(BUILD)/obj/%.o)
REGISTRY_OBJ  := $(REGISTRY_SRC:%.c=$(BUILD)/obj/%.o)
GEN_OBJ       := $(GEN_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ       := $(CLI_COMMON:%.c=$(BUILD)/obj/%.o)
GEN_LIB_OBJ   := $(filter-out $(BUILD)/obj/gen/main.o $(BUILD)/obj/runtime/%,$(GEN_OBJ))
INTERP_OBJ    := $(INTERP_SRC:%.c=$(BUILD)/obj/%.o)
GEN_LIB       := $(BUILD)/libafmt-gen.a
INTERP_LIB    := $(BUILD)/libafmt-interp.a
# libafmt.a: the runtime, the shipped formats and the registry, nothing of
# the CLI (that is libafmt-cli.a, linked only into the tools).
LIB           := $(BUILD)/libafmt.a
CLI_LIB       := $(BUILD)/libafmt-cli.a

# libafmt.so: the same objects as libafmt.a, compiled -fPIC under
# $(BUILD)/pic/.  The soname's number is the runtime ABI (AFMT_RUNTIME_ABI,
# which generated code is pinned to); the file adds the release's
# minor.patch: libafmt.so -> libafmt.so.ABI -> libafmt.so.ABI.MINOR.PATCH.
version_part = $(shell sed -n 's/^\#define $(1) \(.*\)$$/\1/p' runtime/afmt.h)
VERSION       := $(patsubst "%",%,$(call version_part,AFMT_VERSION_STRING))
ABI           := $(call version_part,AFMT_RUNTIME_ABI)
SONAME        := libafmt.so.$(ABI)
SHLIB_NAME    := $(SONAME).$(call version_part,AFMT_VERSION_MINOR).$(call version_part,AFMT_VERSION_PATCH)
SHLIB         := $(BUILD)/$(SHLIB_NAME)
PIC_OBJ       := $(RUNTIME_SRC:%.c=$(BUILD)/pic/%.o) $(GENERATED_SRC:%.c=$(BUILD)/pic/%.o) \
                 $(REGISTRY_SRC:%.c=$(BUILD)/pic/%.o)

# make EXTRA_SPECS=DIR: afmt and afmt-validate also know every DIR/*.json.
# afmt-gen writes all formats (spec/ and DIR) into $(BUILD)/extra/gen; the
# extra formats and the registry table are compiled there, the shipped ones
# reuse their objects.  spec/ and generated/ are not touched.  The tools
# record which build they are ($(BUILD)/tools.variant), so a plain `make`
# afterwards links them again from the standard library.
EXTRA_SPECS   ?=
ifneq ($(strip $(EXTRA_SPECS)),)
  EXTRA_JSON  := $(sort $(wildcard $(EXTRA_SPECS)/*.json))
  ifeq ($(EXTRA_JSON),)
    $(error EXTRA_SPECS=$(EXTRA_SPECS): no *.json there)
  endif
  # make install installs the standard build only; refuse before building.
  ifneq ($(filter install,$(MAKECMDGOALS)),)
    $(error make install: not with EXTRA_SPECS (it installs the standard build); run make install without it)
  endif
  TOOLS_LIB   := $(BUILD)/extra/libafmt-extra.a
  VARIANT     := extra: $(abspath $(EXTRA_JSON))
else
  TOOLS_LIB   := $(LIB)
  VARIANT     := standard
endif

UNIT_SRC      := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN      := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

.PHONY: python all deps deps-test deps-venv deps-install demo regen check-regen snapshots test asan clean help bench fuzz fuzz-build fuzz-smoke fuzz-planted fuzz-cflite fuzz-merge fuzz-specs compilers vendor-test vendor amalgamate install uninstall FORCE

all: $(BUILD)/afmt-gen $(BUILD)/afmt-validate $(BUILD)/afmt $(UNIT_BIN) $(SHLIB)

help:
	@echo "make deps         install the missing Debian packages building needs (apt-get)"
	@echo "make deps-test    the same, and what testing and fuzzing need (make test, asan, fuzz), and build/venv (PyPI)"
	@echo "make demo         build, then check and describe the files in examples/"
	@echo "make all          build build/afmt-gen, build/afmt-validate, build/afmt, libafmt.a/.so"
	@echo "make EXTRA_SPECS=DIR  the same, afmt and afmt-validate also knowing DIR/*.json"
	@echo "make install      install tools, man pages, libafmt, headers, afmt.pc, CMake package (PREFIX, DESTDIR)"
	@echo "make uninstall    remove what make install installed (same PREFIX, DESTDIR)"
	@echo "make regen        regenerate generated/ from spec/*.json and gen/*.re"
	@echo "make check-regen  fail if generated/ is stale"
	@echo "make snapshots    accept afmt-gen's output for tests/specs/features/*.json as their .c/.h"
	@echo "make test         unit, golden, round-trip and end-to-end tests"
	@echo "make vendor-test  build runtime/ + one format as docs/VENDORING.md says (gcc, clang, g++)"
	@echo "make vendor       VENDOR_FORMATS's afmt/ folder with only the runtime files they use, in VENDOR_DIR"
	@echo "make amalgamate   one afmt.c and afmt.h of the runtime and FORMATS (default all) in AMALGAMATION"
	@echo "make asan         the tests under AddressSanitizer + UBSan (clang)"
	@echo "make compilers    build everything with gcc and clang, -Werror"
	@echo "make fuzz-build   build every fuzz target into build/fuzz/ (libFuzzer, ASan, UBSan)"
	@echo "make fuzz-smoke   run every fuzz target briefly on the corpus (CI)"
	@echo "make fuzz         fuzz for real: 10 minutes per target (FUZZ_SECONDS)"
	@echo "make fuzz-merge   minimise the grown corpora into corpus/grown/<format>/ (commit it)"
	@echo "make fuzz-cflite  build the fuzz targets as ClusterFuzzLite does, into a temp dir"
	@echo "make fuzz-planted show the CI fuzz time-box finds a planted bug (exit 0 found)"
	@echo "make fuzz-specs   random specs through afmt-gen, the compilers and the generated code (FUZZ_SPECS_SECONDS)"
	@echo "make bench        benchmarks with ratios against memcpy/cp baselines"
	@echo "make python       the Python package afmt (C extension) into build/python/ (docs/PYTHON.md)"
	@echo "make clean        remove build/"

# What building needs (make deps) and what testing and fuzzing need besides
# (make deps-test), on Debian 12, each for a reason.  Building:
#   gcc, make          the build
#   libjansson-dev     afmt-gen, and the tools' --spec (interp/ loads specs with afmt-gen's loader)
#   liblz4-dev         LZ4-compressed RawArray
#   libarchive13       tar shards: afmt-validate dlopens libarchive.so.13 (no headers)
#   libcurl4           afmt-validate URL dlopens libcurl.so.4 (no headers)
# Testing and fuzzing:
#   g++                the vendoring test compiles the headers as C++
#   clang              make compilers, make asan, the fuzz targets
#   libclang-rt-dev    clang's sanitizer and libFuzzer runtimes (make asan, fuzz-smoke):
#                      clang only recommends it, so a machine without recommends lacks it
#   pkg-config         the install test;  re2c: make regen / check-regen
#   cmake              the install test's find_package(afmt) project, and
#                      examples/build-systems (afmt_generate)
#   meson, ninja-build examples/build-systems' meson.build
#   afl++              fuzz-smoke's AFL++ run
#   python3, python3-numpy  golden cases, end-to-end tests, npy/safetensors against numpy
#   time               /usr/bin/time -v: the memory tests
#   parallel           test: docs/AT-SCALE.md's GNU parallel recipe, run locally
#   python3-jsonschema test: afmt-validate --sarif against a SARIF 2.1.0 schema
#   pre-commit, git    test: .pre-commit-hooks.yaml in a temporary repository
#   libsimdjson-dev    make bench only: the simdjson peer of the safetensors rows
#   strace             make bench only: system calls per file (benchmark 4)
#   libcfitsio-dev, libmatio-dev  make bench only: the FITS and MAT-file
#                      peers of benchmark 13 (cfitsio, matio; zlib comes with them)
#   nginx-light        test: a range-serving HTTP server for afmt-validate URL
#   python3-venv       build/venv (below)
# And from PyPI, tests/requirements.txt into the virtual environment
# build/venv (python3 -m venv with the python3 on PATH): real torch (the
# CPU build, pinned) writes and reads the PyTorch corpus of tests/torch,
# and numpy, safetensors, gguf, astropy, scipy, nibabel and sarif-tools
# are peers of the other formats; dask and distributed run AT-SCALE.md's
# Dask script on a local cluster.  A stamp (the requirements it was made
# from) makes a rerun free; if pip fails (PyPI unreachable) one line says
# so, the suites that need it SKIP, and deps-test still succeeds.
# Measured (2 shared cores, wheels from the local find-links and index):
# a fresh build/venv takes 52-58 s and is 1.4 GB (torch 754 MB, scipy 113,
# sympy 80, astropy 61; matplotlib comes with sarif-tools); a rerun 0.06 s.
# Measured on Debian 12 (apt-get --print-uris against an empty dpkg status,
# minus the closure of the Priority required/important base): make deps
# downloads 64 packages, 73.1 MB (27, 55.7 MB without recommends); make
# deps-test 184 packages, 255.8 MB (102, 168.4 MB), what make deps alone
# installed before the split (measured before libsimdjson-dev, strace, libcurl4 and nginx-light joined).
DEPS_PKGS := gcc make libjansson-dev liblz4-dev libarchive13 libcurl4
DEPS_TEST_PKGS := g++ clang libclang-rt-dev pkg-config cmake re2c afl++ python3 python3-numpy time \
             parallel python3-jsonschema pre-commit git libsimdjson-dev strace nginx-light python3-venv \
             meson ninja-build libcfitsio-dev libmatio-dev
# Not under $(BUILD): the suites of every build (make asan's too) share it.
VENV := build/venv
VENV_REQUIREMENTS := tests/requirements.txt
deps:
	@$(MAKE) --no-print-directory deps-install PKGS="$(DEPS_PKGS)"

# What testing and fuzzing need too (the README's test command runs it).
deps-test:
	@$(MAKE) --no-print-directory deps-install PKGS="$(DEPS_PKGS) $(DEPS_TEST_PKGS)"
	@$(MAKE) --no-print-directory deps-venv

# build/venv from tests/requirements.txt, unless its stamp says it is made
# from these requirements already.  pip's output goes to a log: a rerun
# or a success prints nothing, a failure one line.
deps-venv:
	@if cmp -s $(VENV_REQUIREMENTS) $(VENV)/afmt-requirements.txt; then exit 0; fi; \
	rm -rf $(VENV); mkdir -p $(dir $(VENV)); log=$(VENV).log; \
	if python3 -m venv $(VENV) > $$log 2>&1 && \
	   $(VENV)/bin/python -m pip install -qq --retries 2 --timeout 30 \
	       -r $(VENV_REQUIREMENTS) >> $$log 2>&1 && \
	   $(VENV)/bin/python -c 'import torch, numpy, safetensors' >> $$log 2>&1; then \
	  cp $(VENV_REQUIREMENTS) $(VENV)/afmt-requirements.txt; rm -f $$log; \
	else \
	  echo "deps: could not make $(VENV) from $(VENV_REQUIREMENTS) (PyPI unreachable? see $$log): the torch suite and the other PyPI peers will SKIP"; \
	fi

deps-install:
	@missing=""; for p in $(PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing; \
	else echo "deps: all present"; fi

# The README's first command: build, then what afmt does, on examples/.
demo: $(BUILD)/afmt-validate $(BUILD)/afmt
	@echo; echo '$$ afmt-validate examples/*.* examples/invalid/*    (every format; a few invalid files)'
	@$(BUILD)/afmt-validate examples/*.* examples/invalid/* || true
	@echo; echo '$$ afmt info examples/test.ra    (every header field: offset, width, value, doc)'
	@$(BUILD)/afmt info examples/test.ra
	@echo; echo '$$ afmt dump examples/i32_2x3.bin'
	@$(BUILD)/afmt dump examples/i32_2x3.bin
	@echo; echo '$$ afmt convert examples/f8_2x3.npy $(BUILD)/demo.ra && afmt dump $(BUILD)/demo.ra'
	@$(BUILD)/afmt convert examples/f8_2x3.npy $(BUILD)/demo.ra && $(BUILD)/afmt dump $(BUILD)/demo.ra
	@echo; echo 'Next: build/afmt --help and build/afmt-validate --help (their examples use examples/),'
	@echo '      README.md "Using it", docs/TUTORIAL.md (a format of your own),'
	@echo '      make deps-test && make test (every test).'

# ---------------------------------------------------------------- objects
$(BUILD)/obj/runtime/core/afmt_scan.o: runtime/core/afmt_scan.c
	@mkdir -p $(dir $@)
	$(Q)$(call say,CC,$@)$(CC) $(LIB_CFLAGS) $(SCAN_CFLAGS) $(FEATURE_CFLAGS) -c $< -o $@

$(BUILD)/obj/runtime/array/afmt_transpose.o: runtime/array/afmt_transpose.c
	@mkdir -p $(dir $@)
	$(Q)$(call say,CC,$@)$(CC) $(LIB_CFLAGS) $(SCAN_CFLAGS) $(FEATURE_CFLAGS) -MMD -MP -c $< -o $@

# The one-pass reader of map headers (safetensors): -O3 for its string scans.
$(BUILD)/obj/runtime/text/afmt_header_onepass.o: runtime/text/afmt_header_onepass.c
	@mkdir -p $(dir $@)
	$(Q)$(call say,CC,$@)$(CC) $(LIB_CFLAGS) $(SCAN_CFLAGS) $(FEATURE_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/runtime/%.o: runtime/%.c
	@mkdir -p $(dir $@)
	$(Q)$(call say,CC,$@)$(CC) $(LIB_CFLAGS) $(FEATURE_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/registry/%.o: registry/%.c
	@mkdir -p $(dir $@)
	$(Q)$(call say,CC,$@)$(CC) $(LIB_CFLAGS) $(FEATURE_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/generated/%.o: generated/%.c
	@mkdir -p $(dir $@)
	$(Q)$(call say,CC,$@)$(CC) $(LIB_CFLAGS) $(FEATURE_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(call say,CC,$@)$(CC) $(ALL_CFLAGS) $(FEATURE_CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/obj/gen/%.o: gen/%.c
	@mkdir -p $(dir $@)
	$(Q)$(call say,CC,$@)$(CC) $(ALL_CFLAGS) -Igen -MMD -MP -c $< -o $@

$(BUILD)/obj/fuzz/%.o: fuzz/%.c
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(FEATURE_CFLAGS) -Iinterp -MMD -MP -c $< -o $@

$(BUILD)/obj/cli/%.o: cli/%.c
	@mkdir -p $(dir $@)
	$(Q)$(call say,CC,$@)$(CC) $(ALL_CFLAGS) $(FEATURE_CFLAGS) -Iinterp -MMD -MP -c $< -o $@

$(BUILD)/obj/interp/%.o: interp/%.c
	@mkdir -p $(dir $@)
	$(Q)$(call say,CC,$@)$(CC) $(ALL_CFLAGS) $(FEATURE_CFLAGS) -Igen -MMD -MP -c $< -o $@

$(BUILD)/obj/generated/gen/%.o: generated/gen/%.c
	@mkdir -p $(dir $@)
	$(Q)$(call say,CC,$@)$(CC) $(ALL_CFLAGS) -Igen -Wno-unused-function -MMD -MP -c $< -o $@

$(LIB): $(RUNTIME_OBJ) $(GENERATED_OBJ) $(REGISTRY_OBJ)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@
	$(Q)$(call say,AR,$@)ar rcs $@ $^

# PIC objects for libafmt.so (the hot scan loops at -O3 as above).
$(BUILD)/pic/runtime/core/afmt_scan.o $(BUILD)/pic/runtime/array/afmt_transpose.o $(BUILD)/pic/runtime/text/afmt_header_onepass.o: PIC_OPT = $(SCAN_CFLAGS)
$(BUILD)/pic/%.o: %.c
	@mkdir -p $(dir $@)
	$(Q)$(call say,CC,$@)$(CC) $(LIB_CFLAGS) $(PIC_OPT) $(FEATURE_CFLAGS) -fPIC -MMD -MP -c $< -o $@

# The version script names the runtime ABI (AFMT_13 for soname
# libafmt.so.13): every exported symbol is afmt_* at version AFMT_<ABI>,
# the rest is local (what is exported at all is chosen by the AFMT_API /
# AFMT_GEN_API marks, -fvisibility=hidden does the rest).
$(BUILD)/afmt.map: runtime/afmt.h
	@mkdir -p $(dir $@)
	$(Q)printf 'AFMT_$(ABI) {\n  global:\n    afmt_*;\n  local:\n    *;\n};\n' > $@

$(SHLIB): $(PIC_OBJ) $(BUILD)/afmt.map
	$(Q)$(call say,LD,$@)$(CC) $(CFLAGS) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=$(BUILD)/afmt.map \
	  -o $@ $(PIC_OBJ) $(FEATURE_LIBS)

# Which library the tools were last linked with: rewritten only when that
# changes, so switching EXTRA_SPECS on or off relinks them.
$(BUILD)/tools.variant: FORCE
	@mkdir -p $(dir $@)
	@echo '$(VARIANT)' | cmp -s - $@ || echo '$(VARIANT)' > $@

$(BUILD)/extra/libafmt-extra.a: $(EXTRA_JSON) $(SPECS) $(BUILD)/afmt-gen $(BUILD)/tools.variant $(RUNTIME_OBJ) $(REGISTRY_OBJ) $(GENERATED_OBJ)
	rm -rf $(BUILD)/extra && mkdir -p $(BUILD)/extra/obj
	ASAN_OPTIONS=detect_leaks=0 $(BUILD)/afmt-gen -o $(BUILD)/extra/gen $(SPECS) $(EXTRA_JSON)
	@for c in $(BUILD)/extra/gen/*.c; do b=$$(basename $$c .c); \
	  if [ $$b != afmt_formats ] && [ -f generated/$$b.c ]; then continue; fi; \
	  echo "$(CC) ... -c $$c"; \
	  $(CC) $(LIB_CFLAGS) $(FEATURE_CFLAGS) -c $$c -o $(BUILD)/extra/obj/$$b.o || exit 1; done
	ar rcs $@ $(RUNTIME_OBJ) $(REGISTRY_OBJ) $(filter-out %/afmt_formats.o,$(GENERATED_OBJ)) $(BUILD)/extra/obj/*.o

$(CLI_LIB): $(CLI_OBJ)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@
	$(Q)$(call say,AR,$@)ar rcs $@ $^

$(GEN_LIB): $(GEN_LIB_OBJ)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@
	$(Q)$(call say,AR,$@)ar rcs $@ $^

$(INTERP_LIB): $(INTERP_OBJ)
	@mkdir -p $(dir $@)
	$(Q)rm -f $@
	$(Q)$(call say,AR,$@)ar rcs $@ $^

$(BUILD)/afmt-gen: $(BUILD)/obj/gen/main.o $(GEN_LIB) $(BUILD)/obj/runtime/common/afmt_dtype.o
	$(Q)$(call say,LD,$@)$(CC) $(CFLAGS) -o $@ $^ -ljansson

$(BUILD)/afmt-validate: $(BUILD)/obj/cli/afmt_validate_main.o $(CLI_LIB) $(INTERP_LIB) $(GEN_LIB) $(TOOLS_LIB) $(BUILD)/tools.variant
	$(Q)$(call say,LD,$@)$(CC) $(CFLAGS) -o $@ $(filter-out %.variant,$^) $(FEATURE_LIBS) $(CLI_LIBS) -lpthread

$(BUILD)/afmt: $(BUILD)/obj/cli/afmt_main.o $(CLI_LIB) $(INTERP_LIB) $(GEN_LIB) $(TOOLS_LIB) $(BUILD)/tools.variant
	$(Q)$(call say,LD,$@)$(CC) $(CFLAGS) -o $@ $(filter-out %.variant,$^) $(FEATURE_LIBS) $(CLI_LIBS) -lpthread

$(BUILD)/tests/%: tests/unit/%.c $(CLI_LIB) $(INTERP_LIB) $(GEN_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(call say,LD,$@)$(CC) $(ALL_CFLAGS) $(FEATURE_CFLAGS) -Itests/unit -o $@ $< $(CLI_LIB) $(INTERP_LIB) $(GEN_LIB) $(LIB) $(FEATURE_LIBS) $(CLI_LIBS) -lm -lpthread

# The interpreter's agreement with the generated validators (tests/unit/
# test_interp_agree.c): the interpreter, afmt-gen's library, jansson.
$(BUILD)/tests/test_interp_agree: tests/unit/test_interp_agree.c $(INTERP_LIB) $(GEN_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(call say,LD,$@)$(CC) $(ALL_CFLAGS) $(FEATURE_CFLAGS) -Iinterp -Itests/unit -o $@ $< $(INTERP_LIB) $(GEN_LIB) $(LIB) $(FEATURE_LIBS) -ljansson -lm

# The fuzz regression test runs the fuzz targets' own checks (fuzz/checks.c)
# on files read as the replay driver reads them (fuzz/inputs.c).
FUZZ_TEST_OBJ = $(BUILD)/obj/fuzz/checks.o $(BUILD)/obj/fuzz/inputs.o
# test_header_onepass_agree links the safetensors validator a second time, as
# exact_*: its map headers through the exact steps only (no one-pass
# reader), to compare the two on the same inputs.
AGREE_RENAME := -Dafmt_header_arrays_validate=exact_header_arrays_validate -Dafmt_header_arrays_write=exact_header_arrays_write \
  -Dafmt_safetensors_validate=exact_safetensors_validate -Dafmt_safetensors_validate_src=exact_safetensors_validate_src \
  -Dafmt_safetensors_can_write=exact_safetensors_can_write -Dafmt_safetensors_detect=exact_safetensors_detect \
  -Dafmt_safetensors_encoded_size=exact_safetensors_encoded_size -Dafmt_safetensors_format=exact_safetensors_format \
  -Dafmt_safetensors_write=exact_safetensors_write
AGREE_OBJ := $(BUILD)/agree/safetensors.o $(BUILD)/agree/afmt_header_arrays.o
$(BUILD)/agree/safetensors.o: generated/safetensors.c
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) $(FEATURE_CFLAGS) $(AGREE_RENAME) -MMD -MP -c $< -o $@
$(BUILD)/agree/afmt_header_arrays.o: runtime/text/afmt_header_arrays.c
	@mkdir -p $(dir $@)
	$(CC) $(LIB_CFLAGS) $(FEATURE_CFLAGS) $(AGREE_RENAME) -DAFMT_HEADER_ARRAYS_EXACT_ONLY -MMD -MP -c $< -o $@
$(BUILD)/tests/test_header_onepass_agree: tests/unit/test_header_onepass_agree.c $(AGREE_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(FEATURE_CFLAGS) -Itests/unit -o $@ $< $(AGREE_OBJ) $(LIB) $(FEATURE_LIBS) -lm -lpthread

$(BUILD)/tests/test_fuzz_regressions: tests/unit/test_fuzz_regressions.c $(FUZZ_TEST_OBJ) $(INTERP_LIB) $(GEN_LIB) $(LIB)
	@mkdir -p $(dir $@)
	$(Q)$(call say,LD,$@)$(CC) $(ALL_CFLAGS) $(FEATURE_CFLAGS) -Itests/unit -o $@ $< $(FUZZ_TEST_OBJ) $(INTERP_LIB) $(GEN_LIB) $(LIB) $(FEATURE_LIBS) -ljansson -lm -lpthread

-include $(shell find $(BUILD)/obj $(BUILD)/pic $(BUILD)/agree -name '*.d' 2>/dev/null)

# ---------------------------------------------------------------- generation
# re2c output (afmt-gen's expression lexer, the runtime's futhark text
# lexer) is committed like the rest and made only by `make regen`, so a
# build never needs re2c (timestamps after a clone mean nothing).
# regen: re2c first (afmt-gen needs its lexer), then afmt-gen over all specs.
regen:
	@mkdir -p generated/gen
	$(RE2C) $(RE2C_FLAGS) -o generated/gen/expr_lexer.c gen/expr_lexer.re
	@for f in $(RUNTIME_RE); do \
	  echo "$(RE2C) $(RE2C_FLAGS) -o $${f%.re}.c $$f"; \
	  $(RE2C) $(RE2C_FLAGS) -o $${f%.re}.c $$f || exit 1; done
	$(MAKE) --no-print-directory $(BUILD)/afmt-gen
	@rm -rf $(BUILD)/regen-new && $(BUILD)/afmt-gen -o $(BUILD)/regen-new $(SPECS)
	@# what no spec produces any more (a spec removed or renamed) goes
	@cd generated && for f in $$(find . -path ./gen -prune -o -type f -print); do \
	  [ -f ../$(BUILD)/regen-new/$$f ] || { echo "rm generated/$${f#./} (no spec produces it)"; rm -f $$f; }; done
	@rm -rf $(BUILD)/regen-new
	$(BUILD)/afmt-gen -o generated $(SPECS)

check-regen:
	@rm -rf $(BUILD)/regen-check && mkdir -p $(BUILD)/regen-check/gen $(BUILD)/regen-check/runtime
	@$(RE2C) $(RE2C_FLAGS) -o $(BUILD)/regen-check/gen/expr_lexer.c gen/expr_lexer.re
	@for f in $(RUNTIME_RE); do b=$$(basename $$f .re); \
	  $(RE2C) $(RE2C_FLAGS) -o $(BUILD)/regen-check/runtime/$$b.c $$f || exit 1; \
	  if ! cmp -s $(BUILD)/regen-check/runtime/$$b.c $${f%.re}.c; then \
	    echo "$${f%.re}.c is stale: run make regen and commit the result"; exit 1; fi; done
	@rm -rf $(BUILD)/regen-check/runtime
	@$(MAKE) -s --no-print-directory $(BUILD)/afmt-gen >/dev/null
	@$(BUILD)/afmt-gen -o $(BUILD)/regen-check $(SPECS)
	@if ! diff -r -q generated $(BUILD)/regen-check >$(BUILD)/regen-check.diff 2>&1; then \
	  cat $(BUILD)/regen-check.diff; \
	  echo "generated/ is stale: run make regen and commit the result"; exit 1; fi

# The snapshots of afmt-gen's output (tests/specs/features/<construct>.c/.h
# beside each feature spec): rewritten from the current afmt-gen after a
# change to gen/ (review the diff, commit it); make test fails while they
# differ.  The specs are also compiled with -Werror and their writers'
# files validated, as in make test.
snapshots: $(BUILD)/afmt-gen $(LIB)
	@bash tests/specs/run_specs.sh $(BUILD) --update | grep -v '^PASS' || true

# ---------------------------------------------------------------- install
# GNU conventions: PREFIX (default /usr/local) is where the files will
# live, DESTDIR a staging root prepended to every path (packaging).
# Headers go to include/afmt/ and are reached as <afmt/afmt.h> and
# <afmt/<format>.h> (afmt.pc's Cflags: -I$(INCLUDEDIR), so no generic name
# like "npy.h" lands on a user's include path).  Beside them: afmt_internal.h
# and the internal headers it includes, which code generated by afmt-gen
# needs (a format of one's own compiles against the installed library),
# and no other runtime header; each says INTERNAL HEADER on its first line.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR     ?= $(PREFIX)/share/man
# CMake's find_package(afmt) looks here (<prefix>/lib/cmake/afmt).
CMAKEDIR   ?= $(LIBDIR)/cmake/afmt
# For the CMake package's version check (a library of this pointer size).
SIZEOF_VOID_P  = $(shell $(CC) -dM -E - </dev/null 2>/dev/null | sed -n 's/^\#define __SIZEOF_POINTER__ //p')
INSTALL    ?= install
INSTALL_BIN     := afmt afmt-validate afmt-gen
INSTALL_MAN     := $(sort $(wildcard docs/*.1))
# The internal headers keep their runtime/ folders (include/afmt/core/...):
# they include each other by relative paths.
INTERNAL_HEADERS := $(addprefix runtime/,$(shell sed -n 's/^\#include "\([a-z]*\/afmt_[a-z0-9_]*\.h\)"$$/\1/p' runtime/afmt_internal.h))
INTERNAL_DIRS   := $(sort $(patsubst runtime/%/,%,$(dir $(INTERNAL_HEADERS))))
INSTALL_HEADERS := runtime/afmt.h runtime/afmt_internal.h \
  $(filter-out generated/afmt_formats.h,$(sort $(wildcard generated/*.h)))

install: $(addprefix $(BUILD)/,$(INSTALL_BIN)) $(LIB) $(SHLIB)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/afmt
	$(INSTALL) -m 755 $(addprefix $(BUILD)/,$(INSTALL_BIN)) $(DESTDIR)$(BINDIR)/
	$(INSTALL) -m 644 $(INSTALL_MAN) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 $(LIB) $(DESTDIR)$(LIBDIR)/libafmt.a
	$(INSTALL) -m 755 $(SHLIB) $(DESTDIR)$(LIBDIR)/$(SHLIB_NAME)
	ln -sf $(SHLIB_NAME) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libafmt.so
	$(INSTALL) -m 644 $(INSTALL_HEADERS) $(DESTDIR)$(INCLUDEDIR)/afmt/
	$(foreach d,$(INTERNAL_DIRS),$(INSTALL) -d $(DESTDIR)$(INCLUDEDIR)/afmt/$(d) && \
	  $(INSTALL) -m 644 $(filter runtime/$(d)/%,$(INTERNAL_HEADERS)) $(DESTDIR)$(INCLUDEDIR)/afmt/$(d)/ && ) true
	printf '%s\n' 'prefix=$(PREFIX)' 'libdir=$(LIBDIR)' 'includedir=$(INCLUDEDIR)' '' \
	  'Name: afmt' 'Description: validators, readers and writers of array file formats, generated from specs' \
	  'Version: $(VERSION)' 'Libs: -L$${libdir} -lafmt' 'Libs.private: $(FEATURE_LIBS)' \
	  'Cflags: -I$${includedir}' > $(BUILD)/afmt.pc
	$(INSTALL) -m 644 $(BUILD)/afmt.pc $(DESTDIR)$(LIBDIR)/pkgconfig/afmt.pc
	$(INSTALL) -d $(DESTDIR)$(CMAKEDIR)
	for f in afmtConfig afmtConfigVersion; do \
	  sed -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@SHLIB_NAME@|$(SHLIB_NAME)|g' \
	      -e 's|@BINDIR@|$(BINDIR)|g' \
	      -e 's|@SONAME@|$(SONAME)|g' -e 's|@STATIC_LIBS@|$(patsubst -l%,%,$(FEATURE_LIBS))|g' \
	      -e 's|@VERSION@|$(VERSION)|g' -e 's|@MAJOR@|$(call version_part,AFMT_VERSION_MAJOR)|g' \
	      -e 's|@MINOR@|$(call version_part,AFMT_VERSION_MINOR)|g' -e 's|@SIZEOF_VOID_P@|$(SIZEOF_VOID_P)|g' \
	      cmake/$$f.cmake.in > $(BUILD)/$$f.cmake || exit 1; \
	  $(INSTALL) -m 644 $(BUILD)/$$f.cmake $(DESTDIR)$(CMAKEDIR)/$$f.cmake || exit 1; done
	$(INSTALL) -m 644 cmake/afmtGenerate.cmake $(DESTDIR)$(CMAKEDIR)/afmtGenerate.cmake

uninstall:
	rm -f $(addprefix $(DESTDIR)$(BINDIR)/,$(INSTALL_BIN))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(INSTALL_MAN)))
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/,libafmt.a libafmt.so $(SONAME) $(SHLIB_NAME) pkgconfig/afmt.pc)
	rm -f $(addprefix $(DESTDIR)$(CMAKEDIR)/,afmtConfig.cmake afmtConfigVersion.cmake afmtGenerate.cmake)
	rmdir $(DESTDIR)$(CMAKEDIR) 2>/dev/null || true
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/afmt/,$(notdir $(INSTALL_HEADERS)))
	rm -f $(patsubst runtime/%,$(DESTDIR)$(INCLUDEDIR)/afmt/%,$(INTERNAL_HEADERS))
	for d in $(INTERNAL_DIRS); do rmdir $(DESTDIR)$(INCLUDEDIR)/afmt/$$d 2>/dev/null || true; done
	rmdir $(DESTDIR)$(INCLUDEDIR)/afmt 2>/dev/null || true

# ---------------------------------------------------------------- python
# The Python package (python/, docs/PYTHON.md) built in place for the tests
# (tests/python/run.sh): the extension compiled from the same sources pip
# builds (setup.py lists them), with the venv's Python headers, no network.
# PYTHON: the venv's interpreter when there is one.
PYTHON        ?= $(if $(wildcard build/venv/bin/python),build/venv/bin/python,python3)
PY_EXT        = $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
PY_INC        = $(shell $(PYTHON) -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
# cli/ files the extension shares with afmt-validate: the verdict on an
# undetected input, the naming of output formats (python/setup.py too).
PY_CLI_SRC    := cli/closest.c cli/identify.c cli/fail.c cli/out_format.c cli/visitor.c cli/signal_guard.c
PY_SRC        := $(sort $(wildcard python/src/*.c)) $(PY_CLI_SRC)
PY_OBJ        := $(PY_SRC:%.c=$(BUILD)/python/obj/%.o)
PY_LIB_OBJ    := $(PIC_OBJ)
PY_PKG        := $(sort $(wildcard python/afmt/*.py python/afmt/*.pyi python/afmt/py.typed))

python: $(BUILD)/python/afmt/.built

$(BUILD)/python/obj/%.o: %.c $(wildcard python/src/*.h) runtime/afmt.h
	@mkdir -p $(dir $@)
	$(Q)$(call say,CC,$@)$(CC) $(STD) $(WARN) $(CFLAGS) $(FEATURE_CFLAGS) -fPIC -fvisibility=hidden -Iruntime -Igenerated -Icli -Ipython/src -I$(PY_INC) -c $< -o $@

$(BUILD)/python/afmt/.built: $(PY_OBJ) $(PY_LIB_OBJ) $(PY_PKG) python/exports.map
	@mkdir -p $(BUILD)/python/afmt
	$(Q)$(call say,LD,$(BUILD)/python/afmt/_afmt$(PY_EXT))$(CC) -shared -Wl,--version-script=python/exports.map -o $(BUILD)/python/afmt/_afmt$(PY_EXT) $(PY_OBJ) $(PY_LIB_OBJ) $(FEATURE_LIBS) -lpthread
	$(Q)cp $(PY_PKG) $(BUILD)/python/afmt/
	@touch $@

# ---------------------------------------------------------------- tests
test: all
	@bash tests/run.sh $(BUILD)

# Part of `make test` too (tests/run.sh).
vendor-test: all
	@bash tests/vendor/run_vendor.sh $(BUILD)

# make vendor VENDOR_FORMATS="npy" VENDOR_DIR=dir: the afmt/ folder of
# docs/VENDORING.md for those formats with only the runtime .c files they
# call into (and every header), as the build's objects say
# (tools/runtime_parts.py: nm from the formats' objects through the
# runtime's).  VENDOR_DIR/RUNTIME_PARTS.txt lists what was left out.
VENDOR_FORMATS ?= rawarray
VENDOR_DIR     ?= $(BUILD)/vendor/afmt
vendor: $(LIB)
	@rm -rf $(VENDOR_DIR)
	$(Q)python3 tools/runtime_parts.py --build $(BUILD) --copy $(VENDOR_DIR) $(VENDOR_FORMATS) >/dev/null
	@cat $(VENDOR_DIR)/RUNTIME_PARTS.txt

# make amalgamate FORMATS="npy safetensors": the runtime, those formats and
# the format registry as one afmt.c and one afmt.h in AMALGAMATION, to
# vendor as zstd's and sqlite's single files are (docs/VENDORING.md).  A
# FORMATS word ending in .json is a spec of your own; the default is every
# shipped format.  tools/amalgamate.py says how the files are joined.
FORMATS       ?= $(basename $(notdir $(SPECS)))
AMALGAMATION  ?= $(BUILD)/amalgamation
amalgamate: $(BUILD)/afmt-gen
	@rm -rf $(AMALGAMATION)/gen && mkdir -p $(AMALGAMATION)
	$(Q)$(BUILD)/afmt-gen -o $(AMALGAMATION)/gen $(foreach f,$(FORMATS),$(if $(filter %.json,$(f)),$(f),spec/$(f).json))
	$(Q)python3 tools/amalgamate.py --gen $(AMALGAMATION)/gen --out $(AMALGAMATION)

asan:
	AFMT_SKIP_MEMORY=1 AFMT_SANITIZED=1 $(MAKE) --no-print-directory BUILD=build/asan CC=clang \
	  CFLAGS="-O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
	  SCAN_CFLAGS="-O1" test

# GCC_BUILD: where gcc's build goes (.ci/run: build/, which the README's
# test command then reuses).
GCC_BUILD ?= build/gcc
compilers:
	$(MAKE) --no-print-directory BUILD=$(GCC_BUILD) CC=gcc all
	$(MAKE) --no-print-directory BUILD=build/clang CC=clang all

bench: all
	@bash bench/run.sh $(BUILD)

# Fuzzing (docs/FUZZING.md).  fuzz-build: every target, libFuzzer + ASan +
# UBSan, into build/fuzz/ (AFL++ builds: build/fuzz/afl/, made by fuzz/run.sh).
fuzz-build:
	@bash fuzz/build.sh

# CI: every target briefly, and AFL++ briefly; corpora kept in build/fuzz/corpus/.
fuzz-smoke:
	@bash fuzz/run.sh

# A real session: 10 minutes per target, keep going after a crash, resume
# from build/fuzz/corpus/<target>/.
fuzz:
	@FUZZ_SECONDS=$${FUZZ_SECONDS:-600} FUZZ_KEEP_GOING=1 bash fuzz/run.sh

# Minimise the grown corpora into corpus/grown/<format>/ (committed seeds).
fuzz-merge:
	@bash fuzz/merge.sh

# Proof that the CI time-box finds bugs: a planted off-by-one in a copy of
# generated/ (fuzz/plant.sh), fuzzed for at most PLANT_SECONDS (120).
# Exit 0 found, 1 not found.
fuzz-planted:
	@bash fuzz/planted.sh

# The spec fuzzer (docs/FUZZING.md): random specs through afmt-gen, gcc and
# clang -Werror, and the generated writer and validator under ASan/UBSan,
# for FUZZ_SPECS_SECONDS (75; CI) or longer by hand.  Exit 1 on a finding
# (kept in $(BUILD)/specfuzz/findings/).
fuzz-specs: $(BUILD)/afmt-gen
	@nice python3 fuzz/specs/specfuzz.py --build $(BUILD)

# .clusterfuzzlite/build.sh as OSS-Fuzz runs it (clang, libFuzzer flags),
# into a temporary $$OUT: every target must be there.
fuzz-cflite:
	@bash tests/clusterfuzzlite_build.sh

clean:
	rm -rf $(BUILD) build
