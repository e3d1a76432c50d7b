"""Every output goes where its path points (issue 12, bug 1): through symbolic links (which
stay links) to the file they name, written whole; to a FIFO or a character device directly
(never replacing the node); '-' to standard output; and a write error such as a full device
exits 1 with a message. For `npy copy`, `eval -o`, `run -o` and `compare -o`.

Usage: python3 test_output_paths.py path/to/kbench
"""

import os
import stat
import struct
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from harness import check, finish, kbench


def npy_bytes(values):
    header = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d,), }" % len(values)
    header += " " * (117 - len(header)) + "\n"
    return (b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode()
            + struct.pack(f"<{len(values)}f", *values))


def read_fifo(path, into):
    with open(path, "rb") as f:
        into.append(f.read())


def check_links(label, write, expect, tmp, suffix="", devices=True):
    """write(path) writes an output to path; expect(data) says whether data is that output.
    Every name ends in suffix, for commands that take the format from it; devices (which have
    no suffix) only when the command takes the format from elsewhere."""
    d = Path(tmp) / label.replace(" ", "_")
    (d / "sub").mkdir(parents=True)
    # An absolute link, a relative link from another directory, a chain, a dangling link.
    t, new = "target" + suffix, "new-file" + suffix
    (d / t).write_bytes(b"old")
    (d / ("abs" + suffix)).symlink_to(d / t)
    (d / "sub" / ("rel" + suffix)).symlink_to("../" + t)
    (d / ("chain" + suffix)).symlink_to("sub/rel" + suffix)
    (d / ("dangling" + suffix)).symlink_to(new)
    for name, target in (("abs" + suffix, t), ("sub/rel" + suffix, t), ("chain" + suffix, t),
                         ("dangling" + suffix, new)):
        r = write(d / name)
        check(r.returncode == 0, f"{label} -> {name}: exit {r.returncode}: {r.stderr}")
        check((d / name).is_symlink(), f"{label} -> {name}: the link was replaced")
        written = (d / target).read_bytes() if (d / target).is_file() else b""
        check(expect(written), f"{label} -> {name}: {target} not written")
    left = sorted(p.name for p in d.rglob("*kbtmp*"))
    check(left == [], f"{label}: temporaries left: {left}")

    # A FIFO is written to as it is, and stays a FIFO.
    fifo = d / ("fifo" + suffix)
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=read_fifo, args=(fifo, got), daemon=True)
    reader.start()
    r = write(fifo)
    reader.join(timeout=60)
    check(r.returncode == 0 and got and expect(got[0]),
          f"{label} -> FIFO: exit {r.returncode}, read {len(got[0]) if got else 0} bytes")
    check(stat.S_ISFIFO(os.lstat(fifo).st_mode), f"{label}: the FIFO was replaced")

    if not devices:
        return
    # Character devices: a null device takes it; a full one is an error, and both stay
    # devices. Nodes of their own in the test's directory (as root), never the system's
    # /dev/null, which a kbench with this bug would replace for everyone.
    devices = {"null": os.makedev(1, 3), "full": os.makedev(1, 7)}
    try:
        for name, number in devices.items():
            os.mknod(d / name, 0o666 | stat.S_IFCHR, number)
    except OSError:
        print(f"{label}: no character devices made (not root): skipped")
        return
    r = write(d / "null")
    check(r.returncode == 0, f"{label} -> null device: exit {r.returncode}: {r.stderr}")
    r = write(d / "full")
    check(r.returncode != 0 and str(d / "full") in r.stderr and "No space left" in r.stderr,
          f"{label} -> full device: exit {r.returncode}: {r.stderr!r}")
    for name in devices:
        check(stat.S_ISCHR(os.lstat(d / name).st_mode), f"{label}: {name} is no longer a device")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "x.npy"
        data = npy_bytes([1.0, 2.0, 3.5])
        source.write_bytes(data)

        check_links("npy copy", lambda p: kbench("npy", "copy", str(source), str(p)),
                    lambda b: b == data, tmp)
        # '-', and the kernel's links to a pipe (their text, "pipe:[N]", is no path).
        for out in ("-", "/dev/stdout", "/proc/self/fd/1"):
            r = subprocess.run([sys.argv[1], "npy", "copy", str(source), out], capture_output=True)
            check(r.returncode == 0 and r.stdout == data,
                  f"npy copy to {out}: exit {r.returncode}: {r.stderr!r}")

        check_links("eval -o", lambda p: kbench("eval", "sum(x)", f"x={source}", "-o", str(p)),
                    lambda b: b.startswith(b"\x93NUMPY") and struct.unpack("<f", b[-4:])[0] == 6.5,
                    tmp)

        results = Path(tmp) / "results.json"
        run = ["run", "selftest", "--quick-peaks", "--min-time", "0.001", "-q"]
        cache = {"KB_CACHE_DIR": str(Path(tmp) / "cache")}
        r = kbench(*run, "-o", str(results), env=cache)
        check(r.returncode == 0, f"run: {r.stderr}")
        is_json = lambda b: b.lstrip().startswith(b"{") and b.rstrip().endswith(b"}")
        check_links("run -o", lambda p: kbench(*run, "-o", str(p), env=cache), is_json, tmp,
                    suffix=".json", devices=False)
        check_links("compare -o",
                    lambda p: kbench("compare", str(results), str(results), "-o", str(p)),
                    is_json, tmp, suffix=".json", devices=False)
    return finish("output_paths")


if __name__ == "__main__":
    sys.exit(main())
