"""set_simd, the simd context manager, set_threads and info."""
import numpy as np
import pytest

import kbench

LEVELS = ["scalar", "avx2", "avx512", "neon", "sve"]


def test_set_simd_refuses_what_this_cpu_lacks():
    simd = kbench.info()["simd"]
    lacking = [level for level in LEVELS if level not in simd["available"]]
    assert lacking, "every level is available: nothing to refuse"  # x86-64 lacks neon and sve
    before = kbench.get_simd()
    for level in lacking:
        with pytest.raises(ValueError, match=level):
            kbench.set_simd(level)
        assert kbench.get_simd() == before, "a refused level must not change the level"
    for level in simd["compiled"]:
        if level not in simd["available"]:  # compiled in, but the CPU cannot run it
            with pytest.raises(ValueError, match="CPU|not available|cannot"):
                kbench.set_simd(level)


def test_simd_context_restores_the_level():
    before = kbench.get_simd()
    x = np.random.default_rng(1).random((300, 70)).astype(np.float32)
    at_best = kbench.sum(x, axis=0)
    with kbench.simd("scalar"):
        assert kbench.get_simd() == "scalar"
        at_scalar = kbench.sum(x, axis=0)
    assert kbench.get_simd() == before
    np.testing.assert_allclose(at_scalar, at_best, rtol=1e-6)
    with pytest.raises(RuntimeError):
        with kbench.simd("scalar"):
            raise RuntimeError("inside")
    assert kbench.get_simd() == before


def test_every_available_level_computes_the_same():
    x = np.random.default_rng(2).random((50, 33)) * 2 - 1
    for level in kbench.info()["simd"]["available"]:
        with kbench.simd(level):
            np.testing.assert_allclose(kbench.mean(x, axis=1), x.mean(axis=1), rtol=1e-13)
            assert kbench.argmin(x) == np.argmin(x)


def test_set_threads():
    previous = kbench.get_threads()
    try:
        kbench.set_threads(3)
        assert kbench.get_threads() == 3
        assert kbench.info()["threads"]["count"] == 3
        kbench.set_threads(0)  # the default: the usable cores
        assert kbench.get_threads() == kbench.info()["threads"]["usable_cores"]
    finally:
        kbench.set_threads(previous)


def test_info_is_kbench_info_json():
    info = kbench.info()
    for key in ["version", "git_commit", "build", "system", "cpu", "clock", "simd", "threads",
                "warnings"]:
        assert key in info
    assert info["version"] == kbench.__version__
    assert info["simd"]["selected"] == kbench.get_simd()
