"""baselines/runner.py's expression baselines through its protocol: PyTorch eager, torch.compile
and JAX evaluate programs of kbench's expression language (the `expr` suite's kinds: elementwise
chains, where, row softmax and layer norm with keepdims reductions; maximum, clip, var with ddof,
argmax over all axes) on the rows of one input,
and their results match a float64 NumPy reference within kbench's float32 check; torch.compile
and JAX at one and two threads hold cases of one group at once, and torch.compile also computes
reductions; a program that calls a function a library lacks, or a dtype it has no kernel for,
is answered "unsupported", not failed; a missing PyTorch or C++ compiler is named with the
command that installs it. torch.compile compiles every case (seconds each), so its cases are
few and tiny. No timing is asserted.

Usage: python3 test_expr_runner.py"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

from harness import check, finish

RUNNER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "baselines",
                      "runner.py")
SOFTMAX = ("m = max(x, axis=-1, keepdims=True); e = exp(x - m); "
           "s = sum(e, axis=-1, keepdims=True); e / s")
LAYER_NORM = ("m = mean(x, axis=-1, keepdims=True); d = x - m; "
              "v = mean(d*d, axis=-1, keepdims=True); d / sqrt(v + 1e-5)")


def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def layer_norm(x):
    d = x - x.mean(axis=-1, keepdims=True)
    return d / np.sqrt((d * d).mean(axis=-1, keepdims=True) + 1e-5)


# (source, variables, input name, reference on float64 rows, torch.compile too)
CASES = [
    ("a*b + c", ["a", "b", "c"], "flat", lambda a, b, c: a * b + c, True),
    ("2*x**3 - 3*x**2 + x - 1", ["x"], "one", lambda x: 2 * x**3 - 3 * x**2 + x - 1, False),
    ("sqrt(x**2 + y**2)", ["x", "y"], "two", lambda x, y: np.sqrt(x**2 + y**2), False),
    ("where(x > 0, x, 0.01*x)", ["x"], "one", lambda x: np.where(x > 0, x, 0.01 * x), False),
    (SOFTMAX, ["x"], "rows", softmax, True),
    (LAYER_NORM, ["x"], "rows", layer_norm, False),
    # PyTorch's maximum and minimum take tensors: the translation passes the scalar as one.
    ("maximum(x, 0) * minimum(x, 0.5) + clip(x, -0.2, 0.2)", ["x"], "one",
     lambda x: np.maximum(x, 0) * np.minimum(x, 0.5) + np.clip(x, -0.2, 0.2), False),
    # ddof as PyTorch's correction, all axes as every dim; argmax and argmin over all axes
    # with keepdims, which PyTorch's take as no dim and a reshape.
    ("var(x, axis=-1, ddof=1) + std(x, axis=None)", ["x"], "rows",
     lambda x: x.var(axis=-1, ddof=1) + x.std(), False),
    ("argmax(x, axis=None, keepdims=True) + argmin(x, axis=-1)", ["x"], "rows",
     lambda x: np.argmax(x, keepdims=True) + np.argmin(x, axis=-1), False),
]


class Runner:
    def __init__(self, env=None):
        self.proc = subprocess.Popen([sys.executable, RUNNER], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=env)

    def send(self, **request):
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = self.proc.stdout.readline()
        assert reply, f"no reply to {request}"
        return json.loads(reply)

    def finish(self):
        check(self.send(cmd="quit") == {"ok": True}, "quit answers ok")
        self.proc.communicate(timeout=60)
        check(self.proc.returncode == 0, f"runner exits 0, not {self.proc.returncode}")


def installed(module):
    if importlib.util.find_spec(module) is None:
        print(f"{module} is not installed (scripts/install-deps installs it): skipping its cases")
        return False
    return True


def expr(source, names):
    return {"kind": "expr", "source": source, "vars": names}


def inputs(tmp):
    rng = np.random.default_rng(23)
    arrays = {"flat": rng.uniform(-1, 1, (3, 3000)), "one": rng.uniform(-1, 1, (1, 3000)),
              "two": rng.uniform(-1, 1, (2, 3000)), "rows": rng.uniform(-1, 1, (1, 6, 1024))}
    paths = {}
    for name, a in arrays.items():
        paths[name] = os.path.join(tmp, f"{name}.npy")
        np.save(paths[name], a.astype(np.float32))
    return paths


def close_to(got, want, what):
    """kbench's float32 check (docs/baselines.md): within 1e-4 x (mean magnitude + 1); an
    integer result (argmax) exactly."""
    if want.dtype.kind == "i":
        check(got.dtype == np.int64 and np.array_equal(got, want), f"{what}: {got}, not {want}")
        return
    if not check(got.dtype == np.float32 and got.shape == want.shape,
                 f"{what}: {got.dtype} {got.shape}, not float32 {want.shape}"):
        return
    diff = np.abs(got.astype(np.float64) - want)
    allowed = 1e-4 * ((np.abs(got) + np.abs(want)) / 2 + 1)
    check(np.all(diff <= allowed), f"{what}: off by {np.max(diff)}")


def expressions(runner, paths, libraries):
    for source, names, which, reference, compiled in CASES:
        a = np.load(paths[which]).astype(np.float64)
        want = reference(*a)
        for library in libraries:
            if library == "torch-compile" and not compiled:
                continue
            what = f"{library} {source!r}"
            out = os.path.join(paths["dir"], f"{library}.npy")
            reply = runner.send(cmd="setup", library=library, id=f"{library}/threads=1",
                                case=expr(source, names), input=paths[which], output=out,
                                threads=1)
            if not check(reply.get("ok") and reply["threads"] == 1
                         and reply["result_dtype"] == ("int64" if want.dtype.kind == "i"
                                                       else "float32"), f"{what}: {reply}"):
                continue
            close_to(np.load(out), want, what)
            run = runner.send(cmd="run", id=f"{library}/threads=1", calls=2, samples=2,
                              warmup=1)
            check(run.get("ok") and len(run["sample_ns"]) == 2, f"{what} run: {run}")


def two_thread_counts(runner, paths, libraries):
    """One group holds each library at one and two threads; every case keeps its own
    compilation (torch.compile writes the thread count into its code) and its result."""
    check(runner.send(cmd="teardown") == {"ok": True}, "teardown before the thread counts")
    a = np.load(paths["flat"]).astype(np.float64)
    ids = [f"{lib}/threads={t}" for lib in libraries for t in (1, 2)]
    for cid in ids:
        library, threads = cid.split("/threads=")
        out = os.path.join(paths["dir"], cid.replace("/", "_") + ".npy")
        reply = runner.send(cmd="setup", library=library, id=cid,
                            case=expr("a*b + c", ["a", "b", "c"]), input=paths["flat"],
                            output=out, threads=int(threads))
        check(reply.get("ok") and reply["threads"] == int(threads), f"setup {cid}: {reply}")
    for cid in ids:
        run = runner.send(cmd="run", id=cid, calls=2, samples=2, warmup=1)
        check(run.get("ok") and len(run["sample_ns"]) == 2, f"run {cid}: {run}")
        out = os.path.join(paths["dir"], cid.replace("/", "_") + ".npy")
        close_to(np.load(out), a[0] * a[1] + a[2], cid)
    check(runner.send(cmd="teardown") == {"ok": True}, "teardown of the thread counts")


def compiled_reduction(runner, paths):
    """torch.compile computes the reduce suite's cases too."""
    a = np.load(paths["flat"])
    out = os.path.join(paths["dir"], "reduce.npy")
    for op, axis in (("sum", 0), ("argmax", None)):
        reply = runner.send(cmd="setup", library="torch-compile",
                            case={"kind": "reduce", "op": op, "axis": axis},
                            input=paths["flat"], output=out, threads=1)
        if not check(reply.get("ok"), f"torch-compile {op}: {reply}"):
            continue
        got = np.load(out)
        if op == "argmax":
            check(got.dtype == np.int64 and got == a.argmax(), f"torch-compile argmax: {got}")
        else:
            close_to(got, a.astype(np.float64).sum(axis=0), "torch-compile sum axis 0")


def not_expressible(runner, paths, libraries):
    """NumPy has no sigmoid (SciPy's expit is); PyTorch has no addition of uint32."""
    reply = runner.send(cmd="setup", library="numpy", case=expr("sigmoid(x) + 1", ["x"]),
                        input=paths["one"], output=os.path.join(paths["dir"], "n.npy"))
    check(reply == {"ok": False, "unsupported": True,
                    "error": "NumPy cannot express this expression: it has no sigmoid"},
          f"numpy sigmoid: {reply}")
    if "torch" in libraries:
        u32 = os.path.join(paths["dir"], "u32.npy")
        np.save(u32, np.arange(8, dtype=np.uint32).reshape(2, 4))
        reply = runner.send(cmd="setup", library="torch", case=expr("x + y", ["x", "y"]),
                            input=u32, output=os.path.join(paths["dir"], "t.npy"))
        check(reply.get("ok") is False and reply.get("unsupported") is True
              and "not implemented for 'UInt32'" in reply["error"], f"torch uint32: {reply}")
    reply = runner.send(cmd="setup", library="python", case=expr("x + 1", ["x"]),
                        input=paths["one"], output=os.path.join(paths["dir"], "k.npy"))
    check(reply == {"ok": False, "unsupported": True,
                    "error": "kbench's Python module has no baseline of expr cases"},
          f"python expr: {reply}")
    reply = runner.send(cmd="setup", library="numpy", case=expr("x +", ["x"]),
                        input=paths["one"], output=os.path.join(paths["dir"], "t.npy"))
    check(reply.get("ok") is False and "not Python syntax" in reply["error"]
          and not reply.get("unsupported"), f"bad syntax: {reply}")


def missing(tmp):
    """No PyTorch: torch and torch-compile name the command that installs it; no C++
    compiler: torch-compile names the package that brings one."""
    fake = os.path.join(tmp, "notorch")
    os.mkdir(fake)
    with open(os.path.join(fake, "torch.py"), "w") as f:
        f.write("raise ImportError('no torch here')\n")
    runner = Runner(dict(os.environ, PYTHONPATH=fake, PYTHONDONTWRITEBYTECODE="1"))
    for library in ("torch", "torch-compile"):
        reply = runner.send(cmd="require", library=library)
        check(reply.get("ok") is False and reply.get("missing") is True
              and reply["error"].startswith(f"PyTorch is not installed for {sys.executable}: "
                                            "run scripts/install-deps (or pip install torch)"),
              f"{library} without PyTorch: {reply}")
    runner.finish()
    if not installed("torch"):
        return
    runner = Runner(dict(os.environ, CXX=os.path.join(tmp, "no-such-c++")))
    reply = runner.send(cmd="require", library="torch-compile")
    check(reply.get("ok") is False and reply.get("missing") is True
          and "torch.compile needs a C++ compiler" in reply["error"]
          and "scripts/install-deps" in reply["error"], f"no compiler: {reply}")
    runner.finish()


def main():
    libraries = [lib for lib, module in (("torch", "torch"), ("torch-compile", "torch"),
                                         ("jax", "jax")) if installed(module)]
    with tempfile.TemporaryDirectory() as tmp:
        paths = dict(inputs(tmp), dir=tmp)
        runner = Runner()
        if "torch" in libraries:
            reply = runner.send(cmd="require", library="torch-compile")
            check(reply.get("ok") and reply["backend"] == "inductor" and reply["compiler"],
                  f"require torch-compile: {reply}")
        expressions(runner, paths, ["numpy"] + libraries)
        two_thread_counts(runner, paths, [lib for lib in libraries if lib != "torch"])
        if "torch-compile" in libraries:
            compiled_reduction(runner, paths)
        not_expressible(runner, paths, libraries)
        runner.finish()
        missing(tmp)
    sys.exit(finish("expression baselines"))


if __name__ == "__main__":
    main()
