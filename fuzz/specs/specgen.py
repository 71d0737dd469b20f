"""Random specs within the afmt spec language (spec/LANGUAGE.md), for the
spec fuzzer (fuzz/specs/specfuzz.py, docs/FUZZING.md).

make_spec(rng) returns one spec as a dict.  Most are meant to be accepted
by afmt-gen and written by their own writer: integer fields get a "write",
an "equals" or a binding to the array, checks are ones the writer
evaluates too, exact regions get the size their content takes.  Some are
not (a check the writer refuses to satisfy, a region too small, a name
that clashes), which is fine: afmt-gen must then refuse with a diagnostic
naming the spec, or the writer must refuse at run time.  Every item kind,
layout, kind of table, repeat, region, switch, pad, text value and text
header, every expression operator and function, the limits, and names up
to the longest allowed (48 characters) and names that are C keywords or
the generated code's own parameters appear; and what issue 37's bugs
were made of: every layout in either order, shapes as lists with a zero
among dimensions that may overflow, opaque table entries by name and in
blocks, a switch's "write" naming a case its selector may not read back,
and (fuzz/specs/specgen_struct.py) structures whose parameters choose a
switch's case and feed checks, counts and the arguments of another
structure, in and out of inflated regions.
"""
import json
import random
import struct

import specgen_archive
import specgen_cards
import specgen_dir
import specgen_struct

NAME_MAX = 48
# names that are C keywords or what generated functions call their own
# parameters and locals: a spec may use them, the C must still compile
TRICKY = ["int", "return", "if", "else", "for", "while", "char", "const", "static", "struct", "union",
          "default", "case", "switch", "sizeof", "c", "err", "sink", "n", "arrays", "ai", "wopt", "owned", "buf",
          "len", "opt", "vis", "pos", "i", "k", "el", "data", "index", "scope", "src", "end", "NULL", "main",
          "uint64_t", "size_t", "errno", "afmt_error", "v_x", "o_x", "A_x", "_", "__x", "limits", "true", "false"]
# names the generated C derives from another name (gen/emit_names.c, the
# emitters' locals): <format>_<table> against <format>_<t>_known,
# <format>_validate_struct_<s>, <format>_check_<field>, field_<f>_2,
# dir_<directory>, lk_<lookup>, ...: a spec may use them, the C must still
# compile or afmt-gen refuse it naming the spec
C_AFFIXES = [("", "_known"), ("", "_blocks"), ("", "_scope"), ("", "_grammar"), ("", "_cases"), ("", "_keys"),
             ("", "_types"), ("", "_2"), ("", "_3"), ("", "_index"), ("", "_type"), ("", "_entry"), ("", "_start"),
             ("", "_size"), ("", "_value"), ("", "_unordered_at"), ("", "_escaped"), ("", "_dim0"), ("", "_1"),
             ("validate_", ""), ("write_", ""), ("check_", ""), ("validate_struct_", ""), ("struct_", ""),
             ("dir_", ""), ("tile_fields_", ""), ("field_", ""), ("count_", ""), ("start_", ""), ("sel_", ""),
             ("uniq_", ""), ("uq_", ""), ("r_", ""), ("dl_", ""), ("nbytes_", ""), ("v_", ""), ("o_", ""),
             ("A_", ""), ("lk_", ""), ("n_", ""), ("e_", ""), ("i_", ""), ("x", ""),
             # what gen/emit_case_names.c and the descriptors' and checks'
             # names add: a case's label, a field's type, a check in words
             ("", "_u8"), ("", "_string"), ("", "_csr"), ("", "_dense"), ("", "_zeros"), ("", "_is_alignment"),
             ("", "_not_is_alignment"), ("field_", "_u8"), ("", "_eq_1"), ("", "_le_1"), ("", "_binary_mark")]
C_OWN = ["validate_body", "write_impl", "extensions", "sidecar", "body", "value", "header", "types_known"]
INT_TYPES = ["u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64"]
WIDTH = {"u8": 1, "u16": 2, "u32": 4, "u64": 8, "i8": 1, "i16": 2, "i32": 4, "i64": 8}
DTYPES = ["bool", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64", "c32", "c64",
          "c128"]
# a text header's types name no c32 (afmt-gen: unknown dtype)
TEXT_DTYPES = [d for d in DTYPES if d != "c32"]
BINOPS = ["+", "-", "*", "/", "%", "<<", ">>", "&", "|", "^", "==", "!=", "<", "<=", ">", ">=", "&&", "||"]
LIMITS = ["limits.max_rank", "limits.max_header_bytes", "limits.max_total_bytes", "limits.max_items",
          "limits.max_decoded_bytes"]
CODES = ["constraint", "size", "value", "limit", "unsupported", "magic", "padding", "overflow", "negative"]


class Names:
    """Unique names of one spec: random identifiers of 1..48 characters,
    now and then one of exactly 48 or a tricky one."""

    def __init__(self, rng):
        self.rng = rng
        self.used = set()
        self.order = []  # self.used in the order made (a set's order varies from run to run)

    def new(self, hint="x"):
        name = self.pick(hint)
        self.order.append(name)
        return name

    def pick(self, hint):
        rng = self.rng
        for _ in range(100):
            r = rng.random()
            if r < 0.08:
                name = rng.choice(TRICKY)
            elif r < 0.14 and (self.order or r < 0.1):
                # a name whose C names meet another's (C_AFFIXES)
                if self.order and r >= 0.1:
                    pre, post = rng.choice(C_AFFIXES)
                    name = (pre + rng.choice(self.order) + post)[:NAME_MAX]
                else:
                    name = rng.choice(C_OWN)
            elif r < 0.16:
                name = (hint + "_" + "".join(rng.choice("abcdefghijklmnopqrstuvwxyz_0123456789")
                                             for _ in range(NAME_MAX)))[:NAME_MAX]
            elif r < 0.25:
                name = rng.choice("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_") + "".join(
                    rng.choice("abcdefghijklmnopqrstuvwxyz0123456789_") for _ in range(rng.randint(0, 20)))
            else:
                name = hint + ("" if rng.random() < 0.3 else str(rng.randint(0, 99)))
            if name not in self.used:
                self.used.add(name)
                return name
        name = hint + "_u" + str(len(self.used))
        self.used.add(name)
        return name


class Scope:
    """What expressions may read here: integer values (name -> signed),
    array fields, lookups; and what the writer knows (a writer's
    expression may read only values defined before it)."""

    def __init__(self, parent=None):
        self.ints = dict(parent.ints) if parent else {}
        self.arrf = list(parent.arrf) if parent else []
        self.lookups = list(parent.lookups) if parent else []
        self.floats = list(parent.floats) if parent else []


def int_literal(rng, bits=64):
    r = rng.random()
    if r < 0.5:
        return str(rng.randint(0, 9))
    if r < 0.7:
        return hex(rng.randint(0, (1 << min(bits, 16)) - 1))
    if r < 0.8:
        return "0b" + bin(rng.randint(0, 15))[2:]
    if r < 0.9:
        return "1_000"
    return str(rng.randint(0, (1 << min(bits, 32)) - 1))


def expr(rng, sc, depth=0, arrays=(), writer=False):
    """A random expression over the names of sc (and, in a writer's
    expression, the writer functions of arrays)."""
    r = rng.random()
    if depth > 2 or r < 0.3:
        choices = [int_literal(rng)]
        if sc.ints:
            choices += [rng.choice(list(sc.ints))] * 3
        if sc.lookups:
            lk = rng.choice(sc.lookups)
            choices.append(rng.choice(["sizeof(%s)" % lk, "%s.size" % lk]))
        if sc.arrf:
            a = rng.choice(sc.arrf)
            choices += ["len(%s)" % a, "prod(%s)" % a, "sum(%s)" % a, "%s[0]" % a]
        if rng.random() < 0.1:
            choices.append(rng.choice(LIMITS))
        if writer and arrays:
            a = rng.choice(arrays)
            choices += ["rank(%s)" % a, "count(%s)" % a, "elsize(%s)" % a, "nbytes(%s)" % a, "narrays()",
                        "dim(%s, 0)" % a, "(sparse(%s) ? 1 : 0)" % a, "(compress() ? 1 : 0)"]
        if rng.random() < 0.05:
            choices.append(rng.choice(["true", "false"]))
        return rng.choice(choices)
    r = rng.random()
    if r < 0.55:
        return "(%s %s %s)" % (expr(rng, sc, depth + 1, arrays, writer), rng.choice(BINOPS),
                               expr(rng, sc, depth + 1, arrays, writer))
    if r < 0.65:
        return "%s(%s)" % (rng.choice(["-", "!", "~"]), expr(rng, sc, depth + 1, arrays, writer))
    if r < 0.75:
        return "(%s ? %s : %s)" % (expr(rng, sc, depth + 1, arrays, writer), expr(rng, sc, depth + 1, arrays, writer),
                                   expr(rng, sc, depth + 1, arrays, writer))
    fn = rng.choice(["roundup", "ceil_div", "min", "max"])
    return "%s(%s, %s)" % (fn, expr(rng, sc, depth + 1, arrays, writer), expr(rng, sc, depth + 1, arrays, writer))


def check_obj(rng, text):
    if rng.random() < 0.5:
        return text
    c = {"expr": text}
    if rng.random() < 0.5:
        c["message"] = rng.choice(["bad value", "out of range", "a message with \"quotes\" and % signs"])
    if rng.random() < 0.3:
        c["code"] = rng.choice(CODES)
    if rng.random() < 0.3:
        c["lenient"] = rng.choice(["warn", "reject"])
    return c


def int_type(rng, endian_ok=True):
    t = rng.choice(INT_TYPES)
    if endian_ok and rng.random() < 0.3:
        t += rng.choice(["le", "be"])
    return t


def width_max(t):
    w = WIDTH[t[:3] if t[:3] in WIDTH else t[:2]]
    return (1 << (8 * w - (1 if t.startswith("i") else 0))) - 1


def table(rng, kind):
    """A type table: "one" (one integer key), "text" (one text key of up
    to 4 bytes), "two" (two integer keys, a when entry)."""
    dts = rng.sample(DTYPES, rng.randint(1, 6))
    entries = []
    for i, d in enumerate(dts):
        if kind == "text":
            key = ["t%d" % i]
        elif kind == "two":
            key = [i + 1, rng.randint(0, 8)]
        else:
            key = [i + 1 if rng.random() < 0.9 else "0x%x" % (i + 1)]
        e = {"key": key, "dtype": d}
        if d == "bool" and kind != "text" and rng.random() < 0.3:
            e["encoding"] = "bits-lsb"
        if rng.random() < 0.1:
            e["warn"] = "an old code"
            e["write"] = False
        entries.append(e)
    if kind == "two" and rng.random() < 0.6:
        entries.append({"when": "ka == 0 && kb > 0", "dtype": "opaque", "size": "kb", "write_key": [0, "elsize"]})
    if kind == "one" and rng.random() < 0.3:
        # opaque entries by name, sized and in blocks: the name reaches
        # the view (issue 37: it never did), a block's payload is
        # elements / N x B bytes
        n = len(entries)
        entries.append({"key": [n + 1], "dtype": "opaque", "size": rng.choice([1, 3, 6]), "name": "RGB%d" % n})
        if rng.random() < 0.6:
            entries.append({"key": [n + 2], "dtype": "opaque", "name": "Q%d_0" % n,
                            "block": rng.choice([[32, 18], [2, 1], [256, 144]])})
    return {"entries": entries}


def lookup_items(rng, names, sc, spec):
    """The key fields and the lookup of an element type; the table is
    added to spec.  Returns (items, lookup name)."""
    kind = rng.choice(["one", "one", "text", "two"])
    tname = names.new("types")
    spec.setdefault("tables", {})[tname] = table(rng, kind)
    lk = names.new("el")
    if kind == "two":
        t = spec["tables"][tname]
        a, b = names.new("ka"), names.new("kb")
        for e in t["entries"]:
            if "when" in e:
                e["when"] = "%s == 0 && %s > 0" % (a, b)
                e["size"] = b
        items = [{"field": a, "type": int_type(rng)}, {"field": b, "type": int_type(rng)},
                 {"lookup": lk, "table": tname, "key": [a, b]}]
        sc.ints[a] = False
        sc.ints[b] = False
    elif kind == "text":
        a = names.new("dtype")
        items = [{"field": a, "type": "text", "size": rng.randint(2, 6)}, {"lookup": lk, "table": tname, "key": [a]}]
        if rng.random() < 0.4:
            # a text field compared with a string literal (by its NUL-padded slot)
            q = rng.choice(['"%s"', "'%s'"]) % rng.choice(["t0", "t1", "zz", ""])
            items.append({"check": "%s %s %s || true" % (a, rng.choice(["==", "!="]), q), "field": a})
    else:
        a = names.new("code")
        items = [{"field": a, "type": int_type(rng)}, {"lookup": lk, "table": tname, "key": [a]}]
        sc.ints[a] = False
    sc.lookups.append(lk)
    return items, lk


def free_field(rng, names, sc, arrays):
    """An integer field the writer knows how to write."""
    name = names.new("f")
    t = int_type(rng)
    f = {"field": name, "type": t}
    r = rng.random()
    if r < 0.35:
        f["equals"] = rng.randint(0, min(width_max(t), 1000))
        if rng.random() < 0.3:
            f["lenient"] = "warn"
        if rng.random() < 0.2:
            f["code"] = rng.choice(CODES)
    elif r < 0.7:
        f["write"] = str(rng.randint(0, min(width_max(t), 1 << 20)))
    else:
        f["write"] = expr(rng, sc, 1, arrays, writer=True)
    if rng.random() < 0.2:
        f["check"] = check_obj(rng, expr(rng, sc, 1) + " >= 0" if rng.random() < 0.5 else "%s <= %s" % (name, width_max(t)))
    if rng.random() < 0.1:
        f["in"] = sorted(set([rng.randint(0, 9) for _ in range(3)]))
    if rng.random() < 0.1:
        f["range"] = [0, rng.randint(0, 100)]
    if rng.random() < 0.2:
        f["doc"] = "a field"
    sc.ints[name] = t.startswith("i")
    return f


FLOAT_EXACT = [0, 1, -1, 1.5, -2.25, 0.5, 1e10, 65504, -0.0, 0.125, 16777216]


def float_test(rng, sc, name):
    """A truth value over float name (and the floats before it): a test,
    a comparison with a float or an integer literal up to 2^53."""
    r = rng.random()
    lit = rng.choice(["0", "1", "-1", "1000", "-5", "9007199254740992", "0x10"])
    if r < 0.25:
        return "%s(%s)" % (rng.choice(["finite", "integral"]), name)
    if r < 0.6:
        return "%s %s %s" % (name, rng.choice(["<", "<=", ">", ">=", "==", "!="]), lit)
    if r < 0.75 and sc.floats:
        return "%s %s %s" % (name, rng.choice(["<", "<=", ">", ">=", "==", "!="]), rng.choice(sc.floats))
    if r < 0.85:
        return "%s != %s" % (name, name)
    return "(%s) %s (%s)" % (float_test(rng, sc, name), rng.choice(["&&", "||"]), float_test(rng, sc, name))


def float_field(rng, names, sc, arrays):
    """A float field (f32 or f64, either byte order) the writer can write:
    an exact "equals", a literal or an integer expression "write"; tests
    and comparisons as its checks."""
    name = names.new("fl")
    t = rng.choice(["f32", "f64"]) + rng.choice(["", "", "le", "be"])
    f = {"field": name, "type": t}
    r = rng.random()
    if r < 0.4:
        f["equals"] = rng.choice(FLOAT_EXACT)
        if rng.random() < 0.3:
            f["lenient"] = "warn"
        if rng.random() < 0.2:
            f["code"] = rng.choice(CODES)
    elif r < 0.75:
        f["write"] = str(rng.randint(0, 1 << 20))
    else:
        f["write"] = expr(rng, sc, 1, arrays, writer=True)
    if rng.random() < 0.5:
        checks = [check_obj(rng, float_test(rng, sc, name)) for _ in range(rng.randint(1, 2))]
        f["check"] = checks[0] if len(checks) == 1 and rng.random() < 0.5 else checks
    if rng.random() < 0.2:
        f["doc"] = "a float"
    sc.floats.append(name)
    return f


def misc_items(rng, names, sc, arrays, n):
    """n of: free integer fields, lets, check items, pads, bytes/text
    fields with equals."""
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.08:
            out.append(float_field(rng, names, sc, arrays))
        elif r < 0.35:
            out.append(free_field(rng, names, sc, arrays))
        elif r < 0.55:
            name = names.new("let")
            out.append({"let": name, "value": expr(rng, sc) if rng.random() < 0.8 else rng.randint(0, 9)})
            sc.ints[name] = False
        elif r < 0.7:
            c = {"check": expr(rng, sc) if rng.random() < 0.3 else "%s || true" % expr(rng, sc)}
            if sc.ints and rng.random() < 0.5:
                c["field"] = rng.choice(list(sc.ints))
            if sc.floats and rng.random() < 0.3:
                fl = rng.choice(sc.floats)
                c["check"] = float_test(rng, sc, fl)
                c["field"] = fl
            if rng.random() < 0.3:
                c["lenient"] = "warn"
            if rng.random() < 0.3:
                c["message"] = "check item"
            if rng.random() < 0.2:
                c["code"] = rng.choice(CODES)
            if rng.random() < 0.1:
                c["check"] = rng.choice(["remaining() >= 0", "offset() >= 0", "remaining() + offset() >= 0"])
            out.append(c)
        elif r < 0.8:
            p = {"pad": names.new("pad")}
            if sc.ints and rng.random() < 0.5:
                x = rng.choice(list(sc.ints))
                p["size"] = "roundup(%s, %d) - %s" % (x, rng.choice([2, 4, 8]), x)
            else:
                p["size"] = rng.randint(0, 5)
            if rng.random() < 0.3:
                p["lenient"] = "warn"
            if rng.random() < 0.2:
                p["fill"] = 0
            out.append(p)
        elif r < 0.9:
            size = rng.randint(1, 8)
            txt = "".join(rng.choice("ABCxyz09") for _ in range(rng.randint(1 if rng.random() < 0.5 else size, size)))
            f = {"field": names.new("magic"), "type": rng.choice(["bytes", "text"]), "size": size, "equals": txt}
            if f["type"] == "bytes":
                f["equals"] = (txt * size)[:size]
            elif rng.random() < 0.5:
                f["text"] = "nul-padded"
            out.append(f)
        else:
            name = names.new("flag")
            t = rng.choice(["u8", "u16be", "i32le"])
            out.append({"field": name, "type": t, "write": "0",
                        "check": [check_obj(rng, "(%s & 1) == 0" % name), check_obj(rng, "%s < 2" % name)]})
            sc.ints[name] = t.startswith("i")
    return out


def array_block(rng, names, sc, spec, lz4_ok=True):
    """A lookup, its shape fields and one array item (dense, maybe LZ4, maybe
    named by a text field).  Returns (items, array name)."""
    items, lk = lookup_items(rng, names, sc, spec)
    arr = names.new("data")
    a = {"array": arr, "dtype": lk, "order": rng.choice(["row-major", "column-major"])}
    if rng.random() < 0.5:
        rank = names.new("rank")
        dims = names.new("dims")
        t = int_type(rng)
        items.append({"field": rank, "type": rng.choice(["u8", "u16", "u32le", "u64be"])})
        dim = {"field": dims, "type": t, "count": rank}
        if rng.random() < 0.25:
            # a shape from the first `rank` entries of a fixed count of slots,
            # the unused ones the spec's fill (now and then a count a writer
            # cannot use, or a rank read before the slots or after them)
            slots = rng.choice([1, 2, 3, 4, 8]) if rng.random() < 0.95 else rank
            fill = rng.choice([0, 1, 1, 7])
            dim["count"] = str(slots)
            if rng.random() < 0.6:
                dim["each"] = check_obj(rng, "index < %s || %s == %d" % (rank, dims, fill))
            a["rank"] = rank if rng.random() < 0.8 else "min(%s, %s)" % (rank, slots)
            if rng.random() < 0.7:
                a["fill"] = fill
        elif rng.random() < 0.3:
            dim["each"] = check_obj(rng, "%s >= 0" % dims)
        items.append(dim)
        sc.ints[rank] = False
        sc.arrf.append(dims)
        a["shape"] = dims
    else:
        shape = []
        for _ in range(rng.randint(0, 3)):
            d = names.new("dim")
            items.append({"field": d, "type": int_type(rng)})
            sc.ints[d] = False
            shape.append(d)
        if shape and rng.random() < 0.2:
            # a zero among dimensions whose product may overflow (the
            # mutants' u64s): the count is 0, as for a dims field
            shape.insert(rng.randint(0, len(shape)), rng.choice(["0", "%s * 0" % shape[0], "%s - %s" % (shape[0], shape[0])]))
        a["shape"] = shape
    items += misc_items(rng, names, sc, [arr], rng.randint(0, 2))
    if rng.random() < 0.3:
        nm = names.new("name")
        items.append({"field": nm, "type": "text", "size": rng.randint(1, 16)})
        a["name"] = nm
    if rng.random() < 0.2:
        a["endian"] = rng.choice(["little", "big"])
    if rng.random() < 0.2:
        a["values"] = rng.choice(["check", "any"])
        if rng.random() < 0.5:
            a["lenient"] = "warn"
    if lz4_ok and rng.random() < 0.15:
        fl, sb = names.new("flags"), names.new("stored")
        items.append({"field": fl, "type": "u8", "write": "compress() ? 2 : 0"})
        items.append({"field": sb, "type": "u64", "write": "nbytes(%s)" % arr})
        a["compressed"] = "(%s & 2) != 0" % fl
        a["stored_bytes"] = sb
    items.append(a)
    return items, arr


def any_order(rng):
    """Mostly the order a layout is written in; now and then the other one,
    which every layout must either honour or have the checker refuse
    (issue 37: a column-major csr was accepted and read as row-major)."""
    return "column-major" if rng.random() < 0.25 else "row-major"


def csr_block(rng, names, sc, spec):
    items, lk = lookup_items(rng, names, sc, spec)
    rows, cols, nnz, ro, ci, arr = (names.new(h) for h in ["rows", "cols", "nnz", "row_offsets", "col_indices", "data"])
    it = rng.choice(["u32", "u64"])
    items += [{"field": rows, "type": "u64"}, {"field": cols, "type": "u64"}, {"field": nnz, "type": "u64"},
              {"field": ro, "type": it, "count": "%s + 1" % rows, "first": "0", "last": nnz, "order": "nondecreasing"},
              {"field": ci, "type": it, "count": nnz, "each": {"expr": "%s < %s" % (ci, cols)}, "increasing_within": ro},
              {"array": arr, "dtype": lk, "layout": "csr", "shape": [rows, cols], "order": any_order(rng), "nnz": nnz,
               "row_offsets": ro, "col_indices": ci}]
    return items, arr


def columns_block(rng, names, sc, spec):
    tname = names.new("coltypes")
    spec.setdefault("tables", {})[tname] = {"entries": [{"key": [i], "dtype": d} for i, d in
                                                        enumerate(rng.sample(DTYPES[1:], rng.randint(1, 5)))]}
    rows, ncols, types, labels, arr = (names.new(h) for h in ["rows", "ncols", "column_types", "labels", "columns"])
    items = [{"field": rows, "type": "u64"}, {"field": ncols, "type": "u32", "write": "narrays()"},
             {"field": types, "type": "u8", "count": ncols}]
    a = {"array": arr, "layout": "columns", "types": types, "table": tname, "shape": [rows], "order": any_order(rng)}
    if rng.random() < 0.7:
        items.append({"field": labels, "type": "string", "length": rng.choice(["u8", "u16", "u32be"]), "count": ncols})
        a["names"] = labels
    items.append(a)
    return items, arr


def unwritten_case(rng, names, sc, spec):
    """A body the writer never writes: zeros, coo, a repeat with a count."""
    inner = Scope(sc)
    items, lk = lookup_items(rng, names, inner, spec)
    rows, cols = names.new("rows"), names.new("cols")
    items += [{"field": rows, "type": "u32"}, {"field": cols, "type": "u32"}]
    r = rng.random()
    if r < 0.33:
        items.append({"array": names.new("zero"), "layout": "zeros", "dtype": lk, "shape": [rows, cols],
                      "order": any_order(rng)})
    elif r < 0.66:
        nnz = names.new("nnz")
        items += [{"field": nnz, "type": "u32"},
                  {"array": names.new("coo"), "dtype": lk, "layout": "coo", "shape": [rows, cols], "order": any_order(rng),
                   "nnz": nnz, "index": rng.choice(["u8", "u16", "u32", "u64"]), "with_columns": "%s != 1" % cols}]
    else:
        x = names.new("x")
        items.append({"repeat": names.new("rec"), "count": rows, "body": [{"field": x, "type": "u16"}]})
    return items


def text_header(rng, names):
    one = rng.random() < 0.5
    syntax = rng.choice(["json", "python-dict"])
    types = [{"name": "T%d" % i, "dtype": d} for i, d in enumerate(rng.sample(TEXT_DTYPES, rng.randint(1, 5)))]
    if rng.random() < 0.3:
        types.append({"name": "OP", "dtype": "opaque", "size": rng.randint(1, 4)})
    if rng.random() < 0.3:
        types.append({"prefix": "|O", "refuse": "objects"})
    if rng.random() < 0.2:
        types.append({"name": "BE", "dtype": "i32", "endian": "big"})
    th = {"text_header": names.new("header"), "syntax": syntax, "length": rng.choice(["u16le", "u32le", "u64le", "u32be"]),
          "entries": "one" if one else "map", "types": types}
    keys = [{"key": "dtype", "bind": "dtype"}, {"key": "shape", "bind": "shape"}]
    if syntax == "python-dict" and rng.random() < 0.5:
        keys[1]["kind"] = "tuple"
    if one and rng.random() < 0.5:
        keys.append({"key": "order", "bind": "order"})
    if not one:
        keys.append({"key": "range", "bind": "range"})
        if rng.random() < 0.5:
            th["metadata"] = "__meta__"
        if rng.random() < 0.5:
            th["write_sort"] = rng.choice([["-type", "name"], ["name"], ["type"]])
        th["default_name"] = "a_"
    th["keys"] = keys
    if rng.random() < 0.5:
        th["pad"] = " "
        if rng.random() < 0.5:
            th["terminator"] = "\n"
        al = rng.choice([0, 8, 16])
        if al:
            th["align"] = al
            th["write_align"] = al * rng.choice([1, 2, 4])
        if rng.random() < 0.5:
            th["lenient"] = "warn"
    if rng.random() < 0.3:
        th["max_length"] = rng.randint(100, 100000)
    return [th]


DTYPE_SIZE = {"bool": 1, "i8": 1, "u8": 1, "i16": 2, "u16": 2, "f16": 2, "bf16": 2, "i32": 4, "u32": 4, "f32": 4,
              "c32": 4, "i64": 8, "u64": 8, "f64": 8, "c64": 8, "c128": 16}


def wrapped_text_header(rng, names, spec, samples):
    """A text header in a named structure (used once or twice) or in a
    region: read-only (the writer writes a body's header only), so three
    files of it are made here and appended to samples."""
    types = [{"name": "T%d" % i, "dtype": d} for i, d in enumerate(rng.sample(TEXT_DTYPES, rng.randint(1, 4)))]
    length = rng.choice(["u16le", "u32le", "u32be"])
    th = {"text_header": names.new("header"), "syntax": "json", "length": length, "entries": "one", "types": types,
          "keys": [{"key": "dtype", "bind": "dtype"}, {"key": "shape", "bind": "shape"}]}
    spec["read_only"] = "a text header in a structure or a region, which the writer does not write"
    body = [{"field": names.new("magic"), "type": "bytes", "size": 2, "equals": "TH"}]
    in_region = rng.random() < 0.4
    if in_region:
        size = names.new("size")
        body += [{"field": size, "type": "u32le"}, {"region": names.new("region"), "size": size, "body": [th]}]
        uses = 1
    else:
        sname = names.new("hdr")
        spec.setdefault("structs", {})[sname] = {"body": [th]}
        uses = rng.randint(1, 2)
        body += [{"struct": names.new("use"), "use": sname} for _ in range(uses)]
    for _ in range(3):
        parts = []
        for _ in range(uses):
            t = rng.choice(types)
            shape = [rng.randint(0, 3) for _ in range(rng.randint(0, 2))]
            count = 1
            for d in shape:
                count *= d
            text = json.dumps({"dtype": t["name"], "shape": shape}).encode()
            parts.append(struct.pack({"u16le": "<H", "u32le": "<I", "u32be": ">I"}[length], len(text)) + text +
                         bytes(rng.randint(0, 1) for _ in range(count * DTYPE_SIZE[t["dtype"]])))
        data = b"".join(parts)
        samples.append(b"TH" + (struct.pack("<I", len(data)) if in_region else b"") + data)
    return body


def text_value_case(rng, names, sc, spec):
    tname = names.new("ftypes")
    spec.setdefault("tables", {})[tname] = {"entries": [{"key": [" i32"], "dtype": "i32"}, {"key": [" f64"], "dtype": "f64"},
                                                        {"key": ["bool"], "dtype": "bool"}]}
    rank, ty, lk, dims, arr = (names.new(h) for h in ["rank", "type", "el", "dims", "data"])
    binary = [{"field": names.new("mark"), "type": "bytes", "size": 1, "equals": "b"},
              {"field": rank, "type": "i8", "check": "%s >= 0" % rank}, {"field": ty, "type": "text", "size": 4},
              {"lookup": lk, "table": tname, "key": [ty]},
              {"field": dims, "type": "i64", "count": rank, "each": "%s >= 0" % dims},
              {"array": arr, "dtype": lk, "shape": dims, "order": "row-major"}]
    if rng.random() < 0.5:
        # how many -- comments came before this value (0 in the writer)
        nc = names.new("comments")
        binary[1:1] = [{"let": nc, "value": "skipped_comments()"},
                       {"check": "%s < %d" % (nc, rng.choice([1, 3, 1000])), "message": "too many comments",
                        "lenient": rng.choice(["warn", "reject"])}]
    return {"switch": names.new("kind"), "on": "peek(0) == 98 ? 1 : 2", "write": "1",
            "cases": [{"when": [1], "body": binary}, {"when": [2], "body": [{"text_value": names.new("text"), "grammar": "futhark"}]}]}


def wrap_region(rng, names, items):
    """Items inside a region: exact with the size their fixed content
    takes when that is known, else inexact with room to spare."""
    fixed = 0
    for it in items:
        if "field" in it and "type" in it and "count" not in it:
            t = it["type"]
            if t in ("bytes", "text"):
                fixed += it["size"]
            elif t in WIDTH or t[:-2] in WIDTH:
                fixed += WIDTH[t if t in WIDTH else t[:-2]]
            else:
                fixed = None
                break
        elif "field" in it and "type" in it:
            fixed = None
            break
        elif "array" in it or "pad" in it or "repeat" in it or "switch" in it or "text_header" in it:
            fixed = None
            break
        if fixed is None:
            break
    size = names.new("size")
    size_field = {"field": size, "type": rng.choice(["u16", "u32", "u64be"])}
    reg = {"region": names.new("region"), "size": size, "body": items}
    if fixed is not None and rng.random() < 0.7:
        size_field["write"] = str(fixed)
        reg["exact"] = True
        if rng.random() < 0.3:
            reg["lenient"] = "warn"
    else:
        size_field["write"] = str(rng.randint(0, 64))
        reg["exact"] = False
        if rng.random() < 0.3:
            reg["size"] = rng.randint(0, 32)
            return [reg]
    return [size_field, reg]


def block(rng, names, sc, spec):
    """The structure around the arrays: a dense block, CSR, columns, a
    switch (with a case never written), regions, tiles."""
    r = rng.random()
    if r < 0.45:
        items, arr = array_block(rng, names, sc, spec)
    elif r < 0.55:
        items, arr = csr_block(rng, names, sc, spec)
    elif r < 0.62:
        items, arr = columns_block(rng, names, sc, spec)
    elif r < 0.75:
        sel = names.new("kind")
        inner = Scope(sc)
        body, arr = array_block(rng, names, inner, spec)
        lit = rng.randint(0, 5)
        sw = {"switch": names.new("switch"), "on": sel, "cases": [{"when": [lit], "body": body}]}
        if rng.random() < 0.7:
            sw["cases"].append({"when": [lit + 1, lit + 2], "body": unwritten_case(rng, names, sc, spec)})
        if rng.random() < 0.3:
            sw["else"] = "unknown kind"
        if rng.random() < 0.2:
            # the case the writer writes, named: the one its selector reads
            # back, another (the checker refuses two constants that
            # differ), or an expression (the writer refuses a mismatch)
            sw["write"] = rng.choice([str(lit), str(lit + 1), sel, "%s + 1" % sel])
        items = [{"field": sel, "type": int_type(rng), "write": str(lit)}, sw]
        sc.ints[sel] = False
    elif r < 0.85:
        # a selector computed from the array: cases of different names
        sel = names.new("rank_kind")
        b1, a1 = array_block(rng, names, Scope(sc), spec)
        b2, a2 = array_block(rng, names, Scope(sc), spec)
        items = [{"field": sel, "type": "u8", "write": "rank(%s) == 1 ? 1 : 2" % a1},
                 {"switch": names.new("by_rank"), "on": sel, "cases": [{"when": [1], "body": b1}, {"when": [2], "body": b2}]}]
        arr = a1
    else:
        sel = names.new("kind")
        inner = Scope(sc)
        lkitems, lk = lookup_items(rng, names, inner, spec)
        rows, cols = names.new("rows"), names.new("cols")
        br, bc, brs, bcs, arr = (names.new(h) for h in ["block_row", "block_col", "block_rows", "block_cols", "data"])
        items = [{"field": sel, "type": "u8", "write": "1"},
                 {"switch": names.new("matrix"), "on": sel, "cases": [{"when": [1], "body": lkitems + [
                     {"field": rows, "type": "u64", "write": "dim(%s, 0)" % arr},
                     {"field": cols, "type": "u64", "write": "dim(%s, 1)" % arr},
                     {"repeat": names.new("block"), "until": "tiled", "min": 1,
                      "tiles": {"row": br, "col": bc, "rows": brs, "cols": bcs, "within": [rows, cols]},
                      "body": [{"field": br, "type": "u64", "write": "0"}, {"field": bc, "type": "u64", "write": "0"},
                               {"field": brs, "type": "u32", "write": rows}, {"field": bcs, "type": "u32", "write": cols},
                               {"check": "%s > 0 && %s > 0" % (brs, bcs), "field": brs},
                               {"array": arr, "dtype": lk, "shape": [brs, bcs], "order": "row-major"}]}]}]}]
    if rng.random() < 0.25:
        items = wrap_region(rng, names, items)
    return items, arr


FAMILIES = ["any", "directory", "struct", "cards", "archive"]


def make_spec(rng, fmt_name, samples=None, family="any"):
    """One random spec named fmt_name (at most 23 characters).  Files of
    it made here (for specs whose writer cannot make them: the GGUF-like
    family, fuzz/specs/specgen_dir.py) are appended to samples.  family
    "directory" makes only GGUF-like specs (a campaign on them)."""
    names = Names(rng)
    spec = {"format": fmt_name}
    if rng.random() < 0.3:
        spec["endian"] = rng.choice(["little", "big"])
    if rng.random() < 0.3:
        at = rng.randint(0, 4) if rng.random() < 0.6 else rng.choice([63, 64, 100, 512, 1000, 65534])
        spec["detect"] = [{"at": at, "bytes": "AB"}] if rng.random() < 0.5 else [{"hex": "0102", "at": at}]
        if rng.random() < 0.3:
            spec["detect"][0]["skip"] = "whitespace"
    if rng.random() < 0.1:
        spec["title"] = "a random format with \"quotes\", */ and a long line " + "x" * rng.randint(0, 120)
    if rng.random() < 0.1:
        spec["holds"] = rng.choice(["2-d matrices", "arrays of any rank", "%d%% of nothing"])
    if rng.random() < 0.2:
        spec["extensions"] = [".x" + str(rng.randint(0, 9))]
    spec["trailer"] = rng.choice(["forbid", "forbid", "forbid-always", "keep"])
    sc = Scope()
    r = rng.random()
    if family == "directory":
        r = 0.2
    elif family == "struct":
        r = 0.33
    elif family == "cards":
        r = 0.375
    elif family == "archive":
        r = 0.385
    if r < 0.08 and samples is not None and rng.random() < 0.3:
        body = wrapped_text_header(rng, names, spec, samples)
    elif r < 0.08:
        body = text_header(rng, names)
        pre = misc_items(rng, names, sc, [], rng.randint(0, 2))
        body = [i for i in pre if "field" in i and ("equals" in i or (i.get("write", "x").isdigit()))] + body
    elif r < 0.14:
        body = [{"repeat": names.new("value"), "until": "end", "min": 1, "skip": "whitespace and -- comments",
                 "body": [text_value_case(rng, names, sc, spec)]}]
    elif r < 0.3:
        body = specgen_dir.directory_format(rng, names, spec, samples if samples is not None else [])
    elif r < 0.37:
        body = specgen_struct.make_family(rng, names, spec, samples if samples is not None else [])
    elif r < 0.38:
        body = specgen_cards.make_family(rng, names, spec, samples if samples is not None else [])
    elif r < 0.39:
        body = specgen_archive.make_family(rng, names, spec, samples if samples is not None else [])
    else:
        body = misc_items(rng, names, sc, [], rng.randint(0, 3))
        items, arr = block(rng, names, sc, spec)
        body += items
        body += misc_items(rng, names, sc, [arr], rng.randint(0, 2))
        if rng.random() < 0.2:
            rep = {"repeat": names.new("item"), "until": "end", "min": rng.randint(0, 1), "body": body}
            if rng.random() < 0.5:
                # skipped whitespace must not be the start of a repetition
                # (spec/LANGUAGE.md, Limitations): a magic starts each one
                rep["skip"] = "whitespace"
                rep["body"] = [{"field": names.new("mark"), "type": "bytes", "size": 1, "equals": "R"}] + body
            body = [rep]
    if r >= 0.14 and not 0.3 <= r < 0.39 and rng.random() < 0.2:
        # a byte order chosen at run time: a mark read in a fixed order,
        # then everything that names no order follows it; the writer
        # writes the spec's endian, so it writes the mark that chooses it
        # (now and then the other one: it must refuse, not write)
        mark, t = names.new("bom"), rng.choice(["u8", "u16le", "u16be", "u32le"])
        little, big = (0x49, 0x4D) if t == "u8" else (0x4949, 0x4D4D)
        is_big = spec.get("endian") == "big"
        wrote = big if is_big else little
        if rng.random() < 0.1:
            wrote = little if is_big else big
        body = [{"field": mark, "type": t, "in": [little, big], "write": str(wrote)},
                {"byte_order": "%s == %d" % (mark, big) if rng.random() < 0.7 else "%s != %d" % (mark, little)}] + body
    spec["body"] = body
    if rng.random() < 0.05:
        spec["read_only"] = "made by an instrument"
    if rng.random() < 0.05:
        spec["sidecar"] = {"suffix": ".meta", "keys": {"rows": "numRows", "cols": "numCols", "value_type": "valueType",
                                                       "nnz": "nnz", "schema": "schema", "label": "label"},
                           "value_names": {"f64": "f64"}}
    multi = any("repeat" in i and i.get("until") == "end" for i in spec["body"])
    if r >= 0.39 and "detect" not in spec and rng.random() < 0.04 and not multi:
        # many tables, each looked up (the generator's lists of emitted
        # helpers grew past any fixed size: regression many_tables)
        extra = []
        for _ in range(rng.randint(17, 24)):
            tname, k, lk = names.new("types"), names.new("k"), names.new("el")
            spec.setdefault("tables", {})[tname] = table(rng, "one")
            code = spec["tables"][tname]["entries"][0]["key"][0]
            code = int(code, 0) if isinstance(code, str) else code
            extra += [{"field": k, "type": "u8", "equals": code}, {"lookup": lk, "table": tname, "key": [k]},
                      {"array": names.new("a"), "dtype": lk, "shape": ["0"], "order": "row-major"}]
        spec["body"] = extra + spec["body"]
    return spec


if __name__ == "__main__":
    import json
    import sys
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    family = sys.argv[2] if len(sys.argv) > 2 else "any"
    print(json.dumps(make_spec(random.Random(seed), "fz%d" % seed, None, family), indent=1))
