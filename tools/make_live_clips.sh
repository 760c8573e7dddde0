#!/bin/sh
# Renders the live-tracking evaluation clips (issues 14 and 35) with tools/make_live_video.py:
#     tools/make_live_clips.sh OUT_DIR [JOBS]
# writes OUT_DIR/<script>/video.mp4 + truth.json for the scripts pan, edges, second and lighting,
# and OUT_DIR/busy and OUT_DIR/busy2 (script busy: a small picture entering over a procedural busy
# wall, two seeds: two walls, two photos) (640x480, 30 fps, H.264 crf 18), one after the other. Score each with
#     python3 tools/evaluate_live.py OUT_DIR/<script> --pace realtime
# The short pan clip committed as Tests/GPUStyleTests/Fixtures/live-pan is made with
#     python3 tools/make_live_video.py --script pan-short --seed 11 --mp4 --crf 21 --out Tests/GPUStyleTests/Fixtures/live-pan
# and Tests/GPUStyleTests/Fixtures/live-busy with
#     python3 tools/make_live_video.py --script busy-enter --seed 4 --mp4 --crf 21 --out Tests/GPUStyleTests/Fixtures/live-busy
set -eu
out=${1:?usage: tools/make_live_clips.sh OUT_DIR [JOBS]}
jobs=${2:-2}
here=$(dirname "$0")
python3 "$here/make_live_video.py" --script pan --seed 7 --mp4 --jobs "$jobs" --out "$out/pan"
python3 "$here/make_live_video.py" --script edges --seed 5 --mp4 --jobs "$jobs" --out "$out/edges"
python3 "$here/make_live_video.py" --script second --seed 2 --mp4 --jobs "$jobs" --out "$out/second"
python3 "$here/make_live_video.py" --script lighting --seed 2 --mp4 --jobs "$jobs" --out "$out/lighting"
python3 "$here/make_live_video.py" --script busy --seed 3 --mp4 --jobs "$jobs" --out "$out/busy"
python3 "$here/make_live_video.py" --script busy --seed 8 --mp4 --jobs "$jobs" --out "$out/busy2"
