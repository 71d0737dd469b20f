#!/usr/bin/env bash
# afmt-validate URL: a remote file checked by HTTP range requests against
# a real nginx started on 127.0.0.1 (Debian: nginx-light), counting the
# bytes nginx sent ($bytes_sent) to show that only headers are fetched;
# plus a server that ignores ranges (python3 -m http.server) and one that
# drops the connection mid-body.  One PASS/FAIL line per check.
set -u
SUITE=remote
. "$(dirname "$0")/lib.sh" "$@"
S="$REPO/corpus"

NGINX=$(command -v nginx || ls /usr/sbin/nginx 2> /dev/null)
if [ -z "$NGINX" ]; then
    echo "SKIP remote: nginx is not installed (Debian: nginx-light; make deps installs it)"
    exit 0
fi
if ! python3 -c 'import ctypes; ctypes.CDLL("libcurl.so.4")' 2> /dev/null; then
    echo "SKIP remote: libcurl.so.4 is not installed (Debian: libcurl4)"
    exit 0
fi
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# ------------------------------------------------------------ the files
W="$T/www"
mkdir -p "$W" "$T/tmp"
python3 - "$W" <<'PY'
import json, struct, sys, os
w = sys.argv[1]
def st(path, tensors, payload_len):
    hdr = json.dumps(tensors).encode()
    hdr += b" " * (-len(hdr) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hdr)) + hdr)
        f.truncate(8 + len(hdr) + payload_len)  # sparse: nginx still sends what is asked
st(w + "/valid.safetensors", {"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}}, 24)
st(w + "/huge.safetensors", {"w": {"dtype": "F32", "shape": [1 << 30], "data_offsets": [0, 4 << 30]},
                             "b": {"dtype": "F16", "shape": [8], "data_offsets": [4 << 30, (4 << 30) + 16]}},
   (4 << 30) + 16)
# a header bigger than the first range (300 KB of tensor entries): fetched in a few ranges
many = {"t%05d" % i: {"dtype": "U8", "shape": [1], "data_offsets": [i, i + 1]} for i in range(5000)}
st(w + "/bighdr.safetensors", many, 5000)
st(w + "/lying.safetensors", {"w": {"dtype": "F32", "shape": [2, 3], "data_offsets": [0, 24]}}, 20)
def npy(path, descr, shape, body=None, size=None):
    h = ("{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)).encode()
    h += b" " * (-(10 + len(h) + 1) % 64) + b"\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h)
        if body is not None:
            f.write(body)
        if size is not None:
            f.truncate(10 + len(h) + size)
npy(w + "/huge.npy", "<f4", "(536870912,)", size=2 << 30)
# .npz archives (Python's zipfile, as np.savez uses it): 50 stored members
# of 1 MiB, one of bools, one with a bad member between good ones
import io, zipfile
def npy_bytes(descr, shape, body):
    b = io.BytesIO()
    h = ("{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)).encode()
    h += b" " * (-(10 + len(h) + 1) % 64) + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h + body
with zipfile.ZipFile(w + "/many.npz", "w") as z:
    for i in range(50):
        z.writestr("m%02d.npy" % i, npy_bytes("<f8", "(131072,)", bytes(1 << 20)))
with zipfile.ZipFile(w + "/bools.npz", "w") as z:
    z.writestr("m.npy", npy_bytes("|b1", "(100000,)", b"\x01" * 99999 + b"\x02"))
with zipfile.ZipFile(w + "/badmember.npz", "w") as z:
    for name, shape in (("a", "(3,)"), ("b", "(x,)"), ("c", "(3,)")):
        z.writestr(name + ".npy", npy_bytes("<f4", shape, bytes(12)))
with zipfile.ZipFile(w + "/packed.npz", "w", compression=zipfile.ZIP_DEFLATED) as z:
    z.writestr("w.npy", npy_bytes("<f4", "(1024,)", bytes(4096)))
npy(w + "/bool.npy", "|b1", "(100000,)", body=b"\x01" * 100000)
npy(w + "/badbool.npy", "|b1", "(100000,)", body=b"\x01" * 99999 + b"\x02")
PY
cp "$S/npy/f8_2x3.npy" "$W/small.npy"
cp "$S/gguf/quantized.gguf" "$W/model.gguf" 2> /dev/null
head -c 9 "$S/npy/f8_2x3.npy" > "$W/cut.npy"

# ------------------------------------------------------------ nginx
PORT=$(free_port)
TLSPORT=$(free_port)
# a self-signed certificate: TLS must be verified, so it is refused
TLS=""
if command -v openssl > /dev/null 2>&1 &&
   openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=127.0.0.1 \
       -keyout "$T/key.pem" -out "$T/cert.pem" > /dev/null 2>&1; then
    TLS="server { listen 127.0.0.1:$TLSPORT ssl; ssl_certificate $T/cert.pem; ssl_certificate_key $T/key.pem; root $W; }"
fi
cat > "$T/nginx.conf" <<CONF
worker_processes 1;
pid $T/nginx.pid;
error_log $T/error.log;
$( [ "$(id -u)" = 0 ] && echo "user root;" )
events { worker_connections 64; }
http {
    log_format sent '\$uri \$status \$bytes_sent';
    access_log $T/access.log sent;
    client_body_temp_path $T/tmp/body; proxy_temp_path $T/tmp/proxy;
    fastcgi_temp_path $T/tmp/fcgi; uwsgi_temp_path $T/tmp/uwsgi; scgi_temp_path $T/tmp/scgi;
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$PORT;
        root $W;
        location = /moved.safetensors { return 302 /valid.safetensors; }
        location = /loop.npy { return 302 /loop.npy; }
    }
    $TLS
}
CONF
"$NGINX" -c "$T/nginx.conf" -p "$T" 2> "$T/nginx.err"
for i in $(seq 50); do [ -s "$T/nginx.pid" ] && break; sleep 0.1; done
if [ ! -s "$T/nginx.pid" ]; then
    fail "nginx starts" "$(cat "$T/nginx.err" "$T/error.log" 2> /dev/null | head -c 400)"
    exit 1
fi
trap 'kill $(cat "$T/nginx.pid") 2> /dev/null; [ -n "${PYPID:-}" ] && kill $PYPID 2> /dev/null; rm -rf "$T"' EXIT
U="http://127.0.0.1:$PORT"
sent() { # bytes nginx sent for a path, over all its requests
    awk -v u="$1" '$1 == u { s += $3 } END { print s + 0 }' "$T/access.log"
}

# ------------------------------------------------------------ checks
run "$VALIDATE" "$U/valid.safetensors"
expect_out "a valid safetensors file by URL" "$U/valid.safetensors: ok safetensors f32[2,3] row-major"

run "$VALIDATE" "$U/huge.safetensors"
expect_out "a 4 GiB safetensors file: its header checked" \
    "$U/huge.safetensors: ok safetensors f32[1073741824] row-major (+1 more)"
n=$(sent /huge.safetensors)
check "... with only its header fetched: nginx sent $n bytes of 4 GiB (< 80 KiB)" test "$n" -lt 81920

run "$VALIDATE" "$U/huge.npy"
expect_out "a 2 GiB .npy by URL" "$U/huge.npy: ok npy f32[536870912] row-major"
n=$(sent /huge.npy)
check "... nginx sent $n bytes of 2 GiB (< 80 KiB)" test "$n" -lt 81920

if [ -f "$W/model.gguf" ]; then
    run "$VALIDATE" "$U/model.gguf"
    expect_out "a GGUF file by URL: the local verdict" "$("$VALIDATE" "$W/model.gguf" | sed "s|^$W/|$U/|")"
fi

run "$VALIDATE" "$U/bighdr.safetensors"
expect_out_has "a header larger than the first range is fetched in more ranges" \
    "$U/bighdr.safetensors: ok safetensors u8[1] row-major (+4999 more)"
n=$(sent /bighdr.safetensors); reqs=$(grep -c '^/bighdr.safetensors ' "$T/access.log")
size=$(stat -c %s "$W/bighdr.safetensors")
check "... $reqs requests, $n bytes sent for a $size-byte file (no more than the file and 2 KiB of headers per request)" \
    test "$reqs" -ge 2 -a "$n" -le $((size + reqs * 2048))

run "$VALIDATE" "$U/lying.safetensors" "$U/cut.npy"
expect_rc "invalid remote files: exit 1" 1
expect_out "... with the validator's reasons, as for local files" \
"$U/lying.safetensors: invalid safetensors: $("$VALIDATE" "$W/lying.safetensors" | sed 's/^[^:]*: invalid safetensors: //')
$U/cut.npy: invalid npy: $("$VALIDATE" "$W/cut.npy" | sed 's/^[^:]*: invalid npy: //')"

run "$VALIDATE" "$U/bool.npy" "$U/badbool.npy"
expect_out_has "bools: the body streamed by ranges, values checked (valid)" "$U/bool.npy: ok npy bool[100000]"
expect_out_has "... and a bad bool byte found at the end of the body" "$U/badbool.npy: invalid npy: "
n=$(sent /badbool.npy)
check "... the whole body was fetched for it ($n bytes sent)" test "$n" -ge 100000

run "$VALIDATE" "$U/moved.safetensors"
expect_out "a redirect is followed" "$U/moved.safetensors: ok safetensors f32[2,3] row-major"
run "$VALIDATE" "$U/loop.npy"
expect_rc "a redirect loop: exit 2" 2
expect_err_has "... stopped after 5 redirects" "Number of redirects hit maximum amount"
run "$VALIDATE" "$U/nothere.npy"
expect_rc "a missing file: exit 2" 2
expect_err_has "... HTTP 404" "$U/nothere.npy: error: HTTP 404"
run "$VALIDATE" --json "$U/small.npy"
expect_out_has "--json with a URL" "\"path\":\"$U/small.npy\",\"archive\":null,\"member\":null,\"verdict\":\"valid\""
run "$VALIDATE" --sarif "$U/cut.npy"
expect_out_has "--sarif: the URL is the artifact's uri" "\"uri\":\"$U/cut.npy\""

# A remote .npz (issue 32): its central directory from the end, then each
# member's header, each member its line as for the local file.
for f in many.npz badmember.npz packed.npz bools.npz; do
    run "$VALIDATE" "$U/$f"
    check "a remote $f: the local file's lines, exit $("$VALIDATE" "$W/$f" > /dev/null; echo $?)" \
        test "$OUT" = "$("$VALIDATE" "$W/$f" | sed "s|^$W/|$U/|")" -a "$RC" = "$("$VALIDATE" "$W/$f" > /dev/null; echo $?)"
done
n=$(sent /many.npz); reqs=$(grep -c '^/many.npz ' "$T/access.log")
size=$(stat -c %s "$W/many.npz")
check "... many.npz: $n of $size bytes sent in $reqs requests (its directory and 50 headers: < 1.5 MiB)" \
    test "$n" -lt 1572864
n=$(sent /bools.npz)
check "... bools.npz: the bools' member fetched whole to check its values ($n bytes sent)" test "$n" -ge 100000
run "$VALIDATE" --json "$U/badmember.npz"
expect_out_has "--json with a remote .npz: archive and member" \
    "\"path\":\"$U/badmember.npz:b.npy\",\"archive\":\"$U/badmember.npz\",\"member\":\"b.npy\",\"verdict\":\"invalid\""

# afmt info, dump and convert take a URL as afmt-validate does (issue 36
# point 5): info fetches what its checks read, dump and convert the file.
local_as_url() { sed "s|$W/|$U/|g"; }
for f in huge.safetensors bighdr.safetensors small.npy badbool.npy; do
    run "$AFMT" info "$U/$f"
    want=$("$AFMT" info "$W/$f" | local_as_url)
    wrc=$("$AFMT" info "$W/$f" > /dev/null 2>&1; echo $?)
    check "afmt info URL of $f: the local report, exit $wrc" test "$OUT" = "$want" -a "$RC" = "$wrc"
done
n=$(sent /huge.safetensors)
run "$AFMT" info "$U/huge.safetensors"
n2=$(sent /huge.safetensors)
check "... info of the 4 GiB file fetched its header only ($((n2 - n)) bytes sent, < 80 KiB)" \
    test $((n2 - n)) -lt 81920
run "$AFMT" info --json "$U/small.npy"
expect_out_has "afmt info --json URL" "{\"path\":\"$U/small.npy\",\"format\":\"npy\",\"size\":176,\"valid\":true"
run "$AFMT" info "$U/nothere.npy"
expect_rc "afmt info URL of a missing file: exit 2" 2
expect_err_has "... HTTP 404" "$U/nothere.npy: error: HTTP 404"
run "$AFMT" dump "$U/small.npy"
check "afmt dump URL: the local values" test "$OUT" = "$("$AFMT" dump "$W/small.npy")" -a "$RC" = 0
run "$AFMT" convert "$U/small.npy" "$T/from_url.safetensors"
"$AFMT" convert "$W/small.npy" "$T/from_file.safetensors"
check "afmt convert URL: the bytes of the local conversion" cmp -s "$T/from_url.safetensors" "$T/from_file.safetensors"
run "$AFMT" convert "$U/lying.safetensors" "$T/lying.npy"
expect_rc "afmt convert URL of an invalid file: exit 1" 1
expect_err_has "... the validator's reason" "invalid safetensors: "
before=$(sent /huge.npy)
run "$AFMT" dump "$U/huge.npy"
expect_rc "afmt dump URL of a 2 GiB file: refused, exit 1" 1
expect_err_has "... saying why" "a remote file of 2147483776 bytes is more than the 1073741824 bytes this command fetches whole"
check "... after its first range only ($(( $(sent /huge.npy) - before )) bytes sent)" \
    test $(( $(sent /huge.npy) - before )) -lt 81920

# Which formats cost their headers only: what --help, README and the man
# page say (one list, every format), measured on a 16 MiB file of each.
claim() { # text on stdin: "Headers only: a, b, c", as one line of names
    tr '\n' ' ' | sed 's/  */ /g' | grep -o "Headers only: [a-z0-9_, ]*" | sed "s/^Headers only: //; s/, */ /g; s/ *$//"
}
h_only=$("$VALIDATE" --help | claim)
check "--help and README name the same header-only formats ($h_only)" \
    test -n "$h_only" -a "$h_only" = "$(claim < "$REPO/README.md")"
check "... as afmt-validate.1 does" test "$h_only" = "$(claim < "$REPO/docs/afmt-validate.1")"
check "... and they are every format" test "$(echo $h_only | tr ' ' '\n' | sort | paste -sd' ')" = \
    "$("$AFMT" formats | awk 'NR > 1 { print $1 }' | sort | paste -sd' ')"
for f in $h_only; do
    ty='[2048][2048]f32'; [ "$f" = inebin ] && ty='[2048][1024]f64'
    if [ "$f" = webdataset ]; then # read-only: a shard of one .npy member
        "$AFMT" random "$ty" -o "$T/000001.npy" && (cd "$T" && tar cf "$W/m16.$f" 000001.npy)
    elif [ "$f" = mat5 ]; then # read-only: one uncompressed single 2048x2048
        python3 -c 'import struct, sys
n = 2048 * 2048 * 4
el = struct.pack("<IIIIIIii", 6, 8, 7, 0, 5, 8, 2048, 2048) + struct.pack("<I", (1 << 16) | 1) + b"m\0\0\0"
el += struct.pack("<II", 7, n) + bytes(n)
sys.stdout.buffer.write(b"MATLAB 5.0 MAT-file, Platform: test".ljust(116, b" ") + bytes(8) + b"\x00\x01IM" + struct.pack("<II", 14, len(el)) + el)' > "$W/m16.$f"
    else
        "$AFMT" random --to "$f" "$ty" -o "$W/m16.$f" 2> /dev/null
    fi
    size=$(stat -c %s "$W/m16.$f")
    before=$(sent "/m16.$f")
    run "$VALIDATE" --format "$f" "$U/m16.$f"
    n=$(( $(sent "/m16.$f") - before ))
    check "$f, headers only: valid, $n bytes sent for $size (< 80 KiB)" test "$RC" = 0 -a "$n" -lt 81920
done

if [ -n "$TLS" ]; then
    run "$VALIDATE" "https://127.0.0.1:$TLSPORT/valid.safetensors"
    expect_rc "https with a self-signed certificate: exit 2 (TLS is verified)" 2
    expect_err_has "... saying why" "certificate"
else
    echo "SKIP remote: no openssl to make a self-signed certificate (Debian: openssl)"
fi

# A server that ignores Range (python3 -m http.server answers 200 with
# the whole file).
PORT2=$(free_port)
(cd "$W" && exec python3 -m http.server --bind 127.0.0.1 "$PORT2" > "$T/py.log" 2>&1) &
PYPID=$!
for i in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT2))" 2> /dev/null && break; sleep 0.1; done
run "$VALIDATE" "http://127.0.0.1:$PORT2/huge.npy"
expect_rc "a server that ignores ranges: exit 2" 2
expect_err_has "... saying so" "the server ignores range requests (HTTP 200 to a Range request)"
kill $PYPID 2> /dev/null; wait $PYPID 2> /dev/null

# A server that drops the connection mid-body.
PORT3=$(free_port)
python3 - "$PORT3" "$W/bool.npy" > "$T/drop.log" 2>&1 <<'PY' &
import http.server, sys
data = open(sys.argv[2], "rb").read()
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        a, b = self.headers["Range"].split("=")[1].split("-")
        a, b = int(a), min(int(b), len(data) - 1)
        self.send_response(206)
        self.send_header("Content-Range", "bytes %d-%d/%d" % (a, b, len(data)))
        self.send_header("Content-Length", str(b - a + 1))
        self.end_headers()
        self.wfile.write(data[a:a + (b - a + 1) // 2])  # half, then hang up
        self.wfile.flush()
        self.close_connection = True
    def log_message(self, *a):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
PYPID=$!
for i in $(seq 50); do python3 -c "import socket; socket.create_connection(('127.0.0.1', $PORT3))" 2> /dev/null && break; sleep 0.1; done
run "$VALIDATE" "http://127.0.0.1:$PORT3/bool.npy"
expect_rc "a server that drops the connection mid-body: exit 2" 2
expect_err_has "... a clear error" "http://127.0.0.1:$PORT3/bool.npy: error: "
expect_err_has "... saying the transfer was cut short" "bytes from offset 0"
kill $PYPID 2> /dev/null; wait $PYPID 2> /dev/null
PYPID=
exit $FAILED
