#!/usr/bin/env bash
# Build every afmt fuzz target from one harness (fuzz/harness.c):
#   validate_<format>, roundtrip_<format>, stream_<format>   per registry format
#   validate, roundtrip, convert                              every format at once
# The format list comes from the registry itself (fuzz/list_formats.c), so a
# format added to spec/ gets its targets after `make regen`, with no change
# here.  Beside each target: <target>.dict (generated/fuzz/<format>.dict, or
# all of them for the all-format targets) and <target>.options (libFuzzer
# arguments), as OSS-Fuzz / ClusterFuzzLite expect them in $OUT.
#
# OSS-Fuzz conventions (so .clusterfuzzlite/build.sh is a one-liner):
#   CC                  compiler                  (default clang)
#   CFLAGS              compile flags             (default: -O1 -g, ASan + UBSan,
#                                                  -fsanitize=fuzzer-no-link)
#   LIB_FUZZING_ENGINE  link flags of the engine  (default -fsanitize=fuzzer)
#   OUT                 where the targets go      (default build/fuzz)
#   SRC                 not needed: the sources are found from this script
# And:
#   FUZZ_STANDALONE=1   no engine: add the replay main (-DFZ_STANDALONE_MAIN)
#   FUZZ_EXTRA_CFLAGS   added to every compile (make fuzz-planted plants its
#                       bug with it: -DAFMT_PLANT=...)
#   FUZZ_WERROR=0       do not make warnings in fuzz/ fatal
#   FUZZ_JOBS=2         parallel compiles
#   FUZZ_ONLY="a b"     build only these targets
#   FUZZ_STATIC_LZ4=1   link liblz4.a (OSS-Fuzz runners have no liblz4.so)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

CC=${CC:-clang}
SAN_DEFAULT="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
CFLAGS=${CFLAGS:-"-O1 -g $SAN_DEFAULT -fsanitize=fuzzer-no-link"}
LIB_FUZZING_ENGINE=${LIB_FUZZING_ENGINE--fsanitize=fuzzer}
OUT=${OUT:-$ROOT/build/fuzz}
FUZZ_JOBS=${FUZZ_JOBS:-2}
EXTRA=${FUZZ_EXTRA_CFLAGS:-}
STD="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE"
INC="-I$ROOT/runtime -I$ROOT/generated -I$ROOT/fuzz -I$ROOT/interp -I$ROOT/gen"
OWN_WARN="-Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes"
[ "${FUZZ_WERROR:-1}" = 1 ] && OWN_WARN="$OWN_WARN -Werror"
[ "${FUZZ_STANDALONE:-0}" = 1 ] && EXTRA="$EXTRA -DFZ_STANDALONE_MAIN"

FEAT=""
# jansson: the reference interpreter loads the specs with afmt-gen's loader
JANSSON="-ljansson"
if [ "${FUZZ_STATIC_LZ4:-0}" = 1 ]; then
    a=$($CC -print-file-name=libjansson.a)
    [ -f "$a" ] && JANSSON=$a
fi
LIBS="$JANSSON -lm"
if printf '#include <lz4.h>\n' | $CC -E - >/dev/null 2>&1; then
    FEAT="-DAFMT_HAVE_LZ4=1"
    LIBS="-llz4 $JANSSON -lm"
    if [ "${FUZZ_STATIC_LZ4:-0}" = 1 ]; then
        a=$($CC -print-file-name=liblz4.a)
        [ -f "$a" ] && LIBS="$a $JANSSON -lm"
    fi
fi

# The checks themselves are not worth coverage feedback (their compares
# were a fifth of the trace-cmp calls): no fuzzer instrumentation in
# fuzz/checks.c when the compiler can turn it off.  Nor in the runtime's
# error formatting (runtime/common/afmt_error.c: the path and message of a
# rejection, made for nearly every fuzz input): it decides nothing about the
# input, and the hit counts of its loops (a turn per path segment, per digit
# of an index) only told the engine how long a path or an index was.  (The
# futhark text scanner's message helpers are left out in its source.)
#
# The text scanners (the futhark text values, the JSON / Python-dict
# headers of npy and safetensors) keep their edge coverage but lose the
# compare tracing: they compare one byte at a time against characters and
# numbers parsed from decimal text, and libFuzzer uses a traced compare
# only to splice 4- and 8-byte operands into the input as binary (useless
# for text) or, with -use_value_profile=1 (not used by fuzz/run.sh), as
# feedback.  Their tracing was 10-30 % of those targets' time.  The binary
# formats keep it: there the operands are the input's magics, type codes
# and sizes.  Keyword comparisons through memcmp/strncmp still reach the
# engine (its interceptors do not depend on this instrumentation).
CHECKS_CFLAGS=""
TEXT_CFLAGS=""
case " $CFLAGS " in *fuzzer-no-link*)
    echo 'int x;' | $CC $CFLAGS -fno-sanitize=fuzzer-no-link -x c -c - -o /dev/null 2>/dev/null &&
        CHECKS_CFLAGS="-fno-sanitize=fuzzer-no-link"
    echo 'int x;' | $CC $CFLAGS -fno-sanitize-coverage=trace-cmp -x c -c - -o /dev/null 2>/dev/null &&
        TEXT_CFLAGS="-fno-sanitize-coverage=trace-cmp" ;;
esac

OBJ=$OUT/obj
mkdir -p "$OUT" "$OBJ"
# Objects of the library (runtime/, registry/, generated/ without afmt-gen's own lexer)
# and of the checks; compiled in parallel, warnings of the library shown by
# `make compilers`, not here.
LIB_SRC=$(ls runtime/*/*.c registry/*.c; find generated -name '*.c' -not -path 'generated/gen/*' | sort)
# The reference interpreter (interp/) and afmt-gen's loader and checks it
# uses (gen/ but its main), a second oracle of the validate targets; the
# shipped specs' text goes into the binaries (fz_specs.c), so that they
# need no file beside them.
INTERP_SRC=$(ls interp/*.c gen/*.c generated/gen/expr_lexer.c | grep -v '^gen/main\.c$')
rm -f "$OBJ"/*.o
{
    echo '/* Written by fuzz/build.sh from the specs of spec/: do not edit. */'
    echo '#include <string.h>'
    echo '#include "fz_specs.h"'
    echo 'static const char *const SPECS[][2] = {'
    for s in spec/*.json; do
        n=$(sed -n 's/^ *"format": *"\([a-z0-9_]*\)".*/\1/p' "$s" | head -1)
        echo "    {\"$n\","
        sed 's/\\/\\\\/g; s/"/\\"/g; s/?/\\?/g; s/^/     "/; s/$/\\n"/' "$s"
        echo "    },"
    done
    echo '};'
    echo 'const char *fz_spec_text(const char *name)'
    echo '{'
    echo '    size_t i;'
    echo '    for (i = 0; i < sizeof SPECS / sizeof SPECS[0]; i++)'
    echo '        if (strcmp(SPECS[i][0], name) == 0) return SPECS[i][1];'
    echo '    return NULL;'
    echo '}'
} > "$OBJ/fz_specs.c"
compile() { # source -> object
    local s=$1 o warn="-w"
    o=$OBJ/$(echo "$s" | tr / _ | sed 's/\.c$/.o/')
    case "$s" in
    fuzz/*) warn="$OWN_WARN $CHECKS_CFLAGS" ;;
    interp/*|gen/*|generated/gen/*|*/fz_specs.c) warn="-w $CHECKS_CFLAGS" ;;
    runtime/common/afmt_error.c) warn="-w $CHECKS_CFLAGS" ;;
    runtime/text/afmt_futhark_text.c|runtime/text/afmt_texthdr.c|runtime/text/afmt_header_arrays.c) warn="-w $TEXT_CFLAGS" ;;
    esac
    # shellcheck disable=SC2086
    $CC $STD $CFLAGS $EXTRA $INC $FEAT $warn -c "$s" -o "$o"
}
export -f compile
export CC STD CFLAGS EXTRA INC FEAT OWN_WARN OBJ CHECKS_CFLAGS TEXT_CFLAGS
printf '%s\n' $LIB_SRC $INTERP_SRC "$OBJ/fz_specs.c" fuzz/checks.c fuzz/inputs.c | xargs -P "$FUZZ_JOBS" -I{} bash -c 'compile {}'

# The registry's formats, from a program linked with the same objects.
$CC $STD $CFLAGS $EXTRA $INC $FEAT -w fuzz/list_formats.c "$OBJ"/*.o -o "$OBJ/list_formats" $LIBS
FORMATS=$("$OBJ/list_formats")
[ -n "$FORMATS" ] || { echo "fuzz/build.sh: the registry lists no formats" >&2; exit 1; }

TARGETS="validate roundtrip convert"
for f in $FORMATS; do TARGETS="$TARGETS validate_$f roundtrip_$f stream_$f"; done
[ -n "${FUZZ_ONLY:-}" ] && TARGETS=$FUZZ_ONLY

link() { # target
    local t=$1 kind fmt=""
    kind=${t%%_*}
    [ "$kind" != "$t" ] && fmt=${t#*_}
    local def="-DFZ_TARGET=FZ_$(echo "$kind" | tr a-z A-Z)"
    [ -n "$fmt" ] && def="$def -DFZ_FORMAT=$fmt"
    # shellcheck disable=SC2086
    $CC $STD $CFLAGS $EXTRA $INC $FEAT $OWN_WARN $def fuzz/harness.c "$OBJ"/*.o \
        $LIB_FUZZING_ENGINE -o "$OUT/$t" $LIBS
    # dictionary: the format's, or every format's for the all-format targets
    if [ -n "$fmt" ]; then
        [ -f "generated/fuzz/$fmt.dict" ] && cp "generated/fuzz/$fmt.dict" "$OUT/$t.dict"
    elif ls generated/fuzz/*.dict >/dev/null 2>&1; then
        cat generated/fuzz/*.dict > "$OUT/$t.dict"
    fi
    printf '[libfuzzer]\nmax_len = 65536\nrss_limit_mb = 512\ntimeout = 10\n' > "$OUT/$t.options"
    [ -f "$OUT/$t.dict" ] && printf 'dict = %s.dict\n' "$t" >> "$OUT/$t.options"
    return 0
}
export -f link
export OUT LIB_FUZZING_ENGINE LIBS
printf '%s\n' $TARGETS | xargs -P "$FUZZ_JOBS" -I{} bash -c 'link {}'
echo "fuzz/build.sh: built $(echo $TARGETS | wc -w) targets into $OUT ($CC)"
