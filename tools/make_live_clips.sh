#!/bin/sh
# Renders the live-tracking evaluation clips (issue 14) with tools/make_live_video.py:
#     tools/make_live_clips.sh OUT_DIR [JOBS]
# writes OUT_DIR/<script>/video.mp4 + truth.json for the scripts pan, edges, second and lighting
# (640x480, 30 fps, H.264 crf 18), one after the other. Score each with
#     python3 tools/evaluate_live.py OUT_DIR/<script> --pace realtime
# The short pan clip committed as Tests/GPUStyleTests/Fixtures/live-pan is made with
#     python3 tools/make_live_video.py --script pan-short --seed 11 --mp4 --crf 21 --out Tests/GPUStyleTests/Fixtures/live-pan
set -eu
out=${1:?usage: tools/make_live_clips.sh OUT_DIR [JOBS]}
jobs=${2:-2}
here=$(dirname "$0")
python3 "$here/make_live_video.py" --script pan --seed 7 --mp4 --jobs "$jobs" --out "$out/pan"
python3 "$here/make_live_video.py" --script edges --seed 5 --mp4 --jobs "$jobs" --out "$out/edges"
python3 "$here/make_live_video.py" --script second --seed 2 --mp4 --jobs "$jobs" --out "$out/second"
python3 "$here/make_live_video.py" --script lighting --seed 2 --mp4 --jobs "$jobs" --out "$out/lighting"
