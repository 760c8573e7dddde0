#!/usr/bin/env bash
# Makes examples/live-strip.jpg, the README's picture of `gpustyle live`: the committed synthetic
# clip (Tests/GPUStyleTests/Fixtures/live/video.mp4) run in real time with style 2, five of its frames side by
# side (hold, slide, roll, tilt, the hand passing), each 256x192: the input above, the output below.
#
#   tools/make_live_strip.sh [gpustyle binary]   (default .build/release/gpustyle)
set -euo pipefail
cd "$(dirname "$0")/.."
gpustyle=${1:-.build/release/gpustyle}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$gpustyle" live --input Tests/GPUStyleTests/Fixtures/live/video.mp4 --style 2 --device cpu -o "$work/out.y4m"
pick="select='eq(n\\,28)+eq(n\\,45)+eq(n\\,80)+eq(n\\,150)+eq(n\\,185)',scale=256:192:flags=area,tile=5x1"
ffmpeg -hide_banner -loglevel error -y -i Tests/GPUStyleTests/Fixtures/live/video.mp4 -i "$work/out.y4m" \
  -filter_complex "[0:v]$pick[a];[1:v]$pick[b];[a][b]vstack" -frames:v 1 -q:v 4 examples/live-strip.jpg
