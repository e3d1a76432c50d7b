#!/usr/bin/env python3
"""Times NumPy, numexpr, PyTorch (eager and through torch.compile), JAX and kbench's own Python
module for kbench, as a child process that kbench starts once per run.

Protocol: one JSON object per line on stdin, one JSON reply per line on stdout.

  {"cmd":"hello"}     -> {"ok":true,"python":..,"executable":..,"libraries":{..},
                          "threads":{..},"timer":{..}}
  {"cmd":"require","library":"numpy"|"numexpr"|"torch"|"torch-compile"|"jax"|"python"}
                      -> {"ok":true,"library":..,"version":..,..}: what the library says of
                         itself, or "missing" with the command that installs it
  {"cmd":"setup","library":..,"id":..,"case":{"kind":"reduce","op":..,"axis":..}
   or {"kind":"expr","source":..,"vars":[..]} (kbench's expression language; the variables
   are the input's rows; an "ew" member, which kbench serve reads, is ignored here),
   "input":"in.npy","output":"out.npy","threads":N}
                      -> {"ok":true,"library":..,"id":..,"version":..,"result_dtype":..,
                          "result_shape":[..],"threads":N}
  {"cmd":"run","id":..,"calls":K,"samples":M,"warmup":W,"flush_bytes":B}
                      -> {"ok":true,"sample_ns":[M integers, each K calls]}
  {"cmd":"teardown"}  -> {"ok":true}   (or with "id" or "library": drops that case only)
  {"cmd":"quit"}      -> {"ok":true}, then exit 0 (end of input exits 0 too)

The cases set up since the last teardown form a group, each under its "id" (default: the
library's name), so that kbench can interleave rounds of several libraries, or of one library
at several thread counts, on the same case; they share one loaded copy of the input. A setup
under an id that has a case already starts a new group: every case is dropped first, so none
of an earlier group lingers. A failed setup leaves its id without a case. run names the case
by "id" (or "library", which is the default id); either may be left out when only one case
is set up.

How a run's samples start (docs/baselines.md): "warmup" W > 0 calls the case W times, untimed,
before the first sample, so that its samples follow a call of the same library (hot caches);
"flush_bytes" B > 0 reads a buffer of B bytes, split among the case's threads, before every
sample, untimed (cold caches). Both happen in the process that computes the case.

A failure is {"ok":false,"error":"one line"}, plus "unsupported":true when the library
cannot compute the case (kbench reports it as not supported) or "missing":true when the
library is not installed. No request ends the loop except quit. stdout carries nothing but
replies: what a library prints there is moved to stderr, which otherwise carries only a fatal
traceback.

Each sample times a plain `for _ in range(K): f()` loop, so the Python call overhead is part
of every number: that is what a user of these libraries pays, and kbench's report labels the
comparison with its C calls "C call vs Python call". The library "python" is kbench itself
through its Python module (`import kbench`, docs/python.md), timed by the same loop, so that
kbench's report can compare Python call with Python call; kbench.set_threads(N) runs before
each run of its case. The garbage collector is off while a run is timed, as
in timeit. numexpr runs with numexpr.set_num_threads(N) before each run of its case. PyTorch
runs eager, with torch.set_num_threads(N) before each run of its case;
"torch-compile" runs the same calls through torch.compile (Inductor, C++ for the CPU compiled
with its OpenMP thread count set to N), compiled by setup's call, before any sample. An expr
case's program is translated into each library's functions; one that calls a function the
library lacks is not supported.
JAX runs a function compiled with jax.jit before any sample, each call ending in
block_until_ready; XLA fixes its CPU thread pool when it starts, from PJRT_NPROC, so each
thread count's JAX cases run in a worker process of their own (this same script, started with
PJRT_NPROC=N), to which this process forwards their requests.
"""
import gc
import json
import os
import platform
import shutil
import subprocess
import sys
import threading
import time
import warnings

THREAD_VARIABLES = ["OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "NUMEXPR_NUM_THREADS", "NUMEXPR_MAX_THREADS"]

LIBRARIES = ["numpy", "numexpr", "torch", "torch-compile", "jax", "python"]
# The module each library's version comes from.
MODULES = {"torch-compile": "torch", "python": "kbench"}
REDUCE_OPS = ["sum", "prod", "mean", "min", "max", "argmin", "argmax", "var", "std"]
# numexpr has reductions sum, prod, min and max, but kbench compares only what its own numexpr
# cases cover; an op missing here is reported as unsupported.
NUMEXPR_REDUCE_OPS = ["sum"]
# The dtypes numexpr computes in; anything else it would convert first, which is not the
# same computation as kbench's.
NUMEXPR_DTYPES = ["bool", "int32", "int64", "float32", "float64"]
# Set in the environment of a JAX worker: the thread count XLA was started with.
JAX_WORKER = "KB_BASELINE_JAX_WORKER"

if hasattr(time, "CLOCK_MONOTONIC_RAW"):
    CLOCK, CLOCK_NAME = time.CLOCK_MONOTONIC_RAW, "CLOCK_MONOTONIC_RAW"
else:
    CLOCK, CLOCK_NAME = time.CLOCK_MONOTONIC, "CLOCK_MONOTONIC"


class Failure(Exception):
    """A request that cannot be served; its message becomes the reply's error."""

    def __init__(self, message, **flags):
        super().__init__(message)
        self.flags = flags


def one_line(text):
    return " ".join(str(text).split())


def describe(exc):
    text = one_line(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def not_installed(name, module, exc):
    return Failure(f"{name} is not installed for {sys.executable}: run scripts/install-deps "
                   f"(or pip install {module}) ({describe(exc)})", missing=True)


def import_numpy():
    try:
        import numpy
    except ImportError as exc:
        raise not_installed("NumPy", "numpy", exc) from None
    return numpy


def import_numexpr():
    try:
        import numexpr
    except ImportError:
        return None
    return numexpr


def import_torch():
    try:
        import torch
    except ImportError as exc:
        raise not_installed("PyTorch", "torch", exc) from None
    return torch


def import_jax():
    """JAX with 64-bit types on: without them it would compute float64 inputs in float32."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError as exc:
        raise not_installed("JAX", "jax", exc) from None
    jax.config.update("jax_enable_x64", True)
    return jax, jnp


def import_kbench():
    """kbench's Python module, which `pip install .` at the repository root builds."""
    try:
        import kbench
    except ImportError as exc:
        raise Failure(f"kbench's Python module is not installed for {sys.executable}: run pip "
                      f"install . in kbench's source tree (docs/python.md) ({describe(exc)})",
                      missing=True) from None
    return kbench


def numpy_config(np):
    """The parts of NumPy's build configuration that explain its speed: SIMD and BLAS."""
    config = {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            full = np.show_config(mode="dicts")
    except Exception:  # NumPy < 1.26 only prints its configuration
        full = None
    if isinstance(full, dict):
        simd = full.get("SIMD Extensions", {})
        config["simd"] = {"baseline": list(simd.get("baseline", [])),
                          "found": list(simd.get("found", [])),
                          "not_found": list(simd.get("not found", []))}
        deps = full.get("Build Dependencies", {})
        for name in ["blas", "lapack"]:
            dep = deps.get(name)
            if isinstance(dep, dict):
                config[name] = {k: dep.get(k) for k in ["name", "version", "found"]}
                if "openblas configuration" in dep:
                    config[name]["openblas_configuration"] = dep["openblas configuration"]
        compilers = full.get("Compilers", {}).get("c")
        if isinstance(compilers, dict):
            config["compiler"] = f"{compilers.get('name')} {compilers.get('version')}"
    else:
        # Older NumPy: the dispatch features from its private module, when present.
        try:
            from numpy.core._multiarray_umath import (__cpu_baseline__, __cpu_dispatch__,
                                                      __cpu_features__)
            config["simd"] = {"baseline": list(__cpu_baseline__),
                              "found": [f for f in __cpu_dispatch__ if __cpu_features__.get(f)],
                              "not_found": [f for f in __cpu_dispatch__
                                            if not __cpu_features__.get(f)]}
        except Exception:
            pass
    return config


def timer_resolution_ns():
    """The smallest positive step between two readings, which includes the cost of reading
    the clock from Python: the finest interval this runner can tell apart."""
    best = None
    for _ in range(2000):
        t0 = time.clock_gettime_ns(CLOCK)
        t1 = time.clock_gettime_ns(CLOCK)
        while t1 == t0:
            t1 = time.clock_gettime_ns(CLOCK)
        if best is None or t1 - t0 < best:
            best = t1 - t0
    return best


def hello(request, state):
    np = import_numpy()
    libraries = {"numpy": {"version": np.__version__, "config": numpy_config(np)},
                 "numexpr": None}
    ne = import_numexpr()
    if ne is not None:
        libraries["numexpr"] = {"version": ne.__version__,
                                "threads": ne.get_num_threads(),
                                "max_threads": getattr(ne, "MAX_THREADS", None),
                                "vml": bool(getattr(ne, "use_vml", False))}
    return {"python": platform.python_version(),
            "implementation": platform.python_implementation(),
            "executable": sys.executable,
            "libraries": libraries,
            "threads": {name: os.environ.get(name) for name in THREAD_VARIABLES},
            "timer": {"clock": CLOCK_NAME, "resolution_ns": timer_resolution_ns()}}


def require(request, state):
    """The library, imported, and what it says of itself; a missing one names the command
    that installs it."""
    library = request.get("library")
    if library == "numpy":
        np = import_numpy()
        return {"library": library, "version": np.__version__, "config": numpy_config(np)}
    if library == "numexpr":
        ne = import_numexpr()
        if ne is None:
            raise not_installed("numexpr", "numexpr", ImportError("No module named 'numexpr'"))
        return {"library": library, "version": ne.__version__, "threads": ne.get_num_threads(),
                "vml": bool(getattr(ne, "use_vml", False))}
    if library == "torch":
        torch = import_torch()
        return {"library": library, "version": torch.__version__,
                "default_threads": torch.get_num_threads(),
                "parallel": one_line(torch.__config__.parallel_info())}
    if library == "torch-compile":
        torch = import_torch()
        # Inductor compiles the C++ it generates for the CPU with $CXX, else g++, against
        # this Python's headers.
        compiler = os.environ.get("CXX") or "g++"
        if shutil.which(compiler) is None:
            raise Failure(f"torch.compile needs a C++ compiler for Inductor's CPU code, and "
                          f"{compiler} is not on PATH: run scripts/install-deps (it installs "
                          f"build-essential)", missing=True)
        return {"library": library, "version": torch.__version__, "backend": "inductor",
                "compiler": shutil.which(compiler), "cpp_threads": "per case",
                "default_threads": torch.get_num_threads(),
                "parallel": one_line(torch.__config__.parallel_info())}
    if library == "python":
        kbench = import_kbench()
        return {"library": library, "version": kbench.__version__,
                "git_commit": kbench.git_commit, "module": kbench.__file__,
                "simd": kbench.get_simd(), "default_threads": kbench.get_threads()}
    if library == "jax":
        jax, _ = import_jax()
        import jaxlib
        # XLA's backend starts in the workers, each with its own thread count; this process
        # only imports JAX.
        return {"library": library, "version": jax.__version__,
                "jaxlib": getattr(jaxlib, "__version__", None),
                "threads": "PJRT_NPROC per case, one worker process per thread count",
                "x64": True}
    raise Failure(f"unknown baseline library {json.dumps(library)} "
                  f"(known: {', '.join(LIBRARIES)})", unsupported=True)


def load_input(np, path):
    if not isinstance(path, str) or not path:
        raise Failure("setup needs \"input\", the path of a .npy file")
    try:
        return np.load(path, allow_pickle=False)
    except (TypeError, ValueError) as exc:
        # kbench writes bfloat16 with the descr 'bfloat16', which NumPy knows once
        # ml_dtypes has registered it.
        try:
            import ml_dtypes  # noqa: F401
        except ImportError:
            raise Failure(f"{path}: {describe(exc)}") from None
        try:
            return np.load(path, allow_pickle=False)
        except Exception as again:
            raise Failure(f"{path}: {describe(again)}") from None
    except Exception as exc:
        raise Failure(f"{path}: {describe(exc)}") from None


def check_axis(case, ndim):
    axis = case.get("axis")
    if axis is None:
        return None
    if isinstance(axis, bool) or not isinstance(axis, int):
        raise Failure(f"axis must be an integer or null, not {json.dumps(axis)}")
    if not -ndim <= axis < ndim:
        raise Failure(f"axis {axis} is out of range for an array of {ndim} dimensions")
    return axis % ndim


class Case:
    """A set-up case: the timed call (fn) and what runs before each run of it (prepare), or,
    for a case computed in a JAX worker, that worker."""

    def __init__(self, library, threads, fn=None, prepare=None, worker=None):
        self.library = library
        self.threads = threads
        self.fn = fn
        self.prepare = prepare
        self.worker = worker


LIBRARY_TITLES = {"numpy": "NumPy", "numexpr": "numexpr", "torch": "PyTorch",
                  "torch-compile": "torch.compile", "jax": "JAX", "python": "kbench's Python module"}
FRESH_FUNCTIONS = [0]


def fresh_function(params, body, namespace):
    """A Python function of params whose body is the lines of body, compiled from its own
    source into a new code object: torch.compile caches its compilations per code object, so
    that each case (an op, a thread count, an input) gets its own rather than another case's."""
    FRESH_FUNCTIONS[0] += 1
    source = f"def kb_case({', '.join(params)}):\n" + "".join(f"    {line}\n" for line in body)
    scope = dict(namespace)
    exec(compile(source, f"<kbench case {FRESH_FUNCTIONS[0]}>", "exec"), scope)
    return scope["kb_case"]


def torch_compiled(torch, fn, threads):
    """fn through torch.compile (TorchInductor, C++ and OpenMP code for the CPU) for this
    thread count: Inductor writes the count into the code it generates (cpp.threads), so each
    count compiles its own. The compilation happens at the first call, which setup makes."""
    return torch.compile(fn, fullgraph=True, dynamic=False, options={"cpp.threads": threads})


def numpy_callable(np, case, a, threads):
    op = case.get("op")
    if op not in REDUCE_OPS:
        raise Failure(f"NumPy baseline has no reduce op {json.dumps(op)}", unsupported=True)
    axis = check_axis(case, a.ndim)
    fn = getattr(np, op)
    if op in ("var", "std"):
        return Case("numpy", 1, lambda: fn(a, axis=axis, ddof=0)), np.asarray
    return Case("numpy", 1, lambda: fn(a, axis=axis)), np.asarray


def numexpr_callable(np, case, a, threads):
    ne = import_numexpr()
    if ne is None:
        raise not_installed("numexpr", "numexpr", ImportError("No module named 'numexpr'"))
    op = case.get("op")
    if op not in NUMEXPR_REDUCE_OPS:
        raise Failure(f"numexpr cannot compute {op}", unsupported=True)
    if a.dtype.name not in NUMEXPR_DTYPES:
        raise Failure(f"numexpr does not compute in {a.dtype.name}", unsupported=True)
    axis = check_axis(case, a.ndim)
    # numexpr takes the axis as a literal in the expression, and no negative axes.
    text = f"{op}(a)" if axis is None else f"{op}(a, axis={axis})"
    local = {"a": a}
    call = numexpr_case(ne, threads, lambda: ne.evaluate(text, local_dict=local))
    return call, np.asarray


def numexpr_case(ne, threads, fn):
    """A numexpr case at `threads` threads (None: numexpr's count of the moment). numexpr's
    thread count is one setting of the process, and a group has a numexpr case at each of its
    thread counts, so it is set before each run of the case, as PyTorch's is; the case records
    the count numexpr reports once set, which setup's reply says."""
    if threads is not None:
        ne.set_num_threads(threads)
    threads = ne.get_num_threads()
    return Case("numexpr", threads, fn, lambda: ne.set_num_threads(threads))


def torch_reduction(np, case, a, library):
    """The reduction as a PyTorch call on a tensor that shares NumPy's copy of the input."""
    torch = import_torch()
    title = LIBRARY_TITLES[library]
    op = case.get("op")
    if op not in REDUCE_OPS:
        raise Failure(f"{title} baseline has no reduce op {json.dumps(op)}", unsupported=True)
    axis = check_axis(case, a.ndim)
    bfloat16 = a.dtype.name == "bfloat16"
    try:
        # The same memory as NumPy's copy of the input; bfloat16 through its bits, since
        # torch.from_numpy does not know ml_dtypes' type.
        t = (torch.from_numpy(a.view(np.int16)).view(torch.bfloat16) if bfloat16
             else torch.from_numpy(a))
    except TypeError as exc:
        raise Failure(f"PyTorch has no tensor of {a.dtype.name}: {describe(exc)}",
                      unsupported=True) from None
    if op in ("mean", "var", "std") and not t.is_floating_point():
        raise Failure(f"PyTorch has no {op} of {a.dtype.name} (torch.{op} takes floating "
                      "point only)", unsupported=True)
    dim = {} if axis is None else {"dim": axis}
    f = {"sum": torch.sum, "prod": torch.prod, "mean": torch.mean, "min": torch.amin,
         "max": torch.amax, "argmin": torch.argmin, "argmax": torch.argmax,
         "var": torch.var, "std": torch.std}[op]
    if op in ("var", "std"):
        dim["correction"] = 0

    def to_numpy(r):
        r = r.detach()
        return r.view(torch.int16).numpy().view(a.dtype) if bfloat16 else r.numpy()
    return torch, f, dim, t, to_numpy


def torch_callable(np, case, a, threads):
    torch, f, dim, t, to_numpy = torch_reduction(np, case, a, "torch")
    threads = threads or torch.get_num_threads()
    return Case("torch", threads, lambda: f(t, **dim),
                lambda: torch.set_num_threads(threads)), to_numpy


def torch_compile_callable(np, case, a, threads):
    torch, f, dim, t, to_numpy = torch_reduction(np, case, a, "torch-compile")
    threads = threads or torch.get_num_threads()
    call = fresh_function(["t"], ["return f(t, **dim)"], {"f": f, "dim": dim})
    compiled = torch_compiled(torch, call, threads)
    return Case("torch-compile", threads, lambda: compiled(t),
                lambda: torch.set_num_threads(threads)), to_numpy


def jax_callable(np, case, a, threads):
    jax, jnp = import_jax()
    op = case.get("op")
    if op not in REDUCE_OPS:
        raise Failure(f"JAX baseline has no reduce op {json.dumps(op)}", unsupported=True)
    axis = check_axis(case, a.ndim)
    started = int(os.environ[JAX_WORKER])
    if threads is not None and threads != started:
        raise Failure(f"this JAX worker runs {started} threads, not {threads}")
    f = getattr(jnp, op)
    kwargs = {"axis": axis, "ddof": 0} if op in ("var", "std") else {"axis": axis}
    x = jax.device_put(a)
    try:
        compiled = jax.jit(lambda v: f(v, **kwargs)).lower(x).compile()
    except TypeError as exc:
        raise Failure(f"JAX cannot compute {op} of {a.dtype.name}: {describe(exc)}",
                      unsupported=True) from None
    return Case("jax", started, lambda: compiled(x).block_until_ready()), np.asarray


def kbench_callable(np, case, a, threads):
    """kbench's own kernels through its Python module, called as NumPy is: kbench.sum(a,
    axis=k), at the thread count of the case (set before each run) and the automatic SIMD
    level."""
    kbench = import_kbench()
    op = case.get("op")
    if op not in REDUCE_OPS:
        raise Failure(f"kbench's Python module has no reduce op {json.dumps(op)}",
                      unsupported=True)
    axis = check_axis(case, a.ndim)
    fn = getattr(kbench, op)
    threads = threads or kbench.get_threads()
    call = (lambda: fn(a, axis=axis, ddof=0)) if op in ("var", "std") else \
        (lambda: fn(a, axis=axis))
    return Case("python", threads, call, lambda: kbench.set_threads(threads)), np.asarray


CALLABLES = {"numpy": numpy_callable, "numexpr": numexpr_callable, "torch": torch_callable,
             "torch-compile": torch_compile_callable, "jax": jax_callable,
             "python": kbench_callable}


# ---- Expressions (kbench's `expr` suite) ----------------------------------------------------
#
# A case {"kind":"expr","source":..,"vars":[..]} is a program of kbench's expression language:
# statements separated by ';', "name = value" or, last, the value; its variables are the
# input's rows (input[0], input[1], ...). The language is NumPy's syntax, so NumPy evaluates
# it with the language's functions bound to NumPy's; numexpr as its users combine it with
# NumPy: each statement without a reduction through numexpr.evaluate, the reductions through
# NumPy.

REDUCTIONS = ["sum", "prod", "mean", "min", "max", "argmin", "argmax", "var", "std"]
EXPR_FUNCTIONS = ["abs", "sqrt", "square", "reciprocal", "exp", "expm1", "exp2", "log", "log1p",
                  "log2", "log10", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "tanh",
                  "sinh", "cosh", "floor", "ceil", "rint", "sign", "maximum", "minimum", "clip",
                  "where", "isnan", "isfinite"]


def expr_program(case):
    """The statements of an expr case as (target or None, text), and its variable names."""
    source, names = case.get("source"), case.get("vars")
    if not isinstance(source, str) or not isinstance(names, list) or not names or not all(
            isinstance(n, str) and n.isidentifier() for n in names):
        raise Failure("an expr case needs \"source\" and \"vars\", a list of names")
    statements = []
    for text in source.split(";"):
        target, eq, value = text.partition("=")
        if eq and target.strip().isidentifier() and not value.startswith("="):
            statements.append((target.strip(), value.strip()))
        else:
            statements.append((None, text.strip()))
    if statements[-1][0] is not None:
        raise Failure("an expr case's last statement must be its value")
    return statements, names


def expr_variables(np, case, a):
    statements, names = expr_program(case)
    if a.ndim < 2 or a.shape[0] != len(names):
        raise Failure(f"an expr case over {len(names)} variables needs an input of that many "
                      f"rows, not shape {list(a.shape)}")
    return statements, {n: a[i] for i, n in enumerate(names)}


def expr_namespace(np):
    ns = {f: getattr(np, f) for f in EXPR_FUNCTIONS + REDUCTIONS}
    ns["abs"] = np.abs
    return ns


def numpy_expr_callable(np, case, a, threads):
    statements, variables = expr_variables(np, case, a)
    namespace = with_np_prefix(expr_namespace(np))
    check_expressible("numpy", statements, namespace)
    code = [(t, compile(v, "<expr>", "eval")) for t, v in statements]
    ns = dict(namespace, **variables)

    def evaluate():
        scope = dict(ns)
        for target, c in code[:-1]:
            scope[target] = eval(c, scope)
        return eval(code[-1][1], scope)
    return Case("numpy", 1, evaluate), np.asarray


def numexpr_expr_callable(np, case, a, threads):
    import re
    ne = import_numexpr()
    if ne is None:
        raise not_installed("numexpr", "numexpr", ImportError("No module named 'numexpr'"))
    if a.dtype.name not in NUMEXPR_DTYPES:
        raise Failure(f"numexpr does not compute in {a.dtype.name}", unsupported=True)
    statements, variables = expr_variables(np, case, a)
    # numexpr computes a literal such as 0.01 in float64 and so a float32 expression in
    # float64; as its users do, the literals become variables of the input's type.
    constants = {}

    def typed(match):
        name = f"_c{len(constants)}"
        constants[name] = a.dtype.type(float(match.group(0)))
        return name
    literal = re.compile(r"(?<![\w.])(\d+\.\d*(e[-+]?\d+)?|\d+e[-+]?\d+)")
    reduction = re.compile(r"\b(" + "|".join(REDUCTIONS) + r")\(")
    steps = []
    for target, value in statements:
        if reduction.search(value):
            steps.append((target, compile(value, "<expr>", "eval"), None))
        else:
            steps.append((target, None, literal.sub(typed, value)))
    ns = dict(expr_namespace(np), **variables, **constants)

    def evaluate():
        scope = dict(ns)
        result = None
        for target, code, text in steps:
            result = eval(code, scope) if code is not None else ne.evaluate(text,
                                                                             local_dict=scope)
            if target is not None:
                scope[target] = result
        return result
    return numexpr_case(ne, threads, evaluate), np.asarray


def called_names(statements):
    """The functions a program calls, by name (an "np." prefix dropped), in order."""
    import ast
    names = []
    for _, text in statements:
        try:
            tree = ast.parse(text, mode="eval")
        except SyntaxError as exc:
            raise Failure(f"an expr case's statement is not Python syntax: {describe(exc)}") \
                from None
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                f = node.func
                if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and \
                        f.value.id == "np":
                    f = ast.Name(id=f.attr)
                name = f.id if isinstance(f, ast.Name) else ast.unparse(f)
                if name not in names:
                    names.append(name)
    return names


def check_expressible(library, statements, namespace):
    """A function of the language that the library's namespace lacks cannot be expressed in
    it: the case is reported as not supported, not failed."""
    missing = [n for n in called_names(statements) if n not in namespace]
    if missing:
        raise Failure(f"{LIBRARY_TITLES[library]} cannot express this expression: it has no "
                      f"{', '.join(missing)}", unsupported=True)


def with_np_prefix(namespace):
    """The namespace, and the same functions under "np." as the language allows."""
    import types
    return dict(namespace, np=types.SimpleNamespace(**namespace))


def expr_function(names, statements, namespace):
    """The program as a Python function of its variables."""
    body = [f"{t} = {v}" for t, v in statements[:-1]] + [f"return {statements[-1][1]}"]
    return fresh_function(names, body, namespace)


def torch_expr_namespace(torch):
    """The language's functions as PyTorch's: NumPy's names where PyTorch has them, its own
    where it differs (amax for max, clamp for clip, round for rint, which rounds half to
    even as rint does), and the reductions' NumPy parameters (axis, keepdims, ddof) as
    PyTorch's (dim, keepdim, correction). The elementwise functions are PyTorch's own, called
    directly, so that eager PyTorch pays no wrapper of kbench's; a Python scalar where one
    wants a tensor (sqrt(2.0)) is a TypeError, reported as not supported."""
    def tensors(f):
        # maximum(x, 0): PyTorch's takes tensors only, and a user passes a 0-d tensor (weak in
        # PyTorch's promotion, as a Python scalar in NEP 50).
        def call(a, b):
            return f(*[v if isinstance(v, torch.Tensor) else torch.as_tensor(v) for v in (a, b)])
        return call

    def reduction(f, all_dims=True, moments=False):
        def call(x, axis=None, keepdims=False, ddof=0):
            kwargs = {"correction": ddof} if moments else {}
            if axis is None and not all_dims:  # prod, argmin, argmax take one dim or none
                r = f(x, **kwargs)
                return r.reshape([1] * x.dim()) if keepdims else r
            dim = tuple(range(x.dim())) if axis is None else axis
            return f(x, dim=dim, keepdim=keepdims, **kwargs)
        return call

    ns = {name: getattr(torch, name) for name in
          ["abs", "sqrt", "square", "reciprocal", "exp", "expm1", "exp2", "log", "log1p", "log2",
           "log10", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "tanh", "sinh", "cosh",
           "floor", "ceil", "sign", "isnan", "isfinite", "sigmoid", "erf"]}
    ns.update(maximum=tensors(torch.maximum), minimum=tensors(torch.minimum), rint=torch.round,
              clip=torch.clamp, where=torch.where,
              sum=reduction(torch.sum), prod=reduction(torch.prod, all_dims=False),
              mean=reduction(torch.mean), min=reduction(torch.amin),
              max=reduction(torch.amax), argmin=reduction(torch.argmin, all_dims=False),
              argmax=reduction(torch.argmax, all_dims=False),
              var=reduction(torch.var, moments=True), std=reduction(torch.std, moments=True))
    return with_np_prefix(ns)


def torch_expr_function(np, case, a, library):
    """The program over PyTorch tensors that share NumPy's copy of the input's rows."""
    torch = import_torch()
    statements, variables = expr_variables(np, case, a)
    namespace = torch_expr_namespace(torch)
    check_expressible(library, statements, namespace)
    try:
        tensors = [torch.from_numpy(v) for v in variables.values()]
    except TypeError as exc:
        raise Failure(f"PyTorch has no tensor of {a.dtype.name}: {describe(exc)}",
                      unsupported=True) from None
    fn = expr_function(list(variables), statements, namespace)

    def to_numpy(r):
        return r.detach().numpy() if isinstance(r, torch.Tensor) else np.asarray(r)
    return torch, fn, tensors, to_numpy


def torch_expr_callable(np, case, a, threads):
    """PyTorch eager: each operation a call into ATen, into a new tensor."""
    torch, fn, tensors, to_numpy = torch_expr_function(np, case, a, "torch")
    threads = threads or torch.get_num_threads()
    return Case("torch", threads, lambda: fn(*tensors),
                lambda: torch.set_num_threads(threads)), to_numpy


def torch_compile_expr_callable(np, case, a, threads):
    torch, fn, tensors, to_numpy = torch_expr_function(np, case, a, "torch-compile")
    threads = threads or torch.get_num_threads()
    compiled = torch_compiled(torch, fn, threads)
    return Case("torch-compile", threads, lambda: compiled(*tensors),
                lambda: torch.set_num_threads(threads)), to_numpy


def jax_expr_callable(np, case, a, threads):
    """JAX: the program through jax.numpy, jax.jit-compiled for the input before any sample,
    every call ending in block_until_ready, in the worker of its thread count."""
    jax, jnp = import_jax()
    started = int(os.environ[JAX_WORKER])
    if threads is not None and threads != started:
        raise Failure(f"this JAX worker runs {started} threads, not {threads}")
    statements, variables = expr_variables(np, case, a)
    namespace = with_np_prefix({f: getattr(jnp, f) for f in EXPR_FUNCTIONS + REDUCTIONS
                                if hasattr(jnp, f)})
    namespace.update(sigmoid=jax.nn.sigmoid, erf=jax.scipy.special.erf)
    check_expressible("jax", statements, namespace)
    fn = expr_function(list(variables), statements, namespace)
    xs = [jax.device_put(v) for v in variables.values()]
    try:
        compiled = jax.jit(fn).lower(*xs).compile()
    except TypeError as exc:
        raise Failure(f"JAX cannot compute this expression in {a.dtype.name}: {describe(exc)}",
                      unsupported=True) from None
    return Case("jax", started, lambda: compiled(*xs).block_until_ready()), np.asarray


EXPR_CALLABLES = {"numpy": numpy_expr_callable, "numexpr": numexpr_expr_callable,
                  "torch": torch_expr_callable, "torch-compile": torch_compile_expr_callable,
                  "jax": jax_expr_callable}


class Worker:
    """A JAX worker: this script again, with XLA's CPU thread pool set to `threads` through
    PJRT_NPROC before JAX starts. Its stderr is this process's."""

    def __init__(self, threads):
        self.threads = threads
        env = dict(os.environ, PJRT_NPROC=str(threads))
        env[JAX_WORKER] = str(threads)
        self.proc = subprocess.Popen([sys.executable, os.path.abspath(__file__)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env,
                                     text=True, encoding="utf-8")

    def send(self, request):
        try:
            self.proc.stdin.write(json.dumps(request) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except OSError as exc:
            line = ""
            why = describe(exc)
        else:
            why = "no reply"
        if not line:
            code = self.proc.poll()
            raise Failure(f"the JAX worker for {self.threads} threads ended ({why}, exit status "
                          f"{code})")
        return json.loads(line)

    def ask_to_quit(self):
        """The first half of closing: the worker is told to quit and left to exit, so that
        several workers tear JAX down at once rather than one after another."""
        try:
            self.send({"cmd": "quit"})
            self.proc.stdin.close()
        except (Failure, OSError, ValueError):
            self.proc.kill()

    def close(self, deadline):
        """Waits for the worker's exit until deadline (time.monotonic()), then kills it."""
        try:
            self.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def forward(worker, request):
    reply = worker.send(request)
    if not reply.get("ok"):
        flags = {k: True for k in ("unsupported", "missing") if reply.get(k)}
        raise Failure(reply.get("error", "the JAX worker failed without a message"), **flags)
    reply.pop("ok")
    return reply


def cached_input(np, path, state):
    """The array in path, loaded once for the libraries of a group, and again if the file
    changed since (kbench writes each case's input to a new file)."""
    try:
        st = os.stat(path)
        key = (path, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
    except (OSError, TypeError, ValueError):
        key = None
    cached = state.get("input")
    if key is not None and cached is not None and cached[0] == key:
        return cached[1]
    state.pop("input", None)  # the old array goes before the new one is loaded
    a = load_input(np, path)
    if key is not None:
        state["input"] = (key, a)
    return a


def case_id(request, key="id"):
    value = request.get(key)
    if value is not None and (not isinstance(value, str) or not value):
        raise Failure(f"\"{key}\" must be a non-empty string, not {json.dumps(value)}")
    return value


def setup(request, state):
    np = import_numpy()
    library = request.get("library")
    cid = case_id(request) or library
    if isinstance(cid, str) and cid in state["cases"]:
        drop_cases(state)
    return setup_case(np, library, cid, request, state)


def jax_worker(threads, state):
    if threads is None:
        threads = len(os.sched_getaffinity(0))
    worker = state["workers"].get(threads)
    if worker is None or worker.proc.poll() is not None:
        worker = state["workers"][threads] = Worker(threads)
    return worker


def setup_case(np, library, cid, request, state):
    case = request.get("case")
    if not isinstance(case, dict):
        raise Failure("setup needs \"case\", an object")
    kind = case.get("kind")
    if kind not in ("reduce", "expr"):
        raise Failure(f"no baseline for case kind {json.dumps(kind)}", unsupported=True)
    threads = request.get("threads")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or threads < 1):
        raise Failure(f"threads must be a positive integer or null, not {json.dumps(threads)}")
    output = request.get("output")
    if not isinstance(output, str) or not output:
        raise Failure("setup needs \"output\", the path the result is saved to")
    table = EXPR_CALLABLES if kind == "expr" else CALLABLES
    make = table.get(library) if isinstance(library, str) else None
    if make is None and library in LIBRARIES:
        raise Failure(f"{LIBRARY_TITLES[library]} has no baseline of {kind} cases",
                      unsupported=True)
    if make is None:
        raise Failure(f"unknown baseline library {json.dumps(library)} "
                      f"(known: {', '.join(LIBRARIES)})", unsupported=True)

    if library == "jax" and JAX_WORKER not in os.environ:
        import_jax()  # a missing JAX is reported here, before a worker starts
        worker = jax_worker(threads, state)
        reply = forward(worker, dict(request, id=cid))
        state["cases"][cid] = Case(library, worker.threads, worker=worker)
        return reply

    a = cached_input(np, request.get("input"), state)
    made, to_numpy = make(np, case, a, threads)
    version = sys.modules[MODULES.get(library, library)].__version__
    if made.prepare:
        made.prepare()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = to_numpy(made.fn())
        except (NotImplementedError, TypeError) as exc:
            raise Failure(f"{library} cannot compute this case: {describe(exc)}",
                          unsupported=True) from None
        except Exception as exc:
            # PyTorch says so when a kernel lacks a dtype ("sum" not implemented for 'UInt16').
            unsupported = "not implemented for" in str(exc)
            raise Failure(f"{library} failed on this case: {describe(exc)}",
                          **({"unsupported": True} if unsupported else {})) from None
    try:
        # Through a file object: np.save would add ".npy" to a path without it.
        with open(output, "wb") as f:
            np.save(f, result, allow_pickle=False)
    except Exception as exc:
        raise Failure(f"{output}: {describe(exc)}") from None
    state["cases"][cid] = made
    reply = {"library": library, "id": cid, "version": version,
             "result_dtype": result.dtype.name, "result_shape": list(result.shape),
             "threads": made.threads}
    if caught:
        reply["warnings"] = [one_line(w.message) for w in caught]
    return reply


def positive_int(request, key):
    value = request.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise Failure(f"run needs \"{key}\", a positive integer, not {json.dumps(value)}")
    return value


def optional_count(request, key):
    value = request.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Failure(f"\"{key}\" must be a non-negative integer, not {json.dumps(value)}")
    return value


def make_flush(np, nbytes, threads):
    """A call that reads one word of every 64-byte line of a buffer of nbytes, split among
    `threads` threads, so that the caches of every core the next sample uses hold none of
    what the previous one left (as kbench's --cache cold does in its own process). NumPy's
    reductions release the GIL, so the parts are read in parallel."""
    words = np.ones(max(nbytes // 8, 8), dtype=np.uint64)  # written: its pages exist
    lines = words[::8]
    if threads <= 1:
        return lambda: np.add.reduce(lines)
    parts = np.array_split(lines, threads)

    def read(part, out, k):
        out[k] = np.add.reduce(part)

    def flush():
        out = [0] * threads
        team = [threading.Thread(target=read, args=(p, out, k)) for k, p in enumerate(parts)]
        for t in team:
            t.start()
        for t in team:
            t.join()
        return out
    return flush


def flush_for(np, nbytes, threads, state):
    cached = state.get("flush")
    if cached is not None and cached[0] == (nbytes, threads):
        return cached[1]
    state.pop("flush", None)
    flush = make_flush(np, nbytes, threads)
    state["flush"] = ((nbytes, threads), flush)
    return flush


def pick_case(request, state):
    cases = state["cases"]
    key = case_id(request) or case_id(request, "library")
    if key is None:
        if len(cases) > 1:
            raise Failure(f"run needs \"library\" (or \"id\"): {', '.join(sorted(cases))} "
                          "have cases")
        return next(iter(cases.values()), None), None
    return cases.get(key), key


# How long a block's end waits, at most, for this process's other threads to stop running, and
# how often it looks (settle).
SETTLE_LIMIT_S = 0.05
SETTLE_POLL_S = 0.0002


def other_threads_running():
    """Whether a thread of this process other than the caller is running or runnable (state R
    in /proc/self/task/*/stat); False where /proc is not there to say."""
    me = threading.get_native_id()
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return False
    for tid in tids:
        if tid == str(me):
            continue
        try:
            with open(f"/proc/self/task/{tid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue  # the thread has exited
        if stat[stat.rfind(b")") + 2:][:1] == b"R":
            return True
    return False


def settle():
    """Waits until no other thread of this process is running, at most SETTLE_LIMIT_S: XLA's
    workers (JAX's worker processes) and other pools spin for a while after the last call, into
    the next block of samples, another process's (docs/baselines.md). A thread's state, not its
    CPU time: the time of a thread running on another CPU is only brought up to date at the
    scheduler's ticks."""
    deadline = time.monotonic() + SETTLE_LIMIT_S
    while other_threads_running() and time.monotonic() < deadline:
        time.sleep(SETTLE_POLL_S)


def run(request, state):
    calls = positive_int(request, "calls")
    samples = positive_int(request, "samples")
    warmup = optional_count(request, "warmup")
    flush_bytes = optional_count(request, "flush_bytes")
    case, key = pick_case(request, state)
    if case is None:
        which = f" for {key}" if key is not None else ""
        raise Failure(f"run before setup: no case is set up{which}")
    if case.worker is not None:
        forwarded = {"cmd": "run", "calls": calls, "samples": samples, "warmup": warmup,
                     "flush_bytes": flush_bytes}
        if key is not None:
            forwarded["id"] = key
        return forward(case.worker, forwarded)
    flush = flush_for(import_numpy(), flush_bytes, case.threads, state) if flush_bytes else None
    if case.prepare:
        case.prepare()
    fn, clock, now = case.fn, CLOCK, time.clock_gettime_ns
    loop = range(calls)
    sample_ns = []
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(warmup):
            fn()
        for _ in range(samples):
            if flush:
                flush()
            t0 = now(clock)
            for _ in loop:
                fn()
            t1 = now(clock)
            sample_ns.append(t1 - t0)
    except Exception as exc:
        raise Failure(f"the case failed while timed: {describe(exc)}") from None
    finally:
        if gc_was_enabled:
            gc.enable()
    settle()
    return {"sample_ns": sample_ns}


def drop_cases(state):
    state["cases"].clear()
    state.pop("input", None)
    for worker in state["workers"].values():
        try:
            worker.send({"cmd": "teardown"})
        except Failure:
            pass


def teardown(request, state):
    key = case_id(request) or case_id(request, "library")
    if key is None:
        drop_cases(state)
    else:
        case = state["cases"].pop(key, None)
        if case is not None and case.worker is not None:
            forward(case.worker, {"cmd": "teardown", "id": key})
        if not state["cases"]:
            drop_cases(state)
    return {}


COMMANDS = {"hello": hello, "require": require, "setup": setup, "run": run,
            "teardown": teardown}


def serve(line, state):
    """The reply to one request line, and whether to stop after sending it."""
    try:
        request = json.loads(line)
    except ValueError as exc:
        return {"ok": False, "error": f"malformed request: {describe(exc)}"}, False
    if not isinstance(request, dict):
        return {"ok": False, "error": "malformed request: not a JSON object"}, False
    cmd = request.get("cmd")
    if cmd == "quit":
        return {"ok": True}, True
    handler = COMMANDS.get(cmd)
    if handler is None:
        return {"ok": False, "error": f"unknown cmd {json.dumps(cmd)} "
                "(known: hello, require, setup, run, teardown, quit)"}, False
    try:
        reply = {"ok": True}
        reply.update(handler(request, state))
        return reply, False
    except Failure as exc:
        reply = {"ok": False, "error": one_line(exc)}
        reply.update(exc.flags)
        return reply, False
    except Exception as exc:  # a bug here must not end the run: report it and carry on
        return {"ok": False, "error": f"{cmd} failed: {describe(exc)}"}, False


def new_state():
    """"cases": id -> Case; "input": the loaded input they share; "workers": thread count ->
    the JAX worker that runs that many; "flush": the buffer of cold samples."""
    return {"cases": {}, "workers": {}}


def main():
    # Replies get a private copy of stdout, and whatever a library prints (from Python or C)
    # goes to stderr instead, where it cannot break the protocol.
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    # A warning would print to stderr; setup reports the first call's warnings in its reply.
    warnings.simplefilter("ignore")
    state = new_state()
    try:
        for raw in sys.stdin.buffer:
            line = raw.decode("utf-8", errors="replace").strip()
            if not line:
                continue
            reply, stop = serve(line, state)
            replies.write(json.dumps(reply, default=str) + "\n")
            replies.flush()
            if stop:
                break
    finally:
        workers = list(state["workers"].values())
        for worker in workers:
            worker.ask_to_quit()
        deadline = time.monotonic() + WORKER_EXIT_WAIT
        for worker in workers:
            worker.close(deadline)
    return 0


# How long the JAX workers together get to exit after quit. kbench waits longer for this
# process (KB_BASELINE_STOP_WAIT in src/bench/baseline_process.c).
WORKER_EXIT_WAIT = 10.0


if __name__ == "__main__":
    status = main()
    # Every reply is written and flushed, and the workers are gone: the interpreter's own
    # teardown (PyTorch's and JAX's modules and threads) would only add seconds on a loaded
    # machine before the exit kbench waits for.
    sys.stderr.flush()
    os._exit(status)
