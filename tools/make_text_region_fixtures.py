#!/usr/bin/env python3
"""Write the fixtures of TextRegionDecoderTests: three small DB-style probability maps and the
text boxes a reference post-processing finds on them, built from OpenCV's own contour and
rectangle routines (as PaddleOCR's DBPostProcess calls them), independently of the Swift code.

Needs (PyPI only):
    pip install numpy pillow opencv-python-headless==4.14.0.94
Regenerate (from the repository root):
    python3 tools/make_text_region_fixtures.py [--out DIR]

The maps (8-bit grey PNGs; a pixel's probability is its value / 255, as float32):
  lines.png   160 x 120: tilted filled rectangles (0, 12, -25, 70 and 90 degrees) softened by a
              Gaussian blur, a 2-px speck and a faint (0.5) rectangle
  blobs.png   160 x 128: soft flat-topped blobs with rounded corners of several sizes and angles,
              one too faint
  page.png    160 x 160: rows of words with small gaps, slightly tilted, blurred, over noise
              that crosses the threshold here and there in specks

The reference, per map (PaddleOCR's default settings: thresh 0.3, box_thresh 0.6,
unclip_ratio 1.5, min_size 3, score_mode "fast"):
  1. bitmap = probability > 0.3; outer contours by cv2.findContours (RETR_EXTERNAL,
     CHAIN_APPROX_NONE): the Swift decoder takes outer outlines only (PaddleOCR's RETR_LIST also
     returns the border of each hole as a contour; these maps have no holes);
  2. cv2.minAreaRect of the contour; dropped when its shorter side < 3;
  3. score: mean probability over the rectangle's bounding box masked by cv2.fillPoly of its
     corners (truncated to integers); dropped when < 0.6;
  4. unclip: the rectangle's edges pushed out by d = area * 1.5 / perimeter, met at mitred
     corners (PaddleOCR uses pyclipper with round joins; the minimum-area rectangle of either
     is the same rectangle, up to pyclipper truncating the corners to integers first: pyclipper
     1.4.0's boxes on these maps are within 1.8 px of these); cv2.minAreaRect of that,
     dropped when its shorter side < 5.
Box corners are written in cv2.boxPoints's order; the test compares them as sets.

Writes Tests/GPUStyleTests/Fixtures/text-regions/{lines,blobs,page}.png and boxes.json:
  {"threshold", "box_threshold", "unclip_ratio", "minimum_side",
   "maps": [{"file", "width", "height", "boxes": [{"corners": [[x, y] x 4], "score",
                                                   "core": [[x, y] x 4]}]}]}
"""
import argparse
import json
import math
import os

import cv2
import numpy as np
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
THRESHOLD, BOX_THRESHOLD, UNCLIP_RATIO, MIN_SIDE = 0.3, 0.6, 1.5, 3.0


def rectangle(canvas, cx, cy, length, breadth, degrees, value):
    """Pixels whose centres lie in the rotated rectangle take `value` (the largest wins)."""
    h, w = canvas.shape
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    t = math.radians(degrees)
    along = (x - cx) * math.cos(t) + (y - cy) * math.sin(t)
    across = -(x - cx) * math.sin(t) + (y - cy) * math.cos(t)
    inside = (np.abs(along) <= length / 2) & (np.abs(across) <= breadth / 2)
    canvas[inside] = np.maximum(canvas[inside], value)


def blob(canvas, cx, cy, sx, sy, degrees, peak):
    h, w = canvas.shape
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    t = math.radians(degrees)
    a = (x - cx) * math.cos(t) + (y - cy) * math.sin(t)
    b = -(x - cx) * math.sin(t) + (y - cy) * math.cos(t)
    # A flat-topped blob with rounded corners, exp(-((a/sx)^4 + (b/sy)^4) / 2) cut at 1/2: DB's
    # maps are near 1 over a text core and fall off at its border (an elliptical Gaussian
    # scores under the 0.6 box threshold: it fills too little of its rectangle).
    np.maximum(canvas, peak * np.minimum(1, 2 * np.exp(-0.5 * ((a / sx) ** 4 + (b / sy) ** 4))), out=canvas)


def blur(canvas, sigma):
    radius = int(3 * sigma + 1)
    k = np.exp(-0.5 * (np.arange(-radius, radius + 1) / sigma) ** 2)
    k /= k.sum()
    padded = np.pad(canvas, radius, mode="edge")
    rows = np.apply_along_axis(lambda r: np.convolve(r, k, mode="valid"), 1, padded)
    return np.apply_along_axis(lambda c: np.convolve(c, k, mode="valid"), 0, rows)


def lines_map():
    m = np.zeros((120, 160))
    rectangle(m, 45, 20, 70, 14, 0, 0.95)
    rectangle(m, 115, 22, 60, 12, 12, 0.9)
    rectangle(m, 55, 70, 80, 16, -25, 0.92)
    rectangle(m, 118, 80, 50, 11, 70, 0.88)
    rectangle(m, 148, 78, 40, 8, 90, 0.9)
    rectangle(m, 20, 108, 30, 10, 0, 0.5)    # faint: score below 0.6
    m = blur(m, 1.0)
    m[100:102, 100:102] = 0.9                # a speck: side below 3
    return m


def blobs_map():
    m = np.zeros((128, 160))
    blob(m, 40, 28, 24, 6, 10, 0.95)
    blob(m, 115, 30, 18, 7, -35, 0.9)
    blob(m, 40, 90, 7, 20, 20, 0.97)
    blob(m, 112, 92, 24, 5, 55, 0.93)
    blob(m, 80, 62, 6, 4, 0, 0.45)           # faint
    return m


def page_map():
    rng = np.random.default_rng(11)
    m = np.zeros((160, 160))
    for row in range(6):
        y = 14 + row * 25
        x = 8
        tilt = rng.uniform(-4, 4)
        while x < 140:
            length = rng.uniform(14, 40)
            if x + length > 152:
                break
            rectangle(m, x + length / 2, y + (x + length / 2) * math.tan(math.radians(tilt)) * 0.2,
                      length, rng.uniform(9, 13), tilt, rng.uniform(0.8, 0.98))
            x += length + rng.uniform(4, 8)
    m = blur(m, 0.8)
    noise = rng.uniform(0, 0.22, m.shape)
    noise[rng.uniform(0, 1, m.shape) < 0.004] = 0.7
    return np.maximum(m, noise)


def box_score(pred, corners):
    h, w = pred.shape
    xs, ys = corners[:, 0], corners[:, 1]
    x0 = int(np.clip(np.floor(xs.min()), 0, w - 1)); x1 = int(np.clip(np.ceil(xs.max()), 0, w - 1))
    y0 = int(np.clip(np.floor(ys.min()), 0, h - 1)); y1 = int(np.clip(np.ceil(ys.max()), 0, h - 1))
    mask = np.zeros((y1 - y0 + 1, x1 - x0 + 1), np.uint8)
    shifted = corners - np.array([x0, y0], dtype=corners.dtype)
    cv2.fillPoly(mask, [shifted.astype(np.int32).reshape(-1, 1, 2)], 1)
    return cv2.mean(pred[y0:y1 + 1, x0:x1 + 1], mask)[0]


def mitred_offset(polygon, distance):
    """Convex polygon (clockwise on screen) grown by `distance`, edges met at mitred corners."""
    p = np.asarray(polygon, np.float64)
    e, f = p[1] - p[0], p[2] - p[1]
    if e[0] * f[1] - e[1] * f[0] < 0:  # make it clockwise on screen
        p = p[::-1]
    d = np.roll(p, -1, axis=0) - p
    normals = np.stack([d[:, 1], -d[:, 0]], axis=1) / np.linalg.norm(d, axis=1, keepdims=True)
    before = np.roll(normals, 1, axis=0)
    scale = distance / (1 + np.sum(before * normals, axis=1, keepdims=True))
    return p + (before + normals) * scale


def reference_boxes(pred):
    bitmap = (pred > np.float32(THRESHOLD)).astype(np.uint8) * 255
    contours, _ = cv2.findContours(bitmap, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    boxes = []
    for contour in contours:
        rect = cv2.minAreaRect(contour)
        if min(rect[1]) < MIN_SIDE:
            continue
        core = cv2.boxPoints(rect).astype(np.float64)
        score = box_score(pred, core)
        if score < BOX_THRESHOLD:
            continue
        w, h = rect[1]
        distance = w * h * UNCLIP_RATIO / (2 * (w + h))
        grown = cv2.minAreaRect(mitred_offset(core, distance).astype(np.float32))
        if min(grown[1]) < MIN_SIDE + 2:
            continue
        boxes.append({"corners": cv2.boxPoints(grown).astype(np.float64).round(4).tolist(),
                      "score": round(float(score), 6), "core": core.round(4).tolist()})
    return boxes


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=os.path.join(ROOT, "Tests/GPUStyleTests/Fixtures/text-regions"))
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    maps = []
    for name, make in [("lines", lines_map), ("blobs", blobs_map), ("page", page_map)]:
        values = np.clip(np.round(make() * 255), 0, 255).astype(np.uint8)
        Image.fromarray(values, "L").save(os.path.join(a.out, name + ".png"))
        pred = values.astype(np.float32) / np.float32(255)
        boxes = reference_boxes(pred)
        maps.append({"file": name + ".png", "width": values.shape[1], "height": values.shape[0], "boxes": boxes})
        # A score this close to the box threshold could fall on either side of it in another
        # implementation's arithmetic: the maps are made to have none.
        assert all(abs(b["score"] - BOX_THRESHOLD) > 0.03 for b in boxes), name
        print(f"{name}: {len(boxes)} boxes")
    with open(os.path.join(a.out, "boxes.json"), "w") as f:
        json.dump({"threshold": THRESHOLD, "box_threshold": BOX_THRESHOLD, "unclip_ratio": UNCLIP_RATIO,
                   "minimum_side": MIN_SIDE, "maps": maps}, f, indent=1)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
