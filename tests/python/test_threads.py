"""Four Python threads calling kbench at once: each gets its own results, and its own error
messages (the library's messages are thread-local), while the kernels run without the GIL."""
import threading

import numpy as np

import kbench

THREADS = 4
ROUNDS = 30


def run_threads(work):
    errors = []
    start = threading.Barrier(THREADS)

    def body(k):
        try:
            start.wait()
            work(k)
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            errors.append(exc)
    team = [threading.Thread(target=body, args=(k,)) for k in range(THREADS)]
    for t in team:
        t.start()
    for t in team:
        t.join()
    assert not errors, errors


def test_results_under_concurrency():
    rng = np.random.default_rng(3)
    # Large enough that each call releases the GIL (KB_PYTHON_GIL_ELEMENTS).
    inputs = [rng.random((512, 300)).astype(np.float32) for _ in range(THREADS)]
    ops = ["sum", "var", "argmax", "mean"]
    expected = [[getattr(kbench, op)(x, axis=0) for op in ops] for x in inputs]
    for x, row in zip(inputs, expected):  # the single-threaded answers are NumPy's too
        np.testing.assert_array_equal(row[2], np.argmax(x, axis=0))
        np.testing.assert_allclose(row[0], x.astype(np.float64).sum(axis=0), rtol=1e-6)

    def work(k):
        for r in range(ROUNDS):
            for j, op in enumerate(ops):
                x = inputs[(k + r) % THREADS]
                got = getattr(kbench, op)(x, axis=0)
                # Bit-identical: the same call on the same input, whatever runs beside it.
                np.testing.assert_array_equal(got, expected[(k + r) % THREADS][j])
            got = kbench.eval("sum(x, axis=(0, 1))", x=inputs[k])
            assert got == kbench.sum(inputs[k])
    run_threads(work)


def test_error_messages_are_per_thread():
    a = np.ones((64, 300), np.float64)
    a_big = np.ones((256, 300), np.float64)

    def work(k):
        ndim = k + 1
        x = np.ones((2,) * ndim)
        for _ in range(ROUNDS * 10):
            kbench.sum(a_big, axis=1)  # a call that succeeds between the failures
            try:
                kbench.sum(x, axis=ndim + k)
            except np.exceptions.AxisError as exc:
                assert f"axis {ndim + k} out of range for a {ndim}-d array" in str(exc), str(exc)
            else:
                raise AssertionError("no AxisError")
            assert kbench.mean(a) == 1.0
    run_threads(work)


def test_threaded_kernels_inside_python_threads():
    """Each Python thread's call runs kbench's own OpenMP threads."""
    x = np.random.default_rng(5).random((4096, 64))
    want = kbench.sum(x, axis=0)
    previous = kbench.get_threads()
    kbench.set_threads(2)
    try:
        def work(k):
            for _ in range(ROUNDS):
                # Bit-identical for any thread count (docs/reductions.md).
                np.testing.assert_array_equal(kbench.sum(x, axis=0), want)
        run_threads(work)
    finally:
        kbench.set_threads(previous)
