"""gen_gguf_keys.py OUT NKEYS KEY_BYTES [DUP_OF DUP_AT]: a valid GGUF v3 file
of NKEYS u8 key-values whose keys are KEY_BYTES long ("k000000xxx...", one
f32[4] tensor), or with DUP_OF DUP_AT the key of key-value DUP_AT the same
as that of DUP_OF.  For the memory tests (tests/e2e/run_memory.sh): many
large keys, each under the limits, whose sum a validator must not keep."""
import struct
import sys

out, n, kb = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
dup = (int(sys.argv[4]), int(sys.argv[5])) if len(sys.argv) > 5 else None
def key(i):
    if dup and i == dup[1]:
        i = dup[0]
    k = ("k%06d" % i).encode()
    return k + b"x" * (kb - len(k))
h = b"GGUF" + struct.pack("<IQQ", 3, 1, n)
parts = [h]
for i in range(n):
    k = key(i)
    parts.append(struct.pack("<Q", len(k)) + k + struct.pack("<IB", 0, i & 255))
parts.append(struct.pack("<Q", 1) + b"t" + struct.pack("<IQIQ", 1, 4, 0, 0))
body = b"".join(parts)
body += b"\0" * (-len(body) % 32)
body += struct.pack("<4f", 1, 2, 3, 4) + b"\0" * 16
open(out, "wb").write(body)
