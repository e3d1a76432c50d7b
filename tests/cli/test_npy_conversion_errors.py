#!/usr/bin/env python3
"""A value `kbench npy copy --dtype` cannot convert (NaN, an infinity or a float out of the
integer type's range) is named by the file and by the element's index in the input's shape,
as NumPy writes an index ((1, 2), (3,), ()), the first such element in C order whatever the
file's order: `kbench npy copy: IN: element (1, 2): value nan cannot be converted to int32`.
The command exits 1 with that one line on stderr, creates no OUT, leaves an existing OUT as it
was and leaves no temporary (OUT.kbtmp.*) beside it.

Usage: test_npy_conversion_errors.py path/to/kbench"""

import os
import shutil
import sys
import tempfile

import numpy as np

from harness import check, finish, kbench

OLD = b"an output from before\n"


def with_value(shape, index, value, dtype=np.float64, order="C"):
    a = np.zeros(shape, dtype=dtype, order=order)
    a[index] = value
    return a


# (label, array, --dtype, the message after "IN: ")
CASES = [
    ("NaN to int32 in 2-d", with_value((3, 4), (1, 2), np.nan), "int32",
     "element (1, 2): value nan cannot be converted to int32"),
    ("NaN with its sign bit set", with_value((2, 2), (0, 1), -np.nan), "int32",
     "element (0, 1): value nan cannot be converted to int32"),
    ("300 to int8 in 1-d", with_value((6,), 3, 300.0), "int8",
     "element (3,): value 300 cannot be converted to int8"),
    ("-129 to int8 in float32", with_value((5,), 4, -129.0, np.float32), "int8",
     "element (4,): value -129 cannot be converted to int8"),
    ("inf to uint16 in 3-d", with_value((2, 3, 4), (1, 0, 3), np.inf), "uint16",
     "element (1, 0, 3): value inf cannot be converted to uint16"),
    ("-inf to int64 in float16", with_value((4, 2), (2, 1), -np.inf, np.float16), "int64",
     "element (2, 1): value -inf cannot be converted to int64"),
    ("-1.5 to uint8 in 0-d", np.array(-1.5), "uint8",
     "element (): value -1.5 cannot be converted to uint8"),
    # Fortran order in the file: the index is still in the shape, and the first bad element in
    # C order is the one named, though (2, 0) comes first in memory.
    ("Fortran order", with_value((3, 2), (0, 1), np.nan, order="F"), "int16",
     "element (0, 1): value nan cannot be converted to int16"),
]


def fortran_with_two_bad():
    a = with_value((3, 2), (0, 1), np.nan, order="F")
    a[2, 0] = np.inf
    return a


CASES.append(("first in C order", fortran_with_two_bad(), "int16",
              "element (0, 1): value nan cannot be converted to int16"))


def temporaries(directory):
    return [n for n in os.listdir(directory) if ".kbtmp." in n]


def check_refused(label, args, src, message, out):
    """Exit 1, exactly the expected line, and no OUT: neither a new one nor a changed one."""
    want = f"kbench npy copy: {src}: {message}\n"
    for existing in (False, True):
        if existing:
            with open(out, "wb") as f:
                f.write(OLD)
        elif os.path.exists(out):
            os.remove(out)
        code, stdout, stderr = kbench(*args)
        what = f"{label} ({'existing' if existing else 'no'} OUT)"
        check(code == 1 and not stdout and stderr == want,
              f"{what}: exit {code}, stderr {stderr!r}, expected {want!r}")
        if existing:
            with open(out, "rb") as f:
                check(f.read() == OLD, f"{what}: OUT was changed")
        else:
            check(not os.path.exists(out), f"{what}: OUT was created")
        check(not temporaries(os.path.dirname(out)),
              f"{what}: temporaries left: {temporaries(os.path.dirname(out))}")


def main():
    workdir = tempfile.mkdtemp(prefix="kb_npy_conversion_")
    try:
        out = os.path.join(workdir, "out.npy")
        for i, (label, a, dtype, message) in enumerate(CASES):
            src = os.path.join(workdir, f"in{i}.npy")
            np.save(src, a)
            check_refused(label, ["npy", "copy", src, out, "--dtype", dtype], src, message, out)
            # Converted into Fortran order, the index named is the same.
            check_refused(label + ", --order F",
                          ["npy", "copy", src, out, "--dtype", dtype, "--order", "F"], src,
                          message, out)

        # Read through --as: void items that hold bfloat16 (0x4348 is 200, 0x7fc0 NaN; 200 fits
        # uint8, so NaN is the first refused there).
        src = os.path.join(workdir, "void.npy")
        np.save(src, np.array([[0x3f80, 0x4000], [0x4348, 0x7fc0]], np.uint16).view("V2"))
        check_refused("--as bfloat16, 200 to int8",
                      ["npy", "copy", src, out, "--as", "bfloat16", "--dtype", "int8"], src,
                      "element (1, 0): value 200 cannot be converted to int8", out)
        check_refused("--as bfloat16, NaN to uint8",
                      ["npy", "copy", src, out, "--as", "bfloat16", "--dtype", "uint8"], src,
                      "element (1, 1): value nan cannot be converted to uint8", out)

        # What does convert still does: values in range, truncated toward zero.
        src = os.path.join(workdir, "fine.npy")
        np.save(src, np.array([[-2.9, 127.5], [-128.9, 0.0]]))
        code, stdout, stderr = kbench("npy", "copy", src, out, "--dtype", "int8")
        check(code == 0 and not stderr and np.array_equal(np.load(out), [[-2, 127], [-128, 0]]),
              f"a convertible copy: exit {code}, {stderr!r}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"npy conversion errors: {len(CASES)} arrays, each into a new and an existing OUT, "
          "in C and F order; bfloat16 read with --as")
    return finish("npy conversion errors")


if __name__ == "__main__":
    sys.exit(main())
