#!/usr/bin/env bash
# Specs that must compile and whose writer must write files its own
# validator accepts: the feature specs (tests/specs/features/*.json, one per
# construct, each beside the .c/.h afmt-gen must make of it: snapshots, as
# re2c and EverParse keep theirs) and the regression specs
# (tests/specs/regressions/*.json, one per generator bug found).
#
#   tests/specs/run_specs.sh [BUILD] [--update]
#
# For each spec: afmt-gen accepts it; (features) its .c and .h equal the
# snapshot, or with --update (make snapshots) replace it; the .c compiles
# with gcc (and clang when there is one) -std=c11 -pedantic -Wall -Wextra
# -Werror; linked with fuzz/specs/driver.c, every file its writer writes
# for a fixed set of arrays validates and reads back (driver write), and
# the writer writes at least one unless the spec is read-only; files kept
# beside a regression spec (NAME.valid/, NAME.invalid/: a read-only spec's,
# which no writer makes) are judged as their folder says, and NAME.views
# gives the views expected of valid ones.
# The test formats (tests/specs/NAME/NAME.json beside gen.py and
# expected.tsv: formats written from spec/LANGUAGE.md alone) get the same
# checks, and their samples: gen.py makes exactly the committed samples/
# and expected.tsv, and each sample gets the verdict, code, field and
# offset expected.tsv gives, from the generated validator (this driver)
# and from the interpreter (afmt-validate --spec).
# One "PASS name" / "FAIL name: why" line per check (tests/run.sh).
set -u
BUILD=${1:-build}
UPDATE=${2:-}
cd "$(dirname "$0")/../.."
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; fails=$((fails + 1)); }

CC=${CC:-cc}
LIBS="-lm -lpthread -ldl"
printf '#include <lz4.h>\n' | $CC -E - > /dev/null 2>&1 && LIBS="$LIBS -llz4"
COMPILERS=gcc
command -v clang > /dev/null 2>&1 && COMPILERS="gcc clang"
# Under make asan the strict compiles are those of the plain run, which
# make test and CI run too: there only the driver, built with the
# sanitizers, is new (CI's time: about a minute of the asan stage).
if [ -n "${AFMT_SANITIZED:-}" ]; then
    echo "SKIP the gcc and clang -Werror compiles: the same as in the plain make test (AFMT_SANITIZED)"
    COMPILERS=""
fi
# shellcheck disable=SC2086 # CFLAGS is a list of flags (make asan's sanitizers)
if ! $CC ${CFLAGS:-} -std=c11 -Iruntime -c fuzz/specs/driver.c -o "$TMP/driver.o" 2> "$TMP/cc.log"; then
    fail "spec driver: does not compile: $(head -3 "$TMP/cc.log")"
    exit 1
fi

# The driver's `agree` (the interpreter beside the generated validator),
# when the interpreter's library is built.
AGREE_O=
# shellcheck disable=SC2086
if [ -f "$BUILD/libafmt-interp.a" ] && $CC ${CFLAGS:-} -std=c11 -DSPECFUZZ_INTERP -Iruntime -Iinterp -Igen \
       -c fuzz/specs/driver.c -o "$TMP/driver_agree.o" 2> "$TMP/cc.log"; then
    AGREE_O=$TMP/driver_agree.o
fi

# check_spec SPEC KIND: KIND is features, regressions or formats
check_spec() {
    local spec=$1 kind=$2 name fmt out cc
    name=$(basename "$spec" .json)
    out=$TMP/$kind/$name
    fmt=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["format"])' "$spec" 2> /dev/null)
    if ! ASAN_OPTIONS=detect_leaks=0 "$BUILD"/afmt-gen -o "$out" "$spec" > "$TMP/gen.log" 2>&1; then
        fail "$kind/$name: afmt-gen refuses it: $(head -3 "$TMP/gen.log")"
        return
    fi
    if [ "$kind" = features ]; then
        if [ "$fmt" != "$name" ]; then
            fail "$kind/$name: its format is '$fmt': a feature spec is named after its format"
            return
        fi
        for ext in c h; do
            if [ "$UPDATE" = --update ]; then
                cmp -s "$out/$fmt.$ext" "tests/specs/features/$name.$ext" || {
                    cp "$out/$fmt.$ext" "tests/specs/features/$name.$ext"
                    echo "updated tests/specs/features/$name.$ext" >&2
                }
            elif diff -u "tests/specs/features/$name.$ext" "$out/$fmt.$ext" > "$TMP/diff" 2>&1; then
                pass "snapshot $name.$ext"
            else
                fail "snapshot $name.$ext differs from what afmt-gen makes (make snapshots to accept): $(head -20 "$TMP/diff")"
            fi
        done
    fi
    for cc in $COMPILERS; do
        if $cc -std=c11 -pedantic -Wall -Wextra -Werror -Iruntime -I"$out" -c "$out/$fmt.c" -o "$TMP/x.o" 2> "$TMP/cc.log"; then
            pass "$kind/$name compiles with $cc -Werror"
        else
            fail "$kind/$name: $cc -Werror: $(grep -m3 'error' "$TMP/cc.log")"
        fi
    done
    # shellcheck disable=SC2086
    if ! $CC ${CFLAGS:-} -std=c11 -Iruntime -I"$out" -o "$out/driver" "$out/$fmt.c" "$out/afmt_formats.c" "$TMP/driver.o" \
           "$BUILD/libafmt.a" $LIBS 2> "$TMP/cc.log"; then
        fail "$kind/$name: does not link with the driver: $(head -3 "$TMP/cc.log")"
        return
    fi
    mkdir -p "$out/w"
    if ! "$out/driver" write "$out/w" > "$TMP/drv.log" 2>&1; then
        fail "$kind/$name: its writer's files: $(grep -m3 -v '^written' "$TMP/drv.log")"
    elif grep -q "^written 0$" "$TMP/drv.log" && ! grep -q "\"read_only\"\|the writer refuses every array" "$spec"; then
        fail "$kind/$name: its writer took none of the driver's arrays"
    else
        pass "$kind/$name: $(tail -1 "$TMP/drv.log") files validate and read back"
    fi
    check_samples "$spec" "$kind/$name" "$out/driver"
    [ "$kind" = formats ] && check_expected "$spec" "$name" "$out/driver"
}

# check_expected SPEC NAME DRIVER: a test format's samples, remade by its
# gen.py, and their verdicts from expected.tsv (file, valid|invalid, code,
# field, offset), strict, by the generated validator and the interpreter.
check_expected() {
    local dir want_dir file verdict code field offset got
    dir=$(dirname "$1")
    want_dir=$TMP/formats/$2.samples
    mkdir -p "$want_dir"
    if ! python3 "$dir/gen.py" "$want_dir" > "$TMP/py.log" 2>&1; then
        fail "formats/$2: gen.py fails: $(head -3 "$TMP/py.log")"
        return
    fi
    if diff -r "$want_dir/samples" "$dir/samples" > "$TMP/diff" 2>&1 && cmp -s "$want_dir/expected.tsv" "$dir/expected.tsv"; then
        pass "formats/$2: gen.py makes the committed samples and expected.tsv"
    else
        fail "formats/$2: gen.py's samples or expected.tsv differ from the committed ones (run it): $(head -3 "$TMP/diff")"
    fi
    while IFS=$'\t' read -r file verdict code field offset; do
        case $file in '#'* | '') continue ;; esac
        "$3" validate "$dir/$file" > "$TMP/val.log" 2>&1
        got=$(head -1 "$TMP/val.log")
        if [ "$verdict" = valid ]; then
            case $got in "0 strict ok "*) pass "formats/$2: $file validates (generated)" ;;
                *) fail "formats/$2: $file should validate (generated): $got" ;; esac
        else
            case $got in "0 strict err $code field=$field offset=$offset: "*) pass "formats/$2: $file: $code at $field, offset $offset (generated)" ;;
                *) fail "formats/$2: $file should be $code at $field, offset $offset (generated): $got" ;; esac
        fi
        got=$(ASAN_OPTIONS=detect_leaks=0 "$BUILD"/afmt-validate --json --spec "$1" "$dir/$file" 2>&1 |
              python3 -c 'import json,sys; r=json.load(sys.stdin); e=r.get("error") or {}; print(r["verdict"], e.get("code","-"), e.get("field","-"), e.get("offset","-"))' 2>&1)
        if [ "$got" = "$verdict $code $field $offset" ]; then
            pass "formats/$2: $file: $verdict $code $field $offset (interpreter)"
        else
            fail "formats/$2: $file should be $verdict $code $field $offset (interpreter): $got"
        fi
    done < "$dir/expected.tsv"
}

# check_samples SPEC WHAT DRIVER: files beside a spec that no writer makes
# (a read-only spec's), SPEC without .json + .valid/ (each must validate
# strictly) and + .invalid/ (each must be refused, strict and lenient);
# and the reference interpreter of SPEC reports on each what the
# generated validator reports (driver agree: strict and lenient, with and
# without a visitor, one stopping at a key-value).
check_samples() {
    local dir=${1%.json} f v
    if [ -n "$AGREE_O" ] && compgen -G "$dir.*/*" > /dev/null; then
        local gen=${3%/driver}
        # shellcheck disable=SC2086
        if ! $CC ${CFLAGS:-} -std=c11 -Iruntime -I"$gen" -o "$gen/agree" "$gen"/*.c "$AGREE_O" "$BUILD/libafmt-interp.a" \
               "$BUILD/libafmt-gen.a" "$BUILD/libafmt.a" $LIBS -ljansson 2> "$TMP/cc.log"; then
            fail "$2: does not link with the agreement driver: $(head -3 "$TMP/cc.log")"
        else
            # the interpreter keeps the loaded spec until exit, by design (interp_load.c)
            ASAN_OPTIONS=detect_leaks=0 "$gen/agree" agree "$1" "$dir".*/* > "$TMP/agree.log" 2>&1
            v=$?
            if [ "$v" = 0 ]; then
                pass "$2: the interpreter agrees with the generated validator on its files"
            else
                fail "$2: the interpreter and the generated validator differ (driver agree exit $v): $(head -3 "$TMP/agree.log")"
            fi
        fi
    fi
    # NAME.views: FILE<TAB>the verdict the generated validator prints for
    # NAME.valid/FILE after "0 strict " (the arrays' views: type name,
    # block, dims, ...); the interpreter's views agree with them (above)
    if [ -f "$dir.views" ]; then
        while IFS=$'\t' read -r f v; do
            "$3" validate "$dir.valid/$f" > "$TMP/val.log" 2>&1
            if [ "$(head -1 "$TMP/val.log")" = "0 strict $v" ]; then
                pass "$2: valid file $f gives the views of $(basename "$dir").views"
            else
                fail "$2: valid file $f: $(head -1 "$TMP/val.log"), not 0 strict $v"
            fi
        done < "$dir.views"
    fi
    for v in valid invalid; do
        for f in "$dir.$v"/*; do
            [ -f "$f" ] || continue
            "$3" validate "$f" > "$TMP/val.log" 2>&1
            if [ "$v" = valid ] && grep -q "^0 strict ok" "$TMP/val.log"; then
                pass "$2: $v file $(basename "$f") validates"
            elif [ "$v" = invalid ] && [ "$(grep -c "^0 [a-z]* err " "$TMP/val.log")" = 2 ]; then
                pass "$2: $v file $(basename "$f") is refused"
            else
                fail "$2: $v file $(basename "$f"): $(head -2 "$TMP/val.log")"
            fi
        done
    done
}

for kind in features regressions; do
    for spec in tests/specs/$kind/*.json; do
        [ -f "$spec" ] || continue
        check_spec "$spec" "$kind"
    done
done
for spec in tests/specs/*/*.json; do
    [ -f "$(dirname "$spec")/expected.tsv" ] && [ -f "$(dirname "$spec")/gen.py" ] || continue
    check_spec "$spec" formats
done
[ "$fails" -eq 0 ]
