#!/usr/bin/env python3
"""Write tiny ONNX models for ONNXImporterTests to Tests/GPUStyleTests/Fixtures/onnx/.

Exported from torch modules with fixed seeds (torch 2.13 CPU, legacy TorchScript exporter,
dynamo=False, opset 13), each a few KB. The legacy exporter writes F.pad's pads as a small
ConstantOfShape/Concat/Reshape/Slice/Transpose/Cast computation, which the importer folds. Every batch norm gets non-trivial running statistics,
gamma and beta so folding it into the convolution is a real check.

Needs: torch, onnx (the exporter), numpy. Run from anywhere:
    python3 tools/make_onnx_fixtures.py [--out DIR]

Files:
small_cnn.onnx      input [1, 3, 16, 16]:
    stem   Conv 3->8 k3 s2 p1 (no bias) + BN + ReLU6 (exported as Clip [0, 6])
    block  depthwise Conv 8 k3 p1 + BN + ReLU6, pointwise Conv 8->8 k1 + BN, Add(stem output)
    head   GlobalAveragePool, Flatten, Gemm 8->6 (+ReLU), MatMul 6->5 + Add(bias), Softmax
small_cnn.gpsw      (tools/gpsw.py; [C, H, W] without the batch axis)
    input      [3, 16, 16]  the input
    stem_bn    [8, 8, 8]    torch eval-mode BN(Conv(input)) of the stem (before ReLU6)
    stem_out   [8, 8, 8]    ReLU6 of that (the depthwise layer's input)
    dw_bn      [8, 8, 8]    BN(depthwise Conv(stem_out)) (before ReLU6)
    output     [5]          the model's softmax output
mixed_ops.onnx      input [1, 4, 8, 8]:
    Pad reflect 1, Conv 4->8 k3, PReLU(8), MaxPool k2 s2, BatchNormalization alone (not after a
    Conv), squeeze-excite (GlobalAveragePool, Conv 8->4 k1, Relu, Conv 4->8 k1, Sigmoid, Mul),
    HardSwish, Resize nearest x2; a 1x1 Conv 4->4 of the input with LeakyRelu(0.1); Concat (12
    channels), ConvTranspose 12->6 k2 s2, Resize bilinear x2 (half-pixel), Pad zeros 1,
    Softmax over channels. Output [1, 6, 34, 34].
mixed_ops.gpsw      input [4, 8, 8], output [6, 34, 34] (torch, eval mode)
unsupported.onnx    input [1, 3, 8, 8]: Conv, then Sin, Clip to [-1, 1] and Floor on three
    branches, summed: the importer must name all three.
transposed_head.onnx  input [1, 5, 6, 7] (PP-OCR's DB head): ConvTranspose 5->4 k2 s2 (no bias)
    + BatchNormalization + ReLU, ConvTranspose 4->1 k2 s2 + Add of a [1, 1, 1, 1] constant +
    Sigmoid. Output [1, 1, 24, 28].
transposed_head.gpsw  input [5, 6, 7], output [1, 24, 28] (torch, eval mode)
"""
import argparse
import os
import sys

import numpy as np
import torch
from torch import nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpsw  # noqa: E402


def randomize_bn(bn, generator):
    c = bn.num_features
    with torch.no_grad():
        bn.weight.copy_(torch.rand(c, generator=generator) * 1.5 + 0.5)
        bn.bias.copy_(torch.randn(c, generator=generator) * 0.5)
        bn.running_mean.copy_(torch.randn(c, generator=generator) * 0.5)
        bn.running_var.copy_(torch.rand(c, generator=generator) * 2 + 0.1)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem_conv = nn.Conv2d(3, 8, 3, 2, 1, bias=False)
        self.stem_bn = nn.BatchNorm2d(8)
        self.dw_conv = nn.Conv2d(8, 8, 3, 1, 1, groups=8, bias=False)
        self.dw_bn = nn.BatchNorm2d(8)
        self.pw_conv = nn.Conv2d(8, 8, 1, bias=False)
        self.pw_bn = nn.BatchNorm2d(8)
        self.fc = nn.Linear(8, 6)
        self.matmul_weight = nn.Parameter(torch.randn(6, 5) * 0.3)
        self.matmul_bias = nn.Parameter(torch.randn(5) * 0.1)

    def forward(self, x):
        x = F.relu6(self.stem_bn(self.stem_conv(x)))
        y = F.relu6(self.dw_bn(self.dw_conv(x)))
        y = self.pw_bn(self.pw_conv(y)) + x
        y = torch.flatten(F.adaptive_avg_pool2d(y, 1), 1)
        y = F.relu(self.fc(y))
        y = torch.matmul(y, self.matmul_weight) + self.matmul_bias
        return torch.softmax(y, dim=1)


class MixedOps(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 8, 3)
        self.prelu = nn.PReLU(8)
        self.bn = nn.BatchNorm2d(8)
        self.se_reduce = nn.Conv2d(8, 4, 1)
        self.se_expand = nn.Conv2d(4, 8, 1)
        self.side = nn.Conv2d(4, 4, 1)
        self.up = nn.ConvTranspose2d(12, 6, 2, 2)

    def forward(self, x):
        y = self.conv(F.pad(x, (1, 1, 1, 1), mode="reflect"))
        y = F.max_pool2d(self.prelu(y), 2, 2)
        y = self.bn(y)
        s = torch.sigmoid(self.se_expand(F.relu(self.se_reduce(F.adaptive_avg_pool2d(y, 1)))))
        y = F.hardswish(y * s)
        y = F.interpolate(y, scale_factor=2, mode="nearest")
        y = torch.cat([y, F.leaky_relu(self.side(x), 0.1)], dim=1)
        y = self.up(y)
        y = F.interpolate(y, scale_factor=2, mode="bilinear", align_corners=False)
        y = F.pad(y, (1, 1, 1, 1))
        return torch.softmax(y, dim=1)


class Unsupported(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 3, 1)

    def forward(self, x):
        y = self.conv(x)
        return torch.sin(y) + torch.clamp(y, -1, 1) + torch.floor(y)


class TransposedHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.ConvTranspose2d(5, 4, 2, 2, bias=False)
        self.bn = nn.BatchNorm2d(4)
        self.out = nn.ConvTranspose2d(4, 1, 2, 2)
        self.shift = nn.Parameter(torch.tensor([[[[0.3]]]]))

    def forward(self, x):
        y = F.relu(self.bn(self.up(x)))
        return torch.sigmoid(self.out(y) + self.shift)


def export(model, example, path, keep_batch_norm=False):
    """keep_batch_norm: export with TrainingMode.PRESERVE (the model is in eval mode, so batch
    norms are written as eval-mode BatchNormalization nodes) instead of torch folding them into
    the convolutions itself; constant folding is then off, so parameters pass through Identity."""
    model.eval()
    mode = torch.onnx.TrainingMode.PRESERVE if keep_batch_norm else torch.onnx.TrainingMode.EVAL
    torch.onnx.export(model, (example,), path, opset_version=13, dynamo=False, training=mode,
                      input_names=["input"], output_names=["output"])
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    parser.add_argument("--out", default=os.path.join(root, "Tests", "GPUStyleTests", "Fixtures", "onnx"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(7)
    generator = torch.Generator().manual_seed(11)

    cnn = SmallCNN()
    for bn in (cnn.stem_bn, cnn.dw_bn, cnn.pw_bn):
        randomize_bn(bn, generator)
    cnn.eval()
    x = torch.rand(1, 3, 16, 16, generator=generator) * 2 - 1
    export(cnn, x, os.path.join(args.out, "small_cnn.onnx"), keep_batch_norm=True)
    with torch.no_grad():
        stem_bn = cnn.stem_bn(cnn.stem_conv(x))
        stem_out = F.relu6(stem_bn)
        dw_bn = cnn.dw_bn(cnn.dw_conv(stem_out))
        output = cnn(x)
    gpsw.write(os.path.join(args.out, "small_cnn.gpsw"), {
        "input": x[0].numpy(), "stem_bn": stem_bn[0].numpy(), "stem_out": stem_out[0].numpy(),
        "dw_bn": dw_bn[0].numpy(), "output": output[0].numpy()})

    mixed = MixedOps()
    randomize_bn(mixed.bn, generator)
    with torch.no_grad():
        mixed.prelu.weight.copy_(torch.rand(8, generator=generator) * 0.5)
    x = torch.rand(1, 4, 8, 8, generator=generator) * 2 - 1
    export(mixed, x, os.path.join(args.out, "mixed_ops.onnx"))
    with torch.no_grad():
        output = mixed(x)
    gpsw.write(os.path.join(args.out, "mixed_ops.gpsw"), {"input": x[0].numpy(), "output": output[0].numpy()})

    export(Unsupported(), torch.rand(1, 3, 8, 8, generator=generator), os.path.join(args.out, "unsupported.onnx"))

    head = TransposedHead()
    randomize_bn(head.bn, generator)
    x = torch.rand(1, 5, 6, 7, generator=generator) * 2 - 1
    export(head, x, os.path.join(args.out, "transposed_head.onnx"), keep_batch_norm=True)
    with torch.no_grad():
        output = head(x)
    gpsw.write(os.path.join(args.out, "transposed_head.gpsw"), {"input": x[0].numpy(), "output": output[0].numpy()})


if __name__ == "__main__":
    main()
