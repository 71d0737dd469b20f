"""Random specs of card headers (spec/LANGUAGE.md: "Card headers", the
`cards` item of spec/fits.json), with files that follow them, for the
spec fuzzer (fuzz/specs/specgen.py, specfuzz.py).

A spec of this family is one `cards` item whose every table is drawn at
random: the record and block sizes, the fill bytes, the byte range, the
key field's width and characters, the value indicator, the commentary
keys, the terminator and the continuation key, fixed format, the byte
order and the axes' order, a type table, scale/zero conventions, named
lists of rules spliced into units, and units (the first; others told
apart by their first key's string, with and without "select"; skipped
ones).  Rules take every value type, bind, equals, min, max, fixed,
refuse, refuse_value and integer_data.  Most specs are meant to be
accepted and written; now and then one breaks a rule of the language
(a key longer than its field or outside its characters, a run with no
rank, a bind of the wrong type), which afmt-gen must refuse naming the
spec.

make_family() also returns files built from the same choices: headers
with the required keys in order, optional and unknown keys, commentary
and free-text records, continued strings, values in every syntax the
rule's type takes (signs, exponents with E and D, quotes in strings,
complex pairs), the terminator, the fills, the data, sometimes further
units; valid ones mostly, and now and then a required key missing or
out of order, a value out of its range, a short block, a byte out of
range, a wrong fill.
"""
DSIZE = {"u8": 1, "i8": 1, "u16": 2, "i16": 2, "u32": 4, "i32": 4, "u64": 8, "i64": 8, "f32": 4, "f64": 8}
UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


class Keys:
    """Distinct keys of the spec's key alphabet, at most `width` bytes."""

    def __init__(self, rng, width, alphabet):
        self.rng, self.width, self.alphabet, self.used = rng, width, alphabet, set()

    def new(self, room=0):
        rng = self.rng
        for _ in range(100):
            n = rng.randint(1, max(1, self.width - room))
            if rng.random() < 0.1:
                n = self.width - room  # a key filling its field
            k = rng.choice(UPPER) + "".join(rng.choice(self.alphabet) for _ in range(max(0, n - 1)))
            if k not in self.used:
                self.used.add(k)
                return k
        k = "K%d" % len(self.used)
        self.used.add(k)
        return k


def key_alphabet(rng):
    """The "chars" of the key field and the characters a made key uses."""
    return rng.choice([("A-Z0-9_-", UPPER + "0123456789_-"), ("A-Z0-9", UPPER + "0123456789"),
                       ("A-Z", UPPER), ("A-Za-z0-9_", UPPER + "abcdefghijklmnopqrstuvwxyz0123456789_")])


def shape_rules(rng, keys, choice):
    """The rules that give a unit its type, rank and axes (FITS's BITPIX,
    NAXIS, NAXISn), drawn once per spec and spliced into every unit."""
    max_rank = rng.choice([0, 1, 2, 3, 9, 99, 999])
    digits = len(str(max_rank))
    tkey, rkey = keys.new(), keys.new(digits)
    fixed = choice["fixed"] is not None
    rules = [{"key": tkey, "type": "int", "bind": "type", "fixed": fixed and rng.random() < 0.8}]
    rank = {"key": rkey, "type": "int", "bind": "rank", "min": 0, "fixed": fixed and rng.random() < 0.8}
    if rng.random() < 0.9:
        rank["max"] = max_rank
    rules.append(rank)
    run_key = rkey if rng.random() < 0.7 else keys.new(digits)
    if rng.random() < 0.03:
        run_key = run_key + "X" * (keys.width - len(run_key))  # no room for its number: afmt-gen refuses?
    rules.append({"key": run_key, "run": True, "type": "int", "bind": "axes", "min": 0,
                  "fixed": fixed and rng.random() < 0.8})
    if rng.random() < 0.02:
        del rules[1]  # a run with no rank before it: refused
    if rng.random() < 0.02:
        rules[0]["type"] = "number"  # bind "type" needs an int: refused
    return rules, {"type": tkey, "rank": rkey, "run": run_key, "max_rank": max_rank if "max" in rank else 3}


def value_rule(rng, keys, choice, optional):
    """A key rule of a random value type, with what a file must hold."""
    vtype = rng.choice(["any", "int", "number", "string", "logical", "complex"])
    r = {"key": keys.new(), "type": vtype}
    if vtype == "int" and rng.random() < 0.6:
        lo = rng.randint(-5, 5)
        r["min"] = lo
        if rng.random() < 0.6:
            r["max"] = lo + rng.randint(0, 40)
    if vtype in ("int", "string", "logical") and rng.random() < (0.4 if optional else 0.9) and not optional:
        r["equals"] = {"int": rng.randint(-3, 99), "string": rng.choice(["IMAGE", "A B", "x'y", "", "LONGSTRINGVALUE"]),
                       "logical": rng.random() < 0.7}[vtype]
    if vtype == "logical" and rng.random() < 0.2:
        r["refuse_value"] = rng.random() < 0.5
    if choice["fixed"] is not None and vtype in ("int", "logical", "string") and rng.random() < 0.4:
        r["fixed"] = True
    if optional and rng.random() < 0.15:
        r["refuse"] = rng.choice(["always", "strict"])
    if optional and vtype == "int" and rng.random() < 0.2:
        r["integer_data"] = True
    if optional and vtype == "number" and rng.random() < 0.3:
        r["bind"] = rng.choice(["scale", "zero"])
    if optional and vtype == "string" and rng.random() < 0.3:
        r["bind"] = "name"
    if rng.random() < 0.2:
        r["message"] = "the rule of %s" % r["key"]
    return r


def units(rng, keys, choice, shape_list, info):
    """The first unit, maybe a selected one, a fallback one, a skipped one."""
    first_key = keys.new()
    magic = {"key": first_key, "type": "logical", "equals": True, "fixed": choice["fixed"] is not None}
    first = {"unit": "primary", "first": True, "required": [magic, shape_list],
             "optional": [value_rule(rng, keys, choice, True) for _ in range(rng.randint(0, 4))]}
    if rng.random() < 0.3:
        # a required key the writer writes from its "equals" (now and then
        # one it has no value for: refused unless read-only)
        r = value_rule(rng, keys, choice, False)
        if "equals" not in r and rng.random() < 0.8:
            r["type"], r["equals"] = "int", rng.randint(0, 9)
            r.pop("min", None), r.pop("max", None), r.pop("refuse_value", None)
        first["required"].append(r)
    out = [first]
    info["first_key"] = first_key
    if rng.random() < 0.6:
        ext = keys.new()
        info["ext_key"] = ext
        sel = rng.choice(["IMAGE", "CUBE", "X"])
        info["select"] = sel
        u = {"unit": "ext", "select": sel,
             "required": [{"key": ext, "type": "string", "equals": sel}, shape_list],
             "optional": [{"key": first_key, "refuse": "always"}]
             + [value_rule(rng, keys, choice, True) for _ in range(rng.randint(0, 2))]}
        if rng.random() < 0.5:
            u["required"] += [{"key": keys.new(), "type": "int", "equals": 0},
                              {"key": keys.new(), "type": "int", "equals": 1}]
        out.append(u)
        if rng.random() < 0.5:
            out.append({"unit": "other", "skip": True,
                        "required": [{"key": ext, "type": "string"}, shape_list,
                                     {"key": keys.new(), "type": "int", "bind": "extra", "min": 0},
                                     {"key": keys.new(), "type": "int", "bind": "groups", "min": 0}]})
            info["skip"] = out[-1]["required"][2:]
    return out


def make_family(rng, names, spec, samples):
    """The body of a spec of this family (a single cards item); its sample
    files are appended to samples."""
    record = rng.choice([80, 80, 40, 64, 100, 120])
    width = rng.choice([8, 8, 4, 6, 10, 16])
    indicator = rng.choice(["= ", "= ", ": ", "=", " = "])
    if width + len(indicator) + 4 > record:
        width = 8
    chars, alphabet = key_alphabet(rng)
    keys = Keys(rng, width, alphabet)
    fixed = None
    if rng.random() < 0.7:
        end = rng.randint(width + len(indicator) + 1, min(record, width + len(indicator) + 30))
        fixed = {"end": end, "string": rng.randint(0, 8)}
    choice = {"record": record, "width": width, "indicator": indicator, "fixed": fixed}
    item = {"cards": names.new("hdu"), "record": record, "block": record * rng.choice([1, 2, 4, 36]),
            "key": {"width": width, "chars": chars}, "indicator": indicator}
    if rng.random() < 0.3:
        item["fill"] = rng.choice(["#", 0, 32, "."])
    if rng.random() < 0.3:
        item["data_fill"] = rng.choice([0, 32, 255])
    if rng.random() < 0.2:
        item["bytes"] = rng.choice([[32, 126], [32, 127], [0, 255]] * 6 + [[35, 126]])
    comm = [c for c in rng.sample(["COMMENT", "HISTORY", "", "NOTE"], rng.randint(0, 3)) if len(c) <= width]
    if comm:
        item["commentary"] = comm
    end_key = rng.choice(["END", "END", "STOP", keys.new()])[:width]
    keys.used.add(end_key)
    item["end"] = end_key
    if rng.random() < 0.5:
        cont = rng.choice(["CONTINUE", "CONT", keys.new()])[:width]
        keys.used.add(cont)
        item["continue"] = cont
    if fixed:
        item["fixed"] = fixed
    item["endian"] = rng.choice(["big", "little"])
    item["order"] = rng.choice(["column-major", "row-major"])
    dts = rng.sample(sorted(DSIZE), rng.randint(1, len(DSIZE)))
    codes = rng.sample([8, 16, 32, 64, -32, -64, 1, 2, 3, 0, 100, -8], len(dts))
    item["types"] = [{"value": c, "dtype": d} for c, d in zip(codes, dts)]
    if rng.random() < 0.5:
        t = item["types"][0]
        item["conventions"] = [{"type": t["value"], "zero": rng.choice(["32768", "-128", "0.5", "1E3"]),
                                "logical": rng.choice(["u16", "i8", "f32"])}]
        if rng.random() < 0.4:
            item["conventions"][0]["scale"] = rng.choice(["1", "2.5", "-1"])
    shape, info = shape_rules(rng, keys, choice)
    list_name = rng.choice(["shape", "image", "axes", names.new("keys")])
    item["keys"] = {list_name: shape}
    item["units"] = units(rng, keys, choice, list_name, info)
    if rng.random() < 0.02:
        item["units"][0]["first"] = False  # no first unit: refused
    spec["trailer"] = rng.choice(["forbid", "forbid", "keep"])
    s = dict(choice, item=item, info=info, shape=shape, end=end_key, cont=item.get("continue"))
    for _ in range(rng.randint(2, 5)):
        samples.append(sample(rng, s))
    return [item]


def card(s, key, value=None):
    """One record: key, then the indicator and value, space-filled (cut
    at the record's size)."""
    text = key.ljust(s["width"])
    if value is not None:
        text += s["indicator"] + value
    return (text.ljust(s["record"])[:s["record"]]).encode("latin-1")


def int_text(rng, s, rule, v):
    t = str(v)
    if v >= 0 and rng.random() < 0.1:
        t = "+" + t
    return fixed_pad(rng, s, rule, t)


def fixed_pad(rng, s, rule, t):
    """A value ending in the fixed-format byte when the rule says so."""
    f = s["fixed"]
    if rule.get("fixed") and f and rng.random() < 0.9:
        at = f["end"] - s["width"] - len(s["indicator"])
        return t.rjust(max(at, len(t)))
    return " " * rng.choice([0, 0, 1, 5]) + t


def string_text(rng, s, rule, v):
    f = s["fixed"]
    body = v.replace("'", "''")
    if rule.get("fixed") and f:
        body = body.ljust(f["string"])
    return "'" + body + "'"


def value_of(rng, s, rule, bad):
    """A value the rule takes (or, when bad, now and then one it does not)."""
    vt = rule.get("type", "any")
    if "equals" in rule and not (bad and rng.random() < 0.3):
        e = rule["equals"]
        if vt == "logical":
            return fixed_pad(rng, s, rule, "T" if e else "F")
        if vt == "int":
            return int_text(rng, s, rule, e)
        return string_text(rng, s, rule, e)
    if vt == "int":
        lo, hi = rule.get("min", -50), rule.get("max", 100)
        v = rng.randint(lo, max(lo, hi))
        if bad and rng.random() < 0.3:
            v = rng.choice([lo - 1, hi + 1, 1 << 63])
        return int_text(rng, s, rule, v)
    if vt == "number":
        return fixed_pad(rng, s, rule, rng.choice(["1", "-2.5", "1.0E3", "3D-2", ".5", "1E", "+7.", "32768", "1e3"]))
    if vt == "logical":
        return fixed_pad(rng, s, rule, rng.choice("TF") if not bad else rng.choice("TFX"))
    if vt == "complex":
        return rng.choice(["(1, 2)", "(-1.5E2,0)", "(1 2)", "(3,"])
    if vt == "string":
        return string_text(rng, s, rule, rng.choice(["abc", "", "it''s", "  lead", "x" * 70]))
    return rng.choice(["1", "T", "'s'", "(1,2)", "2.5", "junk"])


def header(rng, s, unit_first, dims, code, bad, extra_rules):
    """The records of one unit's header, its terminator and fill."""
    info = s["info"]
    recs = [card(s, unit_first[0], unit_first[1])]
    sh = s["shape"]
    vals = {"type": str(code), "rank": str(len(dims))}
    for r in sh:
        if r.get("run"):
            for i, d in enumerate(dims):
                recs.append(card(s, "%s%d" % (r["key"], i + 1), fixed_pad(rng, s, r, str(d))))
        else:
            recs.append(card(s, r["key"], fixed_pad(rng, s, r, vals[r["bind"]])))
    for r in extra_rules:
        recs.append(card(s, r["key"], value_of(rng, s, r, bad)))
    for _ in range(rng.randint(0, 3)):
        recs.insert(rng.randint(len(recs) if not bad else 1, len(recs)), free_record(rng, s))
    if bad and rng.random() < 0.3 and len(recs) > 2:
        i = rng.randint(1, len(recs) - 1)
        recs[i], recs[i - 1] = recs[i - 1], recs[i]
    if bad and rng.random() < 0.2 and len(recs) > 1:
        del recs[rng.randint(1, len(recs) - 1)]
    recs.append(card(s, s["end"]))
    out = b"".join(recs)
    block = s["item"]["block"]
    fill = s["item"].get("fill", " ")
    fill = bytes([fill]) if isinstance(fill, int) else fill.encode()
    out += fill * ((-len(out)) % block)
    if bad and rng.random() < 0.15:
        out = out[:-1] + b"\x01"
    return out, info


def free_record(rng, s):
    """A commentary record, a continued string, or another key's value."""
    item = s["item"]
    r = rng.random()
    if r < 0.4 and item.get("commentary"):
        text = rng.choice(item["commentary"]).ljust(s["width"]) + " free text = 'x'"
        return text.ljust(s["record"])[:s["record"]].encode()
    if r < 0.6 and s["cont"]:
        return card(s, s["cont"], "'more&'")
    if r < 0.8:
        return card(s, "X" * min(3, s["width"]), rng.choice(["1", "'v'", "T", "2.5E1", "(1,2)"]) + " / a comment")
    return card(s, "")


def data(rng, s, dims, code, bad):
    dt = [t["dtype"] for t in s["item"]["types"] if t["value"] == code]
    size = DSIZE.get(dt[0], 1) if dt else 1
    n = 1
    for d in dims:
        n *= d
    out = bytes(rng.randint(0, 255) for _ in range(min(n * size, 4096))) if dims else b""
    if not out and dims and n:
        return b""
    block = s["item"]["block"]
    fill = bytes([s["item"].get("data_fill", 0)])
    out += fill * ((-len(out)) % block)
    if bad and rng.random() < 0.2 and out:
        out = out[:-1]
    return out


def sample(rng, s):
    """A file of the spec s describes (a dict of its choices)."""
    bad = rng.random() < 0.3
    info = s["info"]
    codes = [t["value"] for t in s["item"]["types"]]
    first = s["item"]["units"][0]
    extra = [r for r in first["required"][2:]] + [r for r in first.get("optional", [])
                                                   if rng.random() < 0.5 and "refuse" not in r]
    out = b""
    for u in range(rng.choice([1, 1, 2, 3]) if "ext_key" in info else 1):
        rank = rng.randint(0, min(3, info["max_rank"]))
        dims = [rng.randint(0, 4) for _ in range(rank)]
        code = rng.choice(codes) if not (bad and rng.random() < 0.2) else 12345
        if u == 0:
            lead = (info["first_key"], fixed_pad(rng, s, {"fixed": True}, "T" if not (bad and rng.random() < 0.2) else "F"))
            rules = extra
        else:
            lead = (info["ext_key"], "'%s'" % (info["select"] if rng.random() < 0.8 else "TABLE"))
            rules = [r for r in s["item"]["units"][1]["required"][2:]]
        h, _ = header(rng, s, lead, dims, code, bad, rules)
        out += h + data(rng, s, dims, code, bad)
    if bad and rng.random() < 0.2:
        out += b"trailing"
    return out
