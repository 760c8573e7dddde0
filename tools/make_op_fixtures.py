#!/usr/bin/env python3
"""Write single-op reference fixtures to Tests/GPUStyleTests/Fixtures/ops/*.gpsw.

Every expected output is computed with plain numpy in float64 from float32 inputs, then stored
as float32 (tools/gpsw.py describes the file format: named float32 tensors, C order). Seeds are
fixed, so re-running reproduces the files byte for byte. Scalars are stored as shape [1] tensors.

Needs: numpy. Run from anywhere:
    python3 tools/make_op_fixtures.py [--out DIR]

Files and tensors (all layouts [C, H, W], channel planes dense, no alignment padding):

conv_<name>.gpsw  -- reflection pad + unpadded convolution, no bias (ExecutionPlan.Convolution)
    input   [Cin, H, W]        uniform in [-1, 1]
    weight  [Cout, Cin, K, K]  uniform in [-1, 1] / sqrt(Cin*K*K)
    stride  [1]                1 or 2
    upsample[1]                0 or 1 (nearest 2x upsampling before padding)
    output  [Cout, Ho, Wo]     conv(reflect_pad(up(input), K//2), weight, stride),
                               Ho = (Hp - K) // stride + 1 with Hp = (2 if up else 1)*H + 2*(K//2)
    Cases (Cin, Cout, K, stride, upsample, H, W):
        c1_k3          (1, 1, 3, 1, 0, 7, 5)
        first_k9       (3, 32, 9, 1, 0, 33, 17)   like contract.0
        down_odd       (32, 32, 3, 2, 0, 17, 13)  like contract.1/2, odd sides
        down_even      (32, 32, 3, 2, 0, 16, 16)
        up_32_8        (32, 8, 3, 1, 1, 9, 11)    like expand.0
        up_8_4         (8, 4, 3, 1, 1, 6, 10)     like expand.1
        last_k9        (4, 3, 9, 1, 0, 20, 24)    like expand.2
        down_5_7       (5, 7, 3, 2, 0, 10, 9)     odd channel counts
        k9_2_3         (2, 3, 9, 1, 0, 10, 9)     padding 4 close to the side
        res_k3         (32, 32, 3, 1, 0, 32, 32)  like res.i.j

instance_norm_<name>.gpsw  -- conditional instance norm with an already mixed gamma/beta
                     (ExecutionPlan.InstanceNormStatistics + InstanceNormApply)
    input    [C, H, W]  uniform in [-1, 1] * scale_c + offset_c, scale in [0.2, 4],
                        |offset| in [1, 3] (per channel, so the mean is far from 0)
    gamma    [C], beta [C]
    residual [C, H, W]
    y = (x - mean_c) / sqrt(var_c + 1e-5) * gamma_c + beta_c, mean and biased variance of
    each channel over H*W;
    out_identity = y, out_relu = max(y, 0), out_sigmoid = 1 / (1 + exp(-y)),
    out_identity_residual = y + residual (the residual is added after the activation).
    Cases (C, H, W): c1 (1, 7, 5), c32 (32, 33, 17), c3 (3, 64, 64), c8 (8, 2, 3).

pad_<name>.gpsw   -- reflection padding with optional nearest 2x upsampling first, dense output
                     (ExecutionPlan.Pad, before any split-column layout)
    input    [C, H, W]  uniform in [-1, 1]
    padding  [1], upsample [1] (0 or 1)
    output   [C, (2 if up else 1)*H + 2p, (2 if up else 1)*W + 2p]
             numpy.pad(up(input), ((0,0),(p,p),(p,p)), mode="reflect")
    Cases (C, H, W, p, up): c1_p1 (1, 5, 7, 1, 0), c3_p4 (3, 9, 10, 4, 0),
                            up_p1 (2, 3, 4, 1, 1), up_p4 (4, 6, 5, 4, 1).
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpsw  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CONV_CASES = [
    ("c1_k3", 1, 1, 3, 1, 0, 7, 5),
    ("first_k9", 3, 32, 9, 1, 0, 33, 17),
    ("down_odd", 32, 32, 3, 2, 0, 17, 13),
    ("down_even", 32, 32, 3, 2, 0, 16, 16),
    ("up_32_8", 32, 8, 3, 1, 1, 9, 11),
    ("up_8_4", 8, 4, 3, 1, 1, 6, 10),
    ("last_k9", 4, 3, 9, 1, 0, 20, 24),
    ("down_5_7", 5, 7, 3, 2, 0, 10, 9),
    ("k9_2_3", 2, 3, 9, 1, 0, 10, 9),
    ("res_k3", 32, 32, 3, 1, 0, 32, 32),
]
NORM_CASES = [
    ("c1", 1, 7, 5),
    ("c32", 32, 33, 17),
    ("c3", 3, 64, 64),
    ("c8", 8, 2, 3),
]
PAD_CASES = [
    ("c1_p1", 1, 5, 7, 1, 0),
    ("c3_p4", 3, 9, 10, 4, 0),
    ("up_p1", 2, 3, 4, 1, 1),
    ("up_p4", 4, 6, 5, 4, 1),
]
EPS = 1e-5


def upsample2x(x):
    return x.repeat(2, axis=1).repeat(2, axis=2)


def reflect_pad(x, p):
    return np.pad(x, ((0, 0), (p, p), (p, p)), mode="reflect")


def conv2d(xp, w, stride):
    """Unpadded cross-correlation (ONNX Conv) in float64: xp [Cin,Hp,Wp], w [Cout,Cin,K,K]."""
    cout, cin, k, _ = w.shape
    hp, wp = xp.shape[1:]
    ho = (hp - k) // stride + 1
    wo = (wp - k) // stride + 1
    out = np.zeros((cout, ho, wo), dtype=np.float64)
    for ky in range(k):
        for kx in range(k):
            patch = xp[:, ky:ky + stride * (ho - 1) + 1:stride, kx:kx + stride * (wo - 1) + 1:stride]
            out += np.einsum("oc,chw->ohw", w[:, :, ky, kx], patch)
    return out


def f32(a):
    return np.asarray(a, dtype=np.float32)


def conv_case(rng, cin, cout, k, stride, up, h, w):
    x = f32(rng.uniform(-1, 1, (cin, h, w)))
    wt = f32(rng.uniform(-1, 1, (cout, cin, k, k)) / np.sqrt(cin * k * k))
    x64 = x.astype(np.float64)
    if up:
        x64 = upsample2x(x64)
    y = conv2d(reflect_pad(x64, k // 2), wt.astype(np.float64), stride)
    return {"input": x, "weight": wt, "stride": f32([stride]), "upsample": f32([up]), "output": f32(y)}


def norm_case(rng, c, h, w):
    offset = rng.choice([-1.0, 1.0], (c, 1, 1)) * rng.uniform(1, 3, (c, 1, 1))  # |mean| >= ~1
    scale = rng.uniform(0.2, 4, (c, 1, 1))
    x = f32(rng.uniform(-1, 1, (c, h, w)) * scale + offset)
    gamma = f32(rng.uniform(-2, 2, c))
    beta = f32(rng.uniform(-1, 1, c))
    residual = f32(rng.uniform(-1, 1, (c, h, w)))
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=(1, 2), keepdims=True)
    var = ((x64 - mean) ** 2).mean(axis=(1, 2), keepdims=True)
    y = (x64 - mean) / np.sqrt(var + EPS) * gamma.astype(np.float64)[:, None, None] \
        + beta.astype(np.float64)[:, None, None]
    return {
        "input": x, "gamma": gamma, "beta": beta, "residual": residual,
        "out_identity": f32(y),
        "out_relu": f32(np.maximum(y, 0)),
        "out_sigmoid": f32(1 / (1 + np.exp(-y))),
        "out_identity_residual": f32(y + residual.astype(np.float64)),
    }


def pad_case(rng, c, h, w, p, up):
    x = f32(rng.uniform(-1, 1, (c, h, w)))
    y = upsample2x(x) if up else x
    return {"input": x, "padding": f32([p]), "upsample": f32([up]), "output": f32(reflect_pad(y, p))}


def main():
    parser = argparse.ArgumentParser(description="Write op fixtures (see module docstring).")
    parser.add_argument("--out", default=os.path.join(ROOT, "Tests", "GPUStyleTests", "Fixtures", "ops"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    files = []
    for i, (name, *params) in enumerate(CONV_CASES):
        files.append(("conv_%s.gpsw" % name, conv_case(np.random.default_rng(1000 + i), *params)))
    for i, (name, *params) in enumerate(NORM_CASES):
        files.append(("instance_norm_%s.gpsw" % name, norm_case(np.random.default_rng(2000 + i), *params)))
    for i, (name, *params) in enumerate(PAD_CASES):
        files.append(("pad_%s.gpsw" % name, pad_case(np.random.default_rng(3000 + i), *params)))
    total = 0
    for filename, tensors in files:
        path = os.path.join(args.out, filename)
        gpsw.write(path, tensors)
        size = os.path.getsize(path)
        total += size
        shapes = ", ".join("%s%s" % (k, list(v.shape)) for k, v in tensors.items())
        print("%-24s %8d bytes  %s" % (filename, size, shapes))
    print("total %d bytes in %d files -> %s" % (total, len(files), args.out))


if __name__ == "__main__":
    main()
