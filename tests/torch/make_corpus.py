#!/usr/bin/env python3
"""make_corpus.py OUTDIR: PyTorch checkpoints written by real torch
(build/venv, torch 2.13), and OUTDIR/expected.tsv (texpect.py says its
columns).

Valid files cover every dtype torch.save writes through
_rebuild_tensor_v2 with a typed storage, 0-d and empty tensors, views
(transposes, offset slices, expand's stride 0, steps), tied weights,
nn.Module state dicts (with _metadata), Parameters, a training
checkpoint, a Lightning-shaped .ckpt, the names pytorch_model.bin, x.pt
and x.pth, a buffer's archive/ folder, big-endian storages (the byteorder
record rewritten and every storage byte-swapped, as torch on a big-endian
host writes them), 1.13's layout, and no zip64 end.  Refused by name:
the legacy format, TorchScript, pickle protocols 3-5,
_rebuild_tensor_v3's dtypes, quantized, sparse, meta and nested tensors,
tensor subclasses and values torch pickles through other globals.

Each valid file is checked before its line is written: torch.load
(weights_only=True) reads it, its pickle uses only what FORMATS.md
allows, and (for files torch wrote) tzip and tpickle write it again byte
for byte, so craft.py's files built with them are torch's bytes but for
what they break.  Deterministic: fixed seeds, no time or path in a file.
"""

import io
import os
import sys
import zlib
from collections import OrderedDict

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import texpect  # noqa: E402
import tpickle  # noqa: E402
import tzip  # noqa: E402
from texpect import Row  # noqa: E402

AFMT_DTYPES = [  # afmt name, torch dtype
    ('f32', torch.float32), ('f64', torch.float64), ('f16', torch.float16),
    ('bf16', torch.bfloat16), ('i64', torch.int64), ('i32', torch.int32),
    ('i16', torch.int16), ('i8', torch.int8), ('u8', torch.uint8), ('bool', torch.bool),
    ('c64', torch.complex64), ('c128', torch.complex128),
]


def seeded(name):
    """Seed torch from the case's name: a case's values do not change when
    another case is added."""
    torch.manual_seed(zlib.crc32(name.encode()))


def sample(dtype, shape):
    """Values of every kind the dtype holds (negative, fractional, NaN and
    infinities for floats)."""
    if dtype == torch.bool:
        return torch.rand(shape) > 0.5
    if dtype.is_complex:
        return torch.randn(shape, dtype=dtype)
    if dtype.is_floating_point:
        values = torch.randn(shape, dtype=torch.float64) * 100
        flat = values.reshape(-1)
        for index, special in enumerate([float('nan'), float('inf'), -float('inf'), -0.0]):
            if index < flat.numel():
                flat[index] = special
        return values.to(dtype)
    info = torch.iinfo(dtype)
    return torch.randint(info.min, info.max, shape, dtype=torch.int64).to(dtype)


class Net(torch.nn.Module):
    """A small model with nested submodules, buffers and a BatchNorm's
    num_batches_tracked (an i64 0-d tensor)."""

    def __init__(self):
        super().__init__()
        self.encoder = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(),
                                           torch.nn.LayerNorm(8))
        self.norm = torch.nn.BatchNorm1d(8)
        self.head = torch.nn.Linear(8, 2, bias=False)
        self.register_buffer('scale', torch.tensor(0.5))

    def forward(self, x):
        return self.head(self.norm(self.encoder(x))) * self.scale


def trained_net():
    """A Net, its Adam optimizer and StepLR scheduler after one step."""
    net = Net()
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=2)
    loss = net(torch.randn(5, 4)).square().mean()
    loss.backward()
    optimizer.step()
    scheduler.step()
    # The step gives the checkpoint its shape (Adam's state per parameter,
    # BatchNorm's running statistics); its numbers come from matmul and
    # reduction kernels that differ in their last bits between CPUs (AVX2,
    # AVX-512), and the corpus must be the same bytes on every machine
    # (corpus/torch/ is checked against it).  So every float of it is
    # replaced by a value of few binary digits, drawn from an integer RNG:
    # exact in every float type and on every CPU.
    with torch.no_grad():
        floats = list(net.state_dict().values())
        floats += [v for state in optimizer.state.values() for v in state.values()
                   if torch.is_tensor(v)]
        for tensor in floats:
            if tensor.is_floating_point() and tensor.dim() > 0:
                exact = torch.randint(-512, 512, tensor.shape, dtype=torch.int64)
                tensor.copy_(exact.to(torch.float64) / 4096)
    return net, optimizer, scheduler, 0.375


# ------------------------------------------------------------ valid cases

def case_dtypes():
    """One file per dtype, and one holding all twelve."""
    files = {}
    for name, dtype in AFMT_DTYPES:
        seeded('dtype_' + name)
        files['dtype_%s.pt' % name] = ({'t': sample(dtype, (2, 3))}, 'a %s [2,3] tensor' % name)
    seeded('all_dtypes')
    files['all_dtypes.pt'] = ({name: sample(dtype, (3, 2)) for name, dtype in AFMT_DTYPES},
                              'every dtype torch.save writes with a typed storage')
    return files


def case_shapes():
    seeded('shapes')
    base = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    cube = torch.arange(24, dtype=torch.int64).reshape(2, 3, 4)
    views = OrderedDict([
        ('base', base),
        ('transpose', base.t()),
        ('slice', base[1:3, 2:5]),            # offset 8, strides (6, 1)
        ('step', base[:, ::2]),               # strides (6, 2)
        ('row', base[2]),                     # offset 12
        ('element', base[3, 5]),              # a 0-d view at offset 23
        ('diagonal', base.diagonal()),        # stride 7
        ('expand', torch.arange(3, dtype=torch.float32).expand(4, 3)),   # stride (0, 1)
        ('scalar_expand', torch.tensor(5.0).expand(2, 2)),               # strides (0, 0)
        ('permute', cube.permute(2, 0, 1)),
        ('narrow_tail', cube.reshape(-1)[20:]),
    ])
    return {
        'views.pt': (views, 'views of shared storages: transposes, slices with offsets, '
                            'steps, expand with stride 0, permutes, 0-d views'),
        'scalars_0d.pt': ({'f32': torch.tensor(3.5), 'i64': torch.tensor(-7),
                           'bool': torch.tensor(True), 'c64': torch.tensor(1 + 2j),
                           'f16': torch.tensor(0.25, dtype=torch.float16)},
                          '0-d tensors: size and stride ()'),
        'empty.pt': ({'zero': torch.zeros(0), 'zero_by_three': torch.zeros(3, 0),
                      'i32_0x4': torch.zeros(0, 4, dtype=torch.int32),
                      'bf16_0': torch.zeros(0, dtype=torch.bfloat16),
                      'empty_view': torch.arange(5.0)[2:2]},
                     'empty tensors: numel 0 storages, and an empty view at offset 2 of 5'),
        'bare_tensor.pt': (torch.arange(6, dtype=torch.int16).reshape(2, 3),
                           'torch.save(tensor): the root is a tensor (key path "")'),
        'big_record.pt': ({'weight': torch.randn(256, 512)},
                          'a 512 KiB record (f32 [256,512])'),
    }


def case_tied():
    seeded('tied')
    shared = torch.randn(3, 4)
    halves = torch.randn(8).split(4)
    return {
        'tied.pt': (OrderedDict([('encoder.weight', shared), ('decoder.weight', shared),
                                 ('first_half', halves[0]), ('second_half', halves[1])]),
                    'tied weights: one tensor under two keys, two views of one storage'),
    }


def case_modules():
    seeded('modules')
    net, optimizer, scheduler, loss = trained_net()
    state = net.state_dict()
    seeded('x')
    small = torch.nn.Linear(3, 2)
    files = {
        'pytorch_model.bin': (state, 'nn.Module.state_dict(), with _metadata (BUILD), '
                                     'as Hugging Face names it'),
        'x.pt': (small.state_dict(), 'a Linear state dict named x.pt'),
        'named_parameters.pt': (dict(net.named_parameters()),
                                'dict(model.named_parameters()): Parameters '
                                '(_rebuild_parameter)'),
        'named_parameters_list.pt': (list(net.named_parameters()),
                                     'list(model.named_parameters()): a list of '
                                     '(name, Parameter) tuples'),
        'parameter_in_dict.pt': ({'p': torch.nn.Parameter(torch.randn(2, 2)),
                                  'frozen': torch.nn.Parameter(torch.randn(2), requires_grad=False),
                                  'requires_grad': torch.randn(3).requires_grad_()},
                                 'a Parameter, a frozen Parameter, a plain tensor '
                                 'with requires_grad in a dict'),
    }
    checkpoint = {
        'epoch': 3, 'global_step': 1200, 'model': state,
        'optimizer': optimizer.state_dict(), 'scheduler': scheduler.state_dict(),
        'loss': loss, 'losses': [1.0, 0.5, 0.25], 'best': None, 'resumed': False,
        'finished': True, 'config': {'lr': 1e-3, 'betas': (0.9, 0.999), 'name': 'run-7',
                                     'tags': ['small', 'test'], 'layers': (4, 8, 2, 1),
                                     'note': 'na\u00efve \u2713', 'empty': {}, 'none': [],
                                     'unit': ()},
        'seed': 1234, 'big': 2 ** 40, 'negative': -3, 'very_negative': -2 ** 40,
        'int32_edge': 2 ** 31 - 1, 'int16_edge': 65535, 'specials': [float('inf'), -0.0, 1e300],
    }
    files['x.pth'] = (checkpoint, 'a training checkpoint: model, Adam state with int keys, '
                                  'scheduler, nested dicts, lists, tuples, ints, floats, '
                                  'strings, None, bools')
    seeded('lightning')
    net2, optimizer2, scheduler2, _ = trained_net()
    lightning = {
        'epoch': 1, 'global_step': 20, 'pytorch-lightning_version': '2.4.0',
        'state_dict': OrderedDict(('model.' + key, value)
                                  for key, value in net2.state_dict().items()),
        'loops': {'fit_loop': {'state_dict': {}, 'epoch_progress': {
            'total': {'ready': 2, 'completed': 1}, 'current': {'ready': 2, 'completed': 1}}}},
        'callbacks': {"ModelCheckpoint{'monitor': 'val_loss', 'mode': 'min'}": {
            'monitor': 'val_loss', 'best_model_score': torch.tensor(0.125),
            'best_model_path': 'checkpoints/epoch=0.ckpt', 'current_score': torch.tensor(0.25),
            'dirpath': 'checkpoints', 'best_k_models': {'checkpoints/epoch=0.ckpt': torch.tensor(0.125)},
            'kth_best_model_path': '', 'kth_value': torch.tensor(float('inf')),
            'last_model_path': ''}},
        'optimizer_states': [optimizer2.state_dict()],
        'lr_schedulers': [scheduler2.state_dict()],
        'hparams_name': 'kwargs',
        'hyper_parameters': {'hidden': 8, 'lr': 0.001, 'dropout': 0.0},
    }
    files['lightning.ckpt'] = (lightning, 'the shape of a PyTorch Lightning .ckpt')
    seeded('many')
    files['many_tensors.pt'] = (
        {'tensors': {'t%d' % index: torch.full((1,), float(index)) for index in range(300)},
         'table': {'k%d' % index: index for index in range(1100)},
         'ints': list(range(1100))},
        '300 tensors (memo past 255: LONG_BINPUT/GET, keys to 299), a 1100-item dict '
        'and list (SETITEMS/APPENDS in batches of 1000)')
    seeded('nested')
    deep = torch.randn(2)
    for level in range(8):
        deep = [deep] if level % 2 else {'level%d' % level: deep, 'pad': (level, None)}
    files['nested.pt'] = ({'deep': deep, 'tuple5': (1, 2.5, 'three', None, torch.ones(1)),
                           'tuple1': (torch.zeros(2, dtype=torch.uint8),)},
                          'containers nested 8 deep, tuples of 1 and 5 items')
    return files


# ------------------------------------------------------------ refused cases

def refused_cases():
    """(file, object, torch.save kwargs, class, note)."""
    seeded('refused')
    plain = {'weight': torch.randn(2, 2)}
    with_attribute = torch.ones(2)
    with_attribute.note = 'extra'
    cases = [
        ('legacy.pt', plain, {'_use_new_zipfile_serialization': False}, 'legacy',
         'the legacy format (_use_new_zipfile_serialization=False): magic 0x1950a86a20f9469cfc6c'),
        ('protocol3.pt', plain, {'pickle_protocol': 3}, 'protocol', 'torch.save(pickle_protocol=3)'),
        ('protocol4.pt', plain, {'pickle_protocol': 4}, 'protocol',
         'torch.save(pickle_protocol=4): FRAME, SHORT_BINUNICODE, MEMOIZE, STACK_GLOBAL'),
        ('protocol5.pt', plain, {'pickle_protocol': 5}, 'protocol', 'torch.save(pickle_protocol=5)'),
        ('quantized.pt', {'q': torch.quantize_per_tensor(torch.randn(4), 0.1, 0, torch.qint8)},
         {}, 'global', 'a quantized tensor: torch._utils _rebuild_qtensor'),
        ('sparse_coo.pt', {'s': torch.eye(3).to_sparse()}, {}, 'global',
         'a sparse COO tensor: torch._utils _rebuild_sparse_tensor'),
        ('sparse_csr.pt', {'s': torch.eye(3).to_sparse_csr()}, {}, 'global',
         'a sparse CSR tensor: torch._utils _rebuild_sparse_tensor'),
        ('meta.pt', {'m': torch.empty(2, 3, device='meta')}, {}, 'global',
         'a meta tensor: torch._utils _rebuild_meta_tensor_no_storage'),
        ('nested_tensor.pt', {'n': torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])},
         {}, 'global', 'a nested tensor: torch._utils _rebuild_nested_tensor'),
        ('tensor_attribute.pt', {'t': with_attribute}, {}, 'global',
         'a tensor with a Python attribute: torch._tensor _rebuild_from_type_v2'),
        ('numpy_array.pt', {'a': torch.arange(3).numpy()}, {}, 'global',
         'a numpy array in a checkpoint: numpy._core.multiarray _reconstruct'),
        ('dtype_value.pt', {'dtype': torch.float16}, {}, 'global', 'a torch.dtype value: torch float16'),
        ('torch_size.pt', {'shape': torch.Size([2, 3])}, {}, 'global', 'a torch.Size: torch Size'),
        ('bytes_value.pt', {'b': b'\x00\x01'}, {}, 'global', 'bytes in protocol 2: _codecs encode'),
        ('set_value.pt', {'s': {1, 2}}, {}, 'global', 'a set: __builtin__ set'),
    ]
    v3 = ['uint16', 'uint32', 'uint64', 'float8_e4m3fn', 'float8_e5m2', 'complex32']
    for name in v3:
        dtype = getattr(torch, name)
        cases.append(('v3_%s.pt' % name, {'t': torch.zeros(3, dtype=dtype)}, {}, 'global',
                      '%s: torch._utils _rebuild_tensor_v3 over torch.storage UntypedStorage'
                      % name))
    return cases


# ------------------------------------------------------------ checks

class CorpusError(Exception):
    pass


def to_model(value, storage_keys):
    """The tpickle value model of what torch loaded, with the sharing the
    pickle had (one model object per loaded object)."""
    made, storages = {}, {}

    def storage_of(tensor):
        key = storage_keys[tensor.untyped_storage()._cdata]
        if key not in storages:
            dtype = texpect.TORCH_DTYPE[str(tensor.dtype)[6:]]
            numel = tensor.untyped_storage().nbytes() // tpickle.ELEMENT_SIZE[dtype]
            storages[key] = tpickle.Storage(key, dtype, numel)
        return storages[key]

    def convert(item):
        if isinstance(item, str) and len(item) <= 1:
            return item + ''   # CPython shares these: no identity to keep
        if id(item) in made:
            return made[id(item)]
        result = convert_new(item)
        made[id(item)] = result
        return result

    def convert_new(item):
        if isinstance(item, torch.Tensor):
            tensor = tpickle.Tensor(storage_of(item), item.storage_offset(), item.shape,
                                    item.stride(), item.requires_grad)
            if isinstance(item, torch.nn.Parameter):
                tensor.requires_grad = False
                return tpickle.Parameter(tensor, item.requires_grad)
            return tensor
        if isinstance(item, OrderedDict):
            items = [(convert(key), convert(child)) for key, child in item.items()]
            state = None
            if hasattr(item, '_metadata'):
                state = {'_metadata': convert(item._metadata)}
            return tpickle.OrderedDictValue(items, state)
        if isinstance(item, dict):
            return {convert(key): convert(child) for key, child in item.items()}
        if isinstance(item, list):
            return [convert(child) for child in item]
        if isinstance(item, tuple):
            return tuple(convert(child) for child in item)
        return item

    return convert(value)


def check_valid(path, data, torch_wrote, crc=None):
    """Raise CorpusError unless the file is what a valid line claims.
    Returns its tensor rows."""
    folder, recs = texpect.records(data)
    bad_opcodes, bad_globals = tpickle.outside_allowlist(recs['data.pkl'])
    if bad_opcodes or bad_globals:
        raise CorpusError('%s: outside the allowlist: %s %s' % (path, bad_opcodes, bad_globals))
    loaded = torch.load(io.BytesIO(data), weights_only=True)
    value, keys = texpect.load_with_keys(data)
    if not texpect.same_values(loaded, value):
        raise CorpusError('%s: torch.load and the keyed unpickler disagree' % path)
    rows = texpect.tensor_rows(value, keys)
    if torch_wrote:
        again = tpickle.dumps(to_model(value, keys))
        if again != recs['data.pkl']:
            raise CorpusError('%s: tpickle does not give back torch\'s data.pkl' % path)
    if torch_wrote:
        members = [tzip.Member(name, raw, crc=crc) for name, raw in tzip.read_members(data)]
        if tzip.write_zip(members) != data:
            raise CorpusError('%s: tzip does not give back torch\'s zip' % path)
    return loaded, rows


def big_endian(data):
    """torch's file as a big-endian host writes it: byteorder 'big' and
    every storage byte-swapped (complex numbers per component)."""
    value, keys = texpect.load_with_keys(data)
    element = {}
    for _path, tensor in texpect.walk_tensors(value):
        dtype = texpect.TORCH_DTYPE[str(tensor.dtype)[6:]]
        size = tpickle.ELEMENT_SIZE[dtype]
        element[keys[tensor.untyped_storage()._cdata]] = size // 2 if dtype in ('c64', 'c128') else size
    members = []
    for name, raw in tzip.read_members(data):
        record = name.split('/', 1)[1]
        if record == 'byteorder':
            raw = b'big'
        elif record.startswith('data/'):
            raw = texpect.swap_elements(raw, element[record[5:]])
        members.append((name, raw))
    return tzip.write_zip(members)


def torch113_layout(data, folder):
    """The records torch 1.13 wrote: no byteorder, .format_version,
    .storage_alignment or .data/serialization_id; data/ keys sorted as
    strings; version last."""
    _, recs = texpect.records(data)
    keys = sorted(name for name in recs if name.startswith('data/'))
    members = [(folder + '/data.pkl', recs['data.pkl'])]
    members += [(folder + '/' + name, recs[name]) for name in keys]
    members.append((folder + '/version', recs['version']))
    return tzip.write_zip(members)


def rename_folder(data, folder):
    members = [(folder + '/' + name.split('/', 1)[1], raw) for name, raw in tzip.read_members(data)]
    return tzip.write_zip(members)


def saved(obj, path, **kwargs):
    """torch.save's bytes, written to `path` (its folder is the file's
    name without extension)."""
    torch.save(obj, path, **kwargs)
    with open(path, 'rb') as written:
        return written.read()


# ------------------------------------------------------------ main

def write(outdir, name, data):
    with open(os.path.join(outdir, name), 'wb') as out:
        out.write(data)


def valid_row(outdir, name, data, note, torch_wrote=True, compare_to=None):
    write(outdir, name, data)
    loaded, rows = check_valid(name, data, torch_wrote)
    if compare_to is not None:
        original, original_rows = compare_to
        if not texpect.same_values(loaded, original):
            raise CorpusError('%s: torch loads other values than from the original' % name)
        if rows != original_rows:
            raise CorpusError('%s: other tensors than the original\'s' % name)
    return Row(name, 'ok', 'ok', note=note, tensors=rows), loaded, rows


def main(outdir):
    os.makedirs(outdir, exist_ok=True)
    rows = []
    written = {}
    cases = {}
    for builder in (case_dtypes, case_shapes, case_tied, case_modules):
        cases.update(builder())
    for name, (obj, note) in cases.items():
        data = saved(obj, os.path.join(outdir, name))
        row, loaded, tensors = valid_row(outdir, name, data, note)
        rows.append(row)
        written[name] = (data, loaded, tensors)

    data, loaded, tensors = written['all_dtypes.pt']
    rows.append(valid_row(outdir, 'all_dtypes_big_endian.pt',
                          rename_folder(big_endian(data), 'all_dtypes_big_endian'),
                          'big-endian storages: byteorder "big", every storage byte-swapped '
                          '(as torch on a big-endian host writes)', False, (loaded, tensors))[0])
    data, loaded, tensors = written['views.pt']
    rows.append(valid_row(outdir, 'views_big_endian.pt',
                          rename_folder(big_endian(data), 'views_big_endian'),
                          'views over big-endian storages', False, (loaded, tensors))[0])
    data, loaded, tensors = written['many_tensors.pt']
    rows.append(valid_row(outdir, 'torch113_layout.pt', torch113_layout(data, 'torch113_layout'),
                          '1.13\'s records: no byteorder, .format_version, .storage_alignment, '
                          '.data/serialization_id; data/ keys sorted as strings',
                          False, (loaded, tensors))[0])
    data, loaded, tensors = written['x.pt']
    rows.append(valid_row(outdir, 'no_zip64.pt',
                          tzip.write_zip(tzip.read_members(rename_folder(data, 'no_zip64')),
                                         zip64=False),
                          'no zip64 end record and locator (accepted absent)', False,
                          (loaded, tensors))[0])
    rows.append(valid_row(outdir, 'renamed.pt', rename_folder(data, 'original_name'),
                          'a renamed file: its folder (original_name/) is not its basename',
                          False, (loaded, tensors))[0])
    buffer = io.BytesIO()
    torch.save(written['tied.pt'][1], buffer)
    rows.append(valid_row(outdir, 'buffer.pt', buffer.getvalue(),
                          'saved to a buffer: the archive/ folder')[0])

    seeded('nocrc')
    config = torch.utils.serialization.config.save
    config.compute_crc32 = False
    try:
        data = saved({'w': torch.randn(2, 3)}, os.path.join(outdir, 'no_crc32.pt'))
    finally:
        config.compute_crc32 = True
    loaded, tensors = check_valid('no_crc32.pt', data, True, crc=0)
    rows.append(Row('no_crc32.pt', 'invalid', 'ok', 'crc', 'data.pkl',
                    'torch.utils.serialization.config.save.compute_crc32 = False: every '
                    'CRC-32 is 0 (torch never checks it)', tensors))

    for name, obj, kwargs, klass, note in refused_cases():
        data = saved(obj, os.path.join(outdir, name), **kwargs)
        if klass == 'legacy':
            data = fixed_legacy_keys(data)
            write(outdir, name, data)
            torch.load(os.path.join(outdir, name), weights_only=True)
        check_refused(name, data, klass)
        rows.append(Row(name, 'invalid', 'invalid', klass, member_of(klass), note))

    seeded('torchscript')
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)), os.path.join(outdir, 'torchscript.pt'))
    with open(os.path.join(outdir, 'torchscript.pt'), 'rb') as script:
        check_refused('torchscript.pt', script.read(), 'torchscript')
    rows.append(Row('torchscript.pt', 'invalid', 'invalid', 'torchscript', 'constants.pkl',
                    'torch.jit.save: constants.pkl, code/ (torch.load hands it to torch.jit.load)'))
    texpect.write_tsv(os.path.join(outdir, 'expected.tsv'), rows)
    total = sum(os.path.getsize(os.path.join(outdir, row.file)) for row in rows)
    print('make_corpus: %d files, %d bytes in %s' % (len(rows), total, outdir))


def member_of(klass):
    return {'legacy': '-', 'protocol': 'data.pkl', 'global': 'data.pkl'}[klass]


def fixed_legacy_keys(data):
    """The legacy format names storages by memory address: replace each
    by digits of the same length, so the file is the same every run.  The
    keys are the fifth pickle in the file (a list of str)."""
    import pickletools
    stream = io.BytesIO(data)
    for _ in range(4):
        for _op in pickletools.genops(stream):
            pass
    keys = [arg for op, arg, _pos in pickletools.genops(stream) if op.name == 'BINUNICODE']
    for index, key in enumerate(keys):
        fixed = str(index).rjust(len(key), '9')
        data = data.replace(key.encode(), fixed.encode())
    return data


def check_refused(name, data, klass):
    """Raise CorpusError unless the file is refused for the reason given."""
    if klass == 'legacy':
        if not data.startswith(bytes.fromhex('80028a0a6cfc9c46f9206aa85019')):
            raise CorpusError('%s: no legacy magic' % name)
        return
    _, recs = texpect.records(data)
    if klass == 'torchscript':
        if 'constants.pkl' not in recs:
            raise CorpusError('%s: no constants.pkl' % name)
        return
    protocol = tpickle.scan(recs['data.pkl'])[0]
    bad_opcodes, bad_globals = tpickle.outside_allowlist(recs['data.pkl'])
    if klass == 'protocol' and protocol == 2:
        raise CorpusError('%s: protocol 2' % name)
    if klass == 'global' and (bad_opcodes or not bad_globals):
        raise CorpusError('%s: not refused for a GLOBAL alone: %s %s' % (name, bad_opcodes, bad_globals))


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: make_corpus.py OUTDIR')
    try:
        main(sys.argv[1])
    except CorpusError as error:
        sys.exit('make_corpus: ' + str(error))
