#!/usr/bin/env python3
"""Time ncnn (CPU fp32, and Vulkan fp32 on whatever Vulkan device ncnn finds: lavapipe here) running
multistyle26, the peer that gpustyle's Vulkan path is compared against, and check its output
against onnxruntime at every size (ncnn is known to go wrong on lavapipe; NOTES.md section 4b).

Needs (pip): numpy, onnx, onnxsim, pnnx, ncnn, onnxruntime (for the correctness check), and what
tools/make_weights.py needs to fetch the verified ONNX file.
    python3 tools/bench_ncnn.py [--sizes 256x256,512x512,640x480,1920x1080] [--runs 10]
                                [--warmup 1] [--style 0] [--device cpu|vulkan|all]
                                [--norm instancenorm|decomposed] [--json]

Conversion route (done once, cached under $TMPDIR/gpustyle-ncnn/<onnx sha256[:16]>-style<N>-<norm>/):
  1. multistyle26.onnx from make_weights.onnx_path() (inputs `image` [1,3,h,w], `style_weights` [26]).
  2. `style_weights` is FROZEN to a one-hot constant for --style (default 0) by turning the graph
     input into an initializer: ncnn gets a single-style network. The compute is the same for every
     style (the style only picks InstanceNorm scale/shift), so this is fine for timing.
  3. onnxsim.simplify() folds the style selection (Reshape/Transpose/ReduceSum/Slice/Cast/...)
     away: what remains is Conv, Pad, ReduceMean/Sub/Pow/Sqrt/Div/Mul/Add (InstanceNorm as
     elementwise ops), Relu, Resize (nearest x2), Sigmoid.
  4. --norm instancenorm (default): each of the 18 norm patterns (ReduceMean, Sub, Pow 2,
     ReduceMean, Add eps, Sqrt, Div 1/x, Mul, Mul gamma, Add beta) is replaced by one ONNX
     InstanceNormalization(x, gamma, beta, epsilon) node (then onnxsim again); onnxruntime agrees
     with the original network to ~5e-7. pnnx maps that to ncnn's InstanceNorm layer: ncnn's own,
     fastest form of this network (what a PyTorch InstanceNorm2d export gives), and the form that is
     WRONG on lavapipe above 2^18 pixels per feature map (640x480: max abs diff 0.12 vs onnxruntime).
     --norm decomposed: skip the fusion; pnnx then emits Reduction + BinaryOp + UnaryOp layers
     for the norm: correct on lavapipe at every size tried, but about 2x slower there.
  5. `pnnx model.onnx inputshape=[1,3,256,256] inputshape2=[1,3,512,512]` (the pnnx binary
     from the pip package, pnnx.EXEC_PATH) writes model.ncnn.param / .ncnn.bin with dynamic
     H/W; input blob `in0`, output blob `out0`.
  Verified with: ncnn 1.0.20261020, pnnx 20261020, onnxsim 0.8.1, onnx 1.23.2, onnxruntime 1.31.1,
  Python 3.11 (pnnx pulls in torch 2.15 as a pip dependency; the conversion itself uses only the
  pnnx binary). The versions actually used are printed / put in the JSON.

ncnn options: CPU path `use_vulkan_compute = False`, `num_threads = os.cpu_count()`, fp32
(`use_fp16_storage/packed/arithmetic = False`, bf16 off). Vulkan path: the same plus
`use_vulkan_compute = True`; fp16 must stay off on lavapipe (the fp16 default gives NaN there).

Per size and path: --warmup runs (the first one is reported as first_ms: it includes ncnn's
pipeline creation / weight upload for Vulkan), then --runs timed runs of numpy image -> ncnn.Mat ->
extractor.input/extract -> numpy (wall clock, time.perf_counter), like session.run() in
bench_onnxruntime.py. Input: the same fixed random image as bench_onnxruntime.py, reflection-padded
to a multiple of 4 outside the timed region. Correctness: max abs diff of the last output against
onnxruntime (same image, same one-hot style); `correct` = no NaN and max_abs_diff <= --tolerance.

--json prints one JSON document per line, one per path, each in bench_onnxruntime.py's shape:
{"peer": "ncnn-cpu" | "ncnn-vulkan", "version": ..., "threads": ..., "device": ..., "style": N,
 "results": [{"size": "512x512", "min_ms": ..., "median_ms": ..., "gflops": ..., "runs": N,
              "first_ms": ..., "max_abs_diff": ..., "correct": true}, ...]}
(with --device cpu or vulkan that is a single document).
"""
import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_weights  # noqa: E402
from bench_onnxruntime import network_macs, parse_sizes  # noqa: E402

DEFAULT_SIZES = "256x256,512x512,640x480,1920x1080"
IN_BLOB, OUT_BLOB = "in0", "out0"


def log(msg):
    sys.stderr.write("bench_ncnn: %s\n" % msg)


def fuse_instance_norm(model):
    """Replaces each decomposed InstanceNorm (ReduceMean .. Add beta) by InstanceNormalization."""
    from onnx import helper, numpy_helper

    g = model.graph
    inits = {i.name: i for i in g.initializer}
    consts = {n.output[0]: numpy_helper.to_array(n.attribute[0].t) for n in g.node
              if n.op_type == "Constant" and n.attribute and n.attribute[0].name == "value"}

    def val(name):
        return numpy_helper.to_array(inits[name]) if name in inits else consts[name]

    consumers = {}
    for n in g.node:
        for i in n.input:
            consumers.setdefault(i, []).append(n)

    def only(out, op):
        c = [x for x in consumers.get(out, []) if x.op_type == op]
        if len(c) != 1:
            raise ValueError("unexpected norm pattern at %s (%s)" % (out, op))
        return c[0]

    remove, replace = set(), {}
    for r1 in list(g.node):
        if r1.op_type != "ReduceMean" or id(r1) in remove:
            continue
        x = r1.input[0]
        sub = only(r1.output[0], "Sub")
        if list(sub.input) != [x, r1.output[0]]:
            continue
        pw = only(sub.output[0], "Pow")
        r2 = only(pw.output[0], "ReduceMean")
        add = only(r2.output[0], "Add")
        sq = only(add.output[0], "Sqrt")
        dv = only(sq.output[0], "Div")
        m2 = only(dv.output[0], "Mul")
        m3 = only(m2.output[0], "Mul")
        a2 = only(m3.output[0], "Add")
        if float(val(pw.input[1])) != 2.0 or float(val(dv.input[0])) != 1.0:
            raise ValueError("unexpected norm constants at %s" % r1.output[0])
        gn, bn = r1.output[0] + "_in_gamma", r1.output[0] + "_in_beta"
        g.initializer.extend([
            numpy_helper.from_array(val(m3.input[1]).reshape(-1).astype(np.float32), gn),
            numpy_helper.from_array(val(a2.input[1]).reshape(-1).astype(np.float32), bn)])
        for n in (r1, sub, pw, r2, add, sq, dv, m2, m3, a2):
            remove.add(id(n))
        replace[id(a2)] = helper.make_node("InstanceNormalization", [x, gn, bn], [a2.output[0]],
                                           epsilon=float(val(add.input[1])))
    nodes = [replace.get(id(n), n) for n in g.node if id(n) not in remove or id(n) in replace]
    del g.node[:]
    g.node.extend(nodes)
    return len(replace)


def convert(style, norm="instancenorm"):
    """Returns (param_path, bin_path) of the ncnn model for one frozen style, converting once."""
    import pnnx

    src = make_weights.onnx_path()
    with open(src, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()[:16]
    cache = os.path.join(tempfile.gettempdir(), "gpustyle-ncnn", "%s-style%d-%s" % (digest, style, norm))
    param = os.path.join(cache, "model.ncnn.param")
    binf = os.path.join(cache, "model.ncnn.bin")
    if os.path.exists(param) and os.path.exists(binf):
        return param, binf
    os.makedirs(cache, exist_ok=True)
    import onnx
    from onnx import numpy_helper
    from onnxsim import simplify

    log("converting %s (style %d, norm %s) into %s" % (src, style, norm, cache))
    model = onnx.load(src)
    weights = np.zeros(26, dtype=np.float32)
    weights[style] = 1
    model.graph.initializer.append(numpy_helper.from_array(weights, "style_weights"))
    keep = [i for i in model.graph.input if i.name != "style_weights"]
    del model.graph.input[:]
    model.graph.input.extend(keep)
    simplified, ok = simplify(model)
    if not ok:
        sys.exit("bench_ncnn: onnxsim could not validate the simplified model")
    if norm == "instancenorm":
        fused = fuse_instance_norm(simplified)
        if fused != 18:
            sys.exit("bench_ncnn: expected 18 norms to fuse, found %d" % fused)
        simplified, ok = simplify(simplified)
        if not ok:
            sys.exit("bench_ncnn: onnxsim could not validate the fused model")
    onnx.save(simplified, os.path.join(cache, "model.onnx"))
    cmd = [pnnx.EXEC_PATH, "model.onnx", "inputshape=[1,3,256,256]", "inputshape2=[1,3,512,512]"]
    proc = subprocess.run(cmd, cwd=cache, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if proc.returncode != 0 or not (os.path.exists(param) and os.path.exists(binf)):
        sys.stderr.write(proc.stdout)
        sys.exit("bench_ncnn: pnnx failed (exit %d): %s" % (proc.returncode, " ".join(cmd)))
    return param, binf


def make_net(param, binf, vulkan):
    import ncnn

    net = ncnn.Net()
    net.opt.use_vulkan_compute = vulkan
    net.opt.num_threads = os.cpu_count()
    net.opt.use_fp16_storage = False
    net.opt.use_fp16_packed = False
    net.opt.use_fp16_arithmetic = False
    for name in ("use_bf16_storage", "use_bf16_packed"):
        if hasattr(net.opt, name):
            setattr(net.opt, name, False)
    if net.load_param(param) != 0 or net.load_model(binf) != 0:
        sys.exit("bench_ncnn: could not load %s / %s" % (param, binf))
    return net


def infer(net, chw):
    import ncnn

    ex = net.create_extractor()
    ex.input(IN_BLOB, ncnn.Mat(chw))
    ret, out = ex.extract(OUT_BLOB)
    if ret != 0:
        raise RuntimeError("ncnn extract failed (%d)" % ret)
    return np.array(out)


def bench(net, session, w, h, runs, warmup, style, tolerance):
    pw, ph = (-w) % 4, (-h) % 4
    rng = np.random.default_rng(0)
    image = rng.random((1, 3, h, w), dtype=np.float32)
    image = np.pad(image, ((0, 0), (0, 0), (0, ph), (0, pw)), mode="reflect")
    chw = np.ascontiguousarray(image[0])
    first_ms = None
    for _ in range(max(warmup, 0)):
        t0 = time.perf_counter()
        infer(net, chw)
        if first_ms is None:
            first_ms = (time.perf_counter() - t0) * 1000
    times = []
    out = None
    for _ in range(runs):
        t0 = time.perf_counter()
        out = infer(net, chw)
        times.append((time.perf_counter() - t0) * 1000)
    median = statistics.median(times)
    result = {"size": "%dx%d" % (w, h), "min_ms": round(min(times), 3), "median_ms": round(median, 3),
              "gflops": round(2 * network_macs(w + pw, h + ph) / (median * 1e6), 2), "runs": runs,
              "first_ms": None if first_ms is None else round(first_ms, 3)}
    if session is not None:
        weights = np.zeros(26, dtype=np.float32)
        weights[style] = 1
        ref = session.run(["stylized"], {"image": image, "style_weights": weights})[0][0]
        if out is None or out.shape != ref.shape:
            result.update(max_abs_diff=None, correct=False)
        else:
            diff = np.abs(out.astype(np.float32) - ref)
            nan = bool(np.isnan(out).any())
            mad = float(np.nanmax(diff)) if not np.isnan(diff).all() else None
            result.update(max_abs_diff=None if mad is None else round(mad, 6), nan=nan,
                          correct=(not nan) and mad is not None and mad <= tolerance)
    return result


def main():
    parser = argparse.ArgumentParser(description="Time ncnn CPU and Vulkan (fp32) on multistyle26.")
    parser.add_argument("--sizes", default=DEFAULT_SIZES, help="comma-separated WxH list")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=1)
    parser.add_argument("--style", type=int, default=0, help="style frozen into the ncnn model")
    parser.add_argument("--device", default="all", choices=["cpu", "vulkan", "all"])
    parser.add_argument("--norm", default="instancenorm", choices=["instancenorm", "decomposed"],
                        help="ncnn InstanceNorm layers (fast, wrong >2^18 px on lavapipe) or decomposed ops")
    parser.add_argument("--tolerance", type=float, default=2e-3,
                        help="max abs diff vs onnxruntime counted as correct")
    parser.add_argument("--no-check", action="store_true", help="skip the onnxruntime comparison")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    import ncnn

    param, binf = convert(args.style, args.norm)
    session = None
    if not args.no_check:
        import onnxruntime as ort
        session = ort.InferenceSession(make_weights.onnx_path(), providers=["CPUExecutionProvider"])
    paths = ["cpu", "vulkan"] if args.device == "all" else [args.device]
    docs = []
    for path in paths:
        vulkan = path == "vulkan"
        if vulkan:
            if ncnn.get_gpu_count() < 1:
                log("no Vulkan device; skipping ncnn-vulkan")
                continue
            device = ncnn.get_gpu_info(ncnn.get_default_gpu_index()).device_name()
        else:
            device = "cpu"
        net = make_net(param, binf, vulkan)
        results = []
        for w, h in parse_sizes(args.sizes):
            log("%s %dx%d" % (path, w, h))
            results.append(bench(net, session, w, h, args.runs, args.warmup, args.style, args.tolerance))
        net.clear()
        docs.append({"peer": "ncnn-" + path, "version": ncnn.__version__, "threads": os.cpu_count(),
                     "device": device, "fp16": False, "style": args.style, "norm": args.norm,
                     "model": param, "results": results})
    if args.json:
        for doc in docs:
            print(json.dumps(doc))
        return
    for doc in docs:
        print("%s %s fp32 (%s, %d threads, style %d frozen, norm %s), %d runs after %d warm-up" % (
            doc["peer"], doc["version"], doc["device"], doc["threads"], doc["style"], doc["norm"],
            args.runs, args.warmup))
        print("%-11s %10s %10s %10s %8s %12s %8s" % ("size", "first ms", "min ms", "median ms", "GFLOP/s",
                                                    "max|d| ort", "correct"))
        for r in doc["results"]:
            mad = r.get("max_abs_diff")
            print("%-11s %10.1f %10.1f %10.1f %8.1f %12s %8s" % (
                r["size"], r["first_ms"] or 0.0, r["min_ms"], r["median_ms"], r["gflops"],
                "-" if mad is None else "%.2e" % mad,
                "-" if "correct" not in r else ("yes" if r["correct"] else "NO")))


if __name__ == "__main__":
    main()
