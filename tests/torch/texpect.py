"""What torch says a checkpoint holds, and the expected.tsv both corpora
write (make_corpus.py, craft.py) and run.sh reads.

expected.tsv: a header line, then one line per file, tab-separated:

  file     the file's name in OUTDIR
  strict   ok | invalid      afmt-validate's verdict (default, strict)
  lenient  ok | invalid      afmt-validate --lenient's verdict
  class    why it is invalid (or, for a file only lenient accepts, what
           lenient tolerates); '-' for a file both accept.  One of
           CLASSES below.
  member   the zip member at fault where that is clear ('data.pkl',
           'data/0', '-' for none or the whole file)
  note     what the file is; for crafted ones the CVE or scanner bypass
           it stands for
  tensors  for a file lenient or strict accepts: a JSON list, in walk
           order (depth-first, dict order, list and tuple items by
           index), of {"name", "dtype", "shape", "strides", "storage",
           "offset"} as torch reports them: name the key path joined
           with '.', dtype afmt's name, strides and offset in elements,
           storage the record's key (data/<key>); '[]' otherwise.

Only this module imports torch lazily (make_corpus.py, check_marker.py
and readback.py need it, craft.py and run.sh's comparison do not).
"""

import io
import json

COLUMNS = ['file', 'strict', 'lenient', 'class', 'member', 'note', 'tensors']

# The reason classes (README.md says what each means).
CLASSES = {
    '-', 'legacy', 'torchscript', 'protocol', 'global', 'opcode', 'memo', 'persid',
    'storage', 'bounds', 'argument', 'setitem', 'build', 'structure', 'limit', 'canonical',
    'values', 'record', 'version', 'byteorder', 'pickle-before-zip', 'zip-prefix', 'zip-gap',
    'zip-trailing', 'zip-duplicate', 'zip-mismatch', 'zip-name', 'zip-flags', 'crc',
    'deflate', 'alignment', 'folder', 'truncated', 'empty',
}

TORCH_DTYPE = {  # torch dtype name -> afmt dtype name
    'float32': 'f32', 'float64': 'f64', 'float16': 'f16', 'bfloat16': 'bf16',
    'int64': 'i64', 'int32': 'i32', 'int16': 'i16', 'int8': 'i8', 'uint8': 'u8',
    'bool': 'bool', 'complex64': 'c64', 'complex128': 'c128',
}


class Row:
    """One line of expected.tsv."""

    def __init__(self, file, strict, lenient, klass='-', member='-', note='', tensors=()):
        assert strict in ('ok', 'invalid') and lenient in ('ok', 'invalid'), (file, strict, lenient)
        assert klass in CLASSES, (file, klass)
        assert not (strict == 'ok' and lenient == 'invalid'), file
        assert (klass == '-') == (strict == 'ok'), (file, klass, strict)
        self.file, self.strict, self.lenient = file, strict, lenient
        self.klass, self.member, self.note = klass, member, note
        self.tensors = list(tensors)

    def line(self):
        note = self.note.replace('\t', ' ').replace('\n', ' ')
        tensors = json.dumps(self.tensors, separators=(',', ':'))
        return '\t'.join([self.file, self.strict, self.lenient, self.klass, self.member,
                          note, tensors])


def write_tsv(path, rows):
    names = [row.file for row in rows]
    assert len(names) == len(set(names)), 'a file named twice in ' + path
    with open(path, 'w', encoding='utf-8') as out:
        out.write('\t'.join(COLUMNS) + '\n')
        for row in rows:
            out.write(row.line() + '\n')


def read_tsv(path):
    """[dict of column -> value] ('tensors' parsed)."""
    rows = []
    with open(path, encoding='utf-8') as tsv:
        header = tsv.readline().rstrip('\n').split('\t')
        assert header == COLUMNS, 'unexpected columns in %s: %s' % (path, header)
        for line in tsv:
            fields = line.rstrip('\n').split('\t')
            row = dict(zip(COLUMNS, fields))
            row['tensors'] = json.loads(row['tensors'])
            rows.append(row)
    return rows


# ------------------------------------------------------------ torch side

def records(path_or_bytes):
    """(folder, {record name without folder: bytes}) of a zip checkpoint."""
    import tzip
    data = path_or_bytes if isinstance(path_or_bytes, bytes) else open(path_or_bytes, 'rb').read()
    members = tzip.read_members(data)
    folder = members[0][0].split('/', 1)[0]
    return folder, {name[len(folder) + 1:]: raw for name, raw in members}


def load_with_keys(path_or_bytes):
    """Unpickle data.pkl with torch's own weights-only unpickler, giving
    it storages from the records as torch.load does, and remember which
    record each storage came from.  Returns (value, {storage _cdata:
    key}).  Records in byteorder 'big' are swapped as torch.load swaps
    them."""
    import torch
    from torch._weights_only_unpickler import Unpickler

    _, recs = records(path_or_bytes)
    swap = recs.get('byteorder', b'little') == b'big'
    storage_keys, loaded = {}, {}

    def persistent_load(pid):
        _, storage_class, key, _location, _numel = pid
        if key not in loaded:
            dtype = torch.uint8 if storage_class is torch.UntypedStorage else storage_class.dtype
            raw = recs['data/' + key]
            if swap:
                size = torch.empty(0, dtype=dtype).element_size()
                raw = swap_elements(raw, size // 2 if dtype.is_complex else size)
            raw = bytearray(raw)
            untyped = (torch.frombuffer(raw, dtype=torch.uint8).untyped_storage() if raw
                       else torch.UntypedStorage(0))
            loaded[key] = torch.storage.TypedStorage(wrap_storage=untyped, dtype=dtype,
                                                     _internal=True)
            storage_keys[untyped._cdata] = key
        return loaded[key]

    unpickler = Unpickler(io.BytesIO(recs['data.pkl']), encoding='utf-8')
    unpickler.persistent_load = persistent_load
    return unpickler.load(), storage_keys


def swap_elements(raw, element_size):
    """Bytes in the other byte order, element by element."""
    if element_size == 1:
        return raw
    out = bytearray(len(raw))
    for start in range(0, len(raw) - element_size + 1, element_size):
        out[start:start + element_size] = raw[start:start + element_size][::-1]
    return bytes(out)


def walk_tensors(value):
    """[(key path, tensor)] depth-first in dict order, list and tuple items
    by index, iteratively; a tensor met twice is listed twice."""
    import torch
    found = []
    stack = [('', value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, torch.Tensor):
            found.append((path, item))
            continue
        if isinstance(item, dict):
            children = [(str(key), child) for key, child in item.items()]
        elif isinstance(item, (list, tuple)):
            children = [(str(index), child) for index, child in enumerate(item)]
        else:
            continue
        for key, child in reversed(children):
            stack.append((path + '.' + key if path else key, child))
    return found


def tensor_rows(value, storage_keys):
    rows = []
    for path, tensor in walk_tensors(value):
        rows.append({
            'name': path,
            'dtype': TORCH_DTYPE[str(tensor.dtype).replace('torch.', '')],
            'shape': list(tensor.shape),
            'strides': list(tensor.stride()),
            'storage': storage_keys[tensor.untyped_storage()._cdata],
            'offset': tensor.storage_offset(),
        })
    return rows


def same_values(left, right):
    """True if two loaded values are equal: the same containers, keys and
    plain values, tensors of one dtype, shape, stride, offset and bytes
    (NaN-safe: compared as bytes)."""
    import torch
    stack = [(left, right)]
    while stack:
        a, b = stack.pop()
        if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
            if not (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor)):
                return False
            if (a.dtype, a.shape, a.stride(), a.storage_offset(), type(a)) != \
                    (b.dtype, b.shape, b.stride(), b.storage_offset(), type(b)):
                return False
            if not torch.equal(tensor_bytes(a), tensor_bytes(b)):
                return False
        elif isinstance(a, dict):
            if type(a) is not type(b) or list(a.keys()) != list(b.keys()):
                return False
            if getattr(a, '_metadata', None) != getattr(b, '_metadata', None):
                return False
            stack.extend(zip(a.values(), b.values()))
        elif isinstance(a, (list, tuple)):
            if type(a) is not type(b) or len(a) != len(b):
                return False
            stack.extend(zip(a, b))
        elif type(a) is not type(b) or (a != b and not (a != a and b != b)):
            return False
    return True


def tensor_bytes(tensor):
    """The tensor's elements as bytes in logical order (u8), so NaNs and
    -0.0 compare as what they are."""
    import torch
    flat = tensor.detach().contiguous().reshape(-1)
    if flat.dtype == torch.bool:
        flat = flat.to(torch.uint8)
    return flat.view(torch.uint8)
