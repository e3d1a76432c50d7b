"""Writes a PyTorch-profiler-like Chrome trace of N events (default 1,000,000) for the scale
check of `kbench trace analyze` (docs/traces.md, "Scale"): triples of a CPU op, its
cudaLaunchKernel and its kernel, with shapes recorded, over a few hundred kernel names. Not
part of `make test`; run by hand:

    python3 tests/scale/make_trace.py /tmp/big.json 1000000
    /usr/bin/time -v build/kbench trace analyze /tmp/big.json > /dev/null"""

import json
import random
import sys


def main():
    path = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    rng = random.Random(14)
    ops = [("aten::mm", 2), ("aten::addmm", 3), ("aten::bmm", 3), ("aten::add", 2),
           ("aten::cudnn_convolution", 4)]
    with open(path, "w") as f:
        f.write('{"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": '
                '"NVIDIA H100 80GB HBM3", "numSms": 132}],\n"traceEvents": [\n')
        ts = 0.0
        for i in range(n // 3):
            op, _ = ops[i % len(ops)]
            m, k, nn = (rng.choice((64, 128, 256, 1024)) for _ in range(3))
            if op == "aten::mm":
                dims, types = [[m, k], [k, nn]], ["float", "float"]
            elif op == "aten::addmm":
                dims, types = [[nn], [m, k], [k, nn], [], []], ["c10::Half"] * 3 + ["Scalar"] * 2
            elif op == "aten::bmm":
                dims, types = [[8, m, k], [8, k, nn]], ["c10::BFloat16"] * 2
            elif op == "aten::add":
                dims, types = [[m, k], [m, k], []], ["float", "float", "Scalar"]
            else:
                dims = [[8, 64, 56, 56], [64, 64, 3, 3], [], [], [], []]
                types = ["c10::Half", "c10::Half", "ScalarList", "ScalarList", "ScalarList",
                         "Scalar"]
            ext = i + 1
            cpu = {"ph": "X", "cat": "cpu_op", "name": op, "pid": 1, "tid": 1, "ts": ts,
                   "dur": 12.5, "args": {"External id": ext, "Record function id": 0,
                                         "Input Dims": dims, "Input type": types}}
            launch = {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                      "tid": 1, "ts": ts + 2, "dur": 4.1,
                      "args": {"External id": ext, "cbid": 211, "correlation": ext}}
            kernel = {"ph": "X", "cat": "kernel", "name": f"kernel_{op[6:]}_{i % 300}",
                      "pid": 0, "tid": 7, "ts": ts + 10, "dur": round(rng.uniform(1, 200), 3),
                      "args": {"External id": ext, "queued": 0, "device": 0, "context": 1,
                               "stream": 7, "correlation": ext, "registers per thread": 128,
                               "shared memory": 0, "grid": [132, 1, 1], "block": [256, 1, 1]}}
            sep = "" if i == 0 else ",\n"
            f.write(sep + json.dumps(cpu) + ",\n" + json.dumps(launch) + ",\n" +
                    json.dumps(kernel))
            ts += 20
        f.write('\n], "traceName": "scale"}\n')


if __name__ == "__main__":
    main()
