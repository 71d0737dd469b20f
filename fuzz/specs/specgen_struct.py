"""Random specs of named structures with parameters (spec/LANGUAGE.md:
struct), for the spec fuzzer (fuzz/specs/specgen.py, specfuzz.py): the
class of issue 37's first bug, which the other families never reached.

A spec of this family reads records, each a kind and a limit passed to a
structure S(p, q) as expressions.  S switches on its first parameter
(or an expression of it); its cases use the second one in a check, in a
count, and in the arguments they pass on, changed, to a second structure
T(r, m), which reads m elements and checks r.  Parameter names are now
and then the generated code's own (`at`, `c`, `err`, ...).  The records
may lie in an inflated region (zlib, its size in the file, or read from
the inflated bytes).  Then a counted array.  These specs say "read_only"
(a writer writes no structure use here), so make_family() also returns
sample files built from the same choices: valid ones mostly, and now and
then a kind no case takes, a value over its limit, a wrong inflated size.
"""
import zlib

from specgen_dir import TRICKY_PARAMS, enc_int

ELEMENT_TYPES = ["u8", "u16", "i32", "u64be", "i16le"]


def param_names(rng, names, n):
    """n distinct parameter names, now and then the generated C's own."""
    out = []
    while len(out) < n:
        p = rng.choice(TRICKY_PARAMS) if rng.random() < 0.3 else names.new("param")
        if p not in out:
            out.append(p)
    return out


def inner_struct(rng, names, spec):
    """T(r, m): m elements of one type, a check on r, r % 3 bytes more."""
    tname = names.new("inner")
    r, m = param_names(rng, names, 2)
    et = rng.choice(ELEMENT_TYPES)
    xs, tail = names.new("xs"), names.new("tail")
    limit = rng.choice([50, 100, 255])
    body = [{"field": xs, "type": et, "count": m},
            {"check": "%s < %d" % (r, limit), "message": "the level is below %d" % limit},
            {"field": tail, "type": "u8", "count": "%s %% 3" % r}]
    spec.setdefault("structs", {})[tname] = {"params": [r, m], "body": body}
    return tname, {"type": et, "limit": limit}


def outer_struct(rng, names, spec, inner):
    """S(p, q): a switch on p whose cases use q and pass it on to T."""
    sname = names.new("record_value")
    p, q = param_names(rng, names, 2)
    a, n, k = names.new("small"), names.new("n"), names.new("words")
    on = p if rng.random() < 0.6 else "(%s & 7)" % p
    cases = [
        {"when": [1], "body": [{"field": a, "type": "u8", "check": "%s <= %s + 10" % (a, q)}]},
        {"when": [2], "body": [{"field": n, "type": "u8", "check": "%s <= 8" % n},
                               {"struct": names.new("nested"), "use": inner[0], "args": ["%s + 1" % q, n]}]},
        {"when": [3], "body": [{"field": k, "type": "u16", "count": "%s %% 4" % q}]},
    ]
    sw = {"switch": names.new("by_kind"), "on": on, "cases": cases}
    if rng.random() < 0.7:
        sw["else"] = "a kind no case takes"
    spec["structs"][sname] = {"params": [p, q], "body": [sw]}
    return sname, {"mask": on != p}


def records(rng, names, outer):
    """A count, then records of a kind and a limit passed to S."""
    nrec, kind, lim = names.new("records"), names.new("kind"), names.new("limit")
    twice = rng.random() < 0.5
    rep = {"repeat": names.new("record"), "count": nrec, "body": [
        {"field": kind, "type": "u8"}, {"field": lim, "type": "u8"},
        {"struct": names.new("value"), "use": outer, "args": [kind, "%s * 2" % lim if twice else lim]}]}
    return nrec, rep, twice


def make_family(rng, names, spec, samples):
    """The body of a spec of this family (spec completed: tables, structs,
    read_only); its sample files are appended to samples."""
    big = spec.get("endian") == "big"
    inner = inner_struct(rng, names, spec)
    outer = outer_struct(rng, names, spec, inner)
    nrec, rep, twice = records(rng, names, outer[0])
    packed = rng.random() < 0.4
    sized = rng.random() < 0.5
    magic = "".join(rng.choice("STRUCPQ") for _ in range(2))
    body = [{"field": names.new("magic"), "type": "bytes", "size": 2, "equals": magic},
            {"field": nrec, "type": "u8", "check": "%s <= 16" % nrec}]
    if packed:
        zsize, raw = names.new("packed_size"), names.new("raw_size")
        region = {"region": names.new("packed"), "size": zsize, "inflate": "zlib", "body": [rep]}
        body.append({"field": zsize, "type": "u32"})
        if sized:
            body.append({"field": raw, "type": "u32"})
            region["inflated_size"] = raw
        else:
            # the inflated bytes start with their own length (MAT's way)
            region["inflated_size"] = {"at": 0, "type": "u16", "plus": 0}
            region["body"] = [{"field": names.new("length_mark"), "type": "u16"}, rep]
        body.append(region)
    else:
        body.append(rep)
    tname, code, el, cnt = names.new("types"), names.new("code"), names.new("el"), names.new("count")
    spec.setdefault("tables", {})[tname] = {"entries": [{"key": [1], "dtype": "u8"}, {"key": [2], "dtype": "f32"}]}
    body += [{"field": code, "type": "u8"}, {"lookup": el, "table": tname, "key": [code]},
             {"field": cnt, "type": "u16"}, {"array": names.new("data"), "dtype": el, "shape": [cnt],
                                              "order": "row-major"}]
    spec["read_only"] = "its records are read by named structures"
    shape = dict(big=big, inner=inner[1], outer=outer[1], twice=twice, packed=packed, sized=sized,
                 magic=magic, length_mark=packed and not sized)
    for _ in range(rng.randint(2, 4)):
        samples.append(sample(rng, shape))
    return body


def record_bytes(rng, s, bad):
    """One record: kind, limit, and what S reads for them."""
    big = s["big"]
    kind = rng.choice([1, 2, 3]) if not bad or rng.random() < 0.5 else rng.choice([0, 4, 9, 255])
    if s["outer"]["mask"] and rng.random() < 0.3:
        kind |= 8  # (kind & 7) still takes the case
    lim = rng.randint(0, 20)  # q + 1 stays below every limit of T
    q = 2 * lim if s["twice"] else lim
    out = bytes([kind & 255, lim])
    case = kind & 7 if s["outer"]["mask"] else kind
    if case == 1:
        out += bytes([min(255, q + 10 + (5 if bad and rng.random() < 0.5 else 0))])
    elif case == 2:
        n = rng.randint(0, 8)
        r = q + 1
        out += bytes([n]) + b"".join(enc_int(s["inner"]["type"], rng.randint(0, 300), big) for _ in range(n))
        out += bytes(r % 3)
    elif case == 3:
        out += b"".join(enc_int("u16", rng.randint(0, 65535), big) for _ in range(q % 4))
    return out


def sample(rng, s):
    """A file of the spec s describes (a dict of its choices)."""
    big, bad = s["big"], rng.random() < 0.3
    n = rng.randint(0, 6)
    recs = b"".join(record_bytes(rng, s, bad) for _ in range(n))
    out = s["magic"].encode() + bytes([n])
    if s["packed"]:
        if s["length_mark"]:
            recs = enc_int("u16", len(recs) + 2, big) + recs
        z = zlib.compress(recs, rng.choice([0, 1, 6, 9]))
        out += enc_int("u32", len(z), big)
        if s["sized"]:
            out += enc_int("u32", len(recs) + (1 if bad and rng.random() < 0.3 else 0), big)
        out += z
    else:
        out += recs
    code = rng.choice([1, 2]) if not bad or rng.random() < 0.7 else 3
    cnt = rng.randint(0, 5)
    out += bytes([code]) + enc_int("u16", cnt, big) + bytes(cnt * (1 if code == 1 else 4))
    return out
