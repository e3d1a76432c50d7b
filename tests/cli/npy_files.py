"""Helpers for the .npy CLI tests: build files byte by byte (for what NumPy will not write)."""

import struct

MAGIC = b"\x93NUMPY"


def header_bytes(header, version=(1, 0), align=64):
    """Prefix and header text padded as NumPy pads them: spaces, then a newline, so the data
    starts at a multiple of align (align=None: no padding at all)."""
    text = header.encode("latin1" if version < (3, 0) else "utf8")
    fmt = "<H" if version == (1, 0) else "<I"
    prefix = len(MAGIC) + 2 + struct.calcsize(fmt)
    if align:
        total = -(-(prefix + len(text) + 1) // align) * align
        text += b" " * (total - prefix - len(text) - 1) + b"\n"
    return MAGIC + bytes(version) + struct.pack(fmt, len(text)) + text


def npy_bytes(descr, shape, data=b"", fortran_order=False, version=(1, 0)):
    """A whole file with the given descr (a string, written as repr() writes it) and data."""
    header = "{'descr': %r, 'fortran_order': %r, 'shape': %r, }" % (descr, fortran_order, shape)
    return header_bytes(header, version) + data
