"""End-to-end checks of the `kbench` command table itself: `kbench help COMMAND` prints that
command's help (issue 12, bug 9), `kbench help` and `kbench --help` the general help, a
mistyped command or help topic is a usage error, and every command refuses a bad KB_SIMD or
KB_NUM_THREADS the same way (issue 12, bug 5).

Usage: python3 test_commands.py path/to/kbench
"""

import os
import re
import struct
import sys
import tempfile

from harness import check, finish, kbench

COMMANDS = ["info", "npy", "eval", "run", "list", "compare", "peaks"]


def main():
    general = kbench("--help")
    check(general.returncode == 0 and "commands:" in general.stdout,
          f"--help: exit {general.returncode}, stdout {general.stdout[:80]!r}")
    r = kbench("help")
    check(r.returncode == 0 and r.stdout == general.stdout, "help differs from --help")
    for name in COMMANDS:
        own = kbench(name, "--help")
        r = kbench("help", name)
        check(own.returncode == 0 and f"usage: kbench {name}" in own.stdout,
              f"{name} --help: exit {own.returncode}, stdout {own.stdout[:80]!r}")
        check(r.returncode == 0 and r.stdout == own.stdout,
              f"help {name}: exit {r.returncode}, not the output of '{name} --help'")
    for args, message in [(["help", "nope"], "unknown command 'nope'"),
                          (["help", "run", "peaks"], "one command at a time"),
                          (["nope"], "unknown command 'nope'")]:
        r = kbench(*args)
        check(r.returncode == 2 and message in r.stderr and r.stdout == "",
              f"{' '.join(args)}: exit {r.returncode}, stderr {r.stderr!r}")
    check_bad_settings()
    return finish("commands")


def check_bad_settings():
    """Each command, given arguments it would accept, with a bad KB_SIMD and then a bad
    KB_NUM_THREADS: exit 1, nothing on stdout, and one line naming the variable, the same for
    every command but its name. No output file is written."""
    with tempfile.TemporaryDirectory() as tmp:
        npy = os.path.join(tmp, "x.npy")
        with open(npy, "wb") as f:  # a float64 [1, 2]: the header by hand, no NumPy needed
            header = "{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"
            header += " " * (117 - len(header)) + "\n"
            f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode()
                    + struct.pack("<2d", 1.0, 2.0))
        out = os.path.join(tmp, "out.npy")
        commands = {
            "info": ["info"],
            "list": ["list"],
            "run": ["run", "selftest", "--no-roofline", "-q"],
            "eval": ["eval", "sum(x)", f"x={npy}"],
            "compare": ["compare", npy, npy],
            "peaks": ["peaks", "--quick"],
            "npy": ["npy", "info", npy],
            "npy copy": ["npy", "copy", npy, out],
        }
        for variable, value in (("KB_SIMD", "bogus"), ("KB_NUM_THREADS", "0")):
            said = {}
            for name, args in commands.items():
                r = kbench(*args, env={variable: value})
                prefix = re.match(r"kbench [a-z ]+?: ", r.stderr)
                said[name] = r.stderr[prefix.end():] if prefix else r.stderr
                check(r.returncode == 1 and r.stdout == "" and r.stderr.count("\n") == 1
                      and said[name].startswith(variable),
                      f"{variable}={value} kbench {' '.join(args)}: exit {r.returncode}, "
                      f"stderr {r.stderr!r}")
            check(len(set(said.values())) == 1, f"{variable}: worded differently: {said}")
        check(not os.path.exists(out), "npy copy wrote its output despite the bad setting")


if __name__ == "__main__":
    sys.exit(main())
