#!/usr/bin/env python3
"""Times NumPy and numexpr for kbench, as a child process that kbench starts once per run.

Protocol: one JSON object per line on stdin, one JSON reply per line on stdout.

  {"cmd":"hello"}     -> {"ok":true,"python":..,"executable":..,"libraries":{..},
                          "threads":{..},"timer":{..}}
  {"cmd":"setup","library":"numpy"|"numexpr","case":{"kind":"reduce","op":..,"axis":..},
   "input":"in.npy","output":"out.npy","threads":N}
                      -> {"ok":true,"library":..,"version":..,"result_dtype":..,
                          "result_shape":[..],"threads":N}
  {"cmd":"run","library":"numpy","calls":K,"samples":M}
                      -> {"ok":true,"sample_ns":[M integers, each K calls]}
  {"cmd":"teardown"}  -> {"ok":true}   (or with "library": drops that one only)
  {"cmd":"quit"}      -> {"ok":true}, then exit 0 (end of input exits 0 too)

The cases set up since the last teardown form a group, at most one per library, so that
kbench can interleave rounds of NumPy and numexpr on the same case; they share one loaded
copy of the input. A setup for a library that has a case already starts a new group: every
case is dropped first, so none of an earlier group lingers. A failed setup leaves its library
without a case. "library" may be left out of run when only one library has a case.

A failure is {"ok":false,"error":"one line"}, plus "unsupported":true when the library
cannot compute the case (kbench skips it) or "missing":true when the library is not
installed. No request ends the loop except quit. stdout carries nothing but replies: what a
library prints there is moved to stderr, which otherwise carries only a fatal traceback.

Each sample times a plain `for _ in range(K): f()` loop, so the Python call overhead is part
of every NumPy number: that is what a NumPy user pays, and kbench's report labels the
comparison "C call vs Python call". The garbage collector is off while a run is timed, as
in timeit.
"""
import gc
import json
import os
import platform
import sys
import time
import warnings

THREAD_VARIABLES = ["OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                    "NUMEXPR_NUM_THREADS", "NUMEXPR_MAX_THREADS"]

REDUCE_OPS = ["sum", "prod", "mean", "min", "max", "argmin", "argmax", "var", "std"]
# numexpr has reductions sum, prod, min and max, but kbench compares only what its own numexpr
# cases cover; an op missing here is reported as unsupported, and kbench skips it.
NUMEXPR_REDUCE_OPS = ["sum"]
# The dtypes numexpr computes in; anything else it would convert first, which is not the
# same computation as kbench's.
NUMEXPR_DTYPES = ["bool", "int32", "int64", "float32", "float64"]

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


def import_numpy():
    try:
        import numpy
    except ImportError as exc:
        raise Failure(f"NumPy is not installed for {sys.executable}: run scripts/install-deps "
                      f"(or pip install numpy) ({describe(exc)})", missing=True) from None
    return numpy


def import_numexpr():
    try:
        import numexpr
    except ImportError:
        return None
    return numexpr


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


def numpy_callable(np, case, a):
    op = case.get("op")
    if op not in REDUCE_OPS:
        raise Failure(f"NumPy baseline has no reduce op {json.dumps(op)}", unsupported=True)
    axis = check_axis(case, a.ndim)
    fn = getattr(np, op)
    if op in ("var", "std"):
        return lambda: fn(a, axis=axis, ddof=0), 1
    return lambda: fn(a, axis=axis), 1


def numexpr_callable(ne, case, a, threads):
    op = case.get("op")
    if op not in NUMEXPR_REDUCE_OPS:
        raise Failure(f"numexpr cannot compute {op}", unsupported=True)
    if a.dtype.name not in NUMEXPR_DTYPES:
        raise Failure(f"numexpr does not compute in {a.dtype.name}", unsupported=True)
    axis = check_axis(case, a.ndim)
    if threads is not None:
        ne.set_num_threads(threads)
    # numexpr takes the axis as a literal in the expression, and no negative axes.
    text = f"{op}(a)" if axis is None else f"{op}(a, axis={axis})"
    local = {"a": a}
    return lambda: ne.evaluate(text, local_dict=local), ne.get_num_threads()


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


def setup(request, state):
    np = import_numpy()
    library = request.get("library")
    if isinstance(library, str) and library in state["cases"]:
        drop_cases(state)
    return setup_case(np, library, request, state)


def setup_case(np, library, request, state):
    case = request.get("case")
    if not isinstance(case, dict):
        raise Failure("setup needs \"case\", an object")
    if case.get("kind") != "reduce":
        raise Failure(f"no baseline for case kind {json.dumps(case.get('kind'))}",
                      unsupported=True)
    threads = request.get("threads")
    if threads is not None and (isinstance(threads, bool) or not isinstance(threads, int)
                                or threads < 1):
        raise Failure(f"threads must be a positive integer or null, not {json.dumps(threads)}")
    output = request.get("output")
    if not isinstance(output, str) or not output:
        raise Failure("setup needs \"output\", the path the result is saved to")

    if library == "numpy":
        version = np.__version__
        a = cached_input(np, request.get("input"), state)
        fn, used_threads = numpy_callable(np, case, a)
    elif library == "numexpr":
        ne = import_numexpr()
        if ne is None:
            raise Failure(f"numexpr is not installed for {sys.executable}: run "
                          "scripts/install-deps (or pip install numexpr)", missing=True)
        version = ne.__version__
        a = cached_input(np, request.get("input"), state)
        fn, used_threads = numexpr_callable(ne, case, a, threads)
    else:
        raise Failure(f"unknown baseline library {json.dumps(library)} "
                      "(known: numpy, numexpr)", unsupported=True)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = np.asarray(fn())
        except Exception as exc:
            raise Failure(f"{library} failed on this case: {describe(exc)}") from None
    try:
        # Through a file object: np.save would add ".npy" to a path without it.
        with open(output, "wb") as f:
            np.save(f, result, allow_pickle=False)
    except Exception as exc:
        raise Failure(f"{output}: {describe(exc)}") from None
    state["cases"][library] = fn
    reply = {"library": library, "version": version, "result_dtype": result.dtype.name,
             "result_shape": list(result.shape), "threads": used_threads}
    if caught:
        reply["warnings"] = [one_line(w.message) for w in caught]
    return reply


def positive_int(request, key):
    value = request.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise Failure(f"run needs \"{key}\", a positive integer, not {json.dumps(value)}")
    return value


def run(request, state):
    calls = positive_int(request, "calls")
    samples = positive_int(request, "samples")
    cases = state["cases"]
    library = request.get("library")
    if library is None:
        if len(cases) > 1:
            raise Failure(f"run needs \"library\": {', '.join(sorted(cases))} have cases")
        fn = next(iter(cases.values()), None)
    else:
        fn = cases.get(library)
    if fn is None:
        which = f" for {library}" if library is not None else ""
        raise Failure(f"run before setup: no case is set up{which}")
    clock, now = CLOCK, time.clock_gettime_ns
    loop = range(calls)
    sample_ns = []
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        for _ in range(samples):
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
    return {"sample_ns": sample_ns}


def drop_cases(state):
    state["cases"].clear()
    state.pop("input", None)


def teardown(request, state):
    library = request.get("library")
    if library is None:
        drop_cases(state)
    else:
        state["cases"].pop(library, None)
        if not state["cases"]:
            drop_cases(state)
    return {}


COMMANDS = {"hello": hello, "setup": setup, "run": run, "teardown": teardown}


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
                "(known: hello, setup, run, teardown, quit)"}, False
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


def main():
    # Replies get a private copy of stdout, and whatever a library prints (from Python or C)
    # goes to stderr instead, where it cannot break the protocol.
    replies = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    # A warning would print to stderr; setup reports the first call's warnings in its reply.
    warnings.simplefilter("ignore")
    # "cases": library -> the set-up case's callable; "input": the loaded input they share.
    state = {"cases": {}}
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", errors="replace").strip()
        if not line:
            continue
        reply, stop = serve(line, state)
        replies.write(json.dumps(reply, default=str) + "\n")
        replies.flush()
        if stop:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
