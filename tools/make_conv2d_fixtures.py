#!/usr/bin/env python3
"""Write the graph-convolution fixtures Tests/GPUStyleTests/Fixtures/ops/conv2d/*.gpsw with
torch.nn.functional as the reference (float64, stored as float32; tools/gpsw.py has the format).

conv2d_<name>.gpsw (Conv2DTests): ExecutionPlan.Conv2D, zero padding, groups, bias, activation
    input   [Cin][H][W]
    weight  [Cout][Cin/groups][KH][KW]
    bias    [Cout]                    (absent: no bias)
    slopes  [Cout]                    (PReLU only)
    params  [strideY, strideX, top, left, bottom, right, groups, activation, alpha, beta]
            activation numbered like Swift's `Activation`
    output  [Cout][OH][OW]            F.conv2d(F.pad(x, (left, right, top, bottom)), w, b, stride, groups=g)
                                      then the activation
transposed_conv2d_<name>.gpsw (TransposedConv2DTests): kernel 2, stride 2, then an activation
    input [Cin][H][W], weight [Cin][Cout][2][2], bias [Cout] (optional), slopes [Cout] (PReLU only),
    params [activation, alpha, beta] (absent: none), output [Cout][2H][2W]
                                      the activation of F.conv_transpose2d(x, w, b, stride=2)
mobilenet_block.gpsw (Conv2DTests, through GraphLowering): a MobileNetV2 inverted residual block
    input [8][10][12]; expand_weight [48][8][1][1], expand_bias; depthwise_weight [48][1][3][3],
    depthwise_bias; project_weight [8][48][1][1], project_bias
    output   project(relu6(depthwise(relu6(expand(x)))))   (stride 1, padding 1)
    residual output + input (the block's add)

ops/inverted_residual/<case>.gpsw (InvertedResidualTests): the same block at odd sizes, strides,
    with and without the expansion and the residual add (inputs as above; no expand_* tensors
    when the block has no expansion), stride [1]; output is the block's result (with the add when it has one)

Regenerate: python3 tools/make_conv2d_fixtures.py   (torch 2.13 CPU, numpy; seeded, deterministic)
"""
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpsw  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "GPUStyleTests", "Fixtures", "ops",
                   "conv2d")

IDENTITY, RELU, SIGMOID, RELU6, LEAKY, HARD_SIGMOID, HARD_SWISH, PRELU, GELU = range(9)

# name: cin, h, w, cout, (kh, kw), (sy, sx), (top, left, bottom, right), groups, bias, activation, alpha, beta, scale
# `scale` multiplies the weights so that the activations' interesting ranges (0 and 6 for
# ReLU6, -3 and 3 for hard-swish) are all crossed.
CASES = {
    "3x3_s1_p1": (4, 10, 11, 6, (3, 3), (1, 1), (1, 1, 1, 1), 1, True, IDENTITY, 0, 0, 1),
    "3x3_s2_same_upper": (5, 12, 14, 7, (3, 3), (2, 2), (0, 0, 1, 1), 1, True, RELU6, 0, 0, 4),
    "3x3_s2_p1_rgb": (3, 17, 15, 16, (3, 3), (2, 2), (1, 1, 1, 1), 1, True, RELU6, 0, 0, 4),
    "3x3_odd_13x9": (6, 13, 9, 5, (3, 3), (1, 1), (1, 1, 1, 1), 1, True, RELU, 0, 0, 1),
    "groups2": (8, 9, 10, 6, (3, 3), (1, 1), (1, 1, 1, 1), 2, True, IDENTITY, 0, 0, 1),
    "depthwise_s1": (19, 13, 11, 19, (3, 3), (1, 1), (1, 1, 1, 1), 19, True, RELU6, 0, 0, 6),
    "depthwise_s2": (12, 15, 16, 12, (3, 3), (2, 2), (1, 1, 1, 1), 12, True, RELU6, 0, 0, 6),
    "depthwise_s2_same_upper": (8, 16, 16, 8, (3, 3), (2, 2), (0, 0, 1, 1), 8, True, IDENTITY, 0, 0, 1),
    "depthwise_5x5_s2": (6, 11, 12, 6, (5, 5), (2, 2), (2, 2, 2, 2), 6, False, IDENTITY, 0, 0, 1),
    "pointwise_24_144": (24, 5, 6, 144, (1, 1), (1, 1), (0, 0, 0, 0), 1, True, RELU6, 0, 0, 6),
    "pointwise_17_5_nobias": (17, 6, 7, 5, (1, 1), (1, 1), (0, 0, 0, 0), 1, False, IDENTITY, 0, 0, 1),
    "fc_1280_5": (1280, 1, 1, 5, (1, 1), (1, 1), (0, 0, 0, 0), 1, True, IDENTITY, 0, 0, 1),
    "fc_3x4": (7, 3, 4, 9, (3, 4), (1, 1), (0, 0, 0, 0), 1, True, IDENTITY, 0, 0, 1),
    "5x5_p2": (4, 12, 13, 6, (5, 5), (1, 1), (2, 2, 2, 2), 1, True, IDENTITY, 0, 0, 1),
    "7x7_s2_p3": (3, 16, 16, 4, (7, 7), (2, 2), (3, 3, 3, 3), 1, False, IDENTITY, 0, 0, 1),
    "act_identity": (3, 8, 7, 5, (3, 3), (1, 1), (1, 1, 1, 1), 1, True, IDENTITY, 0, 0, 8),
    "act_relu": (3, 8, 7, 5, (3, 3), (1, 1), (1, 1, 1, 1), 1, True, RELU, 0, 0, 8),
    "act_sigmoid": (3, 8, 7, 5, (3, 3), (1, 1), (1, 1, 1, 1), 1, True, SIGMOID, 0, 0, 8),
    "act_relu6": (3, 8, 7, 5, (3, 3), (1, 1), (1, 1, 1, 1), 1, True, RELU6, 0, 0, 8),
    "act_leaky_relu": (3, 8, 7, 5, (3, 3), (1, 1), (1, 1, 1, 1), 1, True, LEAKY, 0.1, 0, 8),
    "act_hard_sigmoid": (3, 8, 7, 5, (3, 3), (1, 1), (1, 1, 1, 1), 1, True, HARD_SIGMOID, 0.2, 0.5, 8),
    "act_hard_swish": (3, 8, 7, 5, (3, 3), (1, 1), (1, 1, 1, 1), 1, True, HARD_SWISH, 0, 0, 8),
    "act_prelu": (3, 8, 7, 5, (3, 3), (1, 1), (1, 1, 1, 1), 1, True, PRELU, 0, 0, 8),
    # groups with 8 outputs per group (Vulkan's 8-channel blocks), a depthwise multiplier of 2
    "groups2_cout16": (8, 7, 9, 16, (3, 3), (1, 1), (1, 1, 1, 1), 2, True, RELU, 0, 0, 1),
    "depthwise_multiplier2": (4, 9, 8, 8, (3, 3), (1, 1), (1, 1, 1, 1), 4, True, IDENTITY, 0, 0, 1),
    # a 1x1 convolution of a small plane with a long sum: the CPU's channel-vectorised kernel
    "pointwise_small_plane_256_36": (256, 3, 5, 36, (1, 1), (1, 1), (0, 0, 0, 0), 1, True, PRELU, 0, 0, 8),
    # a 1x1 convolution of a large plane (2115 pixels: the CPU's 128-pixel tiles, the last one
    # 67 pixels, so the next-block prefetch stops before a partial block), 11 outputs
    "pointwise_large_plane_5_11": (5, 45, 47, 11, (1, 1), (1, 1), (0, 0, 0, 0), 1, True, RELU6, 0, 0, 6),
    # depthwise rows narrower than a vector (the CPU's masked row copies): 7x7 and 14x14 maps
    # of MobileNetV2's last stages, and a 3x5 map at stride 2
    "depthwise_s1_narrow_7x5": (10, 7, 5, 10, (3, 3), (1, 1), (1, 1, 1, 1), 10, True, RELU6, 0, 0, 6),
    "depthwise_s2_14x14": (9, 14, 14, 9, (3, 3), (2, 2), (1, 1, 1, 1), 9, True, RELU6, 0, 0, 6),
    "depthwise_s2_narrow_3x5": (7, 3, 5, 7, (3, 3), (2, 2), (1, 1, 1, 1), 7, True, IDENTITY, 0, 0, 1),
    # the channel-vectorised kernel on 25 pixels: a full 14-pixel run, then 11 (from a padded
    # copy of the last input pixels); 40 outputs (a block of 32 and one of 8)
    "pointwise_small_plane_300_40": (300, 5, 5, 40, (1, 1), (1, 1), (0, 0, 0, 0), 1, True, HARD_SWISH, 0, 0, 8),
    # the CPU's direct 3x3 kernel (kind 5) on rows of several pixel blocks and a partial last
    # one (70 = 2 x 32 + 6 on AVX-512), output channels not a multiple of its 8-channel blocks;
    # RetinaFace's first layer (3 -> 8, stride 2) on an odd width; stride 2 padded only at the
    # bottom and right; the context modules' 16 -> 16 with PReLU
    "direct_s1_24_20": (24, 9, 70, 20, (3, 3), (1, 1), (1, 1, 1, 1), 1, True, LEAKY, 0.1, 0, 1),
    "direct_s2_rgb_odd": (3, 33, 71, 8, (3, 3), (2, 2), (1, 1, 1, 1), 1, True, LEAKY, 0.1, 0, 4),
    "direct_s2_same_upper": (5, 16, 68, 12, (3, 3), (2, 2), (0, 0, 1, 1), 1, True, RELU6, 0, 0, 4),
    "direct_s1_16_16_prelu": (16, 6, 33, 16, (3, 3), (1, 1), (1, 1, 1, 1), 1, False, PRELU, 0, 0, 4),
    # the CPU's Winograd kind (6: 3x3, stride 1, padded by 1, 16+ channels, 64+ columns): 6 rows
    # (a partial tile row), 270 columns (68 tiles: two groups), 18 outputs (a partial block)
    "winograd_16_18_wide": (16, 6, 270, 18, (3, 3), (1, 1), (1, 1, 1, 1), 1, True, PRELU, 0, 0, 2),
    # Stride-1 GEMM blocks read straight from the input when their taps stay inside it (70 and 41
    # columns: blocks inside a row, blocks crossing a row end or a padded border), with groups.
    "gemm_s1_2x2_pad_bottom_right": (5, 6, 70, 9, (2, 2), (1, 1), (0, 0, 1, 1), 1, True, RELU, 0, 0, 1),
    "gemm_s1_1x3_groups2": (4, 5, 41, 8, (1, 3), (1, 1), (0, 1, 0, 1), 2, False, IDENTITY, 0, 0, 1),
    "gemm_s1_5x5_hard_swish": (3, 9, 40, 10, (5, 5), (1, 1), (2, 2, 2, 2), 1, True, HARD_SWISH, 0, 0, 4),
    # GELU in the GEMM's epilogue (full, partial and half-width pixel blocks; 20 = 8 + 8 + 4
    # outputs), and a 40-pixel map as the recogniser's classes head (32 + 8 pixels).
    "pointwise_gelu_wide": (12, 4, 70, 20, (1, 1), (1, 1), (0, 0, 0, 0), 1, True, GELU, 0, 0, 3),
    "pointwise_40_pixels": (24, 1, 40, 37, (1, 1), (1, 1), (0, 0, 0, 0), 1, True, IDENTITY, 0, 0, 1),
    # A last pixel block of fewer than 8 (37 = 32 + 5: AVX-512 sums it in 8-float vectors from a
    # padded copy and stores it masked), with GELU and with PReLU; 21 outputs (a partial block).
    "pointwise_37_pixels_gelu": (80, 1, 37, 21, (1, 1), (1, 1), (0, 0, 0, 0), 1, True, GELU, 0, 0, 2),
    "pointwise_37_pixels_prelu": (16, 1, 37, 21, (1, 1), (1, 1), (0, 0, 0, 0), 1, True, PRELU, 0, 0, 2),
    # Depthwise outputs 1-3 columns wide and 3+ rows high: a row's 8-float vector reaches past
    # the row below it, so past the plane from the last rows (the CPU kernel wrote 2-7 floats
    # into the next tensor). The face mesh's 6x6 -> 3x3 stride-2 layer, a 3x3 map at stride 1,
    # and rows of 2 and of 1.
    "depthwise_s2_same_upper_6x6": (20, 6, 6, 20, (3, 3), (2, 2), (0, 0, 1, 1), 20, True, IDENTITY, 0, 0, 1),
    "depthwise_s1_3x3": (20, 3, 3, 20, (3, 3), (1, 1), (1, 1, 1, 1), 20, True, RELU6, 0, 0, 6),
    "depthwise_s1_narrow_5x2": (9, 5, 2, 9, (3, 3), (1, 1), (1, 1, 1, 1), 9, True, IDENTITY, 0, 0, 1),
    "depthwise_s1_narrow_4x1": (9, 4, 1, 9, (3, 3), (1, 1), (1, 1, 1, 1), 9, False, IDENTITY, 0, 0, 1),
    # The text recogniser's 24->48 3x3/2 layer on fewer rows: output rows of 80 pixels, 32 + 32 +
    # a last block of exactly one 16-float vector (AVX-512's direct kernel sums it in one vector).
    "direct_s2_recogniser_80": (24, 6, 160, 48, (3, 3), (2, 2), (1, 1, 1, 1), 1, True, GELU, 0, 0, 1),
    # The recogniser's 3x2 average pool at stride (3, 2) as a depthwise convolution (3x80 -> 1x40)
    # and its 1x5 depthwise layer padded by 2 at the sides: the CPU's depthwise kernel with these
    # shapes as compile-time constants; a second case of each on odd sizes.
    "depthwise_3x2_s3x2_pool": (12, 3, 80, 12, (3, 2), (3, 2), (0, 0, 0, 0), 12, True, IDENTITY, 0, 0, 1),
    "depthwise_3x2_s3x2_odd": (5, 7, 21, 5, (3, 2), (3, 2), (0, 0, 0, 0), 5, False, RELU6, 0, 0, 6),
    "depthwise_1x5_p2": (12, 1, 40, 12, (1, 5), (1, 1), (0, 2, 0, 2), 12, True, HARD_SWISH, 0, 0, 8),
    "depthwise_1x5_p2_odd": (7, 3, 13, 7, (1, 5), (1, 1), (0, 2, 0, 2), 7, False, IDENTITY, 0, 0, 1),
}

# name: cin, h, w, cout, bias[, activation, alpha, beta]. Rows of 37 and 40 columns cover the
# kernel's vectors (16 columns on AVX-512, 8 elsewhere) and their scalar tails; 6 and 5 output
# channels a block of 4 and a partial one.
TRANSPOSED = {
    "bias": (6, 5, 7, 4, True),
    "nobias": (3, 4, 3, 5, False),
    "relu_wide": (5, 3, 37, 6, True, RELU, 0, 0),
    "sigmoid_one_channel": (16, 4, 40, 1, True, SIGMOID, 0, 0),
    "prelu": (3, 2, 17, 5, False, PRELU, 0, 0),
    "hard_sigmoid": (4, 3, 16, 4, True, HARD_SIGMOID, 0.2, 0.5),
}


def activate(y, kind, alpha, beta, slopes):
    if kind == RELU:
        return F.relu(y)
    if kind == SIGMOID:
        return torch.sigmoid(y)
    if kind == RELU6:
        return F.relu6(y)
    if kind == LEAKY:
        return F.leaky_relu(y, alpha)
    if kind == HARD_SIGMOID:
        return torch.clamp(alpha * y + beta, 0, 1)
    if kind == HARD_SWISH:
        return F.hardswish(y)
    if kind == PRELU:
        return F.prelu(y, slopes)
    if kind == GELU:
        return F.gelu(y)
    return y


def conv_case(seed, cin, h, w, cout, kernel, stride, pad, groups, bias, act, alpha, beta, scale):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((cin, h, w))
    fan_in = cin // groups * kernel[0] * kernel[1]
    wt = rng.standard_normal((cout, cin // groups) + kernel) * scale / np.sqrt(fan_in)
    b = rng.standard_normal(cout) * 0.5 if bias else None
    slopes = rng.uniform(0.05, 0.5, cout) if act == PRELU else None
    top, left, bottom, right = pad
    xt = F.pad(torch.tensor(x)[None], (left, right, top, bottom))
    y = F.conv2d(xt, torch.tensor(wt), None if b is None else torch.tensor(b), stride=stride, groups=groups)
    y = activate(y, act, alpha, beta, None if slopes is None else torch.tensor(slopes))[0].numpy()
    tensors = {"input": x, "weight": wt}
    if b is not None:
        tensors["bias"] = b
    if slopes is not None:
        tensors["slopes"] = slopes
    tensors["params"] = np.array([stride[0], stride[1], top, left, bottom, right, groups, act, alpha, beta])
    tensors["output"] = y
    return tensors


def transposed_case(seed, cin, h, w, cout, bias, act=None, alpha=0, beta=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((cin, h, w))
    wt = rng.standard_normal((cin, cout, 2, 2)) / np.sqrt(cin)
    b = rng.standard_normal(cout) * 0.5 if bias else None
    slopes = rng.uniform(0.05, 0.5, cout) if act == PRELU else None
    y = F.conv_transpose2d(torch.tensor(x)[None], torch.tensor(wt), None if b is None else torch.tensor(b), stride=2)
    if act is not None:
        y = activate(y, act, alpha, beta, None if slopes is None else torch.tensor(slopes))
    tensors = {"input": x, "weight": wt}
    if b is not None:
        tensors["bias"] = b
    if slopes is not None:
        tensors["slopes"] = slopes
    if act is not None:
        tensors["params"] = np.array([act, alpha, beta])
    tensors["output"] = y[0].numpy()
    return tensors


def block_case(seed):
    rng = np.random.default_rng(seed)
    x = torch.tensor(rng.standard_normal((1, 8, 10, 12)))
    t = {"input": x[0].numpy()}
    for name, shape in (("expand", (48, 8, 1, 1)), ("depthwise", (48, 1, 3, 3)), ("project", (8, 48, 1, 1))):
        fan_in = shape[1] * shape[2] * shape[3]
        t[name + "_weight"] = rng.standard_normal(shape) * 3 / np.sqrt(fan_in)
        t[name + "_bias"] = rng.standard_normal(shape[0]) * 0.5
    w = {k: torch.tensor(v) for k, v in t.items()}
    y = F.relu6(F.conv2d(x, w["expand_weight"], w["expand_bias"]))
    y = F.relu6(F.conv2d(y, w["depthwise_weight"], w["depthwise_bias"], padding=1, groups=48))
    y = F.conv2d(y, w["project_weight"], w["project_bias"])
    t["output"] = y[0].numpy()
    t["residual"] = (y + x)[0].numpy()
    return t


# name: channels in, height, width, expanded channels (0: no expansion), out channels, stride, residual
BLOCKS = {
    "expand_residual_7x13": (8, 7, 13, 48, 8, 1, True),
    "expand_s2_17x9": (6, 17, 9, 36, 10, 2, False),
    "no_expand_9x5": (16, 9, 5, 0, 8, 1, False),
    "expand_residual_1x1": (4, 1, 1, 24, 4, 1, True),
    "expand_s2_3x5": (5, 3, 5, 30, 7, 2, False),
    "expand_residual_30x11": (8, 30, 11, 40, 8, 1, True),
}


def inverted_residual_case(seed, cin, h, w, expanded, cout, stride, residual):
    rng = np.random.default_rng(seed)
    x = torch.tensor(rng.standard_normal((1, cin, h, w)))
    t = {"input": x[0].numpy(), "stride": np.array([float(stride)])}
    mid = expanded or cin
    parts = [("depthwise", (mid, 1, 3, 3)), ("project", (cout, mid, 1, 1))]
    if expanded:
        parts.insert(0, ("expand", (expanded, cin, 1, 1)))
    for name, shape in parts:
        fan_in = shape[1] * shape[2] * shape[3]
        t[name + "_weight"] = rng.standard_normal(shape) * 3 / np.sqrt(fan_in)
        t[name + "_bias"] = rng.standard_normal(shape[0]) * 0.5
    w = {k: torch.tensor(v) for k, v in t.items()}
    y = F.relu6(F.conv2d(x, w["expand_weight"], w["expand_bias"])) if expanded else x
    y = F.relu6(F.conv2d(y, w["depthwise_weight"], w["depthwise_bias"], stride=stride, padding=1, groups=mid))
    y = F.conv2d(y, w["project_weight"], w["project_bias"])
    t["output"] = (y + x if residual else y)[0].numpy()
    return t


def main():
    torch.set_default_dtype(torch.float64)
    os.makedirs(OUT, exist_ok=True)
    for i, (name, params) in enumerate(CASES.items()):
        gpsw.write(os.path.join(OUT, f"conv2d_{name}.gpsw"), conv_case(4000 + i, *params))
    for i, (name, params) in enumerate(TRANSPOSED.items()):
        gpsw.write(os.path.join(OUT, f"transposed_conv2d_{name}.gpsw"), transposed_case(5000 + i, *params))
    gpsw.write(os.path.join(OUT, "mobilenet_block.gpsw"), block_case(6000))
    blocks = os.path.join(OUT, "..", "inverted_residual")
    os.makedirs(blocks, exist_ok=True)
    for i, (name, params) in enumerate(BLOCKS.items()):
        gpsw.write(os.path.join(blocks, f"{name}.gpsw"), inverted_residual_case(7000 + i, *params))


if __name__ == "__main__":
    main()
