#!/usr/bin/env bash
# afmt fuzz smoke test: build every fuzz target with libFuzzer + ASan + UBSan,
# run each briefly on the seed corpus, fail if anything crashes; then, when
# AFL++ is installed, build the same sources with afl-clang-fast and run
# afl-fuzz briefly on one target.  `make fuzz-smoke` runs this.
#
# Environment:
#   FUZZ_SECONDS=20      seconds per libFuzzer target
#   AFL_SECONDS=10       seconds of afl-fuzz (0 skips AFL++)
#   FUZZ_TARGETS="..."   targets to run (default: every fuzz/fuzz_*.c with a
#                        LLVMFuzzerTestOneInput)
#   FUZZ_KEEP_GOING=1    libFuzzer fork mode: keep fuzzing after a crash and
#                        collect every crash of the run (still exits 1)
#   FUZZ_NO_REGRESSIONS=1  leave corpus/regressions/ out of the seeds (to
#                        fuzz on while a known bug is unfixed)
#   AFMT_FUZZ_IGNORE="a|b"  step over known, unfixed bugs: a bug whose
#                        message contains one of these substrings is not a
#                        crash (read by the targets themselves)
#   FUZZ_ARGS="..."      extra libFuzzer arguments
#   CLANG=clang  AFL_CC=afl-clang-fast
# Output: build/fuzz/fuzz_<target> (libFuzzer), build/fuzz/afl/ (AFL++),
# build/fuzz/<target>.log, crashing inputs in build/fuzz/crashes/.
set -u
cd "$(dirname "$0")/.."
ROOT=$(pwd)

FUZZ_SECONDS=${FUZZ_SECONDS:-20}
AFL_SECONDS=${AFL_SECONDS:-10}
CLANG=${CLANG:-clang}
OUT=build/fuzz
CRASHES=$OUT/crashes
mkdir -p "$OUT/obj" "$CRASHES"
TMP=$(mktemp -d "${TMPDIR:-/tmp}/afmt-fuzz.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
START=$(date +%s)

STD="-std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
OPT="-O1 -g"
INC="-Iruntime -Igenerated -Ifuzz"
FEAT=""
LIBS="-lm"
if printf '#include <lz4.h>\n' | "$CLANG" -E - >/dev/null 2>&1; then
    FEAT="-DAFMT_HAVE_LZ4=1"
    LIBS="-llz4 -lm"
fi
# Our own code must be warning-free; runtime/ and generated/ are built with
# warnings shown but not fatal (they are checked by make compilers).
OWN_WARN="-Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes"

if [ -n "${FUZZ_TARGETS:-}" ]; then
    TARGETS=$FUZZ_TARGETS
else
    TARGETS=$(grep -l 'LLVMFuzzerTestOneInput *(' fuzz/fuzz_*.c 2>/dev/null |
              grep -v fuzz_common.c | sed 's|fuzz/fuzz_||; s|\.c$||' | sort | tr '\n' ' ')
fi
# The library: runtime/*.c, generated/*.c and any other generated C
# (generated/runtime/*.c, re2c scanners of runtime/*.re) except afmt-gen's
# own lexer in generated/gen/.
LIB_SRC=$(ls runtime/*.c; find generated -name '*.c' -not -path 'generated/gen/*' | sort)
FAILED=0
SUMMARY=()

say() { printf '%s\n' "$*"; }

# ---------------------------------------------------------------- seeds
# corpus/<format>/* and corpus/regressions/*, plus every golden-case input
# tests/<format>/<case>/input, flattened into one folder (names keep their
# origin).  Each target fuzzes its own copy.
SEEDS=$TMP/seeds
mkdir -p "$SEEDS"
for f in corpus/*/*; do
    [ -f "$f" ] || continue
    case "$f" in */README*) continue ;; esac
    case "$f" in corpus/regressions/*) [ "${FUZZ_NO_REGRESSIONS:-0}" = 1 ] && continue ;; esac
    d=${f#corpus/}
    cp "$f" "$SEEDS/${d//\//__}"
done
for f in tests/*/*/input; do
    [ -f "$f" ] || continue
    d=${f#tests/}
    d=${d%/input}
    cp "$f" "$SEEDS/golden__${d//\//__}"
done
say "seeds: $(ls "$SEEDS" | wc -l) files (corpus/ and tests/*/*/input)"

# ---------------------------------------------------------------- build
build_objs() { # dir, cc, flags...  -> object files of runtime/ and generated/
    local dir=$1 cc=$2
    shift 2
    rm -rf "$dir"
    mkdir -p "$dir"
    local s o pids=()
    for s in $LIB_SRC; do
        o=$dir/$(echo "$s" | tr / _ | sed 's/\.c$/.o/')
        "$cc" $STD "$@" $INC $FEAT -w -c "$s" -o "$o" &
        pids+=($!)
    done
    local ok=0 p
    for p in "${pids[@]}"; do wait "$p" || ok=1; done
    return $ok
}

say "building libFuzzer targets ($CLANG, ASan + UBSan) into $OUT/"
if ! build_objs "$OUT/obj/libfuzzer" "$CLANG" $OPT $SAN -fsanitize=fuzzer-no-link > "$OUT/build.log" 2>&1; then
    cat "$OUT/build.log"
    say "FAIL: could not compile runtime/ and generated/ for fuzzing"
    exit 1
fi
for t in $TARGETS; do
    if ! "$CLANG" $STD $OPT $SAN -fsanitize=fuzzer $OWN_WARN $INC $FEAT \
         fuzz/fuzz_common.c "fuzz/fuzz_$t.c" "$OUT"/obj/libfuzzer/*.o \
         -o "$OUT/fuzz_$t" $LIBS >> "$OUT/build.log" 2>&1; then
        cat "$OUT/build.log"
        say "FAIL: could not build fuzz_$t"
        exit 1
    fi
done

# ---------------------------------------------------------------- libFuzzer
report_crash() { # target, engine, file
    local t=$1 engine=$2 f=$3 dest
    dest=$CRASHES/$engine-$t-$(basename "$f" | tr ':,' '__')
    cp "$f" "$dest"
    say "  crashing input: $dest ($(wc -c < "$dest") bytes)"
    say "  reproduce: $OUT/fuzz_$t $dest"
}

for t in $TARGETS; do
    work=$TMP/lf_$t
    mkdir -p "$work/corpus" "$work/artifacts"
    cp "$SEEDS"/* "$work/corpus/" 2>/dev/null
    log=$OUT/$t.log
    extra=""
    [ "${FUZZ_KEEP_GOING:-0}" = 1 ] &&
        extra="-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1"
    say "fuzz_$t: ${FUZZ_SECONDS}s"
    ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
    UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
    "$OUT/fuzz_$t" -max_total_time="$FUZZ_SECONDS" -max_len=65536 -rss_limit_mb=512 \
        -timeout=10 -print_final_stats=1 -artifact_prefix="$work/artifacts/" \
        $extra ${FUZZ_ARGS:-} "$work/corpus" > "$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    if [ -z "$eps" ]; then # fork mode prints no final stats
        eps=$(grep -o 'exec/s:\? [0-9]*' "$log" | tail -1 | sed 's/[^0-9]//g')
        execs=$(grep -o '^#[0-9]*' "$log" | tail -1 | tr -d '#')
    fi
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | sed 's/cov: //')
    corp=$(ls "$work/corpus" | wc -l)
    # crash-, leak-, timeout-, oom- are failures; slow-unit- only a note
    ncrash=0
    for f in "$work"/artifacts/*; do
        [ -f "$f" ] || continue
        case "$(basename "$f")" in
        slow-unit-*) say "  note: slow input (kept as $OUT/slow/$t-$(basename "$f"))"
                     mkdir -p "$OUT/slow"; mv "$f" "$OUT/slow/$t-$(basename "$f")" ;;
        *) ncrash=$((ncrash + 1)) ;;
        esac
    done
    status=ok
    if [ "$rc" -ne 0 ] || [ "$ncrash" -gt 0 ]; then
        status=CRASH
        FAILED=1
        say "  fuzz_$t failed (exit $rc); log: $log"
        grep -E 'afmt-fuzz BUG|^==[0-9]+==ERROR|SUMMARY:|runtime error:|^    #[0-9] ' "$log" | head -30 | sed 's/^/  | /'
        for f in "$work"/artifacts/*; do
            [ -f "$f" ] && report_crash "$t" libfuzzer "$f"
        done
    fi
    SUMMARY+=("$(printf 'libfuzzer %-10s %-5s %6s s  %9s execs  %7s exec/s  cov %5s  corpus %5s  crashes %s' \
        "$t" "$status" "$FUZZ_SECONDS" "${execs:-?}" "${eps:-?}" "${cov:-?}" "$corp" "$ncrash")")
done

# ---------------------------------------------------------------- AFL++
afl_skip() {
    SUMMARY+=("afl++     skipped: $*")
    say "afl++: skipped: $*"
}

run_afl() {
    local cc="" t afl_t out rc stats eps execs n
    if [ "$AFL_SECONDS" = 0 ]; then afl_skip "AFL_SECONDS=0"; return; fi
    if ! command -v afl-fuzz >/dev/null 2>&1; then afl_skip "afl-fuzz not installed"; return; fi
    if [ -n "${AFL_CC:-}" ]; then cc=$AFL_CC
    elif command -v afl-clang-fast >/dev/null 2>&1; then cc=afl-clang-fast
    elif command -v afl-clang-lto >/dev/null 2>&1; then cc=afl-clang-lto
    elif command -v afl-cc >/dev/null 2>&1; then cc=afl-cc
    else afl_skip "no afl-clang-fast / afl-clang-lto / afl-cc"; return; fi

    say "building AFL++ targets ($cc, ASan + UBSan, libAFLDriver) into $OUT/afl/"
    export AFL_QUIET=1
    if ! build_objs "$OUT/obj/afl" "$cc" $OPT $SAN >> "$OUT/build.log" 2>&1; then
        afl_skip "$cc could not compile runtime/ and generated/ (see $OUT/build.log)"; return
    fi
    mkdir -p "$OUT/afl"
    for t in $TARGETS; do
        if ! "$cc" $STD $OPT $SAN -fsanitize=fuzzer $INC $FEAT fuzz/fuzz_common.c "fuzz/fuzz_$t.c" \
             "$OUT"/obj/afl/*.o -o "$OUT/afl/fuzz_$t" $LIBS >> "$OUT/build.log" 2>&1; then
            afl_skip "$cc could not link fuzz_$t (see $OUT/build.log)"; return
        fi
    done
    unset AFL_QUIET

    afl_t=${AFL_TARGET:-validate}
    case " $TARGETS " in *" $afl_t "*) ;; *) afl_t=${TARGETS%% *} ;; esac
    out=$TMP/afl_out
    mkdir -p "$TMP/afl_in"
    # afl-fuzz wants small seeds; every seed here is.
    cp "$SEEDS"/* "$TMP/afl_in/"
    say "afl-fuzz fuzz_$afl_t: ${AFL_SECONDS}s"
    AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
    AFL_NO_AFFINITY=1 AFL_SKIP_CRASHES=1 \
        timeout $((AFL_SECONDS + 60)) afl-fuzz -V "$AFL_SECONDS" -m none -t 10000 \
        -i "$TMP/afl_in" -o "$out" -- "$OUT/afl/fuzz_$afl_t" > "$OUT/afl.log" 2>&1
    rc=$?
    stats=$out/default/fuzzer_stats
    if [ ! -f "$stats" ]; then
        afl_skip "afl-fuzz refused to run here (exit $rc): $(grep -E 'PROGRAM ABORT|ERROR' "$OUT/afl.log" | head -2 | tr '\n' ' ' | sed 's/\x1b\[[0-9;]*m//g')"
        return
    fi
    eps=$(sed -n 's/^execs_per_sec *: *//p' "$stats")
    execs=$(sed -n 's/^execs_done *: *//p' "$stats")
    n=0
    for f in "$out"/default/crashes/id:* "$out"/default/hangs/id:*; do
        [ -f "$f" ] || continue
        n=$((n + 1))
        report_crash "$afl_t" afl "$f"
    done
    if [ "$n" -gt 0 ]; then
        FAILED=1
        say "  afl-fuzz found $n crashing or hanging inputs; log: $OUT/afl.log"
        SUMMARY+=("$(printf 'afl++     %-10s %-5s %6s s  %9s execs  %7s exec/s  crashes %s' "$afl_t" CRASH "$AFL_SECONDS" "$execs" "$eps" "$n")")
    else
        SUMMARY+=("$(printf 'afl++     %-10s %-5s %6s s  %9s execs  %7s exec/s  crashes 0' "$afl_t" ok "$AFL_SECONDS" "$execs" "$eps")")
    fi
}
run_afl

# ---------------------------------------------------------------- summary
say ""
say "fuzz smoke summary ($(( $(date +%s) - START )) s total):"
for line in "${SUMMARY[@]}"; do say "  $line"; done
if [ "$FAILED" -ne 0 ]; then
    say "FAIL: crashes found; inputs are in $CRASHES/ (add each to corpus/regressions/, see its README.md)"
    exit 1
fi
say "OK: no crashes"
exit 0
