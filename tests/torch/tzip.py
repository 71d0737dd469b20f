"""The zip layout torch.save writes (PyTorchStreamWriter over miniz), by
hand, so a crafted file is torch's bytes but for the one thing it breaks.

make_corpus.py checks that write_zip(read_members(f)) == f for files
torch wrote.  The layout, as torch 2.13 writes it:

- each member: a local header (version 0, flags 0x0808, stored, time and
  date 0, CRC and sizes 0), the name, an extra field 'FB' (id 0x4246)
  whose 'Z' bytes put the data at a multiple of 64 (its length may be 0),
  the data, a descriptor PK\\7\\8 with CRC-32 and 32-bit sizes; an
  empty member (a storage of 0 elements) has flags 0x0800 and no
  descriptor, in its local and its central header;
- the central directory in the same order (version made by 0, needed 0,
  flags 0x0808, no extra field, no comment, attributes 0);
- a zip64 end record (44 bytes; made by 0x031e, needed 0x2d), its locator,
  and the end record, no comment.

Sizes and offsets of 2^32 or more (zip64 extra fields) are not written:
nothing here is that large.
"""

import struct
import zlib
import zipfile

ALIGNMENT = 64
FLAGS = 0x0808


class Member:
    """One member and how to write it.  Defaults give torch's bytes; each
    knob breaks one thing (crafted files)."""

    def __init__(self, name, data, **knobs):
        self.name = name
        self.data = data
        self.local_name = knobs.get('local_name', name)   # name in the local header
        self.method = knobs.get('method', 0)              # 8: deflated
        # miniz writes an empty member without a descriptor (flags 0x0800)
        self.flags = knobs.get('flags', FLAGS if data else FLAGS & ~0x8)
        self.local_flags = knobs.get('local_flags', self.flags)
        self.crc = knobs.get('crc')                       # None: the true CRC-32
        self.align = knobs.get('align', True)             # False: no 'FB' padding
        self.extra = knobs.get('extra')                   # replaces the 'FB' field
        self.local_sizes = knobs.get('local_sizes', False)  # CRC and sizes in the local header
        self.descriptor = knobs.get('descriptor', bool(data))
        self.size = knobs.get('size')                     # None: the true sizes
        self.usize = knobs.get('usize')                   # None: the true uncompressed size
        self.local_crc = knobs.get('local_crc')           # with local_sizes: another CRC there
        self.trailer = knobs.get('trailer', b'')          # bytes after the member


def _stored(member):
    if member.method == 8:
        compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
        return compressor.compress(member.data) + compressor.flush()
    return member.data


def _local_extra(member, offset):
    if member.extra is not None:
        return member.extra
    if not member.align:
        return b''
    start = offset + 30 + len(member.local_name.encode()) + 4
    pad = (-start) % ALIGNMENT
    return b'FB' + struct.pack('<H', pad) + b'Z' * pad


def write_zip(members, prefix=b'', suffix=b'', zip64=True, comment=b''):
    """The bytes of a zip holding `members` (Member or (name, data)) in
    order, laid out as torch writes it.  `prefix` goes before the first
    local header (offsets are counted from it, as a zip tool that finds
    the central directory from the end sees them), `suffix` after the
    end record."""
    out = bytearray(prefix)
    central = []
    for member in members:
        if not isinstance(member, Member):
            member = Member(*member)
        stored = _stored(member)
        crc = zlib.crc32(member.data) if member.crc is None else member.crc
        usize = len(member.data) if member.size is None else member.size
        usize = usize if member.usize is None else member.usize
        csize = len(stored) if member.size is None else member.size
        offset = len(out)
        name = member.local_name.encode()
        extra = _local_extra(member, offset)
        local_crc = crc if member.local_crc is None else member.local_crc
        local_fields = (local_crc, csize, usize) if member.local_sizes else (0, 0, 0)
        out += struct.pack('<IHHHHHIIIHH', 0x04034b50, 0, member.local_flags, member.method,
                           0, 0, *local_fields, len(name), len(extra))
        out += name + extra + stored
        if member.descriptor:
            out += struct.pack('<IIII', 0x08074b50, crc, csize, usize)
        out += member.trailer
        central.append((member, crc, csize, usize, offset))
    cd_start = len(out)
    for member, crc, csize, usize, offset in central:
        name = member.name.encode()
        out += struct.pack('<IHHHHHHIIIHHHHHII', 0x02014b50, 0, 0, member.flags, member.method,
                           0, 0, crc, csize, usize, len(name), 0, 0, 0, 0, 0, offset)
        out += name
    cd_size = len(out) - cd_start
    count = len(central)
    if zip64:
        end64 = len(out)
        out += struct.pack('<IQHHIIQQQQ', 0x06064b50, 44, 0x031e, 0x2d, 0, 0,
                           count, count, cd_size, cd_start)
        out += struct.pack('<IIQI', 0x07064b50, 0, end64, 1)
    out += struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, count, count, cd_size, cd_start,
                       len(comment)) + comment
    return bytes(out + suffix)


def read_members(data):
    """[(name, bytes)] of a zip, in central-directory order, found as
    torch's reader finds them (the central directory, then the data after
    each local header) and, as torch, without checking CRC-32."""
    result = []
    for name, (_header, start, length, method) in _central(data).items():
        raw = data[start:start + length]
        result.append((name, zlib.decompress(raw, -15) if method == 8 else raw))
    return result


def _central(data):
    import io
    result = {}
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        for info in archive.infolist():
            start = info.header_offset
            name_len, extra_len = struct.unpack_from('<HH', data, start + 26)
            result[info.filename] = (start, start + 30 + name_len + extra_len,
                                     info.compress_size, info.compress_type)
    return result


def member_offsets(data):
    """{name: (local header offset, data offset, stored length)} from the
    central directory (crafted files' expected offsets)."""
    return {name: entry[:3] for name, entry in _central(data).items()}
