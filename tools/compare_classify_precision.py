#!/usr/bin/env python3
"""`gpustyle classify --precision bf16` against fp32 and against onnxruntime's fp32, photo by photo.

For every photo (files, or folders searched recursively for PNG/JPEG/HEIC/WebP/AVIF):
`gpustyle classify --device cpu --json --top 1000` once with `--precision fp32` and once with
`--precision bf16` (one process each for all photos), then per photo: the top-1 class of each,
whether the top-5 sets (and orders) agree, and the largest |p_bf16 - p_fp32| over the 1000
classes. The independent reference is onnxruntime (CPU, fp32) on the ONNX export
(tools/make_mobilenet.py), fed the photo decoded by Pillow (EXIF orientation applied) and
prepared by tools/make_classify_fixtures.py's torchvision preprocessing; photos Pillow cannot
decode (HEIC, AVIF) have no reference. Its decoder is not gpustyle's, so a near tie may split
there for reasons that are not the network's: the top-1 agreement with onnxruntime is reported
for both precisions side by side.

    python3 tools/compare_classify_precision.py --binary .build/release/gpustyle \\
        --onnx /tmp/cpu40w/mobilenet_v2.onnx examples Tests/GPUStyleTests/Fixtures

Prints one row per photo and a summary; --json FILE writes the rows.
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

EXTENSIONS = (".png", ".jpg", ".jpeg", ".heic", ".webp", ".avif")
SKIP_DIRS = ("fuzz",)  # deliberately broken files: not photos


def collect(paths):
    out = []
    for p in paths:
        if os.path.isdir(p):
            for root, dirs, files in os.walk(p):
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
                out += [os.path.join(root, f) for f in sorted(files) if f.lower().endswith(EXTENSIONS)]
        else:
            out.append(p)
    return out


def run_gpustyle(binary, photos, precision):
    """{file: probabilities[1000]} from one `gpustyle classify` process."""
    cmd = [binary, "classify", "--device", "cpu", "--json", "--top", "1000", "--precision", precision] + photos
    res = subprocess.run(cmd, capture_output=True, text=True)
    probs = {}
    for line in res.stdout.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        rec = json.loads(line)
        if "classifications" not in rec:
            continue
        p = np.zeros(1000)
        for c in rec["classifications"]:
            p[c["index"]] = c["confidence"]
        probs[rec["file"]] = p
    return probs


def onnxruntime_probs(onnx, photos):
    """{file: probabilities} from onnxruntime on Pillow-decoded, torchvision-prepared photos."""
    import onnxruntime as ort
    from PIL import Image, ImageOps
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import make_classify_fixtures as fx
    sess = ort.InferenceSession(onnx, providers=["CPUExecutionProvider"])
    name = sess.get_inputs()[0].name
    out = {}
    for f in photos:
        try:
            with Image.open(f) as im:
                im = ImageOps.exif_transpose(im)
                rgb = np.asarray(im.convert("RGB"), dtype=np.uint8).copy()
        except Exception:  # noqa: BLE001 - no reference for this photo
            continue
        if min(rgb.shape[:2]) < 1:
            continue
        crop, _ = fx.preprocess(rgb)
        logits = sess.run(None, {name: fx.normalize(crop)})[0][0]
        out[f] = fx.softmax(logits)
    return out


def top(p, k):
    return list(np.argsort(-p, kind="stable")[:k])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--binary", default=".build/release/gpustyle")
    ap.add_argument("--onnx", default="/tmp/cpu40w/mobilenet_v2.onnx", help="'' for no onnxruntime reference")
    ap.add_argument("--json", help="write the per-photo rows here")
    args = ap.parse_args()

    photos = collect(args.paths)
    fp32 = run_gpustyle(args.binary, photos, "fp32")
    bf16 = run_gpustyle(args.binary, photos, "bf16")
    ref = onnxruntime_probs(args.onnx, photos) if args.onnx else {}

    rows = []
    for f in photos:
        if f not in fp32 or f not in bf16:
            continue
        a, b = fp32[f], bf16[f]
        r = {"file": f, "top1_fp32": int(top(a, 1)[0]), "top1_bf16": int(top(b, 1)[0]),
             "p1_fp32": float(a.max()), "p1_bf16": float(b.max()),
             "top5_set_same": set(top(a, 5)) == set(top(b, 5)), "top5_order_same": top(a, 5) == top(b, 5),
             "max_abs_diff": float(np.abs(a - b).max())}
        # The runner-up's margin: how near a tie the fp32 top-1 is.
        s = np.sort(a)[::-1]
        r["fp32_margin"] = float(s[0] - s[1])
        if f in ref:
            r["top1_ort"] = int(top(ref[f], 1)[0])
            r["max_abs_diff_fp32_ort"] = float(np.abs(a - ref[f]).max())
            r["max_abs_diff_bf16_ort"] = float(np.abs(b - ref[f]).max())
        rows.append(r)
        flag = "" if r["top1_fp32"] == r["top1_bf16"] else "  TOP-1 DIFFERS"
        ort_txt = ""
        if "top1_ort" in r:
            ort_txt = " ort %4d (fp32 %s, bf16 %s)" % (r["top1_ort"], "=" if r["top1_ort"] == r["top1_fp32"] else "x",
                                                      "=" if r["top1_ort"] == r["top1_bf16"] else "x")
        print("%-70s fp32 %4d %.4f bf16 %4d %.4f top5 %s max|dp| %.4f%s%s" % (
            f[-70:], r["top1_fp32"], r["p1_fp32"], r["top1_bf16"], r["p1_bf16"],
            "same" if r["top5_order_same"] else ("set" if r["top5_set_same"] else "DIFF"),
            r["max_abs_diff"], ort_txt, flag))

    n = len(rows)
    diffs = np.array([r["max_abs_diff"] for r in rows])
    with_ref = [r for r in rows if "top1_ort" in r]
    print("\n%d photos (of %d given; the rest failed to decode in gpustyle)" % (n, len(photos)))
    print("top-1 bf16 == fp32: %d / %d" % (sum(r["top1_fp32"] == r["top1_bf16"] for r in rows), n))
    print("top-5 set same: %d / %d; same order: %d / %d" % (
        sum(r["top5_set_same"] for r in rows), n, sum(r["top5_order_same"] for r in rows), n))
    print("max |p_bf16 - p_fp32| over all classes: max %.4f, median %.4f, 95th percentile %.4f" % (
        diffs.max(), np.median(diffs), np.percentile(diffs, 95)))
    if with_ref:
        m = len(with_ref)
        print("onnxruntime reference on %d photos: top-1 == fp32 %d, == bf16 %d; max |p - p_ort| fp32 %.4f "
              "(median %.4f), bf16 %.4f (median %.4f)" % (
                  m, sum(r["top1_ort"] == r["top1_fp32"] for r in with_ref),
                  sum(r["top1_ort"] == r["top1_bf16"] for r in with_ref),
                  max(r["max_abs_diff_fp32_ort"] for r in with_ref),
                  np.median([r["max_abs_diff_fp32_ort"] for r in with_ref]),
                  max(r["max_abs_diff_bf16_ort"] for r in with_ref),
                  np.median([r["max_abs_diff_bf16_ort"] for r in with_ref])))
    for r in rows:
        if r["top1_fp32"] != r["top1_bf16"]:
            print("top-1 differs: %s fp32 %d (%.4f, margin %.4f) bf16 %d (%.4f)" % (
                r["file"], r["top1_fp32"], r["p1_fp32"], r["fp32_margin"], r["top1_bf16"], r["p1_bf16"]))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
