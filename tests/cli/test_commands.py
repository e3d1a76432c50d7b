"""End-to-end checks of the `kbench` command table itself: `kbench help COMMAND` prints that
command's help (issue 12, bug 9), `kbench help` and `kbench --help` the general help, a
mistyped command or help topic is a usage error, and every command refuses a bad KB_SIMD or
KB_NUM_THREADS the same way (issue 12, bug 5); and issue 12's polish: every help within 80
columns with an exit-status section and no repository paths, `kbench version` as
`kbench --version`, "did you mean" for a mistyped command.

Usage: python3 test_commands.py path/to/kbench
"""

import json
import os
import re
import struct
import sys
import tempfile

from harness import check, finish, kbench

COMMANDS = ["info", "npy", "eval", "run", "list", "compare", "detect", "peaks"]


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
    # -h or --help wins on kbench's own line too, after `help` and `version` as after any
    # command (docs/cli.md): `help COMMAND --help` is that command's help, the rest the
    # general help.
    for args, expected in [(["help", "--help"], general.stdout), (["help", "-h"], general.stdout),
                           (["version", "--help"], general.stdout),
                           (["version", "x", "-h"], general.stdout),
                           (["help", "nope", "--help"], general.stdout),
                           (["help", "run", "--help"], kbench("run", "--help").stdout),
                           (["help", "-h", "peaks"], kbench("peaks", "--help").stdout)]:
        r = kbench(*args)
        check(r.returncode == 0 and r.stdout == expected and r.stderr == "",
              f"{' '.join(args)}: exit {r.returncode}, stdout {r.stdout[:80]!r}, "
              f"stderr {r.stderr!r}")
    for args, message in [(["help", "nope"], "unknown command 'nope'"),
                          (["help", "run", "peaks"], "one command at a time"),
                          (["nope"], "unknown command 'nope'")]:
        r = kbench(*args)
        check(r.returncode == 2 and message in r.stderr and r.stdout == "",
              f"{' '.join(args)}: exit {r.returncode}, stderr {r.stderr!r}")
    check_bad_settings()
    check_polish()
    return finish("commands")


def check_polish():
    helps = [[], ["npy", "info"], ["npy", "copy"]] + [[c] for c in COMMANDS]
    for words in helps:
        r = kbench(*words, "--help")
        name = " ".join(["kbench"] + words)
        wide = [line for line in r.stdout.splitlines() if len(line) > 80]
        check(r.returncode == 0 and not wide, f"{name} --help: lines over 80 columns: {wide}")
        check("exit status:" in r.stdout, f"{name} --help has no exit-status section")
        paths = re.findall(r"\b(?:docs|src|tests)/\S+", r.stdout)
        check(not paths, f"{name} --help names repository paths: {paths}")
    # One case is "1 case", in the results' markdown and in compare's summary.
    with tempfile.TemporaryDirectory() as tmp:
        md, js = os.path.join(tmp, "one.md"), os.path.join(tmp, "one.json")
        r = kbench("run", "selftest", "-f", "^selftest/empty$", "--no-roofline", "-q",
                   "--min-time", "0.01", "-o", md, "-o", js)
        text = open(md).read() if os.path.exists(md) else ""
        check(r.returncode == 0 and "\n1 case" in text and "1 cases" not in text,
              f"markdown of one case: {r.stderr!r} {text[:200]!r}")
        r = kbench("compare", js, js)
        check(r.returncode == 0 and "over 1 case\n" in r.stdout and "1 cases" not in r.stdout,
              f"compare of one case: {r.stdout!r}")
        r = kbench("compare", js, js, "--format", "markdown")
        check("over 1 case." in r.stdout and "All 1 case<" in r.stdout,
              f"compare markdown of one case: {r.stdout!r}")
    # `kbench npy --help` gives each subcommand's usage as its own help does.
    npy = kbench("npy", "--help").stdout
    for sub in ("info", "copy"):
        usage = kbench("npy", sub, "--help").stdout.split("\n\n", 1)[0]
        words = " ".join(usage.split()[1:])
        check(words in " ".join(npy.split()), f"npy --help lacks the usage of npy {sub}: {words!r}")
    v = kbench("--version")
    r = kbench("version")
    check(v.returncode == 0 and v.stdout.startswith("kbench ") and r.returncode == 0
          and r.stdout == v.stdout, f"version: {r.returncode} {r.stdout!r}, --version {v.stdout!r}")
    r = kbench("version", "x")
    check(r.returncode == 2 and "takes no arguments" in r.stderr, f"version x: {r.stderr!r}")
    for typo, meant in [("runn", "run"), ("lst", "list"), ("compar", "compare"), ("evl", "eval")]:
        r = kbench(typo)
        check(r.returncode == 2 and f"unknown command '{typo}' (did you mean '{meant}'?)"
              in r.stderr, f"{typo}: exit {r.returncode}, {r.stderr!r}")
    r = kbench("xyzzy")
    check(r.returncode == 2 and "did you mean" not in r.stderr, f"xyzzy: {r.stderr!r}")


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
            "detect": ["detect", "--input", npy],
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

        # More threads than usable cores: allowed, with one warning from the commands whose
        # kernels or report use that count; none at the usable count.
        cores = int(json.loads(kbench("info", "--json").stdout)["threads"]["usable_cores"])
        many = str(cores + 1)
        warning = f"warning: {many} threads asked for, but {cores} core"
        for args, env in ((["info"], {"KB_NUM_THREADS": many}),
                          (["eval", "sum(x)", f"x={npy}"], {"KB_NUM_THREADS": many}),
                          (["eval", "sum(x)", f"x={npy}", "--threads", many], {})):
            r = kbench(*args, env=env)
            check(r.returncode == 0 and r.stderr.count(warning) == 1,
                  f"{args} {env}: exit {r.returncode}, stderr {r.stderr!r}")
            r = kbench(*args[:3], env={"KB_NUM_THREADS": str(cores)})
            check(r.returncode == 0 and "threads asked for" not in r.stderr,
                  f"{args} at {cores} threads: stderr {r.stderr!r}")


if __name__ == "__main__":
    sys.exit(main())
