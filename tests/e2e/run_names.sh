#!/usr/bin/env bash
# Names and casts across formats (issue 36, point 4): one naming rule for
# arrays without a name (arr_I in every format that names its arrays, as
# np.savez names them), an npz member's name kept by convert, --dtype
# casting within its class, --dtype-of NAME=TYPE, and refusals naming the
# tensor.  Needs python3 with numpy.  One PASS/FAIL line per check.
set -u
SUITE=names
. "$(dirname "$0")/lib.sh" "$@"

if ! python3 -c 'import numpy' 2> /dev/null; then
    echo "SKIP names: no python3 with numpy (Debian: python3-numpy)"
    exit 0
fi
names() { # FILE: the names afmt info --json lists, comma-separated
    "$AFMT" info --json "$1" | python3 -c 'import json, sys; print(",".join(a["name"] for a in json.load(sys.stdin)["arrays"]))'
}
types() { # FILE: NAME:DTYPE of each array, comma-separated
    "$AFMT" info --json "$1" | python3 -c 'import json, sys; print(",".join(a["name"] + ":" + a["dtype"] for a in json.load(sys.stdin)["arrays"]))'
}

# ------------------------------------------------------------ the rule
for ext in safetensors gguf npz pt; do
    "$AFMT" random '[3]f32' -o "$T/one.$ext"
    check "one unnamed array written to .$ext is arr_0" test "$(names "$T/one.$ext")" = arr_0
    "$AFMT" random '[3]f32' '[2]i32' -o "$T/two.$ext"
    got=$(names "$T/two.$ext" | tr , '\n' | sort | paste -sd,)
    check "two unnamed arrays written to .$ext are arr_0 and arr_1 (got $got)" test "$got" = arr_0,arr_1
done
"$AFMT" random '[3]f32' '[2]i32' -o "$T/two.ten"
check "tenbin, whose names are optional, keeps them unnamed" test "$(names "$T/two.ten")" = ,
run python3 -c "import numpy as np, sys; print(sorted(np.load(sys.argv[1]).files))" "$T/two.npz"
check "np.load sees the names np.savez would give" test "$OUT" = "['arr_0', 'arr_1']"

# ------------------------------------------------------------ npz members
python3 - "$T" << 'PY'
import numpy as np, sys
t = sys.argv[1]
np.savez(t + "/plain.npz", emb=np.arange(6, dtype=np.float32).reshape(2, 3))
np.savez(t + "/model.npz", weight=np.ones((2, 3), np.float32),
         bias=np.array([1.5, 2.25, 3e-8], np.float32), ids=np.arange(3), mask=np.array([True, False]))
PY
for ext in safetensors gguf pt npz; do
    run "$AFMT" convert "$T/plain.npz:emb.npy" "$T/emb.$ext"
    check "convert plain.npz:emb.npy to .$ext keeps the name emb" test "$RC" = 0 -a "$(names "$T/emb.$ext")" = emb
done
run "$AFMT" convert "$T/plain.npz:emb" "$T/emb2.safetensors"
check "... also when the member is given without .npy" test "$(names "$T/emb2.safetensors")" = emb

# ------------------------------------------------------------ casts by class
run "$AFMT" convert --dtype f16 --allow-lossy "$T/model.npz" "$T/m16.safetensors"
check "--dtype f16 --allow-lossy: exit 0" test "$RC" = 0
got=$(types "$T/m16.safetensors" | tr , '\n' | sort | paste -sd,)
check "... casts the float arrays, keeps ids i64 and mask bool (got $got)" \
    test "$got" = "bias:f16,ids:i64,mask:bool,weight:f16"
expect_err_has "... and says which it kept" "--dtype f16 casts the float arrays: 2 others kept as they are: "
expect_err_has "... naming them" "ids i64[3]"
run "$AFMT" convert --dtype f16 --dtype-of ids=i32 --dtype-of weight=keep --allow-lossy "$T/model.npz" "$T/m.npz"
run python3 -c "import numpy as np, sys; z = np.load(sys.argv[1]); print(','.join('%s:%s' % (k, z[k].dtype) for k in sorted(z.files)))" "$T/m.npz"
check "--dtype-of casts one array whatever its class, keep keeps one (numpy reads $OUT)" \
    test "$OUT" = "bias:float16,ids:int32,mask:bool,weight:float32"
run "$AFMT" convert --dtype-of bais=f16 "$T/model.npz" "$T/x.safetensors"
expect_rc "--dtype-of a name no array has: exit 2" 2
expect_err_has "... saying which names there are" "has no array named 'bais' (its arrays: "
check "... and writing nothing" test ! -e "$T/x.safetensors"
run "$AFMT" convert --dtype-of bias "$T/model.npz" "$T/x.safetensors"
expect_rc "--dtype-of without =TYPE: exit 2" 2
"$AFMT" random --to futhark '[2][2]i32' '[3]f32' -o "$T/fut.bin"
run "$AFMT" convert --dtype-of arr_0=f64 "$T/fut.bin" "$T/fut.safetensors"
check "--dtype-of arr_I names an unnamed array by the rule" \
    test "$(types "$T/fut.safetensors" | tr , '\n' | sort | paste -sd,)" = "arr_0:f64,arr_1:f32"
run "$AFMT" convert --dtype f32 "$REPO/examples/i32_2x3.bin" "$T/f32.npy"
check "a file with no array of --dtype's class is cast whole (i32 to f32)" \
    test "$RC" = 0 -a "$(types "$T/f32.npy")" = ":f32"

# ------------------------------------------------------------ refusals name the tensor
run "$AFMT" convert --dtype f16 "$T/model.npz" "$T/r.safetensors"
expect_rc "a lossy cast refused: exit 1" 1
expect_err_has "... naming the tensor and the element" \
    "array [1] bias f32[3]: cannot cast to f16: element [2]: value 2.9999998929497451e-08 does not fit f16"
exit $FAILED
