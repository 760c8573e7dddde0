#!/usr/bin/env python3
"""Write reference fixtures for the graph steps other than convolutions to
Tests/GPUStyleTests/Fixtures/ops/graph/*.gpsw (tools/gpsw.py: named float32 tensors, C order).

References come from torch.nn.functional (float64 on float32 inputs, stored as float32) or,
where torch has no such op, numpy in float64. Seeds are fixed: re-running reproduces the files.
Layouts are [C, H, W], dense planes. Scalars are shape [1] tensors.

Needs: numpy, torch. Run from anywhere:
    python3 tools/make_graph_op_fixtures.py [--out DIR]

activation_<case>: input [C,H,W] uniform in [-8, 8], slopes [C] (PReLU);
    identity, relu, sigmoid, relu6 (F.relu6), leaky_relu (F.leaky_relu, negative slope 0.1),
    hard_sigmoid (ONNX HardSigmoid alpha 0.2 beta 0.5, numpy), hard_sigmoid_torch
    (F.hardsigmoid = alpha 1/6, beta 0.5), hard_swish (F.hardswish), prelu (F.prelu), gelu (F.gelu, exact erf).
    Cases (C, H, W): c5 (5, 7, 9), c3 (3, 1, 13).
add: a, b [6, 5, 7], slopes [6]; identity = a + b, relu, prelu of the sum.
channel_multiply: input [7, 5, 6], scale [7, 1, 1], output = input * scale.
global_average_pool_<case>: input, output [C,1,1] = F.adaptive_avg_pool2d(input, 1).
    Cases: c5 (5, 9, 11) around 0; c3_offset (3, 64, 33) around 100 (float sums drift).
max_pool_<case>: input uniform in [-3, 1], kernel, stride, padding [top, left, bottom, right];
    output = F.max_pool2d(input, kernel, stride, padding) (padding symmetric, < kernel / 2 + 1).
    Cases (C, H, W, k, s, p): k3s2p1 (5, 9, 11, 3, 2, 1), k2s2 (3, 8, 6, 2, 2, 0),
    k3s1p1 (4, 7, 7, 3, 1, 1).
softmax_<case>: logits beyond exp's float range (exp overflows above 88.7, so only a softmax
    that subtracts the maximum passes), output = F.softmax(input, dim=0).
    Cases: c10 (10, 5, 7) uniform in [96, 104]; c1000 (1000, 1, 1) uniform in [20, 100].
resize_<case>: input, scale, mode (0 nearest, 1 bilinear); output = F.interpolate(input,
    scale_factor, mode "nearest" (= ONNX nearest asymmetric floor for integer scales) or
    "bilinear" align_corners=False). Cases: nearest2 (3, 5, 7), nearest3 (2, 4, 3),
    bilinear2 (3, 5, 7), bilinear4 (2, 3, 6).
pad2d_<case>: input, padding [top, left, bottom, right], mode (0 zero, 1 reflect);
    output = F.pad(input, (left, right, top, bottom), "constant" or "reflect").
    Cases: zero (3, 5, 6) p (1, 2, 3, 0); reflect (2, 5, 7) p (2, 1, 0, 3); reflect1 (5, 4, 4) p 1.
concat: input [3, 5, 7]; output = concat(relu(input), hard_swish(input), sigmoid(input)) on
    channels: the graph x -> (relu, hardswish, sigmoid) -> concat that GraphLowering lowers
    into copies into channel slices.
"""
import argparse
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpsw  # noqa: E402


def t(a):
    return torch.from_numpy(np.asarray(a, dtype=np.float64))


def n(x):
    return x.detach().numpy().astype(np.float32)


def activations(x, slopes):
    xt = t(x)
    return {
        "identity": x,
        "relu": n(F.relu(xt)),
        "sigmoid": n(torch.sigmoid(xt)),
        "relu6": n(F.relu6(xt)),
        "leaky_relu": n(F.leaky_relu(xt, 0.1)),
        "hard_sigmoid": np.clip(0.2 * x.astype(np.float64) + 0.5, 0, 1).astype(np.float32),
        "hard_sigmoid_torch": n(F.hardsigmoid(xt)),
        "hard_swish": n(F.hardswish(xt)),
        "prelu": n(F.prelu(xt[None], t(slopes))[0]),
        "gelu": n(F.gelu(xt)),
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(here, "..", "Tests", "GPUStyleTests", "Fixtures", "ops", "graph"))
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rng = np.random.default_rng(20261126)

    def uniform(shape, low=-1.0, high=1.0):
        return rng.uniform(low, high, shape).astype(np.float32)

    def write(name, tensors):
        gpsw.write(os.path.join(args.out, name + ".gpsw"), tensors)

    def scalar(v):
        return np.array([v], np.float32)

    for case, shape in [("c5", (5, 7, 9)), ("c3", (3, 1, 13))]:
        x = uniform(shape, -8, 8)
        slopes = uniform(shape[0], -0.5, 0.5)
        write("activation_" + case, {"input": x, "slopes": slopes, **activations(x, slopes)})

    a, b, slopes = uniform((6, 5, 7), -2, 2), uniform((6, 5, 7), -2, 2), uniform(6, 0, 0.5)
    s = a.astype(np.float64) + b
    write("add", {"a": a, "b": b, "slopes": slopes, "identity": s.astype(np.float32), "relu": n(F.relu(t(s))),
                  "prelu": n(F.prelu(t(s)[None], t(slopes))[0])})

    x, scale = uniform((7, 5, 6)), uniform((7, 1, 1), -2, 2)
    write("channel_multiply", {"input": x, "scale": scale, "output": (x.astype(np.float64) * scale).astype(np.float32)})

    for case, shape, offset in [("c5", (5, 9, 11), 0.0), ("c3_offset", (3, 64, 33), 100.0)]:
        x = uniform(shape) + np.float32(offset)
        write("global_average_pool_" + case, {"input": x, "output": n(F.adaptive_avg_pool2d(t(x)[None], 1)[0])})

    for case, shape, k, st, p in [("k3s2p1", (5, 9, 11), 3, 2, 1), ("k2s2", (3, 8, 6), 2, 2, 0),
                                  ("k3s1p1", (4, 7, 7), 3, 1, 1)]:
        x = uniform(shape, -3, 1)
        out = F.max_pool2d(t(x)[None], k, st, p)[0]
        write("max_pool_" + case, {"input": x, "kernel": scalar(k), "stride": scalar(st),
                                   "padding": np.array([p, p, p, p], np.float32), "output": n(out)})

    for case, shape, low, high in [("c10", (10, 5, 7), 96, 104), ("c1000", (1000, 1, 1), 20, 100)]:
        x = uniform(shape, low, high)
        write("softmax_" + case, {"input": x, "output": n(F.softmax(t(x), dim=0))})

    for case, shape, scale, mode in [("nearest2", (3, 5, 7), 2, 0), ("nearest3", (2, 4, 3), 3, 0),
                                     ("bilinear2", (3, 5, 7), 2, 1), ("bilinear4", (2, 3, 6), 4, 1)]:
        x = uniform(shape)
        if mode == 0:
            out = F.interpolate(t(x)[None], scale_factor=scale, mode="nearest")[0]
        else:
            out = F.interpolate(t(x)[None], scale_factor=scale, mode="bilinear", align_corners=False)[0]
        write("resize_" + case, {"input": x, "scale": scalar(scale), "mode": scalar(mode), "output": n(out)})

    for case, shape, p, mode in [("zero", (3, 5, 6), (1, 2, 3, 0), 0), ("reflect", (2, 5, 7), (2, 1, 0, 3), 1),
                                 ("reflect1", (5, 4, 4), (1, 1, 1, 1), 1)]:
        x = uniform(shape)
        top, left, bottom, right = p
        out = F.pad(t(x)[None], (left, right, top, bottom), mode="reflect" if mode else "constant")[0]
        write("pad2d_" + case, {"input": x, "padding": np.array(p, np.float32), "mode": scalar(mode), "output": n(out)})

    x = uniform((3, 5, 7), -5, 5)
    acts = activations(x, np.zeros(3, np.float32))
    write("concat", {"input": x, "output": np.concatenate([acts["relu"], acts["hard_swish"], acts["sigmoid"]])})


if __name__ == "__main__":
    main()
