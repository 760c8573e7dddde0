#!/usr/bin/env python3
"""A synthetic clip of a sign seen by a moving camera, with the truth of every text line and
character in every frame: the fixture of `gpustyle live --text` (LiveTextTests).

    python3 tools/make_text_video.py [--out Tests/GPUStyleTests/Fixtures/live-text]
    python3 tools/make_text_video.py --scale 2 --out /tmp/live-text-720p     # 1280x720, not committed

What it makes. A "wall" (seeded smooth texture, WALL_W x WALL_H) with a cream sign on it: a dark
frame and three lines of known text (`LINES`: DejaVu Sans and Sans Bold, fonts-dejavu-core,
drawn character by character at Pillow's integer pen positions with the BASIC layout). The camera
looks at the wall through a homography per frame (`camera`): it holds with a slow drift
(frames 0-29), pans, zooms in 1.15x, rolls 6 degrees and tilts a little (30-64), pans the sign out
of view to the left at up to about 1250 px/s (65-84; the sign is wholly out of view from frame
78), and shows the bare wall to the end (85-99). Each frame is the mean of twelve renders over
half a frame time (a 1/60 s shutter: the fast pan is blurred by up to 20 px), bicubic, at 640x360 (x --scale), 30 fps, encoded as H.264
(yuv420p, CRF 20, `video.mp4`).

Truth, truth.json:
  {"width", "height", "fps", "frames", "scale", "seed",
   "lines": [{"string", "quad": [[x,y] x4: TL, TR, BR, BL], "characters": [{"character", "quad"}]}],
   "homographies": [[h00, h01, ..., h22] per frame]}
Quads are in wall coordinates and ink boxes (the pixels FreeType draws, `getmask2`), no margin;
homographies map wall coordinates to frame coordinates at the frame's time (the middle of the
shutter). Both are continuous coordinates (pixel (i, j) covers [i, i+1] x [j, j+1]): subtract
0.5 for pixel-centre coordinates (the live drawers' and trackers'). Storing the wall quads and
one matrix per frame keeps the truth small; a line's quad in frame k is H_k applied to its
corners.

Deterministic: the same arguments give the same frames (the encoder too, one thread).
Needs numpy, Pillow and ffmpeg (libx264).
"""
import argparse
import json
import math
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

ROOT = pathlib.Path(__file__).resolve().parent.parent
FONTS = "/usr/share/fonts/truetype/dejavu/"
WALL_W, WALL_H = 2300, 900
# Where the sign's board lies on the wall, and its lines: (text, font file, size, left, baseline).
BOARD = (640, 300, 1100, 560)
LINES = [
    ("CAFE ROMA", "DejaVuSans-Bold.ttf", 56, 680, 380),
    ("Open 7am-9pm", "DejaVuSans.ttf", 36, 680, 450),
    ("Espresso 2.50", "DejaVuSans.ttf", 36, 680, 515),
]
FRAMES = 100
FPS = 30
# Sub-frame times (in frames) averaged into a frame: half a frame time, finely enough that the
# fastest pan's blur (18 px) shows no separate copies.
SHUTTER = [(i + 0.5) / 24 - 0.25 for i in range(12)]


def wall_texture(rng):
    """Smooth blobs at three scales, tinted: texture for the tracker around the sign."""
    field = np.zeros((WALL_H, WALL_W, 3), np.float32)
    for scale, weight in [(60, 0.5), (16, 0.3), (5, 0.2)]:
        small = rng.random((WALL_H // scale + 2, WALL_W // scale + 2, 3)).astype(np.float32)
        up = Image.fromarray((small * 255).astype(np.uint8)).resize((WALL_W + 2 * scale, WALL_H + 2 * scale), Image.BICUBIC)
        field += weight * np.asarray(up, np.float32)[scale:scale + WALL_H, scale:scale + WALL_W] / 255
    tint = np.array([0.55, 0.5, 0.45], np.float32)
    return np.clip(0.25 + 0.6 * field * tint / tint.mean() * 0.8, 0, 1)


def draw_sign(wall):
    """The board and its lines on the wall; the truth lines in wall coordinates (continuous)."""
    image = Image.fromarray((wall * 255).astype(np.uint8))
    draw = ImageDraw.Draw(image)
    x0, y0, x1, y1 = BOARD
    draw.rectangle((x0 - 8, y0 - 8, x1 + 8, y1 + 8), fill=(45, 35, 30))
    draw.rectangle((x0, y0, x1, y1), fill=(238, 228, 205))
    lines = []
    for text, file, size, left, baseline in LINES:
        font = ImageFont.truetype(FONTS + file, size, layout_engine=ImageFont.Layout.BASIC)
        characters = []
        for i, ch in enumerate(text):
            pen = left + int(round(font.getlength(text[:i])))
            if ch == " ":
                continue
            draw.text((pen, baseline), ch, font=font, fill=(30, 30, 40), anchor="ls")
            mask, offset = font.getmask2(ch, mode="L", anchor="ls")
            box = mask.getbbox()
            if box is None:
                continue
            bx0, by0 = pen + offset[0] + box[0], baseline + offset[1] + box[1]
            bx1, by1 = pen + offset[0] + box[2], baseline + offset[1] + box[3]
            characters.append({"character": ch, "quad": [[bx0, by0], [bx1, by0], [bx1, by1], [bx0, by1]]})
        xs = [c["quad"][0][0] for c in characters] + [c["quad"][1][0] for c in characters]
        ys = [c["quad"][0][1] for c in characters] + [c["quad"][2][1] for c in characters]
        lx0, ly0, lx1, ly1 = min(xs), min(ys), max(xs), max(ys)
        lines.append({"string": text, "quad": [[lx0, ly0], [lx1, ly0], [lx1, ly1], [lx0, ly1]], "characters": characters})
    return np.asarray(image, np.float32) / 255, lines


def smooth(u):
    u = min(1.0, max(0.0, u))
    return u * u * (3 - 2 * u)


def camera(t, width, height, scale):
    """Wall -> frame homography (continuous coordinates) at time t (in frames)."""
    # Where the view centre is on the wall, the zoom (frame px per wall px at scale 1), roll, tilt.
    cx, cy = 870.0 - 0.0, 430.0
    cx += 1.0 * min(t, 30)                                       # slow drift while holding
    u = smooth((t - 30) / 35)
    cx += 90 * u
    cy += 40 * u
    zoom = 1.0 + 0.15 * u
    roll = math.radians(6) * u
    tilt = 1.2e-4 * u
    w = smooth((t - 65) / 20)
    cx += 720 * w                                                # the sign leaves to the left
    s = zoom * scale * 0.62
    c, n = math.cos(roll), math.sin(roll)
    to_centre = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], float)
    rotate_scale = np.array([[s * c, -s * n, 0], [s * n, s * c, 0], [0, 0, 1]], float)
    keystone = np.array([[1, 0, 0], [0, 1, 0], [tilt / scale, 0, 1]], float)
    to_frame = np.array([[1, 0, width / 2], [0, 1, height / 2], [0, 0, 1]], float)
    h = to_frame @ keystone @ rotate_scale @ to_centre
    return h / h[2, 2]


def render(wall_image, h, width, height):
    """The wall seen through h (bicubic): Pillow samples each output pixel centre."""
    inverse = np.linalg.inv(h)
    inverse /= inverse[2, 2]
    coefficients = inverse.flatten()[:8]
    return np.asarray(wall_image.transform((width, height), Image.PERSPECTIVE, coefficients, Image.BICUBIC), np.float32)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=str(ROOT / "Tests/GPUStyleTests/Fixtures/live-text"))
    p.add_argument("--scale", type=float, default=1.0, help="frame size 640x360 times this")
    p.add_argument("--seed", type=int, default=5)
    p.add_argument("--crf", type=int, default=20)
    a = p.parse_args()
    if shutil.which("ffmpeg") is None:
        sys.exit("ffmpeg not found")
    width, height = int(round(640 * a.scale)) // 2 * 2, int(round(360 * a.scale)) // 2 * 2
    rng = np.random.default_rng(a.seed)
    wall, lines = draw_sign(wall_texture(rng))
    wall_image = Image.fromarray((wall * 255).round().astype(np.uint8))
    out = pathlib.Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    homographies = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(FRAMES):
            shots = [render(wall_image, camera(k + d, width, height, a.scale), width, height) for d in SHUTTER]
            frame = np.mean(shots, axis=0)
            Image.fromarray(frame.round().clip(0, 255).astype(np.uint8)).save(f"{tmp}/{k:04d}.png")
            homographies.append([round(float(v), 9) for v in camera(k, width, height, a.scale).flatten()])
        subprocess.run(["ffmpeg", "-hide_banner", "-loglevel", "error", "-y", "-framerate", str(FPS), "-i", f"{tmp}/%04d.png",
                        "-c:v", "libx264", "-preset", "veryslow", "-crf", str(a.crf), "-pix_fmt", "yuv420p", "-threads", "1",
                        "-x264-params", "threads=1", "-movflags", "+faststart", str(out / "video.mp4")], check=True)
    truth = {"width": width, "height": height, "fps": FPS, "frames": FRAMES, "scale": a.scale, "seed": a.seed,
             "lines": lines, "homographies": homographies}
    (out / "truth.json").write_text(json.dumps(truth, separators=(",", ":")) + "\n")
    print(f"wrote {out}: {width}x{height}, {FRAMES} frames, video.mp4 {(out / 'video.mp4').stat().st_size} bytes")


if __name__ == "__main__":
    main()
