"""Pickle bytes by hand: an opcode assembler and a protocol-2 pickler of
torch-shaped values that writes what torch.save's pickler writes.

No torch here.  Two layers:

- Asm: one method per opcode, appending bytes; nothing checked, so a
  crafted file can hold any sequence (a PUT that overwrites a slot, INST
  after PROTO 2, a LONG1 of 9 bytes, ...).
- Pickler: CPython's protocol-2 Pickler (Lib/pickle.py, save and its
  save_* methods) redone over a small value model: dict, list, tuple, str,
  int, float, bool, None (Python's own), and the classes below for what
  torch reduces (tensors, storages, Parameters, OrderedDicts, any GLOBAL
  or REDUCE).  Memo by object identity, as CPython's, so a value met
  twice is a GET.  make_corpus.py checks that re-pickling what torch
  loads gives back torch's data.pkl byte for byte, so crafted files built
  with it differ from torch's bytes only where they mean to.
"""

import struct

# Opcodes (CPython Lib/pickle.py names).
MARK, STOP, POP, POP_MARK = b'(', b'.', b'0', b'1'
INT, BININT, BININT1, BININT2, LONG1, LONG4 = b'I', b'J', b'K', b'M', b'\x8a', b'\x8b'
NONE, NEWTRUE, NEWFALSE, BINFLOAT = b'N', b'\x88', b'\x89', b'G'
BINUNICODE, SHORT_BINUNICODE, BINBYTES, SHORT_BINBYTES = b'X', b'\x8c', b'B', b'C'
EMPTY_DICT, EMPTY_LIST, EMPTY_TUPLE, EMPTY_SET = b'}', b']', b')', b'\x8f'
TUPLE, TUPLE1, TUPLE2, TUPLE3 = b't', b'\x85', b'\x86', b'\x87'
SETITEM, SETITEMS, APPEND, APPENDS = b's', b'u', b'a', b'e'
GLOBAL, STACK_GLOBAL, REDUCE, BUILD = b'c', b'\x93', b'R', b'b'
INST, OBJ, NEWOBJ, NEWOBJ_EX = b'i', b'o', b'\x81', b'\x92'
BINPERSID, PERSID = b'Q', b'P'
BINPUT, LONG_BINPUT, BINGET, LONG_BINGET, MEMOIZE = b'q', b'r', b'h', b'j', b'\x94'
PROTO, FRAME = b'\x80', b'\x95'
DUP = b'2'


def encode_long(value):
    """LONG1's payload: two's complement little-endian, fewest bytes
    (pickle.encode_long)."""
    if value == 0:
        return b''
    nbytes = (value.bit_length() >> 3) + 1
    data = value.to_bytes(nbytes, 'little', signed=True)
    if value < 0 and nbytes > 1 and data[-1] == 0xff and (data[-2] & 0x80) != 0:
        data = data[:-1]
    return data


class Asm:
    """Appends opcodes to a bytearray.  Every method returns self, so a
    pickle reads as a chain: Asm().proto(2).empty_dict()...stop()."""

    def __init__(self):
        self.out = bytearray()

    def raw(self, data):
        self.out += data
        return self

    def bytes(self):
        return bytes(self.out)

    def proto(self, version=2):
        return self.raw(PROTO + bytes([version]))

    def frame(self, length):
        return self.raw(FRAME + struct.pack('<Q', length))

    def op(self, opcode):
        return self.raw(opcode)

    def mark(self):
        return self.raw(MARK)

    def stop(self):
        return self.raw(STOP)

    def put(self, index):
        if index < 256:
            return self.raw(BINPUT + bytes([index]))
        return self.raw(LONG_BINPUT + struct.pack('<I', index))

    def get(self, index):
        if index < 256:
            return self.raw(BINGET + bytes([index]))
        return self.raw(LONG_BINGET + struct.pack('<I', index))

    def long_put(self, index):
        """LONG_BINPUT whatever the index (non-canonical below 256)."""
        return self.raw(LONG_BINPUT + struct.pack('<I', index))

    def int(self, value):
        """The opcode CPython's protocol-2 pickler picks (save_long)."""
        if 0 <= value <= 0xff:
            return self.raw(BININT1 + bytes([value]))
        if 0 <= value <= 0xffff:
            return self.raw(BININT2 + struct.pack('<H', value))
        if -0x80000000 <= value <= 0x7fffffff:
            return self.raw(BININT + struct.pack('<i', value))
        data = encode_long(value)
        if len(data) < 256:
            return self.raw(LONG1 + bytes([len(data)]) + data)
        return self.raw(LONG4 + struct.pack('<i', len(data)) + data)

    def binint(self, value):
        """BININT (4 bytes) whatever the value: non-canonical for 0..65535."""
        return self.raw(BININT + struct.pack('<i', value))

    def long1(self, data):
        """LONG1 with exactly these payload bytes."""
        return self.raw(LONG1 + bytes([len(data)]) + data)

    def float(self, value):
        return self.raw(BINFLOAT + struct.pack('>d', value))

    def none(self):
        return self.raw(NONE)

    def bool(self, value):
        return self.raw(NEWTRUE if value else NEWFALSE)

    def unicode(self, text):
        data = text.encode('utf-8', 'surrogatepass') if isinstance(text, str) else text
        return self.raw(BINUNICODE + struct.pack('<I', len(data)) + data)

    def short_unicode(self, text):
        data = text.encode('utf-8')
        return self.raw(SHORT_BINUNICODE + bytes([len(data)]) + data)

    def global_(self, module, name):
        return self.raw(GLOBAL + module.encode() + b'\n' + name.encode() + b'\n')

    def inst(self, module, name):
        return self.raw(INST + module.encode() + b'\n' + name.encode() + b'\n')

    def tuple(self, count):
        """TUPLE1-3 after count items, else TUPLE (the caller put a MARK)."""
        return self.raw({0: EMPTY_TUPLE, 1: TUPLE1, 2: TUPLE2, 3: TUPLE3}.get(count, TUPLE))


# ----------------------------------------------------------------- values

class Global:
    """A GLOBAL as a value: `torch FloatStorage`, `posix system`.  One
    object per name (global_ref), so the pickler memoizes it as CPython
    memoizes a class or function."""

    def __init__(self, module, name):
        self.module, self.name = module, name


_GLOBALS = {}


def global_ref(module, name):
    """The one Global for module.name (shared: a second use is a GET)."""
    key = (module, name)
    if key not in _GLOBALS:
        _GLOBALS[key] = Global(module, name)
    return _GLOBALS[key]


class Reduce:
    """func(*args) as save_reduce writes it: func, args, REDUCE, memo put,
    then dictitems (SETITEM(S)), then state and BUILD."""

    def __init__(self, func, args, state=None, dictitems=None):
        self.func, self.args, self.state, self.dictitems = func, args, state, dictitems


class Raw:
    """Bytes pasted into the pickle where a value goes (crafted files).
    `data` is bytes, or a function of the next free memo index returning
    (bytes, number of memo slots those bytes put), so hand-written opcodes
    can PUT and GET beside the pickler's own."""

    def __init__(self, data):
        self.data = data


# torch's storage classes (GLOBAL torch <name>) by afmt dtype name.
STORAGE_CLASS = {
    'f32': 'FloatStorage', 'f64': 'DoubleStorage', 'f16': 'HalfStorage',
    'bf16': 'BFloat16Storage', 'i64': 'LongStorage', 'i32': 'IntStorage',
    'i16': 'ShortStorage', 'i8': 'CharStorage', 'u8': 'ByteStorage',
    'bool': 'BoolStorage', 'c64': 'ComplexFloatStorage', 'c128': 'ComplexDoubleStorage',
}
ELEMENT_SIZE = {'f32': 4, 'f64': 8, 'f16': 2, 'bf16': 2, 'i64': 8, 'i32': 4, 'i16': 2,
                'i8': 1, 'u8': 1, 'bool': 1, 'c64': 8, 'c128': 16}

_STORAGE_WORD = 'storage'   # one object, as torch's literal: a GET after the first
_CPU = 'cpu'


class Storage:
    """A persistent id ('storage', torch <Class>, key, location, numel).
    `storage_class` may be any name (crafted: 'torch.storage UntypedStorage')."""

    def __init__(self, key, dtype=None, numel=0, location=_CPU, storage_class=None):
        self.key = key
        self.dtype = dtype
        self.numel = numel
        self.location = location
        self.storage_class = storage_class or global_ref('torch', STORAGE_CLASS[dtype])

    def pid(self):
        return (_STORAGE_WORD, self.storage_class, self.key, self.location, self.numel)


class OrderedDictValue:
    """collections.OrderedDict(): items, and the state torch's state_dict
    gives it ({'_metadata': ...}, BUILD after the items), if any."""

    def __init__(self, items=(), state=None):
        self.items = list(items)
        self.state = state


class Tensor:
    """torch._utils._rebuild_tensor_v2(storage, offset, size, stride,
    requires_grad, OrderedDict()).  `rebuild` may name another function
    (crafted: _rebuild_tensor_v3)."""

    def __init__(self, storage, offset, size, stride, requires_grad=False,
                 hooks=None, rebuild=None, extra_args=()):
        self.storage, self.offset = storage, offset
        self.size, self.stride = tuple(size), tuple(stride)
        self.requires_grad = requires_grad
        self.hooks = hooks if hooks is not None else OrderedDictValue()
        self.rebuild = rebuild or global_ref('torch._utils', '_rebuild_tensor_v2')
        self.extra_args = tuple(extra_args)
        self.arguments = None   # crafted: REDUCE's argument tuple, verbatim


class Parameter:
    """torch._utils._rebuild_parameter(tensor, requires_grad, OrderedDict())."""

    def __init__(self, tensor, requires_grad=True):
        self.tensor, self.requires_grad = tensor, requires_grad


# ----------------------------------------------------------------- pickler

class Pickler:
    """CPython's protocol-2 pickler over the value model above.  dump()
    returns PROTO 2, the value, STOP."""

    BATCHSIZE = 1000

    def __init__(self, protocol=2):
        self.asm = Asm()
        self.memo = {}       # id(obj) -> memo index
        self.keep = []       # keeps memoized objects alive, so ids stay unique
        self.protocol = protocol

    def dump(self, value):
        self.asm.proto(self.protocol)
        self.save(value)
        self.asm.stop()
        return self.asm.bytes()

    def memoize(self, obj):
        index = len(self.memo)
        self.memo[id(obj)] = index
        self.keep.append(obj)
        self.asm.put(index)

    def save(self, obj):
        if id(obj) in self.memo:
            self.asm.get(self.memo[id(obj)])
            return
        if obj is None:
            self.asm.none()
        elif obj is True or obj is False:
            self.asm.bool(obj)
        elif isinstance(obj, int):
            self.asm.int(obj)
        elif isinstance(obj, float):
            self.asm.float(obj)
        elif isinstance(obj, str):
            self.asm.unicode(obj)
            self.memoize(obj)
        elif isinstance(obj, tuple):
            self.save_tuple(obj)
        elif isinstance(obj, list):
            self.asm.op(EMPTY_LIST)
            self.memoize(obj)
            self.batch_appends(obj)
        elif isinstance(obj, dict):
            self.asm.op(EMPTY_DICT)
            self.memoize(obj)
            self.batch_setitems(list(obj.items()))
        elif isinstance(obj, Raw):
            self.save_raw(obj)
        else:
            self.save_torch_value(obj)

    def save_torch_value(self, obj):
        if isinstance(obj, Global):
            self.asm.global_(obj.module, obj.name)
            self.memoize(obj)
        elif isinstance(obj, Reduce):
            self.save_reduce(obj, obj.func, obj.args, obj.state, obj.dictitems)
        elif isinstance(obj, OrderedDictValue):
            self.save_reduce(obj, global_ref('collections', 'OrderedDict'), (),
                             obj.state, obj.items)
        elif isinstance(obj, Tensor):
            args = obj.arguments or (obj.storage, obj.offset, obj.size, obj.stride,
                                     obj.requires_grad, obj.hooks) + obj.extra_args
            self.save_reduce(obj, obj.rebuild, args)
        elif isinstance(obj, Parameter):
            self.save_reduce(obj, global_ref('torch._utils', '_rebuild_parameter'),
                             (obj.tensor, obj.requires_grad, OrderedDictValue()))
        elif isinstance(obj, Storage):
            # persistent_id: the pid tuple (not through the memo check of
            # save(), as save_pers calls save(pid, save_persistent_id=False)),
            # then BINPERSID
            self.save_tuple(obj.pid())
            self.asm.op(BINPERSID)
        else:
            raise TypeError('no pickle for %r' % (obj,))

    def save_raw(self, raw):
        if callable(raw.data):
            data, puts = raw.data(len(self.memo))
            for _ in range(puts):   # slots the raw bytes took
                placeholder = object()
                self.memo[id(placeholder)] = len(self.memo)
                self.keep.append(placeholder)
        else:
            data = raw.data
        self.asm.raw(data)

    def save_reduce(self, obj, func, args, state=None, dictitems=None):
        self.save(func)
        self.save(args)
        self.asm.op(REDUCE)
        self.memoize(obj)
        if dictitems:
            self.batch_setitems(list(dictitems))
        if state is not None:
            self.save(state)
            self.asm.op(BUILD)

    def save_tuple(self, obj):
        if not obj:
            self.asm.op(EMPTY_TUPLE)
            return
        if len(obj) <= 3:
            for item in obj:
                self.save(item)
            self.asm.tuple(len(obj))
        else:
            self.asm.mark()
            for item in obj:
                self.save(item)
            self.asm.op(TUPLE)
        self.memoize(obj)

    def batch_setitems(self, items):
        for start in range(0, max(len(items), 1), self.BATCHSIZE):
            batch = items[start:start + self.BATCHSIZE]
            if len(batch) > 1:
                self.asm.mark()
                for key, value in batch:
                    self.save(key)
                    self.save(value)
                self.asm.op(SETITEMS)
            elif batch:
                self.save(batch[0][0])
                self.save(batch[0][1])
                self.asm.op(SETITEM)

    def batch_appends(self, items):
        for start in range(0, max(len(items), 1), self.BATCHSIZE):
            batch = items[start:start + self.BATCHSIZE]
            if len(batch) > 1:
                self.asm.mark()
                for item in batch:
                    self.save(item)
                self.asm.op(APPENDS)
            elif batch:
                self.save(batch[0])
                self.asm.op(APPEND)


def dumps(value, protocol=2):
    """The pickle of `value` as torch.save writes it (protocol 2)."""
    return Pickler(protocol).dump(value)


# ----------------------------------------------------------------- scanning

# What FORMATS.md's torch section allows in data.pkl.
ALLOWED_OPCODES = {
    'PROTO', 'EMPTY_DICT', 'EMPTY_LIST', 'EMPTY_TUPLE', 'MARK', 'BINPUT', 'LONG_BINPUT',
    'BINGET', 'LONG_BINGET', 'BINUNICODE', 'BININT', 'BININT1', 'BININT2', 'LONG1',
    'BINFLOAT', 'NONE', 'NEWTRUE', 'NEWFALSE', 'TUPLE', 'TUPLE1', 'TUPLE2', 'TUPLE3',
    'SETITEM', 'SETITEMS', 'APPEND', 'APPENDS', 'GLOBAL', 'REDUCE', 'BUILD', 'BINPERSID',
    'STOP',
}
ALLOWED_GLOBALS = {'collections OrderedDict', 'torch._utils _rebuild_tensor_v2',
                   'torch._utils _rebuild_parameter'} | \
                  {'torch ' + name for name in STORAGE_CLASS.values()}


def scan(pickle_bytes):
    """(protocol, opcode names used, GLOBAL names used) of a pickle, by
    pickletools (which reads opcodes and never runs them)."""
    import pickletools
    opcodes, globals_used, protocol = set(), [], None
    for opcode, arg, _pos in pickletools.genops(pickle_bytes):
        opcodes.add(opcode.name)
        if opcode.name == 'PROTO' and protocol is None:
            protocol = arg
        if opcode.name in ('GLOBAL', 'INST'):
            globals_used.append(arg)
    return protocol, opcodes, globals_used


def outside_allowlist(pickle_bytes):
    """The opcodes and GLOBALs of a pickle that FORMATS.md does not allow
    (empty lists: every one is allowed)."""
    protocol, opcodes, globals_used = scan(pickle_bytes)
    bad = sorted(opcodes - ALLOWED_OPCODES)
    if protocol != 2:
        bad.insert(0, 'PROTO %s' % protocol)
    return bad, sorted(set(globals_used) - ALLOWED_GLOBALS)
