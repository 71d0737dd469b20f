#!/usr/bin/env bash
# afmt convert on payloads of megabytes, where it takes its fast paths:
# a transpose made piece by piece as it is written (afmt_sink_producer),
# and bytes copied file to file by the kernel (copy_file_range).  Each
# result is compared with one made by another path (a cast through u64,
# which decodes the whole array the old way) or with the input's bytes.
# One PASS/FAIL line per check (counted by tests/run.sh).
set -u
BUILD=${1:-build}
A="$BUILD/afmt"
V="$BUILD/afmt-validate"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

check() { # name, condition-command...
    local name=$1
    shift
    if "$@"; then echo "PASS convert-large: $name"; else echo "FAIL convert-large: $name"; fi
}
u64() { # little-endian u64 as bytes
    local v=$1 i
    for ((i = 0; i < 8; i++)); do printf "\\x$(printf %02x $(((v >> (8 * i)) & 255)))"; done
}
# rawarray (column-major) u32[R, C] of random values; R*C*4 bytes of payload
# (u32, so that a cast through u64 and back gives every value back exactly)
make_ra() { # file rows cols
    local n=$(($2 * $3 * 4))
    { printf 'rawarray'; u64 0; u64 2; u64 4; u64 "$n"; u64 2; u64 "$2"; u64 "$3"
      head -c "$n" /dev/urandom; } > "$1"
}
same_tail() { # file-a file-b bytes: their last `bytes` bytes are equal
    cmp -s <(tail -c "$3" "$1") <(tail -c "$3" "$2")
}

# 1500 x 1500 u32: 9 MB, more than one 8 MiB piece, rows of 6000 bytes
make_ra "$T/a.ra" 1500 1500
"$A" convert "$T/a.ra" "$T/a.fut" --to futhark > "$T/out" 2>&1
check "col-major 1500x1500 u32 -> futhark (streamed transpose) exits 0" test $? = 0
"$V" -q "$T/a.fut" > "$T/out" 2>&1
check "its output validates" test $? = 0
# the same array the other way: cast to u64 (whole-array decode), back to u32
"$A" convert "$T/a.ra" "$T/b64.fut" --to futhark --dtype u64 > "$T/out" 2>&1 &&
    "$A" convert "$T/b64.fut" "$T/b.fut" --to futhark --dtype u32 > "$T/out" 2>&1
check "the streamed transpose equals the whole-array one, byte for byte" cmp -s "$T/a.fut" "$T/b.fut"
"$A" convert "$T/a.fut" "$T/back.ra" > "$T/out" 2>&1
check "and transposed back it is the input again" cmp -s "$T/a.ra" "$T/back.ra"

# odd shape, thin: 3 x 700001 and 700001 x 3
for shape in "3 700001" "700001 3"; do
    set -- $shape
    make_ra "$T/t.ra" "$1" "$2"
    "$A" convert "$T/t.ra" "$T/t.fut" --to futhark > "$T/out" 2>&1 &&
        "$A" convert "$T/t.ra" "$T/t64.fut" --to futhark --dtype u64 > "$T/out" 2>&1 &&
        "$A" convert "$T/t64.fut" "$T/t2.fut" --to futhark --dtype u32 > "$T/out" 2>&1
    check "col-major ${1}x$2 u32 -> futhark equals the whole-array path" cmp -s "$T/t.fut" "$T/t2.fut"
done

# no transpose: rawarray -> rawarray is the same bytes (copy_file_range)
"$A" convert "$T/a.ra" "$T/same.ra" > "$T/out" 2>&1
check "rawarray -> rawarray of 9 MB is byte-identical" cmp -s "$T/a.ra" "$T/same.ra"
# a 1-d array to futhark: the payload is copied as it is
make_ra "$T/v.ra" 2500000 1
"$A" convert "$T/v.ra" "$T/v.fut" --to futhark > "$T/out" 2>&1
check "a 10 MB vector -> futhark keeps the payload bytes" same_tail "$T/v.ra" "$T/v.fut" 10000000
"$V" -q "$T/v.fut" > "$T/out" 2>&1
check "and validates" test $? = 0
# to standard output: the same bytes as to a file
"$A" convert "$T/a.ra" - --to futhark > "$T/stdout.fut" 2> "$T/out"
check "the streamed transpose to standard output equals the file" cmp -s "$T/a.fut" "$T/stdout.fut"
# a refused conversion of a large array leaves nothing behind
"$A" convert "$T/a.ra" "$T/no.fut" --to futhark --dtype i8 > "$T/out" 2>&1
check "a refused large cast exits 1" test $? = 1
check "and leaves no output or temporary file" test -z "$(ls "$T" | grep '^no\.fut')"
