"""10^5 calls of each kind leave neither Python's heap (tracemalloc) nor the process (RSS)
larger: the scalar and array results, out=, eval, and the error paths; nor do threads that
call kbench and end (what the library keeps per thread goes with the thread)."""
import gc
import os
import threading
import tracemalloc

import numpy as np
import pytest

import kbench

CALLS = 100_000
PAGE = os.sysconf("SC_PAGESIZE")

a = np.arange(24.0, dtype=np.float32).reshape(4, 6)[:, ::-1]
out = np.zeros(6, np.float32)
out64 = np.zeros(6)


def rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * PAGE


def failing(call):
    def run():
        try:
            call()
        except (ValueError, TypeError):
            pass
    return run


CASES = {
    "scalar": lambda: kbench.sum(a),
    "array": lambda: kbench.var(a, axis=1, ddof=1, keepdims=True),
    "argmax": lambda: kbench.argmax(a, axis=0),
    "out in place": lambda: kbench.mean(a, axis=0, out=out),
    "out cast": lambda: kbench.mean(a, axis=0, out=out64),
    "buffer": lambda: kbench.max(memoryview(b"\x01\x02\x03")),
    "eval": lambda: kbench.eval("std(x, axis=0)", x=a),
    "axis error": failing(lambda: kbench.sum(a, axis=5)),
    "keyword error": failing(lambda: kbench.sum(a, bogus=1)),
    "eval error": failing(lambda: kbench.eval("sum(x, axis=(0, 0))", x=a)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_no_growth(name):
    call = CASES[name]
    for _ in range(1000):  # caches, interned names, NumPy's first-use allocations
        call()
    gc.collect()
    tracemalloc.start()
    try:
        rss_before = rss()
        traced_before = tracemalloc.get_traced_memory()[0]
        for _ in range(CALLS):
            call()
        gc.collect()
        traced_growth = tracemalloc.get_traced_memory()[0] - traced_before
        rss_growth = rss() - rss_before
    finally:
        tracemalloc.stop()
    # A leak of a single byte per call would be 100 kB; what is left is bookkeeping.
    assert traced_growth < 16 * 1024, f"{name}: Python heap grew by {traced_growth} bytes"
    assert rss_growth < 256 * 1024, f"{name}: RSS grew by {rss_growth} bytes"


def test_threads_that_come_and_go():
    x = np.ones((64, 4096))  # along axis 0: the reductions' per-thread scratch rows

    def call():
        kbench.std(x, axis=0)
        kbench.sum(x, axis=1)

    def round_of_threads():
        team = [threading.Thread(target=call) for _ in range(4)]
        for t in team:
            t.start()
        for t in team:
            t.join()
    for _ in range(20):
        round_of_threads()
    gc.collect()
    before = rss()
    for _ in range(300):  # 1200 threads: tens of kB of rows each, were they kept
        round_of_threads()
    gc.collect()
    growth = rss() - before
    assert growth < 4 * 1024 * 1024, f"RSS grew by {growth} bytes over 1200 threads"
