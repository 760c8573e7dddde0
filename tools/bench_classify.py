#!/usr/bin/env python3
"""Classify at 224x224: gpustyle's built-in MobileNetV2 against onnxruntime on the same network,
measured side by side in one run.

Needs: a release build of gpustyle, numpy, onnxruntime, and the ONNX export of the network
(--onnx FILE; without it the file is made with tools/make_mobilenet.py, which needs torch 2.13.0
and the PyPI weights: pass --weights-root/--labels-root as to that script if they are unzipped).

    python3 tools/bench_classify.py [--gpustyle .build/release/gpustyle] [--onnx FILE]
                                    [--rounds 5] [--runs 20] [--device cpu|all] [--json]
                                    [--precision fp32,bf16] [--before OLD]

Each round runs, as separate processes and in an order rotated every round,
    gpustyle bench --json --no-network --no-rectangles --classify --runs N --device D
    python3 tools/bench_classify.py --onnxruntime-worker FILE --runs N
Both time the network on a prepared 1x3x224x224 input after one warm-up run (gpustyle: network
and softmax from the input tensor; onnxruntime: session.run with default session options, all
cores, CPU execution provider), and report the median of N. The table shows the median over
rounds of those medians and ratio = gpustyle / onnxruntime (< 1: gpustyle faster), then the
median and range of the per-round ratios (each round's gpustyle against that round's onnxruntime).
--precision fp32,bf16 runs one gpustyle process per precision each round (`bench --precision`:
bf16 needs a CPU with AVX512_BF16). --before OLD adds the same processes of another build (rows
"before ..."), in the same rotation, so old and new are compared in one run.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def onnxruntime_worker(path, runs):
    import numpy as np
    import onnxruntime as ort
    session = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    x = np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)
    session.run(None, {name: x})
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        session.run(None, {name: x})
        times.append(time.perf_counter() - start)
    print(json.dumps({"peer": "onnxruntime", "version": ort.__version__, "median_ms": 1000 * statistics.median(times),
                      "min_ms": 1000 * min(times)}))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gpustyle", default=os.path.join(HERE, "..", ".build", "release", "gpustyle"))
    p.add_argument("--onnx")
    p.add_argument("--weights-root")
    p.add_argument("--labels-root")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--device", choices=["cpu", "all"], default="cpu")
    p.add_argument("--json", action="store_true")
    p.add_argument("--precision", default="fp32", help="comma-separated: fp32, bf16 (one gpustyle process each)")
    p.add_argument("--before", metavar="GPUSTYLE", help="another build, run beside --gpustyle (rows 'before ...')")
    p.add_argument("--onnxruntime-worker", metavar="FILE", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.onnxruntime_worker:
        return onnxruntime_worker(args.onnxruntime_worker, args.runs)

    work = tempfile.mkdtemp(prefix="bench-classify-")
    onnx_path = args.onnx
    if not onnx_path:
        onnx_path = os.path.join(work, "mobilenet_v2.onnx")
        extra = sum([[f"--{k.replace('_', '-')}", v] for k, v in
                     (("weights_root", args.weights_root), ("labels_root", args.labels_root)) if v], [])
        subprocess.run([sys.executable, os.path.join(HERE, "make_mobilenet.py"), "--onnx", onnx_path] + extra,
                       check=True, stdout=subprocess.DEVNULL)

    precisions = args.precision.split(",")
    commands = {}
    binaries = [("gpustyle", args.gpustyle)] + ([("before", args.before)] if args.before else [])
    for side, binary in binaries:
        for precision in precisions:
            commands[f"{side} {precision}"] = [binary, "bench", "--json", "--no-network", "--no-rectangles",
                                               "--classify", "--runs", str(args.runs), "--device", args.device,
                                               "--precision", precision]
    commands["onnxruntime"] = [sys.executable, os.path.abspath(__file__), "--onnxruntime-worker", onnx_path,
                               "--runs", str(args.runs)]
    samples = {}
    order = list(commands)
    for round_index in range(args.rounds):
        shift = round_index % len(order)
        for name in order[shift:] + order[:shift]:
            out = subprocess.run(commands[name], check=True, capture_output=True, text=True).stdout
            data = json.loads(out)
            if name == "onnxruntime":
                samples.setdefault("onnxruntime", []).append(data["median_ms"])
            else:
                # One precision: the rows keep their old names ("gpustyle cpu").
                side, precision = name.split()
                suffix = f" {precision}" if len(precisions) > 1 else ""
                for row in data["rectangles"]:
                    if row["work"] == "classify":
                        samples.setdefault(f"{side} {row['path']}{suffix}", []).append(row["median_ms"])
    medians = {k: statistics.median(v) for k, v in samples.items()}
    peer = medians["onnxruntime"]
    rows = []
    for k, v in medians.items():
        per_round = [a / b for a, b in zip(samples[k], samples["onnxruntime"])]
        rows.append({"side": k, "median_ms": v, "ratio_vs_onnxruntime": v / peer, "rounds": samples[k],
                     "round_ratios": per_round})
    if args.json:
        print(json.dumps({"rounds": args.rounds, "runs": args.runs, "rows": rows}, indent=1))
        return
    print(f"classify 224x224, median over {args.rounds} rounds of each process's median of {args.runs} runs")
    print(f"{'side':<22}{'median ms':>10}{'vs onnxruntime':>16}{'per-round ratios: median (range)':>36}")
    for row in rows:
        r = row["round_ratios"]
        spread = f"{statistics.median(r):.2f} ({min(r):.2f}-{max(r):.2f})"
        print(f"{row['side']:<22}{row['median_ms']:>10.2f}{row['ratio_vs_onnxruntime']:>15.2f}x{spread:>36}")


if __name__ == "__main__":
    main()
