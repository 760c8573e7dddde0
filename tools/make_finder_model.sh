#!/usr/bin/env bash
# Makes the built-in picture finder (issue 36), Weights/picture_finder.gpsm, from the weights
# trained here (tools/finder.pt, by tools/train_finder.py: see its docstring for the command and
# the data), and its fixtures:
#   1. tools/train_finder.py export: tools/finder.onnx (ONNX opset 13; checked against torch
#      with onnxruntime), committed;
#   2. gpustyle convert-model: the graph imported as --model would (batch norm folded), float32
#      weights, inputs RGB in [0, 1] (mean 0, std 1);
#   3. tools/make_finder_fixtures.py: onnxruntime's heads on two small inputs and the numpy
#      decoder's quads, which FinderTests hold both backends and the Swift decoder to.
#
#   pip install torch==2.13.0 onnx onnxruntime
#   tools/make_finder_model.sh [CHECKPOINT]      # default tools/finder.pt
set -euo pipefail
cd "$(dirname "$0")/.."
ckpt=${1:-tools/finder.pt}
python3 tools/train_finder.py export --ckpt "$ckpt" --out tools/finder.onnx
swift build -c release --product gpustyle >&2
.build/release/gpustyle convert-model tools/finder.onnx Weights/picture_finder.gpsm \
    --name "picture finder ($(basename "$ckpt"), trained by tools/train_finder.py)" --mean 0,0,0 --std 1,1,1 --half none
python3 tools/make_finder_fixtures.py --onnx tools/finder.onnx
# The binary embeds Weights/ at build time: the next `swift build` takes the new model in.
