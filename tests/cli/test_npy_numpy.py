#!/usr/bin/env python3
"""kbench npy against NumPy: files NumPy writes (every dtype, both byte orders, C and Fortran
order, format versions 1.0 to 3.0, shapes from 0-d and empty to 3-d) go through `kbench npy
info` and `kbench npy copy`, and NumPy must read the copies back bit for bit, or converted
exactly as astype converts. bfloat16 comes from ml_dtypes; np.save writes it as '<V2', so its
files are built by hand with the descr 'bfloat16', which np.load reads once ml_dtypes is
imported.

Usage: test_npy_numpy.py path/to/kbench"""

import ast
import io
import os
import shutil
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import numpy as np

try:
    import ml_dtypes
except ImportError:
    sys.exit("npy numpy: ml_dtypes is missing (scripts/install-deps installs it)")

from harness import count, fail, finish, kbench, sampled
from npy_files import header_bytes

np.seterr(all="ignore")  # NaN and overflow in the references' casts are intended
BF16 = np.dtype(ml_dtypes.bfloat16)
DTYPES = [np.dtype(n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                "uint32", "uint64", "float16", "float32", "float64")] + [BF16]
SHAPES = [(), (0,), (1,), (7,), (5, 6), (2, 3, 4), (3, 0, 2)]
VERSIONS = [(1, 0), (2, 0), (3, 0)]
rng = np.random.default_rng(20240611)


def bits(a):
    """The array's raw bit patterns, as unsigned integers of the same width."""
    a = a.copy(order="C")
    return a.view(np.dtype("u%d" % a.dtype.itemsize)) if a.dtype.itemsize > 1 else a.view(np.uint8)


def native(dtype):
    return dtype if dtype == BF16 else dtype.newbyteorder("=")


def random_array(dtype, shape, gen=None):
    """Random bit patterns (NaNs with payloads, infinities, subnormals for floats), 0 or 1
    for bool."""
    gen = gen or rng
    n = int(np.prod(shape, dtype=np.int64))
    if dtype == np.bool_:
        return (gen.integers(0, 2, n, dtype=np.uint8) == 1).reshape(shape)
    raw = gen.integers(0, 256, n * dtype.itemsize, dtype=np.uint8)
    return raw.view(native(dtype)).reshape(shape)


def read_header(path):
    """(version, header dict, data offset) as NumPy's format module reads them."""
    with open(path, "rb") as f:
        major, minor = np.lib.format.read_magic(f)
        length = int.from_bytes(f.read(2 if major == 1 else 4), "little")
        text = f.read(length).decode("latin1" if major < 3 else "utf8")
        return (major, minor), ast.literal_eval(text), f.tell()


def write_file(path, a, byteorder, fortran, version):
    """Writes a (native order) as a file in the given byte order, order and version, through
    NumPy where NumPy can, by hand for bfloat16."""
    if a.dtype == BF16:
        data = a.tobytes(order="F" if fortran else "C")
        header = "{'descr': 'bfloat16', 'fortran_order': %r, 'shape': %r, }" % (fortran, a.shape)
        with open(path, "wb") as f:
            f.write(header_bytes(header, version) + data)
        return
    if byteorder == ">" and a.dtype.itemsize > 1:
        a = a.byteswap().view(a.dtype.newbyteorder(">"))
    a = a.copy(order="F" if fortran else "C")  # asfortranarray would make 0-d arrays 1-d
    with open(path, "wb") as f:
        np.lib.format.write_array(f, a, version=version)


def numpy_bytes(a, fortran):
    """What np.save writes for a, laid out in the given order, when NumPy would choose that
    order itself; None when it would not (NumPy calls 1-d arrays C-ordered)."""
    a = a.copy(order="F" if fortran else "C")
    if fortran and a.flags.c_contiguous:
        return None
    f = io.BytesIO()
    np.lib.format.write_array(f, a, version=None)
    return f.getvalue()


def expected_descr(dtype):
    if dtype == BF16:
        return "bfloat16"
    return ("|" if dtype.itemsize == 1 else "<") + dtype.kind + str(dtype.itemsize)


def check_copy(src, out, a, fortran, version, label):
    """out must hold a, bit for bit, little-endian, in the given order and version."""
    code, stdout, stderr = kbench("npy", "copy", src, out, *extra_args(fortran, version))
    if code != 0 or stdout or stderr:
        return fail(f"{label}: copy exited {code}: {stderr.strip()}")
    got_version, header, offset = read_header(out)
    want_version = version or (1, 0)
    if got_version != want_version:
        return fail(f"{label}: copy wrote version {got_version}, expected {want_version}")
    if header["descr"] != expected_descr(a.dtype) or header["fortran_order"] != fortran:
        return fail(f"{label}: copy wrote header {header}")
    if offset % 64:
        return fail(f"{label}: data at offset {offset}, not a multiple of 64")
    b = np.load(out)
    if b.dtype != native(a.dtype) or b.shape != a.shape:
        return fail(f"{label}: copy read back as {b.dtype} {b.shape}")
    if not np.array_equal(bits(b), bits(a)):
        return fail(f"{label}: copy differs from the input")
    if a.dtype != BF16 and version is None:
        expected = numpy_bytes(a, fortran)
        with open(out, "rb") as f:
            if expected is not None and f.read() != expected:
                return fail(f"{label}: copy is not byte for byte what np.save writes")


def extra_args(fortran, version):
    args = ["--order", "F" if fortran else "C"]
    if version:
        args += ["--version", str(version[0])]
    return args


def check_file(job):
    """One input file: info, a plain copy, and a copy in the other order and another
    version."""
    index, dtype, byteorder, fortran, version, shape, workdir = job
    label = f"{dtype.name} {byteorder} {'F' if fortran else 'C'} {version} {shape}"
    src = os.path.join(workdir, f"in{index}.npy")
    a = random_array(dtype, shape, np.random.default_rng(index))  # one generator per thread
    write_file(src, a, byteorder, fortran, version)
    file_version, header, _ = read_header(src)
    file_fortran = header["fortran_order"]

    code, stdout, stderr = kbench("npy", "info", src)
    order = "none" if dtype.itemsize == 1 else "big" if byteorder == ">" else "little"
    want = (f"version: {file_version[0]}.{file_version[1]}\ndtype: {dtype.name}\n"
            f"byteorder: {order}\nshape: {shape}\norder: {'F' if file_fortran else 'C'}\n")
    if code != 0 or stdout != want or stderr:
        fail(f"{label}: info exited {code} with\n{stdout}{stderr}expected\n{want}")

    out = os.path.join(workdir, f"out{index}.npy")
    check_copy(src, out, a, file_fortran, None, label + " copy")
    other = VERSIONS[(VERSIONS.index(version) + 1) % 3]
    check_copy(src, out, a, not file_fortran, other, label + f" copy --order --version {other}")
    os.remove(src)
    os.remove(out)


# Exact rounding to a binary format, for references NumPy does not provide: ml_dtypes
# converts float64 and wide integers to bfloat16 through float32, rounding twice.
_tables = {}


def exact_table(dtype):
    """Finite non-negative values of a 16-bit float type as (Fraction, bits), ascending, with
    the first power of two past the largest standing for infinity."""
    if dtype in _tables:
        return _tables[dtype]
    patterns = np.arange(0x8000, dtype=np.uint16)
    values = patterns.view(dtype).astype(np.float64)
    finite = np.isfinite(values)
    table = [(Fraction(float(v)), int(p)) for v, p in zip(values[finite], patterns[finite])]
    inf_bits = int(patterns[np.isinf(values)][0])
    top = table[-1][0]
    table.append((Fraction(2) ** (top.numerator.bit_length() - top.denominator.bit_length() + 1),
                  inf_bits))
    table.sort()
    _tables[dtype] = table
    return table


def round_exact(value, table):
    """Bits of the nearest entry, ties to the even pattern (RNE)."""
    sign = 0x8000 if np.signbit(value) else 0
    x = abs(Fraction(value))
    lo, hi = 0, len(table) - 1
    if x >= table[-1][0]:
        return sign | table[-1][1]
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if table[mid][0] <= x:
            lo = mid
        else:
            hi = mid
    (a, abits), (b, bbits) = table[lo], table[hi]
    if x - a < b - x or (x - a == b - x and abits % 2 == 0):
        return sign | abits
    return sign | bbits


def py_value(x, dtype):
    return int(x) if dtype.kind in "iub" else float(x)


def exact_bf16(x, dtype):
    if dtype.kind == "f" and np.isnan(x):
        return 0x7fc0
    if dtype.kind == "f" and np.isinf(x):
        return 0xff80 if x < 0 else 0x7f80
    return round_exact(py_value(x, dtype), exact_table(BF16))


def reference(a, dst):
    if dst == BF16 and a.dtype.name in ("int32", "uint32", "int64", "uint64", "float64"):
        out = np.array([exact_bf16(x, a.dtype) for x in a.ravel()], dtype=np.uint16)
        return out.view(BF16).reshape(a.shape)
    with np.errstate(all="ignore"):
        return a.astype(dst)


def mismatches(got, want):
    """Flat indices where got and want differ: bitwise, except that any NaN matches any
    NaN."""
    gbits, wbits = bits(got).ravel(), bits(want).ravel()
    differ = gbits != wbits
    if want.dtype.kind == "f" or want.dtype == BF16:
        wnan = np.isnan(want.ravel().astype(np.float64))
        gnan = np.isnan(got.ravel().astype(np.float64))
        differ = (wnan != gnan) | (differ & ~wnan)
    return np.flatnonzero(differ)


def same_values(got, want):
    if got.dtype != want.dtype or got.shape != want.shape:
        return False
    return len(mismatches(got, want)) == 0


def check_conversion(workdir, name, a, dst, extra=()):
    """kbench npy copy --dtype dst must give astype's result."""
    src = os.path.join(workdir, f"conv_{name}.npy")
    out = os.path.join(workdir, f"conv_{name}_out.npy")
    write_file(src, a, "<", False, (1, 0))
    code, stdout, stderr = kbench("npy", "copy", src, out, "--dtype", dst.name, *extra)
    count()
    if code != 0 or stderr:
        return fail(f"convert {name}: exited {code}: {stderr.strip()}")
    got = np.load(out)
    want = reference(a, dst)
    if got.dtype != want.dtype or got.shape != want.shape:
        fail(f"convert {name}: read back as {got.dtype} {got.shape}")
    elif not same_values(got, want):
        bad = mismatches(got, want)
        i = bad[0]
        fail(f"convert {name}: {len(bad)} elements differ, first {i}: {a.ravel()[i]!r} gave "
             f"{got.ravel()[i]!r} ({bits(got).ravel()[i]:#x}), expected {want.ravel()[i]!r} "
             f"({bits(want).ravel()[i]:#x})")
    os.remove(src)
    os.remove(out)


def conversion_sources(src, dst):
    """Values of src that convert to dst without leaving dst's range where NumPy's result is
    undefined (float to integer out of range or NaN, which kbench refuses)."""
    values = random_array(src, (400,))
    if src.kind in "iu":
        info = np.iinfo(src)
        values[:6] = [info.min, info.max, 0, 1, info.max // 2, info.min // 2 + 1]
    if (src.kind == "f" or src == BF16) and dst.kind in "iu":
        info = np.iinfo(dst)
        wide = values.astype(np.float64)
        ok = np.isfinite(wide) & (np.trunc(wide) >= info.min) & (np.trunc(wide) <= info.max)
        # Random bit patterns are mostly huge or tiny: add values spread over dst's range.
        span = rng.uniform(float(info.min), float(info.max), 400)
        values = np.concatenate([values[ok], span.astype(src)])
        wide = values.astype(np.float64)
        values = values[(np.trunc(wide) >= info.min) & (np.trunc(wide) <= info.max) &
                        (np.trunc(wide) < 2.0 ** (8 * dst.itemsize - (dst.kind == "i")))]
    return values


def f16_neighbour_midpoints(dtype):
    """float32 values at, just below and just above the midpoint of every pair of adjacent
    finite values of a 16-bit float type, both signs, and the overflow threshold."""
    pos = np.arange(0x8000, dtype=np.uint16).view(dtype).astype(np.float64)
    pos = pos[np.isfinite(pos)]
    top = 2.0 ** np.ceil(np.log2(pos[-1]))
    pos = np.append(pos, top)  # the midpoint to the next power of two decides overflow
    mid = ((pos[:-1] + pos[1:]) / 2).astype(np.float32)
    assert np.array_equal(mid.astype(np.float64), (pos[:-1] + pos[1:]) / 2)
    around = np.concatenate([mid, np.nextafter(mid, np.float32(0)),
                             np.nextafter(mid, np.float32(np.inf))])
    return np.concatenate([around, -around])


def void_as(workdir):
    """Issue 12, bug 14: a void dtype is read only as a type the user names. np.save writes
    ml_dtypes' bfloat16 as '<V2'; --as bfloat16 reads it for npy info, npy copy and eval, and
    without --as the refusal names the option."""
    a = random_array(BF16, (3, 5))
    a[0, 0] = np.float32(-0.0)
    src = os.path.join(workdir, "saved_bf16.npy")
    np.save(src, a)  # descr '<V2'
    if read_header(src)[1]["descr"] != "<V2":
        fail(f"np.save no longer writes bfloat16 as '<V2': {read_header(src)[1]}")
    plain = os.path.join(workdir, "plain_v2.npy")
    np.save(plain, a.view("V2"))  # descr '|V2'
    for path in (src, plain):
        name = os.path.basename(path)
        for args in (["npy", "info", path], ["npy", "copy", path,
                                              os.path.join(workdir, "never.npy")],
                     ["eval", "sum(x)", f"x={path}"]):
            r = kbench(*args)
            count()
            if r.returncode != 1 or "--as bfloat16" not in r.stderr or r.stdout:
                fail(f"{name} {args[:2]} without --as: exit {r.returncode}, {r.stderr!r}")
        r = kbench("npy", "info", path, "--as", "bfloat16")
        count()
        if r.returncode != 0 or "dtype: bfloat16" not in r.stdout or "shape: (3, 5)" not in r.stdout:
            fail(f"{name} info --as bfloat16: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")
        out = os.path.join(workdir, "as_out.npy")
        r = kbench("npy", "copy", path, out, "--as", "bf16")
        count()
        if r.returncode != 0:
            fail(f"{name} copy --as bf16: exit {r.returncode}, {r.stderr!r}")
        else:
            got = np.load(out)
            if got.dtype != BF16 or not np.array_equal(bits(got), bits(a)):
                fail(f"{name} copy --as bf16: {got.dtype} {got!r}, want {a!r}")
        r = kbench("eval", "mean(x, axis=0)", f"x={path}", "--as", "bfloat16", "-o", out)
        count()
        want = a.astype(np.float64).mean(axis=0).astype(np.float32).astype(BF16)
        if r.returncode != 0:
            fail(f"{name} eval --as bfloat16: exit {r.returncode}, {r.stderr!r}")
        elif not np.array_equal(bits(np.load(out)), bits(want)):
            fail(f"{name} eval --as bfloat16: {np.load(out)!r}, want {want!r}")
        for bad in ("float32", "int8"):
            r = kbench("npy", "info", path, "--as", bad)
            count()
            if r.returncode != 1 or "2-byte items" not in r.stderr or bad not in r.stderr:
                fail(f"{name} --as {bad}: exit {r.returncode}, {r.stderr!r}")
    # --as leaves typed files as they are.
    typed = os.path.join(workdir, "typed_f4.npy")
    np.save(typed, np.arange(6, dtype=np.float32))
    r = kbench("npy", "info", typed, "--as", "bfloat16")
    count()
    if r.returncode != 0 or "dtype: float32" not in r.stdout:
        fail(f"typed file with --as: exit {r.returncode}, {r.stdout!r} {r.stderr!r}")
    r = kbench("npy", "info", typed, "--as", "bogus")
    count()
    if r.returncode != 2 or "bad --as 'bogus'" not in r.stderr:
        fail(f"--as bogus: exit {r.returncode}, {r.stderr!r}")
    print("npy numpy: void dtypes read with --as")


def main():
    workdir = tempfile.mkdtemp(prefix="kb_npy_numpy_")
    try:
        # Every dtype in each byte order and layout, every shape, each with one format version
        # in turn: the versions differ in the header alone, so each version meets every dtype
        # and every shape without the whole product (a sanitizer build's process start-up
        # made that most of this test's time). The version steps with the shape and with the
        # dtype's (order, layout) pair, whatever the counts of shapes and versions.
        jobs = []
        for dtype in DTYPES:
            orders = ["|"] if dtype.itemsize == 1 or dtype == BF16 else ["<", ">"]
            layouts = [(byteorder, fortran) for byteorder in orders for fortran in (False, True)]
            for k, (byteorder, fortran) in enumerate(layouts):
                for s, shape in enumerate(SHAPES):
                    version = VERSIONS[(k + s) % len(VERSIONS)]
                    jobs.append((len(jobs), dtype, byteorder, fortran, version, shape,
                                 workdir))
        # (dtype, version) and (shape, version) pairs all met, and each dtype in each order and
        # layout, in a sample too
        jobs = sampled(jobs, groups=lambda j: [("dtype", j[1], j[4]), ("shape", j[5], j[4]),
                                               ("layout", j[1], j[2], j[3])])
        assert len({(j[1], j[4]) for j in jobs}) == len(DTYPES) * len(VERSIONS)
        assert len({(j[5], j[4]) for j in jobs}) == len(SHAPES) * len(VERSIONS)
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            list(pool.map(check_file, jobs))
        count(len(jobs))
        print(f"npy numpy: {len(jobs)} NumPy files through info and copy")

        # Fortran order in 1-d and 0-d files, which NumPy never writes itself.
        for shape in [(), (5,), (1, 1)]:
            a = random_array(np.dtype("int16"), shape)
            src = os.path.join(workdir, "f1d.npy")
            with open(src, "wb") as f:
                f.write(header_bytes("{'descr': '<i2', 'fortran_order': True, 'shape': %r, }"
                                     % (shape,)) + a.tobytes())
            check_copy(src, os.path.join(workdir, "f1d_out.npy"), a, True, (3, 0),
                       f"1-d Fortran {shape}")
            count()

        pairs = sampled(((src, dst) for src in DTYPES for dst in DTYPES if src != dst),
                        groups=lambda pair: [("from", pair[0]), ("to", pair[1])])
        for src, dst in pairs:
            check_conversion(workdir, f"{src.name}_to_{dst.name}", conversion_sources(src, dst),
                             dst)
        print(f"npy numpy: {len(pairs)} dtype conversions against astype")
        void_as(workdir)

        # Every float16 pattern widened, in both orders and a 2-d shape.
        f16 = np.arange(65536, dtype=np.uint16).view(np.float16)
        for dst in ("float32", "float64", "bfloat16"):
            check_conversion(workdir, f"all_f16_{dst}", f16, np.dtype(dst) if dst != "bfloat16"
                             else BF16)
            check_conversion(workdir, f"all_f16_{dst}_F", f16.reshape(256, 256),
                             np.dtype(dst) if dst != "bfloat16" else BF16, ["--order", "F"])
        bf = np.arange(65536, dtype=np.uint16).view(BF16)
        for dst in ("float32", "float64", "float16"):
            check_conversion(workdir, f"all_bf16_{dst}", bf, np.dtype(dst))

        # float32 narrowed: random patterns, random values in range, exact midpoints.
        for dtype in (np.dtype("float16"), BF16):
            random_bits = rng.integers(0, 2**32, 200000, dtype=np.uint64).astype(np.uint32)
            in_range = np.arange(65536, dtype=np.uint16).view(dtype).astype(np.float32)
            jitter = (rng.integers(0, 2**16, 65536, dtype=np.uint32) *
                      rng.choice([0, 1], 65536).astype(np.uint32))
            in_range = (in_range.view(np.uint32) ^ jitter).view(np.float32)
            values = np.concatenate([random_bits.view(np.float32), in_range,
                                     f16_neighbour_midpoints(dtype),
                                     np.array([np.inf, -np.inf, 0.0, -0.0], np.float32)])
            check_conversion(workdir, f"f32_to_{dtype.name}", values, dtype)
            check_conversion(workdir, f"f64_to_{dtype.name}", values.astype(np.float64), dtype)

        # float64 narrowed to float32: random patterns and midpoints of float32 neighbours.
        f32 = rng.integers(0, 2**32, 100000, dtype=np.uint64).astype(np.uint32).view(np.float32)
        f32 = f32[np.isfinite(f32)]
        up = np.nextafter(f32, np.float32(np.inf))
        mids = (f32.astype(np.float64) + up.astype(np.float64)) / 2
        f64 = np.concatenate([mids, np.nextafter(mids, 0), np.nextafter(mids, np.inf),
                              rng.integers(0, 2**64, 100000, dtype=np.uint64).view(np.float64)])
        check_conversion(workdir, "f64_to_f32", f64, np.dtype("float32"))

        # bfloat16 written by kbench is read by NumPy with ml_dtypes.
        a = random_array(np.dtype("float32"), (4, 5))
        src = os.path.join(workdir, "to_bf16.npy")
        out = os.path.join(workdir, "to_bf16_out.npy")
        np.save(src, a)
        code, _, stderr = kbench("npy", "copy", src, out, "--dtype", "bf16", "--order", "F")
        b = np.load(out)
        if code != 0 or b.dtype != BF16 or not same_values(b, a.astype(BF16)):
            fail(f"bfloat16 output: exited {code} {stderr.strip()}, read back as {b.dtype}")
        count()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    return finish("npy numpy")


if __name__ == "__main__":
    sys.exit(main())
