#!/usr/bin/env python3
"""kbench npy on broken input: every malformed file must make both `kbench npy info F` and
`kbench npy copy F out.npy` exit 1 with exactly one line on stderr that says what is wrong
(after the subcommand's name: `kbench npy info: `, `kbench npy copy: `),
print nothing on stdout, leave no out.npy behind, and never trip a sanitizer (these tests
also run against the ASan+UBSan build). Bad usage must exit 2, --help exit 0.

Usage: test_npy_malformed.py path/to/kbench"""

import os
import shutil
import struct
import sys
import tempfile

from harness import check, count, fail, finish, kbench
from npy_files import MAGIC, header_bytes, npy_bytes

CRASH_MARKERS = ("AddressSanitizer", "LeakSanitizer", "runtime error", "Segmentation",
                 "Aborted", "core dumped", "Traceback")
F4 = "'descr': '<f4', 'fortran_order': False"


def dict_file(body, data=b"", version=(1, 0)):
    return header_bytes(body, version) + data


# (name, file contents, a word the message must contain)
CASES = [
    ("empty file", b"", "empty"),
    ("bad magic", b"\x93NUMPZ\x01\x00" + b"\x00" * 120, "magic"),
    ("a zip file", b"PK\x03\x04" + b"\x00" * 60, "magic"),
    ("text file", b"hello, world\n", "magic"),
    ("truncated magic", MAGIC[:4], "truncated"),
    ("magic only", MAGIC, "truncated"),
    ("truncated header length", MAGIC + b"\x01\x00\x76", "truncated"),
    ("truncated header", npy_bytes("<f4", (2,), b"\0" * 8)[:40], "truncated"),
    ("header length beyond file", MAGIC + b"\x01\x00\xff\xff{'descr': '<f4'}", "truncated"),
    ("v2 header length beyond file", MAGIC + b"\x02\x00" + struct.pack("<I", 1 << 31) + b"{}",
     "truncated"),
    ("version 4.0", npy_bytes("<f4", (1,), b"\0" * 4).replace(b"\x01\x00", b"\x04\x00", 1),
     "version 4.0"),
    ("version 1.1", npy_bytes("<f4", (1,), b"\0" * 4).replace(b"\x01\x00", b"\x01\x01", 1),
     "version 1.1"),
    ("truncated data", npy_bytes("<f4", (4,), b"\0" * 12), "12 bytes, header says 16"),
    ("trailing data", npy_bytes("<f4", (2,), b"\0" * 12), "12 bytes, header says 8"),
    ("no data", npy_bytes("<i8", (3, 3)), "0 bytes, header says 72"),
    ("header not a dict", header_bytes("['descr', 'fortran_order', 'shape']"), "not a dict"),
    ("header a tuple", header_bytes("('<f4', False, (1,))"), "not a dict"),
    ("dict not closed", dict_file("{%s, 'shape': (1,)" % F4, b"\0" * 4), "not closed"),
    ("missing key", dict_file("{%s}" % F4, b"\0" * 4), "shape"),
    ("missing descr", dict_file("{'fortran_order': False, 'shape': (1,)}", b"\0" * 4), "descr"),
    ("unknown key", dict_file("{%s, 'shape': (1,), 'extra': 0}" % F4, b"\0" * 4), "extra"),
    ("duplicate key", dict_file("{%s, 'shape': (1,), 'shape': (1,)}" % F4, b"\0" * 4),
     "duplicate"),
    ("key not a string", dict_file("{descr: '<f4', 'fortran_order': False, 'shape': (1,)}"),
     "string"),
    ("missing comma", dict_file("{'descr': '<f4' 'fortran_order': False, 'shape': (1,)}"),
     "expected"),
    ("text after dict", dict_file("{%s, 'shape': (1,)} 42" % F4, b"\0" * 4), "after"),
    ("bad descr", npy_bytes("<q7", (1,), b"\0" * 4), "descr"),
    ("bad descr size", npy_bytes("<i3", (1,), b"\0" * 3), "descr"),
    ("| on a 4-byte type", npy_bytes("|f4", (1,), b"\0" * 4), "single-byte"),
    ("descr not a string", dict_file("{'descr': 4, 'fortran_order': False, 'shape': (1,)}"),
     "descr"),
    ("object dtype", npy_bytes("|O", (2,), b"\0" * 16), "object"),
    ("structured dtype", dict_file("{'descr': [('a', '<f4'), ('b', '<i8')], "
                                   "'fortran_order': False, 'shape': (2,)}", b"\0" * 24),
     "structured"),
    ("byte string dtype", npy_bytes("|S5", (2,), b"\0" * 10), "string"),
    ("unicode dtype", npy_bytes("<U3", (2,), b"\0" * 24), "string"),
    ("void dtype", npy_bytes("|V8", (2,), b"\0" * 16), "void"),
    ("datetime dtype", npy_bytes("<M8[ns]", (2,), b"\0" * 16), "datetime"),
    ("timedelta dtype", npy_bytes("<m8[s]", (2,), b"\0" * 16), "timedelta"),
    ("complex dtype", npy_bytes("<c8", (2,), b"\0" * 16), "complex"),
    ("long double dtype", npy_bytes("<f16", (1,), b"\0" * 16), "long double"),
    ("negative dimension", npy_bytes("<f4", (2, -1)), "negative"),
    ("dimension beyond int64", dict_file("{%s, 'shape': (18446744073709551616,)}" % F4),
     "too large"),
    ("overflowing shape", npy_bytes("<f8", (1 << 32, 1 << 32)), "too large"),
    ("33 dimensions", npy_bytes("<f4", (1,) * 33, b"\0" * 4), "33 dimensions"),
    ("shape a list", dict_file("{%s, 'shape': [1]}" % F4, b"\0" * 4), "tuple"),
    ("shape an int in parentheses", dict_file("{%s, 'shape': (1)}" % F4, b"\0" * 4), "tuple"),
    ("shape of floats", dict_file("{%s, 'shape': (1.0,)}" % F4, b"\0" * 4), "integers"),
    ("fortran_order an int", dict_file("{'descr': '<f4', 'fortran_order': 0, 'shape': (1,)}",
                                       b"\0" * 4), "fortran_order"),
    ("fortran_order a string",
     dict_file("{'descr': '<f4', 'fortran_order': 'False', 'shape': (1,)}", b"\0" * 4),
     "fortran_order"),
    ("unterminated string", dict_file("{'descr': '<f4, 'fortran_order': False, 'shape': (1,)}"
                                      .replace("'<f4, ", "'<f4\n, ")), "unterminated"),
    ("unterminated at end of header", header_bytes("{'descr': '<f4", align=None), "unterminated"),
    ("escape in a string", dict_file("{'descr': '<f\\x34', 'fortran_order': False, "
                                     "'shape': (1,)}", b"\0" * 4), "escape"),
    ("NUL in header", MAGIC + b"\x01\x00\x04\x00{\0}\n", "found"),
    ("Python 2 long in a version 3.0 file",
     dict_file("{%s, 'shape': (1L,)}" % F4, b"\0" * 4, version=(3, 0)), "integers"),
]


def check_failure(name, args, out, word):
    count()
    code, stdout, stderr = kbench(*args)
    problems = []
    if code != 1:
        problems.append(f"exit {code}, expected 1")
    if stdout:
        problems.append(f"stdout {stdout!r}")
    if stderr.count("\n") != 1 or not stderr.endswith("\n"):
        problems.append(f"stderr is not one line: {stderr!r}")
    elif (not stderr.startswith(f"kbench npy {args[1]}: ")
          or word.lower() not in stderr.lower()):
        problems.append(f"message {stderr.strip()!r} does not say '{word}'")
    if any(m in stdout + stderr for m in CRASH_MARKERS):
        problems.append("crashed")
    if out and os.path.exists(out):
        problems.append("out.npy was created")
    if problems:
        fail(f"{name}: kbench {' '.join(args)}: " + "; ".join(problems))
    return not problems


def check_usage(workdir):
    """Exit 2 and a usage message for bad command lines; 0 and help on stdout for --help."""
    good = os.path.join(workdir, "good.npy")
    with open(good, "wb") as f:
        f.write(npy_bytes("<f4", (2,), b"\0" * 8))
    out = os.path.join(workdir, "usage_out.npy")
    bad = [
        ["npy"], ["npy", "frobnicate"], ["npy", "--bogus"], ["npy", "-z", "info", good],
        ["npy", "info"], ["npy", "info", good, good], ["npy", "info", "--bogus", good],
        ["npy", "copy"], ["npy", "copy", good], ["npy", "copy", good, out, out],
        ["npy", "copy", good, out, "--dtype", "float128"], ["npy", "copy", good, out, "--dtype"],
        ["npy", "copy", good, out, "--order", "K"], ["npy", "copy", good, out, "--version", "4"],
        ["npy", "copy", good, out, "--version", "0"], ["npy", "copy", "-q", good, out],
        ["npy", "copy", "--bogus=1", good, out],
    ]
    helps = [["npy", "--help"], ["npy", "-h"], ["npy", "info", "--help"],
             ["npy", "copy", "--help"], ["npy", "copy", good, out, "-h"]]
    for args in bad:
        code, stdout, stderr = kbench(*args)
        check(code == 2 and not stdout and "Try 'kbench npy" in stderr and not os.path.exists(out),
              f"usage: kbench {' '.join(args)}: exit {code}, {stderr!r}")
    for args in helps:
        code, stdout, stderr = kbench(*args)
        check(code == 0 and stdout.startswith("usage: kbench npy") and not stderr,
              f"help: kbench {' '.join(args)}: exit {code}, {stderr!r}")
    return len(bad) + len(helps)


def check_copy_failures(workdir):
    """Failures found only while converting or writing: exit 1, nothing written, and an
    existing OUT left as it was."""
    src = os.path.join(workdir, "nan.npy")
    with open(src, "wb") as f:
        f.write(npy_bytes("<f4", (3,), struct.pack("<3f", 1.0, float("nan"), 2.0)))
    out = os.path.join(workdir, "conv_out.npy")
    check_failure("NaN to int32", ["npy", "copy", src, out, "--dtype", "int32"], out,
                  "cannot be converted")
    with open(out, "wb") as f:
        f.write(b"keep me")
    big = os.path.join(workdir, "big.npy")
    check_failure("missing input", ["npy", "copy", big, out], None, "cannot open")
    with open(big, "wb") as f:
        f.write(npy_bytes("<f8", (2,), struct.pack("<2d", 1.0, 300.0)))
    check_failure("300 to int8", ["npy", "copy", big, out, "--dtype", "int8"], None,
                  "cannot be converted")
    with open(out, "rb") as f:
        check(f.read() == b"keep me", "a failed copy changed an existing OUT")
    missing_dir = os.path.join(workdir, "no", "such", "dir", "out.npy")
    check_failure("missing directory", ["npy", "copy", big, missing_dir], missing_dir,
                  "cannot create")
    check_failure("a directory as input", ["npy", "info", workdir], None, "regular")
    leftovers = [n for n in os.listdir(workdir) if ".kbtmp." in n]
    check(not leftovers, f"temporary files left behind: {leftovers}")
    return 6


def main():
    assert len(CASES) >= 20 and len({name for name, _, _ in CASES}) == len(CASES)
    workdir = tempfile.mkdtemp(prefix="kb_npy_malformed_")
    try:
        for i, (name, data, word) in enumerate(CASES):
            path = os.path.join(workdir, f"bad{i}.npy")
            out = os.path.join(workdir, "out.npy")
            with open(path, "wb") as f:
                f.write(data)
            check_failure(name, ["npy", "info", path], None, word)
            check_failure(name, ["npy", "copy", path, out], out, word)
        usage = check_usage(workdir)
        extra = check_copy_failures(workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"npy malformed: {len(CASES)} malformed files, {usage} command lines, "
          f"{extra} failing copies checked")
    return finish("npy malformed")


if __name__ == "__main__":
    sys.exit(main())
