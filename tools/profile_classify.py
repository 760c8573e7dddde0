#!/usr/bin/env python3
"""Classify step by step: gpustyle's per-step profile against onnxruntime's per-node profile of
the same network, block by block, alternating in one run.

Needs a release build of gpustyle, numpy, onnxruntime and the ONNX export of the network
(tools/make_mobilenet.py makes it).

    python3 tools/profile_classify.py --onnx mobilenet_v2.onnx [--rounds 6] [--threads 2]
                                      [--gpustyle .build/release/gpustyle]

Each round runs, as separate processes in an order alternated every round,
    gpustyle profile --network classify --device cpu --runs 60 --skip-limits --json
    this script's onnxruntime worker: 60 runs with enable_profiling (intra_op_num_threads =
        --threads), the medians of the last 50 of each node's kernel times
(both pinned to the first --threads cores with taskset). onnxruntime's nodes are summed per
MobileNetV2 block (features.N), the rest into the pool and the classifier; gpustyle's plan steps
are the stem, the 17 blocks, the last 1x1 convolution, the pool and the classifier (softmax
counted with the pool). The table shows per block the medians over rounds and the median of the
per-round ratios (< 1: gpustyle faster). onnxruntime's profiler slows it a little: compare its
per-node sum with tools/bench_classify.py's whole-run time.
"""
import argparse
import collections
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = [str(i) for i in range(19)] + ["pool", "classifier"]


def onnxruntime_worker(path, threads):
    import numpy as np
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.enable_profiling = True
    options.intra_op_num_threads = threads
    options.profile_file_prefix = os.path.join(tempfile.mkdtemp(prefix="profile-classify-"), "ort")
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    x = np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)
    name = session.get_inputs()[0].name
    for _ in range(60):
        session.run(None, {name: x})
    events = json.load(open(session.end_profiling()))
    times = collections.defaultdict(list)
    for e in events:
        if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
            times[e["name"][: -len("_kernel_time")]].append(e["dur"])
    blocks = collections.defaultdict(float)
    for node, durations in times.items():
        block = re.search(r"features\.(\d+)/", node)
        key = block.group(1) if block else ("pool" if "Reduce" in node or "Reorder" in node else "classifier")
        blocks[key] += statistics.median(durations[10:])
    print(json.dumps(blocks))


def pinned(threads):
    return ["taskset", "-c", ",".join(str(i) for i in range(threads))]


def onnxruntime_round(args):
    out = subprocess.run(pinned(args.threads) + [sys.executable, __file__, "--onnxruntime-worker", args.onnx,
                                                 "--threads", str(args.threads)],
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def gpustyle_round(args):
    out = subprocess.run(pinned(args.threads) + [args.gpustyle, "profile", "--network", "classify", "--device", "cpu",
                                                 "--runs", "60", "--skip-limits", "--json"],
                         capture_output=True, text=True, check=True).stdout
    steps = [1000 * s["ms"] for s in json.loads(out)["reports"][0]["steps"]]
    if len(steps) != 22:
        sys.exit(f"expected classify's 22 plan steps, got {len(steps)}")
    blocks = dict(zip(KEYS, steps[:19] + [steps[19] + steps[21], steps[20]]))
    return blocks


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gpustyle", default=os.path.join(HERE, "..", ".build", "release", "gpustyle"))
    p.add_argument("--onnx")
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--onnxruntime-worker", metavar="FILE", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.onnxruntime_worker:
        onnxruntime_worker(args.onnxruntime_worker, args.threads)
        return
    if not args.onnx:
        p.error("--onnx FILE is required (tools/make_mobilenet.py makes it)")
    ours, theirs, ratios = (collections.defaultdict(list) for _ in range(3))
    for r in range(args.rounds):
        if r % 2:
            b = onnxruntime_round(args)
            a = gpustyle_round(args)
        else:
            a = gpustyle_round(args)
            b = onnxruntime_round(args)
        for key in KEYS:
            ours[key].append(a[key])
            theirs[key].append(b[key])
            ratios[key].append(a[key] / b[key])
        ratios["sum"].append(sum(a.values()) / sum(b.values()))
    print(f"classify step by step, {args.threads} thread(s), {args.rounds} alternating rounds of 60 runs")
    print(f"{'block':10s} {'gpustyle us':>11s} {'onnxruntime us':>14s} {'ratio':>6s}  range")
    for key in KEYS:
        rs = ratios[key]
        print(f"{key:10s} {statistics.median(ours[key]):11.0f} {statistics.median(theirs[key]):14.0f} "
              f"{statistics.median(rs):6.2f}  {min(rs):.2f}-{max(rs):.2f}")
    rs = ratios["sum"]
    print(f"{'sum':10s} {'':11s} {'':14s} {statistics.median(rs):6.2f}  {min(rs):.2f}-{max(rs):.2f}")


if __name__ == "__main__":
    main()
