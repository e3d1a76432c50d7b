"""baselines/runner.py on its own, through its protocol: every NumPy reduce op on several
dtypes and axes gives exactly what NumPy gives in this process; numexpr's sum matches NumPy's
within rounding; PyTorch's and JAX's reduce ops match NumPy's within the tolerance of kbench's
check, at one and two threads in one group, and numexpr's cases of one group each run at
their own thread count, which setup reports; both libraries hold a case at once, so that their
rounds interleave, and a new group drops the old one's cases; unsupported cases, malformed
requests and library failures get an error reply and leave the loop running; a library printing to stdout cannot break the protocol;
stderr stays empty; quit and end of input exit 0; a missing PyTorch or JAX is named with the
command that installs it; a run's untimed call (hot caches) comes before its first sample and
its flushes (cold caches) before every sample, in the process that computes the case; a run
ends only once no other thread of the runner is running. No timing is asserted."""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

from harness import check, finish

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "baselines",
                      "runner.py")
OPS = ["sum", "prod", "mean", "min", "max", "argmin", "argmax", "var", "std"]

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


def numexpr_threads_per_case(tmp):
    """numexpr's thread count is one setting of its process, and a group holds a numexpr case
    at each of its thread counts: each case's calls run at its own count (set before each of
    its runs), whichever case was set up last, and setup's reply says that count. A fake
    numexpr records the count in force at every call, and a real one is held to its reply."""
    fake = os.path.join(tmp, "threads")
    os.mkdir(fake)
    log = os.path.join(tmp, "numexpr-threads.log")
    with open(os.path.join(fake, "numexpr.py"), "w") as f:
        f.write("import numpy\n"
                "__version__ = '0.fake'\n"
                "_threads = [4]\n"
                "def get_num_threads(): return _threads[0]\n"
                "def set_num_threads(n):\n"
                "    old, _threads[0] = _threads[0], n\n"
                "    return old\n"
                "def evaluate(text, local_dict):\n"
                f"    with open({log!r}, 'a') as f: f.write(f'{{_threads[0]}}\\n')\n"
                "    return numpy.sum(local_dict['a'])\n")
    runner = Runner(dict(os.environ, PYTHONPATH=fake, PYTHONDONTWRITEBYTECODE="1"))
    path = os.path.join(tmp, "threads.npy")
    np.save(path, np.arange(6.0).reshape(2, 3))
    for threads in (1, 2):
        reply = runner.send(cmd="setup", library="numexpr", id=f"numexpr/threads={threads}",
                            case={"kind": "reduce", "op": "sum", "axis": None}, input=path,
                            output=os.path.join(tmp, f"t{threads}.npy"), threads=threads)
        check(reply.get("ok") and reply["threads"] == threads,
              f"numexpr setup at {threads} threads: {reply}")
    for threads in (1, 2, 1):
        open(log, "w").close()
        reply = runner.send(cmd="run", id=f"numexpr/threads={threads}", calls=3, samples=2,
                            warmup=1)
        with open(log) as f:
            seen = f.read().split()
        check(reply.get("ok") and seen == [str(threads)] * 7,
              f"numexpr/threads={threads} ran its calls at {seen} threads")
    check(runner.finish() == "", "fake numexpr: stderr empty")
    if importlib.util.find_spec("numexpr") is None:
        return
    runner = Runner()
    for threads in (1, 2):
        reply = runner.send(cmd="setup", library="numexpr", id=f"numexpr/threads={threads}",
                            case={"kind": "reduce", "op": "sum", "axis": None}, input=path,
                            output=os.path.join(tmp, f"r{threads}.npy"), threads=threads)
        check(reply.get("ok") and reply["threads"] == threads,
              f"real numexpr setup at {threads} threads: {reply}")
    runner.finish()


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


def installed(module):
    if importlib.util.find_spec(module) is None:
        print(f"{module} is not installed (scripts/install-deps installs it): skipping its cases")
        return False
    return True


def kbench_tolerance(op, a, axis, result):
    """What kbench's check allows (docs/baselines.md): rtol by dtype, times the mean magnitude
    plus the scale of the rounding errors of op over m values in [-1, 1]."""
    m = a.size if axis is None else a.shape[axis]
    atol = {"sum": np.sqrt(m), "prod": 0.0}.get(op, 1 / np.sqrt(max(m, 1)))
    rtol = 1e-4 if result.dtype == np.float32 else 1e-12
    return rtol, atol


def peer_cases(runner, tmp, libraries):
    """Every reduce op of PyTorch and JAX against NumPy's on float32 and float64."""
    rng = np.random.default_rng(9)
    inputs = {"f32": rng.uniform(-1, 1, (13, 257)).astype(np.float32),
              "f64": rng.uniform(-1, 1, (13, 257)),
              "f32_1d": rng.uniform(-1, 1, 5001).astype(np.float32)}
    for name, a in inputs.items():
        path = os.path.join(tmp, f"peer_{name}.npy")
        np.save(path, a)
        # Each JAX case compiles: float32 gets every op on every axis, the rest fewer.
        ops = OPS if name == "f32" else ["sum", "mean", "argmax", "var"]
        for op in ops:
            for axis in [None, 0, -1] if a.ndim == 2 else [None]:
                kwargs = {"ddof": 0} if op in ("var", "std") else {}
                expected = np.asarray(getattr(np, op)(a, axis=axis, **kwargs))
                exact = np.asarray(getattr(np, op)(a.astype(np.float64), axis=axis, **kwargs))
                for library in libraries:
                    what = f"{library} {op} axis={axis} {name}"
                    out = os.path.join(tmp, f"{library}.npy")
                    reply = runner.send(cmd="setup", library=library, id=f"{library}/threads=1",
                                        case={"kind": "reduce", "op": op, "axis": axis},
                                        input=path, output=out, threads=1)
                    if not check(reply.get("ok"), f"{what}: {reply}"):
                        continue
                    got = np.load(out)
                    check(got.dtype == expected.dtype and reply["result_dtype"] ==
                          expected.dtype.name, f"{what}: dtype {got.dtype}")
                    check(got.shape == expected.shape, f"{what}: shape {got.shape}")
                    check(reply["threads"] == 1 and reply["id"] == f"{library}/threads=1",
                          f"{what}: {reply}")
                    if op in ("min", "max", "argmin", "argmax"):
                        check(np.array_equal(got, expected), f"{what}: values")
                        continue
                    rtol, atol = kbench_tolerance(op, a, axis, got)
                    diff = np.abs(got.astype(np.float64) - exact)
                    # A float32 product of 257 values in [-1, 1] underflows: allow the
                    # result type's smallest normal number as well.
                    allowed = (rtol * ((np.abs(got) + np.abs(exact)) / 2 + atol)
                               + (np.finfo(got.dtype).tiny if op == "prod" else 0))
                    check(np.all(diff <= allowed), f"{what}: off by {np.max(diff)}")


def peers_at_two_thread_counts(runner, tmp, libraries):
    """PyTorch and JAX at one and two threads hold cases of one group at once (JAX's in a
    worker per thread count), and their rounds interleave."""
    check(runner.send(cmd="teardown") == {"ok": True}, "teardown before the thread counts")
    path = os.path.join(tmp, "threads.npy")
    a = np.random.default_rng(10).uniform(-1, 1, (64, 300)).astype(np.float32)
    np.save(path, a)
    ids = [f"{lib}/threads={t}" for lib in libraries for t in (1, 2)]
    for cid in ids:
        library, threads = cid.split("/threads=")
        reply = runner.send(cmd="setup", library=library, id=cid,
                            case={"kind": "reduce", "op": "sum", "axis": 0}, input=path,
                            output=os.path.join(tmp, cid.replace("/", "_") + ".npy"),
                            threads=int(threads))
        check(reply.get("ok") and reply["threads"] == int(threads), f"setup {cid}: {reply}")
    for _ in range(2):
        for cid in ids:
            run = runner.send(cmd="run", id=cid, calls=2, samples=2, warmup=1)
            check(run.get("ok") and len(run["sample_ns"]) == 2, f"run {cid}: {run}")
            run = runner.send(cmd="run", id=cid, calls=1, samples=2, flush_bytes=1 << 16)
            check(run.get("ok") and len(run["sample_ns"]) == 2, f"cold run {cid}: {run}")
    for cid in ids:
        got = np.load(os.path.join(tmp, cid.replace("/", "_") + ".npy"))
        check(np.allclose(got, a.astype(np.float64).sum(axis=0), rtol=1e-4, atol=1e-4),
              f"{cid}: values")
    check(runner.send(cmd="teardown") == {"ok": True}, "teardown of the thread counts")
    for cid in ids:
        run = runner.send(cmd="run", id=cid, calls=1, samples=1)
        check(not run["ok"] and "before setup" in run["error"], f"{cid} torn down: {run}")


def peers_unsupported(runner, tmp, libraries):
    """PyTorch has no mean, var or std of integers: reported as unsupported, not failed. JAX
    has them."""
    path = os.path.join(tmp, "ints.npy")
    a = np.arange(-30, 30, dtype=np.int32).reshape(6, 10)
    np.save(path, a)
    out = os.path.join(tmp, "ints_out.npy")
    if "torch" in libraries:
        for op in ("mean", "var", "std"):
            reply = setup(runner, "torch", op, 0, path, out)
            check(reply == {"ok": False, "unsupported": True,
                            "error": f"PyTorch has no {op} of int32 (torch.{op} takes floating "
                                     "point only)"}, f"torch {op} int32: {reply}")
        reply = setup(runner, "torch", "sum", 0, path, out)
        check(reply.get("ok") and np.array_equal(np.load(out), a.sum(axis=0)),
              f"torch sum int32: {reply}")
    if "jax" in libraries:
        reply = setup(runner, "jax", "mean", 0, path, out)
        check(reply.get("ok") and np.allclose(np.load(out), a.mean(axis=0)),
              f"jax mean int32: {reply}")


def missing_peers(tmp):
    """A PyTorch or JAX that cannot be imported: require and setup name the command that
    installs it; NumPy still works."""
    fake = os.path.join(tmp, "nopeers")
    os.mkdir(fake)
    for module in ("torch", "jax"):
        with open(os.path.join(fake, f"{module}.py"), "w") as f:
            f.write(f"raise ImportError('no {module} here')\n")
    runner = Runner(dict(os.environ, PYTHONPATH=fake, PYTHONDONTWRITEBYTECODE="1"))
    check(runner.send(cmd="hello").get("ok"), "hello without PyTorch and JAX")
    for library, name in (("torch", "PyTorch"), ("jax", "JAX")):
        reply = runner.send(cmd="require", library=library)
        check(reply.get("ok") is False and reply.get("missing") is True
              and reply["error"].startswith(f"{name} is not installed for {sys.executable}: "
                                            f"run scripts/install-deps (or pip install "
                                            f"{library})"), f"missing {library}: {reply}")
        path = os.path.join(tmp, "m.npy")
        np.save(path, np.arange(4.0))
        reply = setup(runner, library, "sum", None, path, os.path.join(tmp, "m_out.npy"))
        check(reply.get("missing") is True and "scripts/install-deps" in reply["error"],
              f"setup without {library}: {reply}")
    reply = runner.send(cmd="require", library="numpy")
    check(reply.get("ok") and reply["version"] == np.__version__, f"require numpy: {reply}")
    check(runner.finish() == "", "missing peers: stderr empty")


def load_runner():
    spec = importlib.util.spec_from_file_location("kb_baseline_runner", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Recorder:
    """Stands in for the runner's clock, flush and case: records the order of their calls."""

    # what else the runner takes from the time module (settle's waits): the real ones
    monotonic = staticmethod(time.monotonic)
    sleep = staticmethod(time.sleep)

    def __init__(self):
        self.events = []

    def clock_gettime_ns(self, clock):
        self.events.append("clock")
        return len(self.events)

    def call(self):
        self.events.append("call")

    def make_flush(self, np_module, nbytes, threads):
        return lambda: self.events.append(("flush", nbytes, threads))


class FakeWorker:
    threads = 2

    def __init__(self):
        self.requests = []

    def send(self, request):
        self.requests.append(request)
        return {"ok": True, "sample_ns": [1] * request.get("samples", 0)}


def samples_start_as_asked(tmp):
    """In the process that computes a case: warmup calls come before the first sample's
    clock, a flush before every sample; a JAX case's run is forwarded to its worker with
    both. The runner's flush itself reads its buffer with one and with two threads."""
    r = load_runner()
    path = os.path.join(tmp, "order.npy")
    np.save(path, np.arange(100.0))
    state = r.new_state()
    reply, _ = r.serve(json.dumps({"cmd": "setup", "library": "torch" if installed("torch")
                                   else "numpy", "case": {"kind": "reduce", "op": "sum",
                                                          "axis": None},
                                   "input": path, "output": os.path.join(tmp, "o.npy"),
                                   "threads": 2}), state)
    check(reply.get("ok"), f"order setup: {reply}")
    rec = Recorder()
    case = next(iter(state["cases"].values()))
    case.fn = rec.call
    r.time = rec
    r.make_flush = rec.make_flush

    reply, _ = r.serve(json.dumps({"cmd": "run", "calls": 3, "samples": 2, "warmup": 1}),
                       state)
    sample = ["clock", "call", "call", "call", "clock"]
    check(reply.get("ok") and rec.events == ["call"] + sample * 2,
          f"hot: one untimed call, then the samples: {rec.events}")
    rec.events.clear()
    reply, _ = r.serve(json.dumps({"cmd": "run", "calls": 3, "samples": 2,
                                   "flush_bytes": 4096}), state)
    flush = ("flush", 4096, case.threads)
    check(reply.get("ok") and rec.events == ([flush] + sample) * 2,
          f"cold: a flush before every sample: {rec.events}")
    rec.events.clear()
    reply, _ = r.serve(json.dumps({"cmd": "run", "calls": 3, "samples": 1}), state)
    check(reply.get("ok") and rec.events == sample, f"plain: {rec.events}")

    worker = FakeWorker()
    state["cases"]["jax/threads=2"] = r.Case("jax", 2, worker=worker)
    reply, _ = r.serve(json.dumps({"cmd": "run", "id": "jax/threads=2", "calls": 4,
                                   "samples": 3, "warmup": 1, "flush_bytes": 64}), state)
    check(reply == {"ok": True, "sample_ns": [1, 1, 1]}
          and worker.requests == [{"cmd": "run", "calls": 4, "samples": 3, "warmup": 1,
                                   "flush_bytes": 64, "id": "jax/threads=2"}],
          f"forwarded to the JAX worker: {worker.requests}")
    for bad in ({"warmup": -1}, {"flush_bytes": 1.5}, {"warmup": True}):
        reply, _ = r.serve(json.dumps(dict({"cmd": "run", "calls": 1, "samples": 1,
                                            "id": "jax/threads=2"}, **bad)), state)
        check(reply.get("ok") is False and "non-negative integer" in reply["error"],
              f"bad {bad}: {reply}")
    real = load_runner()
    for threads in (1, 2):
        flush = real.make_flush(np, 1 << 20, threads)
        flush()
        flush()


def settle_waits_for_spinning_threads():
    """runner.settle, which ends every run, returns only once no other thread of the process is
    running: a thread busy for 20 ms (within settle's 50 ms) has finished by the time it returns,
    and once it has ended, no other thread is seen running."""
    module = load_runner()
    started, done = threading.Event(), threading.Event()
    a = np.ones(1 << 20)

    def spin():
        """Runs for 20 ms, mostly in NumPy's loops, which release the GIL: this thread keeps
        running while settle looks."""
        started.set()
        end = time.monotonic() + 0.02
        while time.monotonic() < end:
            np.add(a, a, out=a)
        done.set()

    worker = threading.Thread(target=spin)
    worker.start()
    started.wait()
    module.settle()
    check(done.is_set(), "settle returned while another thread still spun")
    worker.join()
    check(not module.other_threads_running(), "a thread seen running after all others ended")


def main():
    settle_waits_for_spinning_threads()
    with tempfile.TemporaryDirectory() as tmp:
        runner = Runner()
        have_numexpr = hello_checks(runner)
        numpy_cases(runner, tmp)
        numexpr_cases(runner, tmp, have_numexpr)
        interleaved(runner, tmp, have_numexpr)
        errors(runner, tmp)
        peers = [lib for lib in ("torch", "jax") if installed(lib)]
        peer_cases(runner, tmp, peers)
        peers_at_two_thread_counts(runner, tmp, peers)
        peers_unsupported(runner, tmp, peers)
        err = runner.finish()
        check(err == "", f"stderr empty: {err!r}")
        noisy_library(tmp)
        numexpr_threads_per_case(tmp)
        missing_numpy(tmp)
        missing_peers(tmp)
        samples_start_as_asked(tmp)
    sys.exit(finish("baseline runner"))


if __name__ == "__main__":
    main()
