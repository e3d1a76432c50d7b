"""End-to-end checks of the `kbench` command table itself: `kbench help COMMAND` prints that
command's help (issue 12, bug 9), `kbench help` and `kbench --help` the general help, and a
mistyped command or help topic is a usage error.

Usage: python3 test_commands.py path/to/kbench
"""

import sys

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
    return finish("commands")


if __name__ == "__main__":
    sys.exit(main())
