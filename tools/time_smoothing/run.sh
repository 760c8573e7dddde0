#!/usr/bin/env bash
# Times TemporalSmoothing.apply on 1920x1080 frames with the window full (8 earlier frames), the
# left half of the frame still (noise only), the right half moving 3 px a frame (docs/video.md,
# "Smoothing"). Builds Sources/GPUStyle/Video/TemporalSmoothing.swift on its own with -O, with
# shim.swift standing in for the library's Image and ParallelFor (DispatchQueue.concurrentPerform
# instead of the library's worker pool), so that no optimized test build is needed.
#
#   tools/time_smoothing/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
swiftc -O -wmo -swift-version 5 "$here/shim.swift" "$here/../../Sources/GPUStyle/Video/TemporalSmoothing.swift" "$here/main.swift" -o "$out/time_smoothing"
"$out/time_smoothing"
