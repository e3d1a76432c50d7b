#!/usr/bin/env python3
"""Writes the seed corpus for fuzz_npy into tests/fuzz/seeds_npy/: small valid .npy files for
every dtype, byte order, order and format version kbench reads, and broken ones near the
edges of the format. Plain Python, so that the seeds can be regenerated anywhere:

    python3 tests/fuzz/make_seeds.py
"""

import os
import shutil
import struct

SEEDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds_npy")
MAGIC = b"\x93NUMPY"


def wrap(header, version=(1, 0), pad=True):
    """Prefix and header, padded with spaces and a newline to a multiple of 64 bytes as NumPy
    pads them (pad=False: exactly the given text)."""
    text = header.encode("utf8" if version == (3, 0) else "latin1")
    fmt = "<H" if version == (1, 0) else "<I"
    prefix = len(MAGIC) + 2 + struct.calcsize(fmt)
    if pad:
        total = -(-(prefix + len(text) + 1) // 64) * 64
        text += b" " * (total - prefix - len(text) - 1) + b"\n"
    return MAGIC + bytes(version) + struct.pack(fmt, len(text)) + text


def npy(descr, shape, data, fortran=False, version=(1, 0)):
    header = "{'descr': %r, 'fortran_order': %r, 'shape': %r, }" % (descr, fortran, shape)
    return wrap(header, version) + data


def pattern(n):
    return bytes((i * 37 + 11) & 0xFF for i in range(n))


def seeds():
    valid = {
        "bool": npy("|b1", (5,), bytes([0, 1, 1, 0, 1])),
        "int8": npy("|i1", (2, 3), pattern(6)),
        "uint8_3d": npy("|u1", (2, 2, 2), pattern(8), version=(3, 0)),
        "int16_be": npy(">i2", (4,), pattern(8)),
        "int32_fortran": npy("<i4", (2, 3), pattern(24), fortran=True),
        "int64_be_v2": npy(">i8", (2,), pattern(16), version=(2, 0)),
        "uint16": npy("<u2", (3,), pattern(6)),
        "uint32_be": npy(">u4", (1, 2), pattern(8)),
        "uint64": npy("<u8", (1,), pattern(8)),
        "float16": npy("<f2", (2, 2), struct.pack("<4H", 0x3C00, 0x7E00, 0xFC00, 0x0001)),
        "float32_0d": npy("<f4", (), struct.pack("<f", 1.5)),
        "float32_be_fortran": npy(">f4", (3, 2), pattern(24), fortran=True, version=(3, 0)),
        "float64_nan": npy("<f8", (2,), struct.pack("<2Q", 0x7FF8000000000001, 0xFFF0000000000000)),
        "bfloat16": npy("bfloat16", (4,), struct.pack("<4H", 0x3F80, 0x7FC0, 0xFF80, 0x0001)),
        "empty": npy("<f4", (0,), b""),
        "empty_3d": npy("<i2", (3, 0, 5), b""),
        "native_order": npy("=i4", (2,), pattern(8)),
        "double_quotes": wrap('{"descr": "<f4", "fortran_order": False, "shape": (1,)}')
        + pattern(4),
        "python2_longs": wrap("{'descr': '<i2', 'fortran_order': False, 'shape': (2L, 1L), }")
        + pattern(4),
        "unpadded": wrap("{'descr':'<f4','fortran_order':False,'shape':(1,)}", pad=False)
        + pattern(4),
        "ndim32": npy("<f4", (1,) * 31 + (2,), pattern(8)),
    }
    broken = {
        "bad_magic": b"\x93NUMPZ" + npy("<f4", (1,), pattern(4))[6:],
        "version_4": npy("<f4", (1,), pattern(4)).replace(b"\x01\x00", b"\x04\x00", 1),
        "truncated_header": npy("<f4", (2,), pattern(8))[:40],
        "truncated_data": npy("<f8", (4,), pattern(20)),
        "trailing_data": npy("<f4", (1,), pattern(9)),
        "object": npy("|O", (1,), pattern(8)),
        "structured": wrap("{'descr': [('a', '<f4'), ('b', '|u1')], 'fortran_order': False, "
                           "'shape': (1,)}") + pattern(5),
        "string": npy("<U2", (1,), pattern(8)),
        "complex": npy("<c8", (1,), pattern(8)),
        "negative_dim": npy("<f4", (-1,), b""),
        "overflow_shape": npy("<f8", (2**40, 2**40), b""),
        "ndim33": npy("<f4", (1,) * 33, pattern(4)),
        "duplicate_key": wrap("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, "
                              "'shape': (1,)}") + pattern(4),
        "unterminated": wrap("{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}", pad=False),
        "length_beyond_file": MAGIC + b"\x02\x00" + struct.pack("<I", 1 << 30) + b"{}",
    }
    return valid, broken


def main():
    shutil.rmtree(SEEDS, ignore_errors=True)
    os.makedirs(SEEDS)
    valid, broken = seeds()
    for prefix, group in (("valid", valid), ("broken", broken)):
        for name, data in group.items():
            with open(os.path.join(SEEDS, f"{prefix}_{name}.npy"), "wb") as f:
                f.write(data)
    print(f"make_seeds: {len(valid)} valid and {len(broken)} broken seeds in {SEEDS}")


if __name__ == "__main__":
    main()
