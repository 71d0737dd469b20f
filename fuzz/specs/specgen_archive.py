"""Random specs of archives with a pickle member (spec/LANGUAGE.md:
"Archives: members as named sub-inputs", "Value grammars: pickle"), the
constructs of spec/torch.json, with files that follow them, for the spec
fuzzer (fuzz/specs/specgen.py, specfuzz.py).

A spec of this family is one `archive` item (zip or tar) drawn at random:
compression methods strict and lenient, flags, alignment, the CRC rule,
extra-field ids, the zip64 end record, the layout, what happens to
members no rule names, the writer's captures and descriptors; member
rules of every action but `format` (which names another format, and the
driver links one): a pickle member pointing at records by a pattern with
a decimal key, a byte-order text that sets a variable a record rule
reads, a required version text with lenient alternatives, refused and
ignored members.  The pickle grammar takes a protocol (2 to 5), a subset
of the opcodes the machine carries out (now and then without one the
writer needs), canonical or not, an allowlist of globals under random
module and attribute names (a dict maker, an array rebuilder with its
argument kinds and bindings, a wrapper, storage classes of random
dtypes, refused ones), the persistent id's parts, the key order, BUILD,
the dict key kinds and the root kinds.

make_family() also returns files made by Python's own pickler (the
globals registered under their random names as modules, so that pickle
writes exactly what CPython writes for them) inside archives made by
zipfile and tarfile: state dicts of a few arrays with shared and
reordered storages, nested dicts and lists, plain values, and now and
then a record of the wrong size, a key out of order, an unlisted member,
a missing required member.
"""
import io
import pickle
import sys
import tarfile
import types
import zipfile
from collections import OrderedDict

DSIZE = {"bool": 1, "u8": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2, "f32": 4, "f64": 8}
# what the machine carries out (gen/archive_pickle.c, MACHINE_OPS)
MACHINE_OPS = ["PROTO", "STOP", "MARK", "EMPTY_DICT", "EMPTY_LIST", "EMPTY_TUPLE", "BINPUT", "LONG_BINPUT",
               "BINGET", "LONG_BINGET", "BINUNICODE", "BININT", "BININT1", "BININT2", "LONG1", "BINFLOAT", "NONE",
               "NEWTRUE", "NEWFALSE", "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3", "SETITEM", "SETITEMS", "APPEND",
               "APPENDS", "GLOBAL", "REDUCE", "BUILD", "BINPERSID"]
# what a state dict of arrays needs (torch.save's profile)
NEEDED = ["PROTO", "STOP", "MARK", "EMPTY_DICT", "EMPTY_TUPLE", "BINPUT", "BINGET", "BINUNICODE", "BININT1",
          "BININT", "TUPLE", "TUPLE1", "TUPLE2", "TUPLE3", "NEWFALSE", "GLOBAL", "REDUCE", "BINPERSID", "SETITEMS",
          "SETITEM"]
IDENT = "abcdefghijklmnopqrstuvwxyz"


def ident(rng, used):
    for _ in range(100):
        s = rng.choice(IDENT) + "".join(rng.choice(IDENT + "_0123456789") for _ in range(rng.randint(0, 9)))
        if s not in used:
            used.add(s)
            return s
    s = "g%d" % len(used)
    used.add(s)
    return s


def grammar(rng, used):
    """A pickle grammar, and what a file of it must hold."""
    mod = ident(rng, used)
    if rng.random() < 0.3:
        mod += "." + ident(rng, used)  # a dotted module, as torch._utils
    dict_global = rng.choice(["collections OrderedDict", "%s %s" % (mod, ident(rng, used))])
    rebuild = ident(rng, used)
    dts = rng.sample(sorted(DSIZE), rng.randint(1, 4))
    classes = {d: ident(rng, used).capitalize() for d in dts}
    ops = set(NEEDED) if rng.random() < 0.9 else set(rng.sample(NEEDED, len(NEEDED) - 1))
    ops |= set(rng.sample(MACHINE_OPS, rng.randint(0, len(MACHINE_OPS))))
    g = {"protocol": rng.choice([2, 2, 3, 4, 5]), "opcodes": sorted(ops), "canonical": rng.random() < 0.8,
         "globals": [{"global": dict_global, "makes": "dict"},
                     {"global": "%s %s" % (mod, rebuild), "makes": "array",
                      "args": ["storage", "uint", "uint_tuple", "uint_tuple", "bool", "empty_dict"],
                      "bind": {"storage": 0, "offset": 1, "shape": 2, "strides": 3}}]
                    + [{"global": "%s %s" % (mod, c), "makes": "class", "dtype": d} for d, c in classes.items()],
         "persistent_id": [{"text": "storage"}, "class", "key", {"location": ["cpu", "dev:{n}"]}, "count"],
         "keys": rng.choice(["in-order", "any"]), "root": rng.sample(["dict", "list", "tuple", "array"],
                                                                    rng.randint(1, 4))}
    if "dict" not in g["root"] and rng.random() < 0.8:
        g["root"].append("dict")
    wrap = None
    if rng.random() < 0.5:
        wrap = ident(rng, used)
        g["globals"].append({"global": "%s %s" % (mod, wrap), "makes": "wrap", "args": ["array", "bool", "empty_dict"]})
    if rng.random() < 0.3:
        g["globals"].append({"global": "%s %s" % (mod, ident(rng, used)), "refuse": "a layout not read here"})
    if rng.random() < 0.4:
        g["build"] = "dict-once"
        if rng.random() < 0.9:
            g["opcodes"] = sorted(set(g["opcodes"]) | {"BUILD"})
    if rng.random() < 0.5:
        g["dict_keys"] = rng.choice([["str"], ["str", "int"]])
    if rng.random() < 0.05:
        g["globals"][1]["bind"]["shape"] = 1  # a binding of the wrong kind: refused
    rng.shuffle(g["globals"])
    return g, {"mod": mod, "dict": dict_global, "rebuild": rebuild, "classes": classes, "wrap": wrap}


def make_family(rng, names, spec, samples):
    """The body of a spec of this family (one archive item); its sample
    files are appended to samples."""
    used = set()
    tar = rng.random() < 0.25
    d = rng.choice(["{prefix}", "{dir}", "model"])
    pkl, blobs = ident(rng, used) + ".pkl", ident(rng, used)
    g, gi = grammar(rng, used)
    item = {"archive": names.new("archive"), "container": "tar" if tar else "zip", "layout": rng.choice(
        ["back-to-back", "any"]), "others": rng.choice(["refuse", "ignore", "lenient"])}
    if not tar:
        item["methods"] = rng.choice([["stored"], ["stored", "deflated"], ["deflated"]])
        if rng.random() < 0.4:
            item["lenient_methods"] = ["deflated"]
        item["flags"] = rng.choice(["0x0808", "0x0800", "0x0008", "0x0000"])
        if rng.random() < 0.3:
            item["align"] = rng.choice([1, 4, 16, 64])
            if rng.random() < 0.5:
                item["align_lenient"] = "warn"
        item["crc"] = rng.choice(["check", "warn", "none"])
        item["extra"] = rng.sample(["0x0001", "0x4246", "0x5455", "0x7875"], rng.randint(0, 3))
        if rng.random() < 0.3:
            item["extra_lenient"] = "warn"
        item["zip64_end"] = rng.choice(["optional", "required"])
        if rng.random() < 0.4:
            item["write_descriptor"] = True
        if rng.random() < 0.2:
            item["write_zip64_end"] = True
        if rng.random() < 0.2:
            item["write_zip64_local"] = True
        # what the writer writes, the rules must allow (else afmt-gen
        # refuses the spec): now and then not, or the spec is read-only
        if rng.random() < 0.9:
            item["methods"] = sorted(set(item["methods"]) | {"stored"})
            if item.get("align") and rng.random() < 0.9 and "0x4246" not in item["extra"]:
                item["extra"].append("0x4246")
            if item.get("write_zip64_local") and "0x0001" not in item["extra"]:
                item["extra"].append("0x0001")
            if item.get("write_descriptor"):
                item["flags"] = "0x0808"
        elif rng.random() < 0.5:
            spec["read_only"] = "a spec-fuzzer archive"
    if d.startswith("{"):
        item["write_captures"] = {d[1:-1]: rng.choice(["archive", "m", "data"] * 10 + ["x/y", ""])}
    rec_pat = "%s/%s/{key:decimal}" % (d, blobs)
    members = [{"name": "%s/%s" % (d, pkl), "required": True, "records": rec_pat, "pickle": g}]
    order_var = None
    if rng.random() < 0.6:
        order_var = ident(rng, used)
        members.append({"name": "%s/byteorder" % d, "text": ["little", "big"], "sets": order_var})
    rec = {"name": rec_pat, "record": True}
    if order_var:
        rec["endian"] = order_var
    members.append(rec)
    version = None
    if rng.random() < 0.6:
        version = rng.choice(["3\n", "1", "{v:digits}"])
        v = {"name": "%s/version" % d, "required": rng.random() < 0.7, "text": [version]}
        if rng.random() < 0.5:
            v["lenient_text"] = ["4\n", "3"]
        members.append(v)
    if rng.random() < 0.5:
        members.append({"name": "%s/code/{*rest}" % d, "refuse": "code is never run"})
    if rng.random() < 0.5:
        members.append({"name": "%s/{*rest}" % d, "ignore": rng.choice([True, "lenient"])})
    if rng.random() < 0.05:
        rng.shuffle(members)  # a record rule before the text rule that sets its endian: refused
    item["members"] = members
    spec.pop("detect", None)
    if not tar and rng.random() < 0.5:
        spec["detect"] = [{"at": 0, "bytes": "PK\u0003\u0004", "first_member": "%s/%s" % (d, pkl)}]
    spec["trailer"] = rng.choice(["forbid-always", "forbid"])
    s = dict(tar=tar, dir=d, pkl=pkl, blobs=blobs, grammar=g, info=gi, order=order_var is not None,
             version=version, methods=item.get("methods", ["stored"]))
    for _ in range(rng.randint(1, 3)):
        try:
            samples.append(sample(rng, s))
        except (pickle.PicklingError, TypeError, ValueError, AttributeError):
            pass  # a grammar Python's pickler cannot follow (a dotted module name clash): no sample
    return [item]


class Storage:
    """A storage the pickler refers to by a persistent id."""

    def __init__(self, cls, key, count):
        self.cls, self.key, self.count = cls, key, count


class Tensor:
    def __init__(self, rebuild, dict_cls, storage, offset, shape, strides):
        self.rebuild, self.args = rebuild, (storage, offset, tuple(shape), tuple(strides), False, dict_cls())

    def __reduce__(self):
        return self.rebuild, self.args


def fake_globals(info):
    """The spec's globals as real Python objects under their names, so that
    pickle writes GLOBAL 'module name' for them."""
    mod = info["mod"]
    parts = mod.split(".")
    for i in range(len(parts)):
        name = ".".join(parts[:i + 1])
        sys.modules.setdefault(name, types.ModuleType(name))
    m = sys.modules[mod]

    def rebuild(*a):
        return a
    rebuild.__module__, rebuild.__qualname__, rebuild.__name__ = mod, info["rebuild"], info["rebuild"]
    setattr(m, info["rebuild"], rebuild)
    dmod, dname = info["dict"].split(" ")
    if dmod == "collections":
        dict_cls = OrderedDict
    else:
        sys.modules.setdefault(dmod, types.ModuleType(dmod))
        dict_cls = type(dname, (OrderedDict,), {})
        dict_cls.__module__ = dmod
        setattr(sys.modules[dmod], dname, dict_cls)
    classes = {}
    for dt, c in info["classes"].items():
        cls = type(c, (), {})
        cls.__module__ = mod
        setattr(m, c, cls)
        classes[dt] = cls
    return rebuild, classes, dict_cls


def state_pickle(rng, s, bad):
    """A pickle of a state dict, and the records it names."""
    rebuild, classes, dict_cls = fake_globals(s["info"])
    state, records, next_key = dict_cls(), {}, 0
    storages = []
    for i in range(rng.randint(0, 4)):
        dt = rng.choice(sorted(classes))
        shape = [rng.randint(0, 3) for _ in range(rng.randint(0, 3))]
        n = 1
        for x in shape:
            n *= x
        if storages and rng.random() < 0.3:
            st = rng.choice(storages)  # a tied or shared storage
            dt = [k for k, v in classes.items() if v is st.cls][0]
            shape, n = [min(n, st.count)], min(n, st.count)
        else:
            key = next_key if not (bad and rng.random() < 0.2) else next_key + 5
            next_key += 1
            st = Storage(classes[dt], str(key), n + rng.choice([0, 0, 1]))
            storages.append(st)
            size = st.count * DSIZE[dt] + (1 if bad and rng.random() < 0.2 else 0)
            records[st.key] = bytes(rng.randint(0, 255) for _ in range(size))
        strides, acc = [], 1
        for x in reversed(shape):
            strides.insert(0, acc)
            acc *= max(x, 1)
        state["layer%d.weight" % i if rng.random() < 0.8 else str(i)] = Tensor(rebuild, dict_cls, st, 0, shape, strides)
    if rng.random() < 0.3:
        state["meta"] = dict_cls(version=1, name="x", ratio=0.5, flag=None)
    root = state if rng.random() < 0.85 else [state, 1, "two"]

    def persistent_id(obj):
        if isinstance(obj, Storage):
            loc = "cpu" if rng.random() < 0.8 else "dev:%d" % rng.randint(0, 3)
            return ("storage", obj.cls, obj.key, loc, obj.count)
        return None
    buf = io.BytesIO()
    p = pickle.Pickler(buf, protocol=s["grammar"]["protocol"])
    p.persistent_id = persistent_id
    p.dump(root)
    return buf.getvalue(), records


def sample(rng, s):
    """An archive of the spec s describes (a dict of its choices)."""
    bad = rng.random() < 0.3
    data, records = state_pickle(rng, s, bad)
    d = s["dir"]
    d = {"{prefix}": "archive", "{dir}": "data"}.get(d, d)
    members = [("%s/%s" % (d, s["pkl"]), data)]
    if s["order"]:
        members.append(("%s/byteorder" % d, rng.choice([b"little", b"little", b"big"])))
    for k, v in records.items():
        members.append(("%s/%s/%s" % (d, s["blobs"], k), v))
    if s["version"] and not (bad and rng.random() < 0.3):
        members.append(("%s/version" % d, s["version"].replace("{v:digits}", "12").encode()))
    if bad and rng.random() < 0.3:
        members.append((rng.choice(["%s/extra" % d, "../escape", "%s/code/x.py" % d]), b"print(1)"))
    if rng.random() < 0.2:
        rng.shuffle(members)
    out = io.BytesIO()
    if s["tar"]:
        with tarfile.open(fileobj=out, mode="w", format=rng.choice([tarfile.USTAR_FORMAT, tarfile.GNU_FORMAT,
                                                                    tarfile.PAX_FORMAT])) as t:
            for name, b in members:
                ti = tarfile.TarInfo(name)
                ti.size = len(b)
                t.addfile(ti, io.BytesIO(b))
    else:
        method = zipfile.ZIP_DEFLATED if "deflated" in s["methods"] and rng.random() < 0.5 else zipfile.ZIP_STORED
        with zipfile.ZipFile(out, "w", method) as z:
            for name, b in members:
                z.writestr(name, b)
    return out.getvalue()
