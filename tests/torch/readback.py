#!/usr/bin/env python3
"""readback.py DIR | --self-test | --make-sources DIR: torch reads what
afmt wrote.

For every DIR/NAME.pt (files afmt wrote, e.g. by `afmt convert
NAME.safetensors NAME.pt`), torch.load(weights_only=True) must read it and
its values must equal the source beside it:

- NAME.safetensors: the .pt holds a dict with the same names (in any
  order: safetensors writers order data by alignment, then name), each
  tensor of the same dtype, shape and bytes;
- NAME.npy: the .pt holds one tensor (bare, or the only value of a dict)
  of the npy's dtype, shape and bytes.

Bytes are compared as bytes (NaN payloads and -0.0 too).  One PASS/FAIL
line per .pt; exit 1 on any FAIL, and when DIR holds no .pt (nothing read
back is no pass).  --self-test writes torch-made stand-ins, right and
wrong, and checks this script passes the right ones and fails the others
for the reason expected.  --make-sources writes files for afmt to
convert (run.sh).
"""

import json
import os
import struct
import sys
import tempfile
import warnings

warnings.simplefilter('ignore')
import numpy  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import texpect  # noqa: E402

NUMPY_TO_TORCH = {
    'float32': torch.float32, 'float64': torch.float64, 'float16': torch.float16,
    'int64': torch.int64, 'int32': torch.int32, 'int16': torch.int16, 'int8': torch.int8,
    'uint8': torch.uint8, 'bool': torch.bool, 'complex64': torch.complex64,
    'complex128': torch.complex128,
}


def safetensors_source(path):
    """[(name, tensor)] in the order of the data (the header's offsets)."""
    from safetensors.torch import load_file
    with open(path, 'rb') as source:
        length = struct.unpack('<Q', source.read(8))[0]
        header = json.loads(source.read(length))
    header.pop('__metadata__', None)
    names = sorted(header, key=lambda name: header[name]['data_offsets'][0])
    tensors = load_file(path)
    return [(name, tensors[name]) for name in names]


def npy_source(path):
    array = numpy.load(path, allow_pickle=False)
    if array.dtype.byteorder == '>':
        array = array.astype(array.dtype.newbyteorder('='))
    if str(array.dtype) not in NUMPY_TO_TORCH:
        raise ValueError('npy dtype %s has no torch dtype' % array.dtype)
    return torch.from_numpy(numpy.ascontiguousarray(array))


def same_tensor(got, want, label):
    """None if equal (dtype, shape, bytes), else why not."""
    if not isinstance(got, torch.Tensor):
        return '%s: %s, not a tensor' % (label, type(got).__name__)
    if got.dtype != want.dtype:
        return '%s: dtype %s, the source %s' % (label, got.dtype, want.dtype)
    if tuple(got.shape) != tuple(want.shape):
        return '%s: shape %s, the source %s' % (label, list(got.shape), list(want.shape))
    got_bytes, want_bytes = texpect.tensor_bytes(got), texpect.tensor_bytes(want)
    if not torch.equal(got_bytes, want_bytes):
        differ = (got_bytes != want_bytes).nonzero()
        return '%s: bytes differ from byte %d on' % (label, int(differ[0][0]))
    return None


def check(pt_path):
    """None if the .pt reads back as its source, else why not."""
    stem = pt_path[:-len('.pt')]
    try:
        loaded = torch.load(pt_path, weights_only=True)
    except Exception as error:  # noqa: B902 -- any refusal is the finding
        return 'torch.load(weights_only=True) refuses it: %s: %s' % (
            type(error).__name__, ' '.join(str(error).split())[:200])
    if os.path.exists(stem + '.safetensors'):
        source = safetensors_source(stem + '.safetensors')
        if not isinstance(loaded, dict):
            return 'holds %s, not a dict' % type(loaded).__name__
        names, source_names = set(loaded.keys()), {name for name, _ in source}
        if names != source_names:
            return 'names: %s only in the .pt, %s only in the source' % (
                sorted(map(str, names - source_names)), sorted(source_names - names))
        for name, tensor in source:
            problem = same_tensor(loaded[name], tensor, repr(name))
            if problem:
                return problem
        return None
    if os.path.exists(stem + '.npy'):
        want = npy_source(stem + '.npy')
        if isinstance(loaded, dict):
            if len(loaded) != 1:
                return 'a dict of %d values, the npy has one array' % len(loaded)
            loaded = next(iter(loaded.values()))
        return same_tensor(loaded, want, 'the array')
    return 'no source beside it (%s.safetensors or .npy)' % os.path.basename(stem)


def read_back(directory, label='readback'):
    """[(passed, line)] for every .pt in directory (one failing line when
    there is none)."""
    names = sorted(name for name in os.listdir(directory) if name.endswith('.pt'))
    if not names:
        return [(False, 'FAIL %s: no .pt files in %s' % (label, directory))]
    lines = []
    for name in names:
        problem = check(os.path.join(directory, name))
        lines.append((problem is None, 'PASS %s %s' % (label, name) if problem is None
                      else 'FAIL %s %s: %s' % (label, name, problem)))
    return lines


# ------------------------------------------------------------ self-test

def stand_ins(directory):
    """torch-written stand-ins for what afmt writes: {file: should pass}."""
    from safetensors.torch import save_file
    torch.manual_seed(7)
    tensors = {
        'f32': torch.tensor([1.5, float('nan'), -0.0, float('inf')]),
        'f64': torch.randn(2, 3, dtype=torch.float64), 'f16': torch.randn(3).half(),
        'bf16': torch.randn(2, 2).bfloat16(), 'i64': torch.tensor([-(2 ** 62), 7]),
        'i32': torch.tensor([[1, -2]], dtype=torch.int32), 'i16': torch.tensor([-3], dtype=torch.int16),
        'i8': torch.tensor([-128, 127], dtype=torch.int8), 'u8': torch.tensor([0, 255], dtype=torch.uint8),
        'bool': torch.tensor([True, False]), 'scalar': torch.tensor(2.5), 'empty': torch.zeros(0, 3),
    }
    expectations = {}

    def pair(stem, saved, source, why):
        save_file(source, os.path.join(directory, stem + '.safetensors'))
        torch.save(saved, os.path.join(directory, stem + '.pt'))
        expectations[stem + '.pt'] = why

    pair('right', dict(reversed(list(tensors.items()))), tensors, None)
    changed = dict(tensors, f32=torch.tensor([1.5, float('nan'), 0.0, float('inf')]))
    pair('wrong_value', changed, tensors, "'f32': bytes differ from byte 11")   # -0.0 became 0.0
    pair('wrong_dtype', dict(tensors, i16=tensors['i16'].int()), tensors,
         "'i16': dtype torch.int32, the source torch.int16")
    pair('wrong_shape', dict(tensors, f64=tensors['f64'].t().contiguous()), tensors,
         "'f64': shape [3, 2], the source [2, 3]")
    missing = dict(tensors)
    del missing['u8']
    pair('missing_name', missing, tensors, "names: [] only in the .pt, ['u8'] only in the source")
    pair('not_a_dict', tensors['f32'], {'f32': tensors['f32']}, 'holds Tensor, not a dict')
    for stem, array, saved, why in (
            ('npy_right', numpy.arange(6, dtype='<c8').reshape(2, 3), None, None),
            ('npy_big_endian', numpy.arange(4, dtype='>i4'), None, None),
            ('npy_wrong', numpy.arange(4, dtype='<f4'), torch.arange(4, dtype=torch.float64),
             'the array: dtype torch.float64, the source torch.float32'),
            ('npy_two', numpy.arange(2, dtype='<i8'), {'a': torch.arange(2), 'b': torch.arange(2)},
             'a dict of 2 values, the npy has one array')):
        numpy.save(os.path.join(directory, stem + '.npy'), array)
        value = saved if saved is not None else \
            {'x': torch.from_numpy(array.astype(array.dtype.newbyteorder('=')))}
        torch.save(value, os.path.join(directory, stem + '.pt'))
        expectations[stem + '.pt'] = why
    with open(os.path.join(directory, 'not_torch.pt'), 'wb') as out:
        out.write(b'\x93NUMPY')
    expectations['not_torch.pt'] = 'torch.load(weights_only=True) refuses it: UnpicklingError'
    torch.save({'a': torch.ones(1)}, os.path.join(directory, 'no_source.pt'))
    expectations['no_source.pt'] = 'no source beside it (no_source.safetensors or .npy)'
    return expectations


def self_test():
    """Each stand-in passes or fails for exactly the reason expected."""
    failed = 0
    with tempfile.TemporaryDirectory() as directory:
        expectations = stand_ins(directory)
        for passed, line in read_back(directory, 'readback'):
            name = line.split(' ')[2].rstrip(':')
            why = expectations[name]
            problem = None if passed else line.split(': ', 1)[1]
            if (why is None and passed) or (why and problem and problem.startswith(why)):
                print('PASS readback-self-test %s: %s' % (name, problem or 'reads back'))
            else:
                failed += 1
                print('FAIL readback-self-test %s: expected %s, got %s' % (
                    name, why or 'a pass', problem or 'a pass'))
    with tempfile.TemporaryDirectory() as empty:
        lines = read_back(empty)
        if len(lines) == 1 and not lines[0][0]:
            print('PASS readback-self-test empty directory: %s' % lines[0][1][5:])
        else:
            failed += 1
            print('FAIL readback-self-test empty directory: %s' % lines)
    return failed


def make_sources(directory):
    """Sources for afmt to convert (run.sh): a safetensors of every dtype
    safetensors and torch share, and .npy files (one complex, one
    big-endian)."""
    from safetensors.torch import save_file
    os.makedirs(directory, exist_ok=True)
    torch.manual_seed(11)
    save_file({'weight': torch.randn(4, 3), 'bias': torch.randn(3).double(),
               'half': torch.randn(5).half(), 'brain': torch.randn(2, 2).bfloat16(),
               'steps': torch.tensor(12), 'ids': torch.arange(-3, 3, dtype=torch.int32),
               'short': torch.tensor([-7, 7], dtype=torch.int16),
               'small': torch.tensor([-1, 1], dtype=torch.int8),
               'bytes': torch.tensor([0, 200], dtype=torch.uint8),
               'mask': torch.tensor([True, False, True]), 'none': torch.zeros(0, 2)},
              os.path.join(directory, 'model.safetensors'))
    numpy.save(os.path.join(directory, 'grid.npy'), numpy.arange(12, dtype='<f8').reshape(3, 4))
    numpy.save(os.path.join(directory, 'waves.npy'), (numpy.arange(4) * (1 + 2j)).astype('<c8'))
    numpy.save(os.path.join(directory, 'counts.npy'), numpy.arange(5, dtype='>u2').astype('>i4'))


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == '--make-sources':
        make_sources(sys.argv[2])
        sys.exit(0)
    if sys.argv[1:] == ['--self-test']:
        sys.exit(1 if self_test() else 0)
    if len(sys.argv) != 2:
        sys.exit('usage: readback.py DIR | --self-test | --make-sources DIR')
    results = read_back(sys.argv[1])
    for _passed, line in results:
        print(line)
    sys.exit(0 if all(passed for passed, _line in results) else 1)
