"""What the test formats' sample generators (tests/specs/*/gen.py) share:
a file under construction that records where each field lands, and the
writing of samples/ and expected.tsv (file, verdict, error code, field,
offset), the table tests/specs/run_specs.sh checks both the generated
validator and the interpreter against.  Offsets are computed from the
layout a generator built, never copied from afmt's output."""
import os
import struct


class File:
    """Bytes under construction; at[what] is where `what` was put."""

    def __init__(self, big=False):
        self.big, self.b, self.at = big, bytearray(), {}

    def put(self, what, fmt, *values):
        self.at[what] = len(self.b)
        self.b += struct.pack(('>' if self.big else '<') + fmt, *values)

    def raw(self, what, data):
        self.at[what] = len(self.b)
        self.b += data


def offset_of(at, where):
    """at[name], or at[name] + k / - k for 'name+k' / 'name-k'."""
    for sign in '+-':
        if sign in where:
            name, k = where.split(sign)
            return at[name] + int(k) * (1 if sign == '+' else -1)
    return at[where]


def write(out, script, ext, samples):
    """Write out/samples/NAME.EXT for each (name, data, at, want) and
    out/expected.tsv; want is None (valid) or (code, field, where), where
    an offset_of(at, where).  script names the generator in the table."""
    os.makedirs(os.path.join(out, 'samples'), exist_ok=True)
    rows = []
    for name, data, at, want in samples:
        path = 'samples/%s.%s' % (name, ext)
        with open(os.path.join(out, path), 'wb') as fh:
            fh.write(data)
        if want is None:
            rows.append('%s\tvalid\t-\t-\t-' % path)
        else:
            code, field, where = want
            rows.append('%s\tinvalid\t%s\t%s\t%d' % (path, code, field, offset_of(at, where)))
    with open(os.path.join(out, 'expected.tsv'), 'w') as fh:
        fh.write('# file\tverdict\tcode\tfield\toffset (%s)\n' % script)
        fh.write('\n'.join(rows) + '\n')
