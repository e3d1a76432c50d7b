"""baselines/runner.py on its own, through its protocol: every NumPy reduce op on several
dtypes and axes gives exactly what NumPy gives in this process; numexpr's sum matches NumPy's
within rounding; both libraries hold a case at once, so that their rounds interleave, and a
new group drops the old one's cases; unsupported cases, malformed requests and library failures get an error
reply and leave the loop running; a library printing to stdout cannot break the protocol;
stderr stays empty; quit and end of input exit 0. No timing is asserted."""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "baselines",
                      "runner.py")
OPS = ["sum", "prod", "mean", "min", "max", "argmin", "argmax", "var", "std"]

failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print(f"FAIL: {what}")


class Runner:
    def __init__(self, env=None):
        self.proc = subprocess.Popen([sys.executable, RUNNER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=env)

    def send_line(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        assert reply, f"no reply to {line}; stderr: {self.proc.stderr.read()}"
        return json.loads(reply)

    def send(self, **request):
        return self.send_line(json.dumps(request))

    def finish(self, quit=True):
        if quit:
            check(self.send(cmd="quit") == {"ok": True}, "quit answers ok")
        # communicate() closes stdin: without quit, the end of input must end the runner.
        out, err = self.proc.communicate(timeout=30)
        check(self.proc.returncode == 0, f"runner exits 0, not {self.proc.returncode}")
        check(out == "", f"nothing after the last reply: {out!r}")
        return err


def setup(runner, library, op, axis, path, out, threads=1):
    return runner.send(cmd="setup", library=library,
                       case={"kind": "reduce", "op": op, "axis": axis},
                       input=path, output=out, threads=threads)


def numpy_cases(runner, tmp):
    rng = np.random.default_rng(7)
    inputs = {
        "f32": rng.standard_normal((13, 57)).astype(np.float32),
        "f64": rng.standard_normal((13, 57)),
        "i32": rng.integers(-100, 100, (13, 57), dtype=np.int32),
        "f64_1d": rng.standard_normal(1001),
    }
    out = os.path.join(tmp, "out.npy")
    for name, a in inputs.items():
        path = os.path.join(tmp, f"{name}.npy")
        np.save(path, a)
        axes = [None, 0, -1] + ([1] if a.ndim == 2 else [])
        for op in OPS:
            for axis in axes:
                what = f"numpy {op} axis={axis} {name}"
                reply = setup(runner, "numpy", op, axis, path, out)
                if not reply.get("ok"):
                    check(False, f"{what}: {reply}")
                    continue
                kwargs = {"ddof": 0} if op in ("var", "std") else {}
                expected = np.asarray(getattr(np, op)(a, axis=axis, **kwargs))
                got = np.load(out)
                check(reply["result_dtype"] == expected.dtype.name,
                      f"{what}: dtype {reply['result_dtype']} vs {expected.dtype.name}")
                check(reply["result_shape"] == list(expected.shape), f"{what}: shape")
                check(got.dtype == expected.dtype and np.array_equal(got, expected),
                      f"{what}: values")
                check(reply["threads"] == 1, f"{what}: NumPy reductions run on one thread")
        run = runner.send(cmd="run", calls=3, samples=2)
        check(run.get("ok") and len(run["sample_ns"]) == 2
              and all(isinstance(t, int) and t > 0 for t in run["sample_ns"]),
              f"run after {name}: {run}")


def numexpr_cases(runner, tmp, have_numexpr):
    if not have_numexpr:
        print("numexpr is not installed (scripts/install-deps installs it): skipping its cases")
        return
    rng = np.random.default_rng(8)
    out = os.path.join(tmp, "out.npy")
    for dtype in [np.float32, np.float64]:
        a = rng.standard_normal((9, 300)).astype(dtype)
        path = os.path.join(tmp, "ne.npy")
        np.save(path, a)
        for axis in [None, 0, 1, -1]:
            what = f"numexpr sum axis={axis} {np.dtype(dtype).name}"
            reply = setup(runner, "numexpr", "sum", axis, path, out, threads=2)
            if not reply.get("ok"):
                check(False, f"{what}: {reply}")
                continue
            got = np.load(out)
            expected = np.sum(a.astype(np.float64), axis=axis)
            tol = 1e-4 if dtype == np.float32 else 1e-12
            check(got.dtype == dtype, f"{what}: dtype {got.dtype}")
            check(np.allclose(got, expected, rtol=tol, atol=tol * 300), f"{what}: values")
            check(reply["threads"] == 2, f"{what}: threads {reply['threads']}")
        run = runner.send(cmd="run", library="numexpr", calls=2, samples=3)
        check(run.get("ok") and len(run["sample_ns"]) == 3, f"numexpr run: {run}")
    reply = setup(runner, "numexpr", "argmax", None, path, out)
    check(reply == {"ok": False, "error": "numexpr cannot compute argmax", "unsupported": True},
          f"numexpr argmax unsupported: {reply}")
    u8 = os.path.join(tmp, "u8.npy")
    np.save(u8, np.arange(10, dtype=np.uint8))
    reply = setup(runner, "numexpr", "sum", None, u8, out)
    check(not reply["ok"] and reply.get("unsupported"), f"numexpr uint8 unsupported: {reply}")


def interleaved(runner, tmp, have_numexpr):
    """Both libraries set up on one input at once, run alternately, torn down one by one."""
    check(runner.send(cmd="teardown") == {"ok": True}, "teardown all")
    path = os.path.join(tmp, "shared.npy")
    np.save(path, np.arange(1000.0))
    libraries = ["numpy", "numexpr"] if have_numexpr else ["numpy"]
    for library in libraries:
        reply = setup(runner, library, "sum", None, path, os.path.join(tmp, f"{library}.npy"))
        check(reply.get("ok"), f"interleaved setup {library}: {reply}")
    for _ in range(2):
        for library in libraries:
            run = runner.send(cmd="run", library=library, calls=2, samples=2)
            check(run.get("ok") and len(run["sample_ns"]) == 2, f"run {library}: {run}")
    if have_numexpr:
        run = runner.send(cmd="run", calls=1, samples=1)
        check(not run["ok"] and "needs \"library\"" in run["error"], f"ambiguous run: {run}")
        # numexpr has a case: its next setup starts a new group, dropping NumPy's case too.
        bad = setup(runner, "numexpr", "sum", 5, path, os.path.join(tmp, "x.npy"))
        check(not bad["ok"], "bad numexpr setup")
        for library in libraries:
            run = runner.send(cmd="run", library=library, calls=1, samples=1)
            check(not run["ok"] and f"for {library}" in run["error"],
                  f"{library} case dropped with the group: {run}")
        # Joining a group and failing drops only the failed library's case.
        check(setup(runner, "numpy", "sum", None, path, os.path.join(tmp, "n.npy"))["ok"],
              "numpy setup")
        bad = setup(runner, "numexpr", "sum", 5, path, os.path.join(tmp, "x.npy"))
        check(not bad["ok"], "bad numexpr setup")
        run = runner.send(cmd="run", calls=1, samples=1)
        check(run.get("ok"), f"the only case left runs without library: {run}")
    check(runner.send(cmd="teardown", library="numpy") == {"ok": True}, "teardown numpy")
    run = runner.send(cmd="run", library="numpy", calls=1, samples=1)
    check(not run["ok"], f"numpy torn down: {run}")


def errors(runner, tmp):
    check(runner.send(cmd="teardown") == {"ok": True}, "teardown before the error cases")
    out = os.path.join(tmp, "out.npy")
    path = os.path.join(tmp, "small.npy")
    np.save(path, np.arange(6.0).reshape(2, 3))
    cases = [
        ("garbage", lambda: runner.send_line("this is not json"), "malformed request"),
        ("array", lambda: runner.send_line("[1, 2]"), "not a JSON object"),
        ("unknown cmd", lambda: runner.send(cmd="dance"), "unknown cmd"),
        ("run before setup", lambda: runner.send(cmd="run", calls=1, samples=1),
         "before setup"),
        ("missing input", lambda: setup(runner, "numpy", "sum", None,
                                        os.path.join(tmp, "none.npy"), out), "none.npy"),
        ("axis out of range", lambda: setup(runner, "numpy", "sum", 2, path, out),
         "out of range"),
        ("boolean axis", lambda: setup(runner, "numpy", "sum", True, path, out),
         "axis must be"),
        ("bad threads", lambda: setup(runner, "numpy", "sum", None, path, out, threads=0),
         "threads"),
        ("unwritable output", lambda: setup(runner, "numpy", "sum", None, path,
                                            os.path.join(tmp, "no", "dir", "out.npy")),
         "out.npy"),
    ]
    for what, send, words in cases:
        reply = send()
        check(reply.get("ok") is False and words in reply.get("error", "")
              and "\n" not in reply["error"] and not reply.get("unsupported"),
              f"{what}: {reply}")
    for what, reply in [
            ("unknown op", setup(runner, "numpy", "median", None, path, out)),
            ("unknown library", setup(runner, "pandas", "sum", None, path, out)),
            ("unknown kind", runner.send(cmd="setup", library="numpy", case={"kind": "scan"},
                                         input=path, output=out))]:
        check(reply.get("ok") is False and reply.get("unsupported") is True, f"{what}: {reply}")
    check(setup(runner, "numpy", "sum", None, path, out).get("ok"), "a good setup after errors")
    for bad in [0, -1, 1.5, True, None]:
        reply = runner.send(cmd="run", calls=bad, samples=1)
        check(reply.get("ok") is False and "calls" in reply["error"], f"calls={bad}: {reply}")
    check(runner.send(cmd="teardown") == {"ok": True}, "teardown")
    check(runner.send(cmd="run", calls=1, samples=1).get("ok") is False,
          "run after teardown fails")
    # The first call's warnings go into the reply, not to stderr.
    empty = os.path.join(tmp, "empty.npy")
    np.save(empty, np.zeros(0))
    reply = setup(runner, "numpy", "mean", None, empty, out)
    check(reply.get("ok") and reply.get("warnings"), f"warnings reported: {reply}")


def hello_checks(runner):
    hello = runner.send(cmd="hello")
    check(hello.get("ok") is True, f"hello ok: {hello}")
    numpy = hello["libraries"]["numpy"]
    check(numpy["version"] == np.__version__, "numpy version")
    check("simd" in numpy["config"] and "baseline" in numpy["config"]["simd"], "numpy simd")
    check(set(hello["threads"]) == {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                    "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS",
                                    "NUMEXPR_MAX_THREADS"}, "thread variables")
    check(hello["timer"]["resolution_ns"] > 0, "timer resolution")
    return hello["libraries"]["numexpr"] is not None


def noisy_library(tmp):
    """A numexpr that prints on import and on every call, to stdout from Python and from C
    (os.write): the replies must still be the only thing on the protocol's stdout."""
    fake = os.path.join(tmp, "fake")
    os.mkdir(fake)
    with open(os.path.join(fake, "numexpr.py"), "w") as f:
        f.write("import os, numpy\n"
                "print('numexpr noise on import')\n"
                "__version__ = '0.fake'\n"
                "def get_num_threads(): return 1\n"
                "def set_num_threads(n): return 1\n"
                "def evaluate(text, local_dict):\n"
                "    os.write(1, b'noise from C\\n')\n"
                "    return numpy.sum(local_dict['a'])\n")
    env = dict(os.environ, PYTHONPATH=fake, PYTHONDONTWRITEBYTECODE="1")
    runner = Runner(env)
    hello = runner.send(cmd="hello")
    check(hello["libraries"]["numexpr"]["version"] == "0.fake", f"fake numexpr: {hello}")
    path = os.path.join(tmp, "noisy.npy")
    np.save(path, np.arange(5.0))
    check(setup(runner, "numexpr", "sum", None, path, os.path.join(tmp, "o.npy")).get("ok"),
          "noisy setup")
    check(runner.send(cmd="run", calls=2, samples=2).get("ok"), "noisy run")
    err = runner.finish()
    check("numexpr noise on import" in err and "noise from C" in err,
          f"stray output went to stderr: {err!r}")


def missing_numpy(tmp):
    fake = os.path.join(tmp, "nonumpy")
    os.mkdir(fake)
    with open(os.path.join(fake, "numpy.py"), "w") as f:
        f.write("raise ImportError('no numpy here')\n")
    runner = Runner(dict(os.environ, PYTHONPATH=fake, PYTHONDONTWRITEBYTECODE="1"))
    hello = runner.send(cmd="hello")
    check(hello.get("ok") is False and hello.get("missing") is True
          and hello["error"].startswith(f"NumPy is not installed for {sys.executable}: run "
                                        "scripts/install-deps (or pip install numpy)"),
          f"missing numpy: {hello}")
    check(runner.finish(quit=False) == "", "missing numpy: stderr empty, exit 0 at EOF")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        runner = Runner()
        have_numexpr = hello_checks(runner)
        numpy_cases(runner, tmp)
        numexpr_cases(runner, tmp, have_numexpr)
        interleaved(runner, tmp, have_numexpr)
        errors(runner, tmp)
        err = runner.finish()
        check(err == "", f"stderr empty: {err!r}")
        noisy_library(tmp)
        missing_numpy(tmp)
    print(f"{len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
