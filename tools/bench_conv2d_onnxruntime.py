#!/usr/bin/env python3
"""onnxruntime's times for MobileNetV2's convolutions, to compare with the CPU kernels of
Sources/CKernels/conv2d_graph.c (Conv2DTimingTests prints the same table for gpustyle).

For every distinct convolution shape of torchvision's MobileNetV2 at 224x224 (bias, ReLU6 where
the network has it, as onnxruntime fuses Conv+Clip), a one-node ONNX model made with
torch.onnx.export is timed with onnxruntime (CPU provider, all graph optimisations, N intra-op
threads, fastest of R runs after warm-up); then the whole network (random weights: time does
not depend on the values) end to end.

    python3 tools/bench_conv2d_onnxruntime.py [--threads 2] [--runs 50]
Prints: layer, ms, GFLOP/s (2 * multiply-adds / s) and GB/s ((input + output floats) * 4 / s).
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np
import onnxruntime as ort
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_mobilenet import MobileNetV2, SETTINGS, export  # noqa: E402

# (cin, size, cout, kernel, stride, groups, relu6, count in the network)
def mobilenet_layers():
    layers = [(3, 224, 32, 3, 2, 1, True, 1)]
    cin, size = 32, 112
    for t, c, n, s in SETTINGS:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = cin * t
            if t != 1:
                layers.append((cin, size, hidden, 1, 1, 1, True, 1))
            layers.append((hidden, size, hidden, 3, stride, hidden, True, 1))
            size //= stride
            layers.append((hidden, size, c, 1, 1, 1, False, 1))
            cin = c
    layers.append((cin, size, 1280, 1, 1, 1, True, 1))
    layers.append((1280, 1, 1000, 1, 1, 1, False, 1))  # the classifier as a 1x1 convolution
    merged = {}
    for l in layers:
        key = l[:7]
        merged[key] = merged.get(key, 0) + 1
    return [k + (v,) for k, v in merged.items()]


def session(path, threads):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def fastest(sess, feed, runs):
    for _ in range(5):
        sess.run(None, feed)
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        sess.run(None, feed)
        best = min(best, time.perf_counter() - start)
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    torch.manual_seed(0)
    total = 0.0
    with tempfile.TemporaryDirectory() as folder:
        print(f"onnxruntime {ort.__version__}, {args.threads} threads")
        for cin, size, cout, k, s, g, relu6, count in mobilenet_layers():
            conv = nn.Conv2d(cin, cout, k, s, k // 2, groups=g, bias=True)
            model = nn.Sequential(conv, nn.ReLU6()) if relu6 else conv
            path = os.path.join(folder, "conv.onnx")
            x = torch.randn(1, cin, size, size)
            torch.onnx.export(model.eval(), (x,), path, input_names=["x"], output_names=["y"], opset_version=13,
                              dynamo=False)
            seconds = fastest(session(path, args.threads), {"x": x.numpy()}, args.runs)
            out = (size + 2 * (k // 2) - k) // s + 1
            macs = cout * out * out * cin // g * k * k
            moved = 4 * (cin * size * size + cout * out * out)
            total += seconds * count
            print(f"{cin:5d}x{size:3d}x{size:3d} -> {cout:5d}x{out:3d}x{out:3d} k{k} s{s} g{g:4d} x{count}: "
                  f"{seconds * 1e3:7.3f} ms {2 * macs / seconds * 1e-9:7.1f} GFLOP/s {moved / seconds * 1e-9:6.1f} GB/s")
        print(f"sum of the convolutions: {total * 1e3:.3f} ms")
        path = os.path.join(folder, "mobilenet_v2.onnx")
        export(MobileNetV2().eval(), path)
        x = np.random.default_rng(0).standard_normal((1, 3, 224, 224), dtype=np.float32)
        print(f"whole MobileNetV2 224x224: {fastest(session(path, args.threads), {'input': x}, args.runs) * 1e3:.3f} ms")


if __name__ == "__main__":
    main()
