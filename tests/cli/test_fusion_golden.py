#!/usr/bin/env python3
"""Golden tests of the fusion planner (issue 23, docs/fusion.md): for each expression, the
number of kernels and the numel (elements read plus elements written over all kernels, as
TorchInductor's tests count them) of `kbench eval --explain=json`, worked out by hand below;
the fused results against NumPy; transpose, permute and tuples of results against NumPy, fused
and eager; the eager plans' numel for a few, worked out by hand too; and the text form of
--explain and its refusals.

Usage: test_fusion_golden.py path/to/kbench"""

import json
import os
import sys
import tempfile

import numpy as np

from harness import check, fail, finish, kbench

RNG = np.random.default_rng(23)


def save(tmp, name, array, stem=None):
    """NAME=FILE for an array saved in tmp (as stem.npy, by default name.npy)."""
    path = os.path.join(tmp, (stem or name) + ".npy")
    np.save(path, array)
    return f"{name}={path}"


def explain(source, bindings, *extra):
    code, out, err = kbench("eval", "--explain=json", *extra, source, *bindings)
    if not check(code == 0, f"--explain {source!r}: exit {code}, {err.strip()}"):
        return None
    return json.loads(out)


def golden(label, source, bindings, kernels, numel, eager_numel=None):
    plan = explain(source, bindings)
    if plan is None:
        return
    check(plan["note"] == "", f"{label}: fell back to eager: {plan['note']}")
    check(plan["kernels"] == kernels and len(plan["plan"]) == kernels,
          f"{label}: {plan['kernels']} kernels, expected {kernels}")
    check(plan["numel"] == numel, f"{label}: numel {plan['numel']}, expected {numel}")
    total = sum(k["elements_read"] + k["elements_written"] for k in plan["plan"])
    check(total == plan["numel"], f"{label}: the kernels' traffic sums to {total}")
    if eager_numel is not None:
        eager = explain(source, bindings, "--eager")
        if eager is not None:
            check(eager["mode"] == "eager" and eager["numel"] == eager_numel,
                  f"{label}: eager numel {eager['numel']}, expected {eager_numel}")


def evaluate(source, bindings, outs, *extra):
    """The results of kbench eval, one .npy per result."""
    code, out, err = kbench("eval", *extra, source, *bindings,
                            *[a for o in outs for a in ("-o", o)])
    if not check(code == 0, f"eval {source!r} {extra}: exit {code}, {err.strip()}"):
        return None
    return [np.load(o) for o in outs]


def same(label, got, want, rtol=2e-6):
    if got.shape != want.shape or got.dtype != want.dtype:
        return fail(f"{label}: {got.dtype}{got.shape}, NumPy {want.dtype}{want.shape}")
    return check(np.allclose(got, want, rtol=rtol, atol=rtol), f"{label}: values differ from "
                 f"NumPy's by up to {np.max(np.abs(got.astype(float) - want))}")


def inductor_table(tmp):
    """The issue's table, from TorchInductor's tests, float32."""
    x10 = save(tmp, "x", RNG.standard_normal(10).astype(np.float32), "x10")
    y10 = save(tmp, "y", RNG.standard_normal(10).astype(np.float32), "y10")
    x = save(tmp, "x", RNG.standard_normal((10, 10)).astype(np.float32))
    a = save(tmp, "a", RNG.standard_normal((10, 10)).astype(np.float32))
    # cos(x): read x (10), write the result (10).
    golden("cos(x)", "cos(x)", [x10], 1, 20, eager_numel=20)
    # x + y: read both (10 + 10), write 10.
    golden("x + y", "x + y", [x10, y10], 1, 30, eager_numel=30)
    # (10,10) + (10,): the broadcast operand counts its own 10 elements: 100 + 10 + 100.
    golden("x(10,10) + y(10)", "x + y", [x, y10], 1, 210, eager_numel=210)
    # x + transpose(x): one buffer read in two orders counts once: 100 + 100.
    golden("x + transpose(x)", "x + transpose(x)", [x], 1, 200, eager_numel=200)
    # reductions: read 100, write 10.
    golden("sum axis=1", "sum(x, axis=1)", [x], 1, 110, eager_numel=110)
    golden("sum axis=0", "sum(x, axis=0)", [x], 1, 110, eager_numel=110)
    # row softmax: one kernel keeping each row in cache, 100 + 100. Eagerly: max (100 + 10),
    # x - m (110 + 100), exp (100 + 100), sum (100 + 10), e / s (110 + 100) = 840.
    softmax = ("m = max(x, axis=1, keepdims=True); e = exp(x - m); "
               "e / sum(e, axis=1, keepdims=True)")
    golden("softmax", softmax, [x], 1, 200, eager_numel=840)
    # cos(cos(cos(x))): one pass, 10 + 10; eagerly three, 60.
    golden("cos(cos(cos(x)))", "cos(cos(cos(x)))", [x10], 1, 20, eager_numel=60)
    # two outputs sharing the pass over a: 100 + 10 + 10.
    golden("(sum, max)", "(sum(a, axis=1), max(a, axis=1))", [a], 1, 120, eager_numel=220)
    # a reduction and an elementwise output of the same pass: 100 + 10 + 100.
    golden("(sum, cos)", "(sum(a, axis=1), cos(a))", [a], 1, 210, eager_numel=310)


# The expr suite's expressions (src/bench/suite_expr.c), each at the minimum: every input read
# once, every output written once, one kernel.
SUITE = {
    "poly": ("2*x**3 - 3*x**2 + x - 1", "x"),
    "fma": ("a*b + c", "abc"),
    "hypot": ("sqrt(x**2 + y**2)", "xy"),
    "leaky_relu": ("where(x > 0, x, 0.01*x)", "x"),
    "softmax": ("m = max(x, axis=-1, keepdims=True); e = exp(x - m); "
                "s = sum(e, axis=-1, keepdims=True); e / s", "x"),
    "layer_norm": ("m = mean(x, axis=-1, keepdims=True); d = x - m; "
                   "v = mean(d*d, axis=-1, keepdims=True); d / sqrt(v + 1e-5)", "x"),
    "logsumexp": ("m = max(x, axis=-1, keepdims=True); e = exp(x - m); "
                  "s = sum(e, axis=-1, keepdims=True); m + log(s)", "x"),
    "rms_norm": ("r = sqrt(mean(x*x, axis=-1, keepdims=True) + 1e-6); x / r", "x"),
    "gelu_tanh": ("0.5*x*(1 + tanh(0.7978845608*(x + 0.044715*x**3)))", "x"),
}
ROWS, ROW = 64, 256


def run_numpy(source, arrays):
    """The source evaluated by NumPy: the language is NumPy's, statement by statement."""
    env = {n: getattr(np, n) for n in ("sqrt", "where", "max", "exp", "sum", "mean", "log",
                                       "tanh")}
    env.update(arrays)
    *statements, last = [s.strip() for s in source.split(";")]
    for s in statements:
        name, value = s.split("=", 1)
        env[name.strip()] = eval(value, {}, env)
    return eval(last, {}, env)


def suite(tmp):
    for name, (source, variables) in SUITE.items():
        rows = name in ("softmax", "layer_norm", "logsumexp", "rms_norm")
        shape = (ROWS, ROW) if rows else (ROWS * ROW,)
        arrays = {v: RNG.uniform(-1, 1, shape).astype(np.float32) for v in variables}
        bindings = [save(tmp, v, arrays[v]) for v in variables]
        n = ROWS * ROW
        # reads: each variable once; writes: the result, one value per row for logsumexp
        out = ROWS if name == "logsumexp" else n
        golden(name, source, bindings, 1, len(variables) * n + out)
        got = evaluate(source, bindings, [os.path.join(tmp, "out.npy")])
        if got:
            same(name, got[0], run_numpy(source, arrays), rtol=1e-5)


def long_rows(tmp):
    """Rows too long to keep in cache (400 KB each, beyond any core's half L2 over the kernel's
    values): the softmax's denominator by a running max and a rescaled sum, in m's pass."""
    rows, n = 4, 100000
    x = RNG.uniform(-3, 3, (rows, n)).astype(np.float32)
    xb = save(tmp, "x", x, "long")
    want_m = x.max(axis=1, keepdims=True)
    want_s = np.exp(x - want_m).sum(axis=1, keepdims=True)
    # kernel 0 reads x, writes m and s (one per row); kernel 1 reads x, m and s, writes e / s
    golden("long softmax", SUITE["softmax"][0], [xb], 2, 3 * rows * n + 4 * rows)
    # one kernel: x read once, m + log(s) written, one value per row
    golden("long logsumexp", SUITE["logsumexp"][0], [xb], 1, rows * n + rows)
    for name, want in (("softmax", np.exp(x - want_m) / want_s),
                       ("logsumexp", want_m + np.log(want_s))):
        got = evaluate(SUITE[name][0], [xb], [os.path.join(tmp, "long_out.npy")])
        if got:
            same("long " + name, got[0], want, rtol=1e-5)


def views_and_tuples(tmp):
    """transpose, permute and tuples of results against NumPy, fused and eager."""
    a = RNG.standard_normal((3, 4, 5))
    x = RNG.standard_normal((6, 6)).astype(np.float32)
    ab, xb = save(tmp, "a", a), save(tmp, "x", x)
    outs = [os.path.join(tmp, f"r{i}.npy") for i in range(3)]
    cases = [
        ("transpose(a)", [np.transpose(a)]),
        ("transpose(a, (1, 0, 2))", [np.transpose(a, (1, 0, 2))]),
        ("np.transpose(a, axes=(2, 0, 1))", [np.transpose(a, (2, 0, 1))]),
        ("permute_dims(a, (2, 1, 0)) * 2", [np.permute_dims(a, (2, 1, 0)) * 2]),
        ("permute(a, (0, 2, 1)) + 1", [np.transpose(a, (0, 2, 1)) + 1]),
        ("sum(transpose(exp(a)), axis=0)", [np.sum(np.transpose(np.exp(a)), axis=0)]),
        ("transpose(sum(a, axis=1)) - 1", [np.transpose(np.sum(a, axis=1)) - 1]),
        ("x + transpose(x)", [x + x.T]),
        ("x * transpose(x * 2)", [x * (x * 2).T]),
        ("(sum(x, axis=1), max(x, axis=1))", [x.sum(axis=1), x.max(axis=1)]),
        ("(sum(x, axis=1), cos(x))", [x.sum(axis=1), np.cos(x)]),
        ("m = max(a, axis=0); (m, a - m, transpose(m))", [a.max(0), a - a.max(0), a.max(0).T]),
        ("(x,)", [x]),
    ]
    for source, want in cases:
        for mode in ((), ("--eager",)):
            got = evaluate(source, [ab, xb], outs[:len(want)], *mode)
            for i, (g, w) in enumerate(zip(got or [], want)):
                same(f"{source} {mode} [{i}]", g, w, rtol=1e-5)
    # the result printed: one array after the other
    code, out, err = kbench("eval", "(sum(x, axis=1), max(x, axis=1))", xb)
    check(code == 0 and out.count("[") == 2, f"printed tuple: exit {code}, {out!r} {err}")
    refusals = [
        (["transpose(a, (0, 1))", ab], "axes don't match array at column 14"),
        (["transpose(a, (0, 0, 1))", ab], "repeated axis in transpose at column 14"),
        (["transpose(a, (0, 1, 3))", ab], "axis 3 is out of bounds for array of dimension 3 at "
                                          "column 14"),
        (["permute(a)", ab], "permute needs axes, such as (1, 0) at column 1"),
        (["transpose(a, (0, 1, 2), 3)", ab], "transpose takes at most 2 arguments at column 25"),
        (["transpose(a, axis=(0, 1, 2))", ab], "transpose takes no keyword 'axis' at column 14"),
        (["()", ab], "an empty tuple gives no result at column 1"),
        (["(a, (a, a))", ab], "expected an array, not a tuple at column 5"),
        (["(a, a)", ab, "-o", outs[0]], "the expression gives 2 results: give -o 2 times, not 1"),
    ]
    for args, message in refusals:
        for mode in ((), ("--eager",)):
            code, out, err = kbench("eval", *mode, *args)
            check(code != 0 and message in err, f"{args} {mode}: exit {code}, {err.strip()!r}, "
                  f"expected {message!r}")


def explain_text_and_usage(tmp):
    x = save(tmp, "x", RNG.standard_normal((10, 10)).astype(np.float32))
    code, out, err = kbench("eval", "--explain", "x + transpose(x)", x)
    check(code == 0 and "fused plan: 1 kernel" in out and "total: numel 200, 800 bytes" in out,
          f"--explain text: exit {code}, {out!r} {err}")
    check("reads  x " in out and "writes out0 " in out, f"--explain names the buffers: {out!r}")
    code, out, err = kbench("eval", "--explain", "--eager", "cos(x) + 1", x)
    check(code == 0 and "eager plan: 2 kernels" in out and "total: numel 400" in out,
          f"--explain --eager text: exit {code}, {out!r} {err}")
    code, out, err = kbench("eval", "--explain=xml", "x", x)
    check(code == 2 and "bad --explain 'xml' (expected text or json)" in err,
          f"--explain=xml: exit {code}, {err!r}")
    code, out, err = kbench("eval", "--explain", "x", x, "-o", os.path.join(tmp, "no.npy"))
    check(code == 2 and not os.path.exists(os.path.join(tmp, "no.npy")),
          f"--explain with -o: exit {code}, {err!r}")
    # an expression the fused executor leaves to the eager one says why
    i = save(tmp, "i", np.arange(10, dtype=np.int32))
    plan = explain("i * 2", [i])
    if plan:
        check(plan["mode"] == "fused" and plan["note"].startswith("evaluated eagerly: ") and
              plan["kernels"] == 1 and plan["numel"] == 20, f"int32 plan: {plan}")
    code, out, err = kbench("eval", "--explain", "sum(x, axis=2)", x)
    check(code == 1 and "axis 2" in err and "column 1" in err, f"bad axis: {code} {err!r}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        inductor_table(tmp)
        suite(tmp)
        long_rows(tmp)
        views_and_tuples(tmp)
        explain_text_and_usage(tmp)
    return finish("fusion golden")


if __name__ == "__main__":
    sys.exit(main())
