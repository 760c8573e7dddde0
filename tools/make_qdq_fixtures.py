"""A small int8 QDQ ONNX model in TensorFlow's layout, as tf2onnx writes Magenta's networks, for
ONNXQuantizationTests; its outputs come from onnxruntime (graph optimisations off, so Q/DQ run
as the ONNX formulas say).

qdq_small.onnx: NHWC input [1, 9, 11, 3] -> QuantizeLinear (int8, 1/255, -128) -> Transpose to
NCHW -> DequantizeLinear -> Conv 3x3 stride 2, pads [0, 0, 1, 1] (TF 'SAME'), int8 weights
per output channel (DequantizeLinear axis 0) and int32 bias -> Clip [0, 6] -> QuantizeLinear
(uint8, 0.05, 3) -> DequantizeLinear -> Conv 1x1 (uint8 weights, one scale and zero point) ->
QuantizeLinear (int8, 0.02, 5) -> DequantizeLinear -> GlobalAveragePool -> QuantizeLinear
(int8, 0.01, -2) -> Reshape [1, 1, 1, 6] -> DequantizeLinear -> output.
qdq_small.gpsw: "input" [3][9][11] (the NHWC input as CHW), "output" [6] (quantised, onnxruntime)
and "output_float" [6] (onnxruntime on the same model with the activations' Q/DQ pairs removed:
what ONNXImporter.Quantization.float runs).
Usage: python3 tools/make_qdq_fixtures.py (needs numpy, onnx, onnxruntime)
"""
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpsw  # noqa: E402


def build(quantised_activations):
    rng = np.random.default_rng(39)
    inits, nodes = [], []

    def const(name, array):
        inits.append(numpy_helper.from_array(array, name))
        return name

    def qdq(x, name, scale, zero, dtype):
        if not quantised_activations:
            return x
        s, z = const(name + "_s", np.array(scale, np.float32)), const(name + "_z", np.array(zero, dtype))
        nodes.append(helper.make_node("QuantizeLinear", [x, s, z], [name + "_q"]))
        nodes.append(helper.make_node("DequantizeLinear", [name + "_q", s, z], [name + "_dq"]))
        return name + "_dq"

    # Input quantised before the transpose, as in the Magenta models.
    x = "image"
    if quantised_activations:
        s, z = const("in_s", np.array(1 / 255, np.float32)), const("in_z", np.array(-128, np.int8))
        nodes.append(helper.make_node("QuantizeLinear", [x, s, z], ["in_q"]))
        nodes.append(helper.make_node("Transpose", ["in_q"], ["in_t"], perm=[0, 3, 1, 2]))
        nodes.append(helper.make_node("DequantizeLinear", ["in_t", s, z], ["in_dq"]))
        x = "in_dq"
    else:
        nodes.append(helper.make_node("Transpose", [x], ["in_t"], perm=[0, 3, 1, 2]))
        x = "in_t"
    w1 = rng.integers(-127, 128, (8, 3, 3, 3)).astype(np.int8)
    w1s = rng.uniform(0.002, 0.01, 8).astype(np.float32)
    b1 = rng.integers(-3000, 3000, 8).astype(np.int32)
    nodes.append(helper.make_node("DequantizeLinear", [const("w1", w1), const("w1s", w1s), const("w1z", np.zeros(8, np.int8))],
                                  ["w1f"], axis=0))
    nodes.append(helper.make_node("DequantizeLinear", [const("b1", b1), const("b1s", w1s / 255), const("b1z", np.zeros(8, np.int32))],
                                  ["b1f"], axis=0))
    nodes.append(helper.make_node("Conv", [x, "w1f", "b1f"], ["c1"], kernel_shape=[3, 3], strides=[2, 2], pads=[0, 0, 1, 1]))
    nodes.append(helper.make_node("Clip", ["c1", const("lo", np.array(0, np.float32)), const("hi", np.array(6, np.float32))], ["r1"]))
    x = qdq("r1", "a1", 0.05, 3, np.uint8)
    w2 = rng.integers(0, 256, (6, 8, 1, 1)).astype(np.uint8)
    nodes.append(helper.make_node("DequantizeLinear", [const("w2", w2), const("w2s", np.array(0.004, np.float32)),
                                                       const("w2z", np.array(128, np.uint8))], ["w2f"]))
    nodes.append(helper.make_node("Conv", [x, "w2f"], ["c2"], kernel_shape=[1, 1]))
    x = qdq("c2", "a2", 0.02, 5, np.int8)
    nodes.append(helper.make_node("GlobalAveragePool", [x], ["gap"]))
    shape = const("shape", np.array([1, 1, 1, 6], np.int64))
    if quantised_activations:
        s, z = const("g_s", np.array(0.01, np.float32)), const("g_z", np.array(-2, np.int8))
        nodes.append(helper.make_node("QuantizeLinear", ["gap", s, z], ["g_q"]))
        nodes.append(helper.make_node("Reshape", ["g_q", shape], ["g_r"]))
        nodes.append(helper.make_node("DequantizeLinear", ["g_r", s, z], ["vector"]))
    else:
        nodes.append(helper.make_node("Reshape", ["gap", shape], ["vector"]))
    graph = helper.make_graph(nodes, "qdq_small", [helper.make_tensor_value_info("image", TensorProto.FLOAT, [1, 9, 11, 3])],
                              [helper.make_tensor_value_info("vector", TensorProto.FLOAT, [1, 1, 1, 6])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    return model


def run(model, x):
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"]).run(None, {"image": x})[0]


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "GPUStyleTests", "Fixtures", "onnx")
    model = build(True)
    onnx.save(model, os.path.join(out, "qdq_small.onnx"))
    rng = np.random.default_rng(1)
    x = (rng.integers(0, 256, (1, 9, 11, 3)) / 255).astype(np.float32)
    y, y_float = run(model, x), run(build(False), x)
    gpsw.write(os.path.join(out, "qdq_small.gpsw"), {"input": x[0].transpose(2, 0, 1), "output": y.reshape(6),
                                                      "output_float": y_float.reshape(6)})
    print("quantised", y.reshape(6), "\nfloat    ", y_float.reshape(6))


if __name__ == "__main__":
    main()
