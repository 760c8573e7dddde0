"""Fixtures for the fake_quant op (FakeQuantTests): QuantizeLinear then DequantizeLinear.

Each case is checked two ways before it is written: the ONNX formulas in numpy
(y = (clip(round_half_even(x / scale) + zero_point, low, high) - zero_point) * scale, float32 as
onnxruntime computes it) and onnxruntime itself running a QuantizeLinear -> DequantizeLinear
model; the two must agree bit for bit.

fake_quant_<case>: input [C][H][W], scale, zero_point, low, high; output.
    int8:  scale 0.0227, zero point -3, values in [-4, 4] (both ends saturate).
    uint8: scale 0.05, zero point 128, values in [-8, 8].
    ties:  scale 0.25, zero point 0, every value an exact k + 0.5 quanta (half to even) and
           the int8 ends.
Usage: python3 tools/make_fake_quant_fixtures.py  (needs numpy, onnx, onnxruntime)
"""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpsw  # noqa: E402


def numpy_fake_quant(x, scale, zero_point, low, high):
    q = np.rint(x / np.float32(scale)) + np.float32(zero_point)  # np.rint: half to even
    q = np.clip(q, low, high)
    return ((q - np.float32(zero_point)) * np.float32(scale)).astype(np.float32)


def onnxruntime_fake_quant(x, scale, zero_point, unsigned):
    dtype = TensorProto.UINT8 if unsigned else TensorProto.INT8
    inits = [helper.make_tensor("s", TensorProto.FLOAT, [], [scale]),
             helper.make_tensor("z", dtype, [], [zero_point])]
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])]
    shape = list(x.shape)
    graph = helper.make_graph(nodes, "fq", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = os.path.join(here, "..", "Tests", "GPUStyleTests", "Fixtures", "ops", "graph")
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(20261130)
    ties = (np.arange(-140, 140, dtype=np.float32) + np.float32(0.5)) * np.float32(0.25)
    cases = [
        ("int8", rng.uniform(-4, 4, (5, 7, 9)).astype(np.float32), 0.0227, -3, False),
        ("uint8", rng.uniform(-8, 8, (3, 5, 33)).astype(np.float32), 0.05, 128, True),
        ("ties", ties.reshape(4, 7, 10), 0.25, 0, False),
    ]
    for name, x, scale, zero_point, unsigned in cases:
        low, high = (0, 255) if unsigned else (-128, 127)
        y = numpy_fake_quant(x, scale, zero_point, low, high)
        reference = onnxruntime_fake_quant(x[None], scale, zero_point, unsigned)[0]
        assert np.array_equal(y, reference), f"{name}: numpy and onnxruntime differ"
        gpsw.write(os.path.join(out, f"fake_quant_{name}.gpsw"), {
            "input": x, "scale": np.array([scale], np.float32), "zero_point": np.array([zero_point], np.float32),
            "low": np.array([low], np.float32), "high": np.array([high], np.float32), "output": y})
        print(name, x.shape, "saturated", int(np.sum((y == (low - zero_point) * np.float32(scale)) |
                                                      (y == (high - zero_point) * np.float32(scale)))))


if __name__ == "__main__":
    main()
