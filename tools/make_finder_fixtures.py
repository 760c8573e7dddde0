#!/usr/bin/env python3
"""Fixtures for the learned picture finder on the runtime (issue 36): its raw heads by
onnxruntime, and the quads tools/train_finder.py's numpy `decode` makes of them.

    python3 tools/make_finder_fixtures.py --onnx tools/finder.onnx \\
        [--out Tests/GPUStyleTests/Fixtures/finder]

For each input (small on purpose: the network is fully convolutional, and a 160-wide input
keeps the fixture at 70 KB of heads) it writes
    NAME.png        the input, sRGB, as the test reads it (values / 255)
    NAME.heads.f32  onnxruntime's output [14][H/4][W/4], float32 little-endian, for the input
                    edge-padded to multiples of 16 (PictureFinder.tensor's padding)
and finder.json: {"inputs": [{"name", "width", "height", "padded_width", "padded_height",
"quads": [[[x, y] x 4], ...], "scores": [...]}], "onnx_sha256", "decode_threshold"}. The quads are
`train_finder.decode(heads, threshold)` in the padded input's pixels.

Inputs: scene 0 of tools/finder_data.py's development seed 6000 box-downscaled 2x (160x120), and
the first positive of the committed rectangle set (Fixtures/rectangles) box-downscaled 8x
(160x90, padded to 160x96). Tests: FinderTests (CPU and Vulkan within 1e-4 of these heads; the
Swift decoder within 1e-4 px of these quads). tools/make_finder_model.sh runs this after each
export, so the fixtures always match the built-in model.
"""
import argparse
import hashlib
import json
import os
import sys

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
FIXTURES = os.path.join(HERE, "..", "Tests", "GPUStyleTests", "Fixtures")
MULTIPLE = 16
THRESHOLDS = (0.3, 0.05)  # the finder's default, and a low one so that the decoder's parity sees many quads


def box(u8, k):
    h, w = u8.shape[0] // k * k, u8.shape[1] // k * k
    x = u8[:h, :w].astype(np.float64).reshape(h // k, k, w // k, k, 3).mean(axis=(1, 3))
    return np.clip(np.round(x), 0, 255).astype(np.uint8)


def inputs():
    import finder_data
    u8, _q, _info = finder_data.render_scene(6000, 0, 320, 240)
    yield "dev6000-0", box(u8, 2)
    scenes = json.load(open(os.path.join(FIXTURES, "rectangles", "scenes.json")))
    first = next(s for s in scenes if s["kind"] == "positive")
    photo = np.asarray(Image.open(os.path.join(FIXTURES, "rectangles", first["file"])).convert("RGB"))
    yield "rectangles-" + os.path.splitext(first["file"])[0], box(photo, 8)


def padded(u8):
    h, w = u8.shape[:2]
    H, W = -(-h // MULTIPLE) * MULTIPLE, -(-w // MULTIPLE) * MULTIPLE
    return np.pad(u8, ((0, H - h), (0, W - w), (0, 0)), mode="edge")


def any_size(path):
    """The model's bytes with its input's and output's height and width made symbolic (the export
    fixes them at 320x240; the network is fully convolutional), for onnxruntime."""
    import onnx
    m = onnx.load(path)
    for value, names in ((m.graph.input[0], ("h", "w")), (m.graph.output[0], ("h4", "w4"))):
        dims = value.type.tensor_type.shape.dim
        for dim, name in zip(dims[2:], names):
            dim.ClearField("dim_value")
            dim.dim_param = name
    del m.graph.value_info[:]
    return m.SerializeToString()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--onnx", default=os.path.join(HERE, "finder.onnx"))
    ap.add_argument("--out", default=os.path.join(FIXTURES, "finder"))
    args = ap.parse_args(argv)
    import onnxruntime as ort
    import train_finder
    os.makedirs(args.out, exist_ok=True)
    session = ort.InferenceSession(any_size(args.onnx), providers=["CPUExecutionProvider"])
    entries = []
    for name, u8 in inputs():
        Image.fromarray(u8).save(os.path.join(args.out, name + ".png"))
        x = padded(u8).astype(np.float32).transpose(2, 0, 1)[None] / 255
        heads = session.run(None, {session.get_inputs()[0].name: x})[0][0]
        heads.astype("<f4").tofile(os.path.join(args.out, name + ".heads.f32"))
        decoded = []
        for threshold in THRESHOLDS:
            found = train_finder.decode(heads, threshold=threshold)
            decoded.append({"threshold": threshold,
                            "quads": [[[round(float(v), 6) for v in p] for p in q] for q, _ in found],
                            "scores": [round(float(s), 7) for _, s in found]})
        entries.append({"name": name, "width": int(u8.shape[1]), "height": int(u8.shape[0]),
                        "padded_width": int(x.shape[3]), "padded_height": int(x.shape[2]), "decoded": decoded})
        print(f"{name}: {u8.shape[1]}x{u8.shape[0]}, quads at {THRESHOLDS}: {[len(d['quads']) for d in decoded]}")
    digest = hashlib.sha256(open(args.onnx, "rb").read()).hexdigest()
    with open(os.path.join(args.out, "finder.json"), "w") as f:
        json.dump({"inputs": entries, "onnx_sha256": digest}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
