#!/usr/bin/env bash
# Makes the Y4M colour fixtures in Tests/GPUStyleTests/Fixtures/live/ with ffmpeg (swscale), an
# implementation independent of ours: a 64x48 crop of examples/photo.png (rgb.png), the same
# picture and its mirror image as two-frame Y4M streams in 4:2:0, 4:2:2 and 4:4:4 (BT.601, video
# range: ffmpeg's default for unlabelled RGB), ffmpeg's own decoding of each back to RGB, and a
# numpy decoding of the 4:2:0 one (expected420.png, see below).
#
#   tools/make_live_fixtures.sh   (ffmpeg 5.1 from Debian 12 made the committed files)
set -euo pipefail
cd "$(dirname "$0")/.."
out=Tests/GPUStyleTests/Fixtures/live
mkdir -p "$out"
ff() { ffmpeg -hide_banner -loglevel error -nostdin -y "$@"; }
ff -i examples/photo.png -vf "crop=128:96:200:150,scale=64:48:flags=area" -pix_fmt rgb24 "$out/rgb.png"
flags="bilinear+accurate_rnd+full_chroma_int+full_chroma_inp"
for layout in 420 422 444; do
  ff -i "$out/rgb.png" -i "$out/rgb.png" -filter_complex "[1:v]hflip[m];[0:v][m]concat=n=2:v=1" \
     -sws_flags "$flags" -pix_fmt "yuv${layout}p" -f yuv4mpegpipe "$out/yuv${layout}.y4m"
  ff -i "$out/yuv${layout}.y4m" -frames:v 1 -sws_flags "$flags" -pix_fmt rgb24 "$out/decoded${layout}.png"
done

# Our definition of 4:2:0 upsampling (bilinear, chroma centred between luma samples, edges
# clamped) computed with numpy: swscale filters 4:2:0 chroma its own way, so ffmpeg's decoding
# checks only the colour matrix there, and this file checks the resampling.
python3 - "$out" <<'PY'
import sys
import numpy as np
from PIL import Image

folder = sys.argv[1]
data = open(f"{folder}/yuv420.y4m", "rb").read()
header, rest = data.split(b"\n", 1)
fields = {t[:1]: t[1:] for t in header.split()[1:]}
w, h = int(fields[b"W"]), int(fields[b"H"])
planes = rest.split(b"\n", 1)[1]
cw, ch = (w + 1) // 2, (h + 1) // 2
y = np.frombuffer(planes[:w * h], np.uint8).reshape(h, w).astype(np.float64)
u = np.frombuffer(planes[w * h:w * h + cw * ch], np.uint8).reshape(ch, cw).astype(np.float64)
v = np.frombuffer(planes[w * h + cw * ch:w * h + 2 * cw * ch], np.uint8).reshape(ch, cw).astype(np.float64)

def upsample(c):
    def taps(n, m):
        pos = (np.arange(n) - 0.5) / 2
        lo = np.floor(pos)
        return np.clip(lo, 0, m - 1).astype(int), np.clip(lo + 1, 0, m - 1).astype(int), pos - lo
    x0, x1, wx = taps(w, cw)
    y0, y1, wy = taps(h, ch)
    top = c[y0][:, x0] * (1 - wx) + c[y0][:, x1] * wx
    bottom = c[y1][:, x0] * (1 - wx) + c[y1][:, x1] * wx
    return top * (1 - wy[:, None]) + bottom * wy[:, None]

kr, kb = 0.299, 0.114
luma = (y - 16) / 219
pb, pr = (upsample(u) - 128) / 224, (upsample(v) - 128) / 224
r = luma + 2 * (1 - kr) * pr
b = luma + 2 * (1 - kb) * pb
g = (luma - kr * r - kb * b) / (1 - kr - kb)
rgb = np.clip(np.stack([r, g, b], -1), 0, 1) * 255
Image.fromarray(np.round(rgb).astype(np.uint8)).save(f"{folder}/expected420.png")
PY
