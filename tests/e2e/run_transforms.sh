#!/usr/bin/env bash
# Value transforms on views (issue 33; spec/LANGUAGE.md, "Value
# transforms"): FITS BZERO/BSCALE and a MAT class wider than its stored
# type read as their values (afmt dump, from the generated validator and
# from the interpreter alike), a general scale refused by name where the
# target cannot keep it (npy), written as f64 with --apply-scale, kept by
# FITS -> FITS; the integer conventions written back; a compressed sparse
# column matrix with big-endian indices densified.  One PASS/FAIL line
# per check.
set -u
SUITE=transforms
. "$(dirname "$0")/lib.sh" "$@"
G="$REPO/tests"

# dump_is NAME FILE WANT [afmt dump options]: the values, as afmt dump prints them
dump_is() {
    local name=$1 file=$2 want=$3 got
    shift 3
    got=$("$AFMT" dump "$@" "$file" 2>&1)
    if [ "$got" = "$want" ]; then pass "$name"; else fail "$name" "dump gives $got, not $want"; fi
}
# both NAME FILE WANT SPEC: the generated validator's values and the interpreter's
both() {
    dump_is "$1" "$2" "$3"
    dump_is "$1 (interpreter)" "$2" "$3" --spec "$REPO/spec/$4.json"
}

# ------------------------------------------------------------ FITS
both "fits BZERO 32768 on i16 is u16" "$G/fits/bzero_u16/input" "[32768u16, 32771u16, 32774u16]" fits
both "fits BZERO 2^31 on i32 is u32" "$G/fits/bzero_u32/input" "[2147483648u32, 2147483651u32]" fits
both "fits BZERO 2^63 on i64 is u64, exactly" "$G/fits/bzero_u64/input" \
    "[9223372036854775808u64, 9223372036854775811u64]" fits
both "fits BZERO -128 on u8 is i8" "$G/fits/bzero_i8/input" "[-128i8, -125i8, -122i8]" fits
both "fits BZERO 3.2768E4 is the u16 convention too" "$G/fits/bzero_u16_real/input" "[32768u16, 32771u16]" fits
both "fits BSCALE 0.5 BZERO 10: f64 values" "$G/fits/bscale_i16/input" "[10.0f64, 11.5f64, 13.0f64]" fits
both "fits BZERO 32768 on i32: no convention, f64 values" "$G/fits/bzero_32768_on_i32/input" \
    "[32768.0f64, 32771.0f64]" fits
info=$("$AFMT" info "$G/fits/bzero_u16/input" | grep "array \[0\]")
check "afmt info shows the stored and the logical type" grep -q "u16\[3\] (i16 stored, zero 32768)" <<< "$info"
json=$("$AFMT" info --json "$G/fits/bscale_i16/input")
check "afmt info --json: dtype f64, stored_dtype i16, scale, zero" \
    grep -q '"dtype":"f64","stored_dtype":"i16","scale":0.5,"zero":10' <<< "$json"

out=$("$AFMT" convert "$G/fits/bscale_i16/input" "$T/s.npy" 2>&1)
rc=$?
check "npy refuses a general scale by name (rc $rc: $out)" \
    test "$rc" = 1 -a -n "$(grep "primary" <<< "$out" | grep "cannot keep the scale" | grep "i16")"
check "a refused conversion leaves no file" test ! -e "$T/s.npy"
check "--apply-scale writes the f64 values" "$AFMT" convert --apply-scale "$G/fits/bscale_i16/input" "$T/s.npy"
dump_is "the f64 values in the npy" "$T/s.npy" "[10.0f64, 11.5f64, 13.0f64]"
check "FITS -> FITS keeps the scale" "$AFMT" convert "$G/fits/bscale_i16/input" "$T/s.fits"
dump_is "the kept scale's values" "$T/s.fits" "[10.0f64, 11.5f64, 13.0f64]"
check "the kept file stores i16 with BSCALE 0.5 and BZERO 10" \
    grep -q "i16 stored, scale 0.5, zero 10" <<< "$("$AFMT" info "$T/s.fits")"
check "FITS -> npy of a u16 convention" "$AFMT" convert "$G/fits/bzero_u16/input" "$T/u.npy"
dump_is "the npy holds u16" "$T/u.npy" "[32768u16, 32771u16, 32774u16]"
check "npy u16 -> FITS (BZERO 32768)" "$AFMT" convert "$T/u.npy" "$T/u.fits"
dump_is "read back as u16" "$T/u.fits" "[32768u16, 32771u16, 32774u16]"
check "FITS -> FITS of the u64 convention" "$AFMT" convert "$G/fits/bzero_u64/input" "$T/u64.fits"
dump_is "u64 kept exactly" "$T/u64.fits" "[9223372036854775808u64, 9223372036854775811u64]"

# ------------------------------------------------------------ MAT-files
both "mat5 double stored as miUINT8 is f64" "$G/mat5/double_as_uint8/input" "[[1.0f64, 2.0f64, 3.0f64]]" mat5
both "mat5 big-endian double stored as miUINT8 is f64" "$G/mat5/double_as_uint8_be/input" \
    "[[1.0f64, 2.0f64, 250.0f64]]" mat5
both "mat5 big-endian single stored as miINT16 is f32" "$G/mat5/single_as_int16_be/input" "[[-300.0f32], [7.0f32]]" mat5
both "mat5 logical stays bool" "$G/mat5/logical/input" "[[true, false, true]]" mat5
both "a logical type not every stored value fits keeps the stored type" "$G/mat5/double_as_int64_inexact/input" \
    "[[9007199254740993i64]]" mat5
check "mat5 -> npy keeps the class's type" "$AFMT" convert "$G/mat5/double_as_uint8/input" "$T/m.npy"
dump_is "the npy holds f64" "$T/m.npy" "[[1.0f64, 2.0f64, 3.0f64]]"

# ------------------------------------------------------------ CSC (a spec of the tests)
CSC="$REPO/tests/specs/features/layout_csc.json"
dump_is "csc with big-endian indices, u8 stored, densified as f64" \
    "$REPO/tests/specs/features/layout_csc.valid/u8_3x2.bin" "[[5.0f64, 0.0f64], [0.0f64, 7.0f64], [6.0f64, 0.0f64]]" \
    --spec "$CSC"
dump_is "csc i16 stored, an empty column" \
    "$REPO/tests/specs/features/layout_csc.valid/i16_2x3.bin" "[[0.0f64, 0.0f64, 2.0f64], [-300.0f64, 0.0f64, 1000.0f64]]" \
    --spec "$CSC"
check "csc -> npy (dense)" "$AFMT" convert --spec "$CSC" "$REPO/tests/specs/features/layout_csc.valid/u8_3x2.bin" "$T/c.npy"
dump_is "the dense npy" "$T/c.npy" "[[5.0f64, 0.0f64], [0.0f64, 7.0f64], [6.0f64, 0.0f64]]"
exit $FAILED
