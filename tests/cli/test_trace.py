"""End-to-end checks of `kbench trace analyze` and `kbench trace diff` on the hand-written
PyTorch profiler traces in tests/cli/data (trace_a.json, trace_b.json): the FLOPs, bytes,
rates, percentages and flags of every kernel against values worked out by hand here from the
shapes in the fixtures and the H100 SXM row of data/gpus.csv; the report's counts of kernels
not counted and events skipped; --augment; --device, --tf32, --clock; the diff's order and
ratios; and malformed traces (truncated, not JSON, no traceEvents, no or an unknown device,
fields of the wrong type), each one line on stderr with exit status 1 (2 for bad arguments),
never a crash.

Usage: python3 test_trace.py path/to/kbench"""

import json
import math
import tempfile
from pathlib import Path

from harness import check, finish, kbench

DATA = Path(__file__).resolve().parent / "data"
A = str(DATA / "trace_a.json")
B = str(DATA / "trace_b.json")

# The H100 SXM row of data/gpus.csv.
BW = 3350e9
FP32 = 67e12
FP16_TENSOR = 989.5e12
TF32 = 494.5e12

# By hand, from the shapes of trace_a.json (FLOPs of a product 2*M*N*K; bytes: each input
# read once, the output written once, at the operands' element size).
MM_FLOPS = 2 * 256 * 128 * 512  # aten::mm (256x512) @ (512x128), float32
MM_BYTES = (256 * 512 + 512 * 128 + 256 * 128) * 4
ADDMM_FLOPS = 2 * 64 * 1024 * 4096  # aten::addmm bias(1024) + (64x4096) @ (4096x1024), half
ADDMM_BYTES = (1024 + 64 * 4096 + 4096 * 1024 + 64 * 1024) * 2
BMM_FLOPS = 2 * 8 * 128 * 128 * 64  # aten::bmm (8x128x64) @ (8x64x128), bfloat16
BMM_BYTES = (8 * 128 * 64 + 8 * 64 * 128 + 8 * 128 * 128) * 2
# aten::cudnn_convolution: input 2x3x32x32, weight 16x3x3x3, padding 1, stride 1, dilation 1:
# output 32x32; FLOPs 2*N*K*(C/groups)*R*S*P*Q.
CONV_FLOPS = 2 * 2 * 16 * 3 * 3 * 3 * 32 * 32
CONV_BYTES = (2 * 3 * 32 * 32 + 16 * 3 * 3 * 3 + 2 * 16 * 32 * 32) * 4
# aten::conv2d without Concrete Inputs: stride 1, padding 0, dilation 1 assumed; input
# 1x8x15x15, weight 4x2x3x3 (groups = 8 / 2 = 4): output 13x13.
GCONV_FLOPS = 2 * 1 * 4 * 2 * 3 * 3 * 13 * 13
GCONV_BYTES = (8 * 15 * 15 + 4 * 2 * 3 * 3 + 4 * 13 * 13) * 4
BIG_FLOPS = 2 * 4096**3
BIG_BYTES = 3 * 4096 * 4096 * 4


def close(a, b, rel=1e-9):
    return a is not None and b is not None and math.isclose(a, b, rel_tol=rel)


def bound_percent(flops, bytes_, seconds, peak):
    return 100 * max(flops / peak, bytes_ / BW) / seconds


def analyze(*args, env=None):
    r = kbench("trace", "analyze", *args, env=env)
    try:
        return r, json.loads(r.stdout)
    except json.JSONDecodeError:
        return r, None


def groups_of(report):
    return {g["name"]: g for g in report["groups"]}


def check_group(groups, name, count, seconds, flops, bytes_, bound_seconds, flops_term, bw_term,
                flags, peak):
    g = groups.get(name)
    if not check(g is not None, f"{name}: in the report"):
        return
    counted_seconds = seconds
    check(g["count"] == count, f"{name}: count {g['count']}, expected {count}")
    check(close(g["seconds"], seconds), f"{name}: seconds {g['seconds']}, expected {seconds}")
    check(close(g["flops"], flops), f"{name}: flops {g['flops']}, expected {flops}")
    check(close(g["bytes"], bytes_), f"{name}: bytes {g['bytes']}, expected {bytes_}")
    check(close(g["flops_per_second"], flops / counted_seconds), f"{name}: FLOP/s")
    check(close(g["bytes_per_second"], bytes_ / counted_seconds), f"{name}: bytes/s")
    check(close(g["percent_of_bound"], 100 * bound_seconds / counted_seconds),
          f"{name}: % of bound {g['percent_of_bound']}")
    check(close(g["percent_of_flops"], 100 * flops_term / counted_seconds),
          f"{name}: % of FLOP peak {g['percent_of_flops']}")
    check(close(g["percent_of_bandwidth"], 100 * bw_term / counted_seconds),
          f"{name}: % of bandwidth {g['percent_of_bandwidth']}")
    check(g["flags"] == flags, f"{name}: flags {g['flags']}, expected {flags}")
    check(g["peak"] == peak, f"{name}: peak {g['peak']}, expected {peak}")


def test_analyze():
    r, report = analyze(A, "--format", "json")
    if not check(r.returncode == 0 and report, f"analyze A: {r.returncode} {r.stderr}"):
        return
    check(report["device"]["id"] == "h100-sxm", "device from deviceProperties")
    check(report["events"] == 30 and report["malformed_events"] == 2,
          f"30 events, 2 malformed: {report['events']}, {report['malformed_events']}")
    check(report["kernels"] == 12, f"12 kernels: {report['kernels']}")
    check(report["kernels_by_reason"] == {"counted": 8, "no-cpu-op": 2, "unknown-op": 1,
                                          "no-shapes": 1, "unsupported": 0, "no-peak": 0},
          f"reasons: {report['kernels_by_reason']}")
    check(report["assumed_geometry"] == 1, "one convolution with assumed geometry")
    g = groups_of(report)
    # Two calls of the same product, 10 and 30 us.
    mm_bound = max(MM_FLOPS / FP32, MM_BYTES / BW)
    check_group(g, "sgemm_128x64", 2, 40e-6, 2 * MM_FLOPS, 2 * MM_BYTES, 2 * mm_bound,
                2 * MM_FLOPS / FP32, 2 * MM_BYTES / BW, [], "fp32")
    check(close(bound_percent(MM_FLOPS, MM_BYTES, 10e-6, FP32), 5.008124179104478),
          "the hand formula itself")
    check_group(g, "ampere_fp16_gemm", 1, 5e-6, ADDMM_FLOPS, ADDMM_BYTES,
                max(ADDMM_FLOPS / FP16_TENSOR, ADDMM_BYTES / BW), ADDMM_FLOPS / FP16_TENSOR,
                ADDMM_BYTES / BW, [], "fp16_tensor")
    check(g["ampere_fp16_gemm"]["op"] == "aten::addmm", "the innermost op: addmm, not linear")
    # 10 ns for 16.8 MFLOP and 0.5 MB: far above the peaks.
    check_group(g, "cutlass_bf16_bmm", 1, 10e-9, BMM_FLOPS, BMM_BYTES,
                max(BMM_FLOPS / FP16_TENSOR, BMM_BYTES / BW), BMM_FLOPS / FP16_TENSOR,
                BMM_BYTES / BW, ["impossible"], "fp16_tensor")
    # The convolution's two kernels (2 and 6 us) share its work by their time.
    for name, seconds in (("cudnn_transform", 2e-6), ("cudnn_conv_implicit_gemm", 6e-6)):
        f, b = CONV_FLOPS * seconds / 8e-6, CONV_BYTES * seconds / 8e-6
        check_group(g, name, 1, seconds, f, b, max(f / FP32, b / BW), f / FP32, b / BW, [],
                    "fp32")
    check_group(g, "grouped_conv", 1, 1e-6, GCONV_FLOPS, GCONV_BYTES,
                max(GCONV_FLOPS / FP32, GCONV_BYTES / BW), GCONV_FLOPS / FP32, GCONV_BYTES / BW,
                [], "fp32")
    # 0.1 s for a product the peaks allow in 2 ms: below 10% and long enough to say so.
    check_group(g, "slow_sgemm", 1, 0.1, BIG_FLOPS, BIG_BYTES, BIG_FLOPS / FP32,
                BIG_FLOPS / FP32, BIG_BYTES / BW, ["suspicious-low"], "fp32")
    for name in ("vectorized_elementwise_kernel", "orphan_kernel", "noshape_gemm"):
        check(name in g and g[name]["counted"] == 0 and g[name]["percent_of_bound"] is None,
              f"{name}: timed, not counted")
    check(g["orphan_kernel"]["count"] == 2, "orphan_kernel: both kernels without an op")
    check("bad_dur_kernel" not in g, "a kernel with a string dur is skipped")
    order = [x["name"] for x in report["groups"]]
    check(order[:3] == ["slow_sgemm", "sgemm_128x64", "cudnn_conv_implicit_gemm"],
          f"sorted by total time: {order}")
    check(close(sum(x["share"] for x in report["groups"]), 1.0), "shares add up to 1")

    # The table and markdown say the same in their words.
    r = kbench("trace", "analyze", A)
    check(r.returncode == 0 and "impossible" in r.stdout and "suspicious-low" in r.stdout
          and "2 no-cpu-op" in r.stdout and "2 malformed events" in r.stdout,
          f"table: {r.stdout}")
    r = kbench("trace", "analyze", A, "--format", "markdown")
    check(r.returncode == 0 and "| `slow_sgemm` | 1 |" in r.stdout, f"markdown: {r.stdout}")


def test_options():
    # --tf32: float32 products against the TF32 tensor peak.
    r, report = analyze(A, "--format", "json", "--tf32")
    if check(r.returncode == 0 and report, f"--tf32: {r.stderr}"):
        g = groups_of(report)["slow_sgemm"]
        check(g["peak"] == "tf32_tensor" and
              close(g["percent_of_flops"], 100 * BIG_FLOPS / TF32 / 0.1), f"--tf32: {g}")
    # --clock: the peaks scale with the clock (990 MHz is half the boost clock).
    r, report = analyze(A, "--format", "json", "--clock", "990")
    if check(r.returncode == 0 and report, f"--clock: {r.stderr}"):
        g = groups_of(report)["slow_sgemm"]
        check(close(g["percent_of_flops"], 100 * BIG_FLOPS / (FP32 / 2) / 0.1), f"--clock: {g}")
    # --device overrides deviceProperties: the PCIe H100 has 51 TFLOP/s of float32.
    r, report = analyze(A, "--format", "json", "--device", "h100-pcie")
    if check(r.returncode == 0 and report, f"--device: {r.stderr}"):
        g = groups_of(report)["slow_sgemm"]
        check(report["device"]["id"] == "h100-pcie" and
              close(g["percent_of_flops"], 100 * BIG_FLOPS / 51e12 / 0.1), "--device h100-pcie")
    r = kbench("trace", "analyze", A, "--device", "h100")
    check(r.returncode == 2 and "h100-sxm" in r.stderr and "h100-pcie" in r.stderr,
          f"unknown --device names the known ids: {r.returncode} {r.stderr}")
    for args in ((), (A, A), (A, "--format", "csv"), (A, "--clock", "0")):
        r = kbench("trace", "analyze", *args)
        check(r.returncode == 2, f"bad arguments {args}: {r.returncode}")
    for sub in ((), ("analyze",), ("diff",)):
        r = kbench("trace", *sub, "--help")
        check(r.returncode == 0 and "exit status:" in r.stdout and
              all(len(line) <= 80 for line in r.stdout.splitlines()), f"help of trace {sub}")


def test_augment(tmp):
    out = str(Path(tmp) / "augmented.json")
    r = kbench("trace", "analyze", A, "--augment", out)
    if not check(r.returncode == 0, f"--augment: {r.stderr}"):
        return
    trace = json.loads(Path(out).read_text())
    check(list(trace) == ["schemaVersion", "deviceProperties", "traceEvents", "traceName"],
          f"members kept in order: {list(trace)}")
    events = trace["traceEvents"]
    check(len(events) == 30 and events[-2] == 42, "every event written back")
    kernels = [e for e in events if isinstance(e, dict) and e.get("cat") == "kernel"]
    figures = {}
    for e in kernels:
        figures.setdefault(e["name"], []).append(e["args"].get("kbench"))
    first = figures["sgemm_128x64"][0]
    check(first["flops"] == MM_FLOPS and first["bytes"] == MM_BYTES and first["op"] == "aten::mm"
          and close(first["percent_of_bound"], bound_percent(MM_FLOPS, MM_BYTES, 10e-6, FP32)),
          f"first sgemm: {first}")
    check(figures["cutlass_bf16_bmm"][0]["flags"] == ["impossible"], "impossible in args")
    check(figures["vectorized_elementwise_kernel"][0] == {"counted": "unknown-op",
                                                          "op": "aten::add"}, "unknown op")
    check(figures["bad_dur_kernel"] == [None], "a malformed kernel is written as it was")
    check(kernels[0]["args"]["correlation"] == 501, "the kernel's own args kept")
    # The augmented trace is a trace: analyzing it gives the same groups.
    r1, a1 = analyze(A, "--format", "json")
    r2, a2 = analyze(out, "--format", "json")
    check(a1 and a2 and a1["groups"] == a2["groups"], "the augmented trace analyzes the same")


def test_diff():
    r = kbench("trace", "diff", A, B, "--format", "json")
    if not check(r.returncode == 0, f"diff: {r.returncode} {r.stderr}"):
        return
    d = json.loads(r.stdout)
    rows = d["kernels"]
    names = [x["name"] for x in rows]
    # The change of time: slow_sgemm 50 ms, sgemm_128x64 20 us, cudnn_conv 6 us gone, ...
    check(names[:2] == ["slow_sgemm", "sgemm_128x64"], f"by change of time: {names}")
    by = {x["name"]: x for x in rows}
    check(close(by["slow_sgemm"]["ratio"], 0.5) and close(by["sgemm_128x64"]["ratio"], 0.5),
          "ratios B/A")
    check(by["new_kernel"]["a"] is None and by["new_kernel"]["ratio"] is None, "new kernel")
    check(by["grouped_conv"]["b"] is None, "gone kernel")
    check(close(by["sgemm_128x64"]["b"]["percent_of_bound"],
                100 * 2 * max(MM_FLOPS / FP32, MM_BYTES / BW) / 20e-6), "% of bound in B")
    r = kbench("trace", "diff", A, B)
    check(r.returncode == 0 and "0.50x" in r.stdout and "new" in r.stdout and "gone" in r.stdout,
          f"diff table: {r.stdout}")
    r = kbench("trace", "diff", A, B, "--format", "markdown")
    check(r.returncode == 0 and "| `slow_sgemm` | 1 | 1 |" in r.stdout, "diff markdown")
    r = kbench("trace", "diff", A)
    check(r.returncode == 2, "diff needs two traces")


def test_malformed(tmp):
    good = Path(A).read_text()
    device = '"deviceProperties": [{"name": "NVIDIA H100 80GB HBM3"}], '
    cases = {
        "truncated": (good[: len(good) // 2], "not valid JSON at byte"),
        "empty": ("", "not valid JSON at byte 0"),
        "not_json": ("this is not a trace", "not valid JSON at byte 0"),
        "no_events": ('{"deviceProperties": []}', "no traceEvents array"),
        "events_object": ('{"traceEvents": {}}', "expected an array of events"),
        "trailing": ('{"traceEvents": []} x', "text after the trace"),
        "no_device": ('{"traceEvents": []}', "names no device"),
        "unknown_device": ('{"deviceProperties": [{"name": "NVIDIA GeForce GT 710"}], '
                           '"traceEvents": []}', "unknown device 'NVIDIA GeForce GT 710'"),
        "bad_comma": ('{' + device + '"traceEvents": [{"ph": "X"} {"ph": "X"}]}',
                      "',' or ']' after an event"),
    }
    for name, (text, fragment) in cases.items():
        path = Path(tmp) / f"{name}.json"
        path.write_text(text)
        r = kbench("trace", "analyze", str(path))
        check(r.returncode == 1 and fragment in r.stderr and r.stderr.count("\n") == 1
              and not r.stdout, f"{name}: {r.returncode} {r.stderr!r}")
    r = kbench("trace", "analyze", str(Path(tmp) / "missing.json"))
    check(r.returncode == 1 and "cannot read" in r.stderr, "missing file")

    # Events of every wrong type are skipped and counted, never a crash.
    weird = [
        {"ph": "X", "cat": "kernel", "name": 5, "ts": 0, "dur": 1},
        {"ph": "X", "cat": "kernel", "name": "k", "ts": "0", "dur": 1},
        {"ph": "X", "cat": "kernel", "name": "k", "ts": 0, "dur": -1},
        {"ph": "X", "cat": "kernel", "name": "k", "ts": 0, "dur": 1, "args": []},
        {"ph": "X", "cat": "kernel", "name": "k", "ts": 0, "dur": 1, "args": {"External id": "1"}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 0, "dur": 1,
         "args": {"External id": 1, "Input Dims": "x", "Input type": [1, 2]}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "ts": 0, "dur": 1,
         "args": {"External id": 2, "Input Dims": [[2, 3], [4, 5]], "Input type": ["float",
                                                                                   "float"]}},
        {"ph": "X", "cat": "kernel", "name": "k2", "ts": 0, "dur": 1, "args": {"External id": 2}},
        {"ph": "X", "cat": "cpu_op", "name": "aten::conv2d", "ts": 0, "dur": 1,
         "args": {"External id": 3, "Input Dims": [[1, 3, 2, 2], [4, 3, 5, 5]],
                  "Input type": ["float", "float"]}},
        {"ph": "X", "cat": "kernel", "name": "k3", "ts": 0, "dur": 1, "args": {"External id": 3}},
        [], None, "text", {"cat": ["kernel"]},
    ]
    path = Path(tmp) / "weird.json"
    path.write_text(json.dumps({"deviceProperties": [{"name": "NVIDIA L4"}],
                                "traceEvents": weird}))
    r, report = analyze(str(path), "--format", "json")
    if check(r.returncode == 0 and report, f"weird events: {r.returncode} {r.stderr}"):
        check(report["malformed_events"] == 3, f"3 malformed: {report['malformed_events']}")
        check(report["kernels_by_reason"]["no-cpu-op"] == 2 and
              report["kernels_by_reason"]["unsupported"] == 2,
              f"mistyped External id, shapes that do not fit: {report['kernels_by_reason']}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        test_analyze()
        test_options()
        test_augment(tmp)
        test_diff()
        test_malformed(tmp)
    return finish("test_trace")


if __name__ == "__main__":
    raise SystemExit(main())
