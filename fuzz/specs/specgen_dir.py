"""Random specs of the GGUF-like constructs (spec/LANGUAGE.md: struct, var
and set, one string as a value, a repeat's unique key, block element
types, directory), with files that follow them, for the spec fuzzer
(fuzz/specs/specgen.py, specfuzz.py).

A spec of this family holds: metadata records of a key (one string, unique
by bytes or as a C string) and a value read by a named structure that uses
itself (integers, strings, bytes, lists of values of one kind, lists of
lists); a var set from the metadata (the alignment, when the key is
"align") and maybe a var counting records; records of named arrays (name,
rank, dims, a type code looked up in a table with plain, bit-packed, sized
opaque and block entries, an offset); a pad to the alignment and a
directory placing the arrays.  About a third read plain values instead of
the structure and may be written (the writer writes directories, vars
and counted repeats, not structure uses); the rest say "read_only", and
a writer never makes their files: directory_format() also returns sample
files built here from the same
choices (valid ones mostly; now and then a duplicate key, a name that
repeats as a C string, a nesting deeper than limits.max_depth), which the
fuzzer validates and mutates like a writer's files.
"""
WIDTH = {"u8": 1, "u16": 2, "u32": 4, "u64": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8}
DSIZE = {"bool": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "u8": 1, "u16": 2, "u32": 4, "u64": 8, "f16": 2,
         "bf16": 2, "f32": 4, "f64": 8, "c32": 4, "c64": 8, "c128": 16}
# what a struct's parameter or an item may be called: tricky C names too
TRICKY_PARAMS = ["c", "err", "at", "at_index", "depth", "int", "n", "i", "src", "opt", "vis", "pos", "end", "k"]


def base(t):
    return t[:-2] if t[-2:] in ("le", "be") else t


def enc_int(t, v, big):
    """v as integer type t (with its le/be suffix, else the spec's order)."""
    if t.endswith("le"):
        big = False
    elif t.endswith("be"):
        big = True
    b = base(t)
    w = WIDTH[b]
    v &= (1 << (8 * w)) - 1
    return v.to_bytes(w, "big" if big else "little")


def rand_int(rng, t):
    b = base(t)
    w = 8 * WIDTH[b]
    if b.startswith("i"):
        return rng.choice([0, 1, -1, 7, -(1 << (w - 1)), (1 << (w - 1)) - 1, rng.randint(-100, 100)])
    return rng.choice([0, 1, 7, (1 << w) - 1, rng.randint(0, 1000) & ((1 << w) - 1)])


def roundup(x, k):
    return (x + k - 1) // k * k


def make_table(rng, names, spec):
    """A type table of plain, maybe bit-packed, sized opaque and block
    entries.  Returns (table name, code type, [(code, kind)]), kind one of
    ("plain", size), ("bits",), ("opaque", size), ("block", n, b)."""
    tname = names.new("ggml")
    entries, kinds = [], []
    code = rng.choice([0, 1])
    for d in rng.sample([d for d in DSIZE if d != "bool"], rng.randint(1, 4)):
        entries.append({"key": [code], "dtype": d})
        kinds.append((code, ("plain", DSIZE[d])))
        code += rng.choice([1, 1, 3])
    if rng.random() < 0.15:
        entries.append({"key": [code], "dtype": "bool", "encoding": "bits-lsb"})
        kinds.append((code, ("bits",)))
        code += 1
    if rng.random() < 0.25:
        size = rng.randint(1, 5)
        e = {"key": [code], "dtype": "opaque", "size": size}
        if rng.random() < 0.5:
            e["name"] = "OP%d" % size
        entries.append(e)
        kinds.append((code, ("opaque", size)))
        code += 1
    for _ in range(rng.randint(0, 3)):
        n, b = rng.choice([1, 2, 4, 32, 256]), rng.randint(1, 20)
        nm = rng.choice(["Q4_0", "Q6_K", "IQ2_XXS", "B%d_%d" % (n, b), "x" * 63])
        if any(e.get("name") == nm for e in entries):
            nm = "T%d" % code
        entries.append({"key": [code], "dtype": "opaque", "name": nm, "block": [n, b]})
        kinds.append((code, ("block", n, b)))
        code += 1
    if rng.random() < 0.1:
        entries[-1]["warn"] = "an old type"
    spec.setdefault("tables", {})[tname] = {"entries": entries}
    return tname, rng.choice(["u8", "u16", "u32", "u32be", "i32"]), kinds


def make_struct(rng, names, spec):
    """A named structure of one value, whose kind is its first parameter;
    lists of values use it again.  Returns (struct name, {kind: how})."""
    sname = names.new("value")
    kp = rng.choice(TRICKY_PARAMS) if rng.random() < 0.2 else names.new("vtype")
    params = [kp]
    extra = None
    if rng.random() < 0.3:
        extra = rng.choice([p for p in TRICKY_PARAMS if p != kp]) if rng.random() < 0.3 else names.new("level")
        params.append(extra)
    kinds = rng.sample(range(0, 13), rng.randint(2, 5))
    vtypes, cases = {}, []
    shapes = ["int", "str", "list"] + [rng.choice(["int", "str", "bytes", "list"]) for _ in kinds[3:]]
    rng.shuffle(shapes)
    if "list" not in shapes[:len(kinds)] and rng.random() < 0.8:
        shapes[0] = "list"
    for k, how in zip(kinds, shapes):
        if how == "int":
            t = int_type_plain(rng)
            f = {"field": names.new("v"), "type": t}
            if rng.random() < 0.2:
                f["check"] = {"expr": "%s >= 0" % f["field"], "lenient": "warn"}
            cases.append({"when": [k], "body": [f]})
            vtypes[k] = ("int", t)
        elif how == "str":
            lt = rng.choice(["u8", "u16", "u32le", "u64", "u64be"])
            f = {"field": names.new("s"), "type": "string", "length": lt}
            r = rng.random()
            if r < 0.2:
                f["check"] = {"expr": "len(%s) <= 40" % f["field"], "message": "a short string"}
            elif r < 0.3:
                f["check"] = "%s != \"bad\"" % f["field"]
            cases.append({"when": [k], "body": [f]})
            vtypes[k] = ("str", lt)
        elif how == "bytes":
            n = rng.choice([1, 4, 8])
            cases.append({"when": [k], "body": [{"field": names.new("raw"), "type": "bytes", "size": n}]})
            vtypes[k] = ("bytes", n)
        else:
            ik, cnt, rep, use = names.new("item_type"), names.new("count"), names.new("items"), names.new("item")
            it_t, cnt_t = rng.choice(["u8", "u32", "u16be"]), rng.choice(["u8", "u32", "u64"])
            args = [ik] + ([(extra + " + 1") if rng.random() < 0.7 else "0"] if extra else [])
            body = [{"field": ik, "type": it_t}, {"field": cnt, "type": cnt_t}]
            if rng.random() < 0.3:
                body[1]["check"] = "%s <= 1000" % cnt
            body.append({"repeat": rep, "count": cnt, "body": [{"struct": use, "use": sname, "args": args}]})
            cases.append({"when": [k], "body": body})
            vtypes[k] = ("list", it_t, cnt_t)
    sw = {"switch": names.new("value_kind"), "on": kp, "cases": cases}
    if rng.random() < 0.5:
        sw["else"] = "an unknown value type"
    body = [sw]
    if extra and rng.random() < 0.5:
        body.insert(0, {"check": "%s < 64" % extra, "message": "nested too deep"})
    st = {"params": params, "body": body}
    if rng.random() < 0.3:
        st["doc"] = "a value; lists hold values"
    spec.setdefault("structs", {})[sname] = st
    if rng.random() < 0.1:
        # a structure nothing uses
        spec["structs"][names.new("unused")] = {"body": [{"field": names.new("u"), "type": "u8"}]}
    return sname, vtypes, extra is not None


def int_type_plain(rng):
    t = rng.choice(list(WIDTH))
    return t + rng.choice(["", "", "le", "be"])


def directory_format(rng, names, spec, samples):
    """The body of a GGUF-like spec (spec is completed: tables, structs,
    read_only); sample files are appended to samples."""
    big = spec.get("endian") == "big"
    tname, code_t, tkinds = make_table(rng, names, spec)
    sname, vtypes, two_params = make_struct(rng, names, spec)
    magic = "".join(rng.choice("GUFDIR") for _ in range(4))
    nmeta, nrec, align = names.new("kv_count"), names.new("tensor_count"), names.new("alignment")
    nmeta_t, nrec_t = rng.choice(["u8", "u32", "u64"]), rng.choice(["u8", "u64", "u32be"])
    align0 = rng.choice([1, 4, 8, 16, 32])
    counter = names.new("seen") if rng.random() < 0.4 else None
    body = [{"field": names.new("magic"), "type": "bytes", "size": 4, "equals": magic},
            {"field": nmeta, "type": nmeta_t}, {"field": nrec, "type": nrec_t},
            {"var": align, "value": align0}]
    if counter:
        body.append({"var": counter, "value": "0" if rng.random() < 0.5 else 0})
    # metadata: key, kind, value (or the alignment when the key is "align")
    key, kind, isal, aval = names.new("key"), names.new("type"), names.new("is_align"), names.new("value")
    key_lt, kind_t = rng.choice(["u8", "u16", "u64"]), rng.choice(["u8", "u32"])
    kv = [{"field": key, "type": "string", "length": key_lt}, {"field": kind, "type": kind_t}]
    if rng.random() < 0.5:
        kv[0]["check"] = {"expr": "len(%s) > 0" % key, "message": "a key is not empty"}
    q = rng.choice(["\"align\"", "'align'"])
    use_let = rng.random() < 0.6
    if use_let:
        kv.append({"let": isal, "value": "%s == %s" % (key, q)})
    on = ("%s ? 1 : 0" % isal) if use_let else ("%s != %s ? 0 : 1" % (key, q))
    align_case = [{"field": aval, "type": "u32", "check": {
        "expr": "%s != 0 && (%s & (%s - 1)) == 0 && %s <= 4096" % (aval, aval, aval, aval),
        "message": "the alignment is a power of two"}}, {"set": align, "value": aval}]
    args = [kind] + (["0"] if two_params else [])
    value_case = [{"struct": names.new("value"), "use": sname, "args": args}]
    # a spec the writer may write (it writes no structure use): plain values
    writable = rng.random() < 0.35
    if writable:
        value_case = [{"field": names.new("value"), "type": rng.choice(["u32", "u64", "i8"])}]
    kv.append({"switch": names.new("kv_value"), "on": on, "cases": [{"when": [1], "body": align_case},
                                                                     {"when": [0], "body": value_case}]})
    if counter:
        kv.append({"set": counter, "value": "%s + 1" % counter})
    meta_rep = {"repeat": names.new("kv"), "count": nmeta, "body": kv}
    if rng.random() < 0.8:
        meta_rep["unique"] = key
        if rng.random() < 0.4:
            meta_rep["unique_as"] = rng.choice(["bytes", "c-string"])
    body.append(meta_rep)
    if counter and rng.random() < 0.7:
        body.append({"check": "%s == %s" % (counter, nmeta), "field": nmeta})
    # records: name, rank, dims, type, offset
    name, rank, dims, typ, el, off = (names.new(h) for h in ["name", "n_dims", "ne", "type", "el", "offset"])
    name_lt, rank_t = rng.choice(["u8", "u64", "u32be"]), rng.choice(["u8", "u32"])
    dims_t, off_t = rng.choice(["u32", "u64", "i64", "u64be"]), rng.choice(["u64", "u32", "u64be"])
    rec = [{"field": name, "type": "string", "length": name_lt},
           {"field": rank, "type": rank_t}, {"field": dims, "type": dims_t, "count": rank},
           {"field": typ, "type": code_t}, {"lookup": el, "table": tname, "key": [typ]},
           {"field": off, "type": off_t}]
    max_rank = rng.choice([3, 4, 8])
    if rng.random() < 0.5:
        rec[1]["range"] = [0, max_rank]
    else:
        rec[1]["check"] = "%s <= %d" % (rank, max_rank)
    if rng.random() < 0.3:
        rec[2]["each"] = "%s >= 0" % dims
    off_name = off
    if rng.random() < 0.2 and not writable:
        off_name = names.new("at")
        rec.append({"let": off_name, "value": "%s + 0" % off})
    if rng.random() < 0.3:
        rec.append({"check": "%s %% %s == 0" % (off, align), "field": off, "message": "an aligned offset",
                    "lenient": "warn"})
    rec_rep = {"repeat": names.new("tensor"), "count": nrec, "body": rec}
    if rng.random() < 0.7:
        rec_rep["unique"] = name
        if rng.random() < 0.6:
            rec_rep["unique_as"] = rng.choice(["c-string", "bytes"])
    body.append(rec_rep)
    pad = {"pad": names.new("data_padding"), "size": "roundup(offset(), %s) - offset()" % align}
    if rng.random() < 0.5:
        pad["lenient"] = "warn"
    body.append(pad)
    dir_align = align if rng.random() < 0.8 else str(rng.choice([1, 8]))
    d = {"directory": names.new("data"), "records": rec_rep["repeat"], "align": dir_align, "dtype": el,
         "shape": dims, "offset": off_name}
    fastest = rng.random() < 0.6
    if fastest or rng.random() < 0.3:
        d["dims"] = "fastest-first" if fastest else "slowest-first"
    if writable or rng.random() < 0.7:
        d["name"] = name  # the writer derives the records' names only from it
    if rng.random() < 0.2:
        d["endian"] = rng.choice(["little", "big"])
    if rng.random() < 0.5:
        d["lenient"] = "warn"
    body.append(d)
    if not writable or rng.random() < 0.3:
        spec["read_only"] = "a spec fuzzer's GGUF-like format"
    f = dict(big=big, magic=magic, plain_value=value_case[0]["type"] if writable else None, nmeta_t=nmeta_t, nrec_t=nrec_t, align0=align0, key_lt=key_lt, kind_t=kind_t,
             vtypes=vtypes, name_lt=name_lt, rank_t=rank_t, dims_t=dims_t, code_t=code_t, off_t=off_t, tkinds=tkinds,
             fastest=fastest, max_rank=max_rank, dir_align=None if dir_align == align else int(dir_align),
             unique_as=rec_rep.get("unique_as", "bytes") if "unique" in rec_rep else None,
             key_unique=meta_rep.get("unique_as", "bytes") if "unique" in meta_rep else None)
    for _ in range(3):
        samples.append(sample(rng, f))
    return body


def enc_value(rng, f, kind, depth, deep=False):
    """A value of `kind` as the structure reads it."""
    how = f["vtypes"][kind]
    big = f["big"]
    if how[0] == "int":
        return enc_int(how[1], rand_int(rng, how[1]), big)
    if how[0] == "str":
        s = rng.choice([b"", b"x", b"hello", b"bad", bytes(rng.randrange(256) for _ in range(rng.randint(0, 50)))])
        return enc_int(how[1], len(s), big) + s
    if how[0] == "bytes":
        return bytes(rng.randrange(256) for _ in range(how[1]))
    lists = [k for k, h in f["vtypes"].items() if h[0] == "list"]
    if deep:
        # a list of one list of one list ... deeper than limits.max_depth
        return enc_int(how[1], kind, big) + enc_int(how[2], 1, big) + enc_value(rng, f, kind, depth + 1, depth < 40)
    leaves = [k for k in f["vtypes"] if k not in lists]
    ik = rng.choice(leaves if depth >= 3 or not lists or rng.random() < 0.6 else list(f["vtypes"]))
    n = rng.randint(0, 3)
    return enc_int(how[1], ik, big) + enc_int(how[2], n, big) + b"".join(
        enc_value(rng, f, ik, depth + 1) for _ in range(n))


def sample(rng, f):
    """One file of the family's spec: metadata, records, padding, arrays."""
    big = f["big"]
    out = bytearray(f["magic"].encode())
    keys = []
    for _ in range(rng.randint(0, 4)):
        keys.append(rng.choice([b"general.name", b"a.b.%d" % rng.randint(0, 99), b"k\x00x", b"general.name" * 30]
                               if rng.random() < 0.95 else [b""]))
    if rng.random() < 0.6:
        keys.insert(rng.randint(0, len(keys)), b"align")
    if f["key_unique"] and rng.random() < 0.8:
        keys = list(dict.fromkeys(keys))
    recs = []
    for i in range(rng.randint(0, 4)):
        nm = rng.choice([b"t%d" % i, b"blk.%d.weight" % i, b"w%d\x00tail" % i, b"n" * 70]
                        if rng.random() < 0.95 else [b""])
        recs.append(nm)
    if f["unique_as"] and rng.random() < 0.85:
        seen, kept = set(), []
        for nm in recs:
            k = nm.split(b"\x00")[0] if f["unique_as"] == "c-string" else nm
            if k not in seen:
                seen.add(k)
                kept.append(nm)
        recs = kept
    out += enc_int(f["nmeta_t"], len(keys), big) + enc_int(f["nrec_t"], len(recs), big)
    align = f["align0"]
    deep = rng.random() < 0.05
    lists = [k for k, h in f["vtypes"].items() if h[0] == "list"]
    for k in keys:
        out += enc_int(f["key_lt"], len(k), big) + k
        if k == b"align":
            out += enc_int(f["kind_t"], rng.choice(list(f["vtypes"])), big)
            align = rng.choice([1, 2, 8, 32, 64])
            out += enc_int("u32", align, big)
        elif f["plain_value"]:
            out += enc_int(f["kind_t"], rng.choice(list(f["vtypes"])), big)
            out += enc_int(f["plain_value"], rand_int(rng, f["plain_value"]), big)
        else:
            kind = rng.choice(lists) if deep and lists else rng.choice(list(f["vtypes"]))
            out += enc_int(f["kind_t"], kind, big) + enc_value(rng, f, kind, 1, deep and kind in lists)
    dir_align = f["dir_align"] or align
    arrays, cur = [], 0
    for nm in recs:
        code, kind = rng.choice(f["tkinds"])
        rank = rng.randint(1 if kind[0] == "block" and kind[1] > 1 else 0, min(3, f["max_rank"]))
        dims = [rng.randint(0, 3) for _ in range(rank)]
        if kind[0] == "block" and rank:
            dims[0 if f["fastest"] else rank - 1] = kind[1] * rng.randint(0, 2)
        count = 1
        for x in dims:
            count *= x
        if kind[0] == "plain" or kind[0] == "opaque":
            nb = count * kind[1]
        elif kind[0] == "bits":
            nb = (count + 7) // 8
        else:
            nb = count // kind[1] * kind[2]
        at = roundup(cur, dir_align)
        out += enc_int(f["name_lt"], len(nm), big) + nm + enc_int(f["rank_t"], rank, big)
        out += b"".join(enc_int(f["dims_t"], x, big) for x in dims)
        out += enc_int(f["code_t"], code, big) + enc_int(f["off_t"], at, big)
        arrays.append((at, nb))
        cur = at + nb
    out += bytes(roundup(len(out), align) - len(out))
    data = bytearray()
    for at, nb in arrays:
        data += bytes(at - len(data))
        data += bytes(rng.randrange(256) for _ in range(nb))
    if arrays:
        data += bytes(roundup(len(data), dir_align) - len(data))
    return bytes(out + data)

