#!/usr/bin/env python3
"""Generate rectangle-detection test scenes with exactly known ground truth.

Each positive scene is a real photo (the "picture", optionally in a frame and/or matte) seen in
perspective on a flat wall, composited onto another real photo or photo texture (the
"background"), then degraded the way a camera frame is (blur, lighting, noise, JPEG). Negatives
are degraded backgrounds with no picture. Needs numpy, scipy, scikit-image and Pillow only (no
OpenCV: the ground truth must not come from the kind of code under test).

    python3 tools/make_rectangle_scenes.py --out DIR [--count 40] [--negatives 10]
                                           [--size 1280x720] [--seed 7] [--png 1]
                                           [--jpeg-quality 92] [--max-mb 0] [--kind KIND[,KIND]]
                                           [--selftest]

The committed fixture set was made with
    python3 tools/make_rectangle_scenes.py --out Tests/GPUStyleTests/Fixtures/rectangles --max-mb 4.8
(--max-mb lowers the JPEG quality from --jpeg-quality until the images fit; the quality used is
in each entry's params.file_jpeg_quality). Output is deterministic for a given seed and library
versions (numpy, scipy, Pillow/libjpeg, scikit-image's photos); positive i depends only on
(seed, i) and on whether it is one of the PNG ones, negative j on (seed, j), so changing --count
keeps earlier scenes' content unchanged. Takes ~4 minutes for 50 scenes on 2 cores.

Hard kinds (--kind)
-------------------
Without --kind the scenes are the mixed ones described below (unchanged: the committed set
regenerates identically). `--kind K` (repeatable or a comma list, `all` for every kind) renders
only those kinds; --count and --negatives are then totals dealt to the kinds in turn (scene n is
kind n % len(kinds), that kind's scene n // len(kinds)). A kind scene is a mild base (a picture
as below, blur sigma < 0.5, no other random degradation, no PNG) plus the kind's difficulty,
always applied, and carries the kind as a tag and params.hard_kind. Positive i of kind K draws
from default_rng([seed, i, 3, KIND_IDS[K]]), negative j from default_rng([seed, j, 4,
KIND_IDS[K]]): it depends only on (seed, kind, i), whatever the other kinds or counts. Negatives
are the kind's sort of background with its degradation and no picture.
* sticky_notes: 1-6 square notes (yellow, pink, green, blue, orange; paper grain, a shading ramp,
  a darker curled bottom, a faint shadow), 8-20 % of the shorter side, on one plane seen through
  one camera (tilt 0-30 deg, roll +-15, each note turned +-8 deg in the plane), >= 1.5 % of
  the shorter side apart, on a neutral wall, a wall of a hue like the notes', or a wooden desk.
  The entry has "quads" (every note) and "quad" = the largest. Vision's minimum size 0.2 does
  not apply: a note needs every side >= 6 % of the shorter side (and aspect >= 0.52, corners
  within 28 deg); detect them with --minimum-size 0.05 (evaluate_rectangles.py does for "quads").
* low_contrast: a grey (saturation 0-35 %) unframed poster, contrast lowered to 60 % and mean
  6-15 % off the wall's, on a grey plaster wall, with a soft drop shadow (sigma 1.5-3 % of the
  shorter side) and in 60 % a soft-edged shadow across the scene ("soft_shadow").
* nested: dark frame, wide light mat, thin inner frame, then the photo; quad = the outer frame,
  inner_quad = the photo.
* occlusion: a hand (skin-coloured blob with a wrist/arm running out of the image) or an object
  (photo patch) over one corner (radius 10-18 % of the shorter adjacent side, the corner inside
  it) or over up to 30 % of one side away from its corners.
* glare: 1-2 soft-edged elliptical highlights added in linear light (peak 0.8-2.5, so the core
  saturates); the first is centred near one side and crosses it; outside the picture 20-50 %
  of it shows.
* motion_blur: a linear motion-blur kernel 5-25 px long, any direction, on the linear-light scene.
  The kernel is symmetric about its centre (exposure centred on the truth), so straight edges
  stay where they were and the truth is the corners of the lines through them (the blurred
  corners themselves are rounded).
* strong_perspective: tilt 35-60 deg with Vision's validity rules kept (sides >= 20.5 % of the
  shorter side, aspect >= 0.52, corners within 28 deg of square); they reject most views
  past 45 deg, so accepted tilts are skewed low (about 38 % of views are 35-40 deg, 14 %
  50-60 deg); params.tilt_deg has each.
* phone: strong signal-dependent noise (sigma 0.02-0.045), chroma noise (blotches, sigma 2 px),
  unsharp-mask sharpening (halos, sigma 1-2, amount 0.6-1.5), then a JPEG round trip at
  quality 30-70 (the file is then written at --jpeg-quality as usual).
The baseline sets (docs/speed.md, "Hard kinds", has the results):
    for each kind K with n = KIND_IDS[K] (sticky_notes 1 ... phone 8):
    python3 tools/make_rectangle_scenes.py --out /tmp/hard/K --kind K --count 12 --negatives 4 --seed $((1000 + n))
    (sticky_notes: --count 24)
    python3 tools/make_rectangle_scenes.py --out /tmp/hard/all --kind all --count 32 --negatives 8 --seed 1009

Coordinates and conventions
---------------------------
* Pixel coordinates, origin top-left, x right, y down, **pixel centres at integer coordinates**:
  the top-left pixel covers [-0.5, 0.5] x [-0.5, 0.5] and the whole image covers
  [-0.5, W-0.5] x [-0.5, H-0.5]. (To convert to "pixel corners at integers", add 0.5; to Vision's
  normalized coordinates, x_n = (x + 0.5) / W, y_n = 1 - (y + 0.5) / H.)
* Corner order: top-left, top-right, bottom-right, bottom-left of the picture itself (clockwise on
  screen). The camera roll is at most 20 degrees, so the picture's top-left is also the corner
  nearest the image's top-left.
* The quad is the **outer boundary of the flat object on the wall**: the outside edge of the frame
  when there is one, of the light matte when there is one and no frame, else of the photo. For
  "nested" scenes (a frame, a wide matte, then a second frame inside) the quad is the outer
  frame's, never the inner one. `inner_quad` gives the photo's own boundary (for framed scenes
  this is what a crop-and-restyle step wants); both come from the same homography.

Rendering
---------
* The picture plane is rendered through a pinhole camera: aspect (short/long side) 0.5-1.0,
  landscape or portrait, tilt of the plane 0-35 degrees about a random in-plane axis, camera roll
  up to +-20 degrees, vertical field of view 45-70 degrees; then scaled so the quad's shorter
  dimension (mean length of the two shorter opposite sides) is 20-70 % of the image's shorter side
  (shrunk if needed to fit), and placed at a random position at least 3 % of the shorter side
  from the border. Views that Vision's defaults would reject are drawn again: every side must
  be >= 20.5 % of the shorter image side, the quad's own aspect (shorter / longer mean
  dimension) >= 0.52, and every corner within 28 degrees of a right angle.
* Compositing is done in linear light (sRGB decoded), like a sensor integrating light.
  The picture's colour per pixel is the mean of 4x4 sub-samples (bilinear texture look-ups through
  the inverse homography); its coverage of each pixel is the *exact* area of the quad inside the
  pixel square (polygon clipping near the edges), so the edges are sub-pixel exact.
  `--selftest` checks this: a white quad on black must have total intensity = the quad's area and
  an intensity centroid = the quad's centroid (within 1e-3 px), which also pins the pixel-centre
  convention.
* Degradations, each recorded in the tags and in `params` when applied: soft drop shadow of the
  frame on the wall ("shadow"), occluding blob over at most 15 % of one side away from the corners
  ("occluded"), lighting gradient and vignette over the whole scene ("lighting"), Gaussian blur
  sigma 0.5-1.5 ("blur"; smaller sigma untagged), signal-dependent sensor noise ("noise"), a real
  JPEG round trip through Pillow at quality 40-90 ("jpeg"), and low contrast ("low_contrast":
  no frame, on a wall, the photo's contrast lowered to 60 % and its mean brightness set to
  6-15 % above or below the wall's around it). A frame or matte is kept visible otherwise: if
  its outer band has a Michelson contrast < 0.2 (linear light) with the wall around it, the
  background is re-exposed (params.background_gain).
  None of them moves the ground-truth corners (blur is symmetric; occluders and shadows cover
  or darken but do not move the picture).
* Files: NNN.jpg (Pillow, quality --jpeg-quality, 4:2:0) for most scenes, NNN.png for --png of
  the "clean" positives, so a path without any JPEG loss is covered. Positives come first
  (000 ... count-1), then the negatives.

scenes.json (a JSON list, one entry per file, in file order)
------------------------------------------------------------
    {"file": "000.jpg", "kind": "positive" | "negative",
     "quad": [[x, y], [x, y], [x, y], [x, y]] | null,      # TL, TR, BR, BL; null for negatives
     "quads": [[[x, y] x4], ...],                          # only with several truths (sticky_notes)
     "inner_quad": [[x, y] x4] | null,                     # the photo inside frame/matte
     "tags": ["frame_dark", "blur", ...],
     "width": W, "height": H,
     "note": "..." (optional),
     "params": {"background": ..., "picture": ..., "tilt_deg": ..., "roll_deg": ...,
                "size": ..., "aspect": ..., "blur_sigma": ..., ...}}

Tags: clean (nothing but the final encode), no_frame, frame_dark, matte_light, nested, shadow,
occluded, lighting, blur, noise, jpeg, low_contrast, strong_tilt (tilt > 25 deg), small
(size < 0.3), large (size > 0.55), portrait, clutter (background full of rectangles), png;
negatives carry "negative" plus their degradations. Kind scenes add the kind's name, and
soft_shadow, multi / single_note (sticky notes; their "small" means the smallest note < 10 %).

Sources (see NOTICE in the fixture folder): scikit-image's bundled sample photos (public domain /
CC0 / no known copyright restrictions per their docstrings) and a few photos from OpenCV's
samples/data as installed by Debian's opencv-doc (/usr/share/doc/opencv-doc/examples/data).
"""
import argparse
import io
import json
import math
import os
import sys

import numpy as np
from PIL import Image
from scipy import ndimage
import skimage.data

OPENCV_DATA = "/usr/share/doc/opencv-doc/examples/data"

# --- sources -------------------------------------------------------------------------------------

# name -> (loader, license note). Loaders return uint8 RGB arrays.
def _sk(name):
    def load():
        a = getattr(skimage.data, name)()
        if a.ndim == 2:
            a = np.stack([a] * 3, axis=-1)
        return np.ascontiguousarray(a[..., :3])
    return load


def _cv(fname, crop=None):
    def load():
        path = os.path.join(OPENCV_DATA, fname)
        if not os.path.exists(path):
            sys.exit(f"error: {path} not found: needs Debian's opencv-doc (apt-get install opencv-doc)")
        im = Image.open(path).convert("RGB")
        a = np.asarray(im)
        if crop:  # (top, bottom, left, right) pixels to remove
            t, b, l, r = crop
            a = a[t:a.shape[0] - b, l:a.shape[1] - r]
        return np.ascontiguousarray(a)
    return load


SOURCES = {
    "astronaut": (_sk("astronaut"), "skimage.data.astronaut: NASA, public domain"),
    "chelsea": (_sk("chelsea"), "skimage.data.chelsea: CC0 (Stefan van der Walt)"),
    "coffee": (_sk("coffee"), "skimage.data.coffee: CC0 (Rachel Michetti)"),
    "rocket": (_sk("rocket"), "skimage.data.rocket: SpaceX, public domain"),
    "camera": (_sk("camera"), "skimage.data.camera: CC0 (Lav Varshney)"),
    "hubble": (_sk("hubble_deep_field"), "skimage.data.hubble_deep_field: NASA, public domain"),
    "coins": (_sk("coins"), "skimage.data.coins: Brooklyn Museum, no known copyright restrictions"),
    "ihc": (_sk("immunohistochemistry"), "skimage.data.immunohistochemistry: no known copyright restrictions"),
    "brick": (_sk("brick"), "skimage.data.brick: CC0 (CC0Textures Bricks25)"),
    "gravel": (_sk("gravel"), "skimage.data.gravel: CC0 (CC0Textures Gravel04)"),
    "grass": (_sk("grass"), "skimage.data.grass: CC0"),
    "starry_night": (_cv("starry_night.jpg", crop=(12, 12, 10, 10)), "opencv samples/data/starry_night.jpg"),
    "building": (_cv("building.jpg"), "opencv samples/data/building.jpg"),
    "home": (_cv("home.jpg"), "opencv samples/data/home.jpg"),
    "stuff": (_cv("stuff.jpg"), "opencv samples/data/stuff.jpg"),
}

PICTURES = ["astronaut", "chelsea", "coffee", "rocket", "camera", "hubble", "coins", "ihc",
            "starry_night", "building"]
# Backgrounds: "plaster:<texture>" and "brick" are synthesized walls made from real photo textures.
BACKGROUNDS = ["plaster:gravel", "plaster:grass", "brick", "stuff", "home", "coffee", "chelsea",
               "rocket", "astronaut", "building"]
WALLS = ["plaster:gravel", "plaster:grass", "brick"]
CLUTTER = {"building"}  # backgrounds that contain many strong rectangles of their own
NEGATIVE_BACKGROUNDS = ["plaster:gravel", "plaster:grass", "brick", "stuff", "home", "coffee",
                        "chelsea", "rocket", "astronaut", "plaster:gravel"]

_cache = {}


def source(name):
    if name not in _cache:
        _cache[name] = SOURCES[name][0]()
    return _cache[name]


# --- colour helpers ----------------------------------------------------------------------------

def srgb_to_linear(a):
    a = np.asarray(a, dtype=np.float32)
    return np.where(a <= 0.04045, a / 12.92, ((a + 0.055) / 1.055) ** 2.4).astype(np.float32)


def linear_to_srgb(a):
    a = np.clip(a, 0.0, 1.0)
    return np.where(a <= 0.0031308, a * 12.92, 1.055 * np.power(a, 1 / 2.4) - 0.055).astype(np.float32)


def luminance(lin):
    return lin[..., 0] * 0.2126 + lin[..., 1] * 0.7152 + lin[..., 2] * 0.0722


def resize_u8(a, w, h):
    """Area-average when shrinking, Lanczos when enlarging (Pillow)."""
    im = Image.fromarray(a)
    f = Image.Resampling.BOX if (w <= im.width and h <= im.height) else Image.Resampling.LANCZOS
    return np.asarray(im.resize((w, h), f, reducing_gap=None))


def crop_to_aspect(a, aspect, rng, min_frac=0.75):
    """Random crop of a with width/height = aspect covering >= min_frac of the largest such crop."""
    h, w = a.shape[:2]
    if w / h > aspect:
        ch, cw = h, h * aspect
    else:
        cw, ch = w, w / aspect
    s = rng.uniform(min_frac, 1.0)
    cw, ch = max(8, int(round(cw * s))), max(8, int(round(ch * s)))
    x0 = int(rng.integers(0, w - cw + 1))
    y0 = int(rng.integers(0, h - ch + 1))
    return a[y0:y0 + ch, x0:x0 + cw]


# --- backgrounds -------------------------------------------------------------------------------

WALL_COLOURS = [(0.93, 0.91, 0.86), (0.85, 0.82, 0.74), (0.72, 0.76, 0.78), (0.62, 0.66, 0.58),
                (0.90, 0.88, 0.90), (0.55, 0.50, 0.46), (0.80, 0.70, 0.60), (0.35, 0.38, 0.42)]


def make_background(name, W, H, rng, wall_colour=None):
    """Returns linear-light float32 [H, W, 3]. wall_colour (sRGB, 3 floats): the plaster's base
    colour instead of a random one of WALL_COLOURS (used by the hard kinds only)."""
    if name.startswith("plaster:"):
        tex = source(name.split(":")[1])[..., 0].astype(np.float32) / 255.0
        tex = ndimage.gaussian_filter(tex, rng.uniform(1.5, 3.0))
        tex = (tex - tex.mean()) / (tex.std() + 1e-6)
        tex = np.asarray(Image.fromarray(tex).resize((W, H), Image.Resampling.BICUBIC))
        if wall_colour is None:
            colour = np.array(WALL_COLOURS[rng.integers(len(WALL_COLOURS))], np.float32)
        else:
            colour = np.array(wall_colour, np.float32)
        colour = np.clip(colour + rng.normal(0, 0.03, 3), 0.05, 0.97)
        srgb = colour[None, None, :] * (1.0 + rng.uniform(0.015, 0.04) * tex[..., None])
        return srgb_to_linear(np.clip(srgb, 0, 1))
    if name == "brick":
        b = source("brick")[..., 0]  # not tiled: the photo is not seamless
        crop = crop_to_aspect(b, W / H, rng, 0.7)
        g = resize_u8(crop, W, H).astype(np.float32) / 255.0
        if rng.random() < 0.5:  # red brick
            tint = np.array([0.78, 0.45, 0.36], np.float32)
            srgb = g[..., None] * tint * 1.25
        else:  # painted brick
            colour = np.array(WALL_COLOURS[rng.integers(4)], np.float32)
            srgb = colour * (0.8 + 0.35 * g[..., None])
        return srgb_to_linear(np.clip(srgb, 0, 1))
    a = source(name)
    crop = crop_to_aspect(a, W / H, rng, 0.7)
    return srgb_to_linear(resize_u8(crop, W, H).astype(np.float32) / 255.0)


# --- geometry ----------------------------------------------------------------------------------

def homography(src, dst):
    """3x3 H with dst ~ H @ [src, 1] for 4 point pairs (DLT, h33 = 1)."""
    A, b = [], []
    for (x, y), (u, v) in zip(src, dst):
        A.append([x, y, 1, 0, 0, 0, -u * x, -u * y]); b.append(u)
        A.append([0, 0, 0, x, y, 1, -v * x, -v * y]); b.append(v)
    h = np.linalg.solve(np.array(A, np.float64), np.array(b, np.float64))
    return np.append(h, 1.0).reshape(3, 3)


def apply_h(Hm, pts):
    pts = np.asarray(pts, np.float64)
    p = np.c_[pts, np.ones(len(pts))] @ Hm.T
    return p[:, :2] / p[:, 2:3]


def rodrigues(axis, angle):
    axis = np.asarray(axis, np.float64) / np.linalg.norm(axis)
    K = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    return np.eye(3) + math.sin(angle) * K + (1 - math.cos(angle)) * K @ K


def quad_dims(q):
    """(mean of top/bottom lengths, mean of left/right lengths)."""
    d = lambda a, b: float(np.hypot(*(q[a] - q[b])))
    return 0.5 * (d(0, 1) + d(3, 2)), 0.5 * (d(0, 3) + d(1, 2))


def polygon_area(q):
    x, y = q[:, 0], q[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


def corner_deviation_deg(q):
    """Largest |corner angle - 90| of the quad, in degrees."""
    dev = 0.0
    for i in range(4):
        a, b = q[i - 1] - q[i], q[(i + 1) % 4] - q[i]
        cosang = float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))
        dev = max(dev, abs(math.degrees(math.acos(max(-1.0, min(1.0, cosang)))) - 90))
    return dev


def make_quad(W, H, rng, tilt_range=(0.0, 35.0)):
    """A plausible camera view of a flat rectangle that Vision's defaults accept: every side
    >= 0.205 of the shorter image side, image-space aspect (shorter / longer mean dimension)
    >= 0.52, corners within 28 degrees of square. Draws again until it is. Returns (quad, params).
    tilt_range: the plane's tilt in degrees (the "strong_perspective" kind uses 35-60)."""
    while True:
        q, params = _draw_quad(W, H, rng, tilt_range)
        S = min(W, H)
        sides = np.hypot(*(np.roll(q, -1, axis=0) - q).T)
        dims = sorted(quad_dims(q))
        if sides.min() >= 0.205 * S and dims[0] / dims[1] >= 0.52 and corner_deviation_deg(q) <= 28:
            return q, params


def _draw_quad(W, H, rng, tilt_range=(0.0, 35.0)):
    S = min(W, H)
    aspect = rng.uniform(0.5, 1.0)
    portrait = bool(rng.random() < 0.4)
    ow, oh = (aspect, 1.0) if portrait else (1.0, aspect)
    tilt = math.radians(rng.uniform(*tilt_range))
    phi = rng.uniform(0, 2 * math.pi)
    roll = math.radians(rng.uniform(-20.0, 20.0))
    vfov = math.radians(rng.uniform(45.0, 70.0))
    size = rng.uniform(0.2, 0.7)
    f = (H / 2) / math.tan(vfov / 2)
    # distance so that the long side spans roughly the wanted fraction of the view
    d = f * 1.0 / (size / min(aspect, 1.0) * S)
    R = rodrigues((math.cos(phi), math.sin(phi), 0.0), tilt)
    corners = np.array([[-ow / 2, -oh / 2, 0], [ow / 2, -oh / 2, 0], [ow / 2, oh / 2, 0], [-ow / 2, oh / 2, 0]])
    P = corners @ R.T + np.array([0, 0, d])
    assert np.all(P[:, 2] > 0.05)
    q = f * P[:, :2] / P[:, 2:3]
    c, s = math.cos(roll), math.sin(roll)
    q = q @ np.array([[c, s], [-s, c]])  # rotate on screen (camera roll)
    # scale so the shorter dimension is `size` * S, then shrink to fit if needed
    q -= q.mean(axis=0)
    q *= size * S / min(quad_dims(q))
    margin = 0.03 * S
    span = q.max(axis=0) - q.min(axis=0)
    fit = min(1.0, (W - 2 * margin - 2) / span[0], (H - 2 * margin - 2) / span[1])
    q *= fit
    lo, hi = q.min(axis=0), q.max(axis=0)
    tx = rng.uniform(margin - 0.5 - lo[0], W - 0.5 - margin - hi[0])
    ty = rng.uniform(margin - 0.5 - lo[1], H - 0.5 - margin - hi[1])
    q += np.array([tx, ty])
    assert polygon_area(q) > 0  # clockwise on screen (y down)
    params = {"aspect": round(aspect, 3), "portrait": portrait, "tilt_deg": round(math.degrees(tilt), 2),
              "tilt_axis_deg": round(math.degrees(phi), 1), "roll_deg": round(math.degrees(roll), 2),
              "vfov_deg": round(math.degrees(vfov), 1), "size": round(min(quad_dims(q)) / S, 3)}
    return q, params


# --- rendering ---------------------------------------------------------------------------------

def clip_polygon_to_box(poly, x0, y0, x1, y1):
    """Sutherland-Hodgman clip of a polygon (list of (x, y)) to an axis-aligned box."""
    def clip(pts, inside, cross):
        out = []
        for i in range(len(pts)):
            a, b = pts[i - 1], pts[i]
            ia, ib = inside(a), inside(b)
            if ib:
                if not ia:
                    out.append(cross(a, b))
                out.append(b)
            elif ia:
                out.append(cross(a, b))
        return out

    def xcross(xv):
        return lambda a, b: (xv, a[1] + (b[1] - a[1]) * (xv - a[0]) / (b[0] - a[0]))

    def ycross(yv):
        return lambda a, b: (a[0] + (b[0] - a[0]) * (yv - a[1]) / (b[1] - a[1]), yv)

    pts = list(poly)
    for inside, cross in ((lambda p: p[0] >= x0, xcross(x0)), (lambda p: p[0] <= x1, xcross(x1)),
                          (lambda p: p[1] >= y0, ycross(y0)), (lambda p: p[1] <= y1, ycross(y1))):
        if not pts:
            break
        pts = clip(pts, inside, cross)
    return pts


def coverage(quad, W, H):
    """Exact fraction of each pixel square [x-0.5, x+0.5] x [y-0.5, y+0.5] inside the convex quad.
    Returns (cov [h, w] float64, (x0, y0)) for the bounding box of the quad."""
    x0 = max(0, int(math.floor(quad[:, 0].min() + 0.5)))
    y0 = max(0, int(math.floor(quad[:, 1].min() + 0.5)))
    x1 = min(W - 1, int(math.floor(quad[:, 0].max() + 0.5)))
    y1 = min(H - 1, int(math.floor(quad[:, 1].max() + 0.5)))
    xs, ys = np.meshgrid(np.arange(x0, x1 + 1, dtype=np.float64), np.arange(y0, y1 + 1, dtype=np.float64))
    # signed distance of each pixel centre to each edge (positive inside for a clockwise quad)
    inside = np.ones(xs.shape, bool)
    near = np.zeros(xs.shape, bool)
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        e = b - a
        n = np.array([-e[1], e[0]]) / np.hypot(*e)  # inward normal for clockwise (y-down) order
        dist = (xs - a[0]) * n[0] + (ys - a[1]) * n[1]
        inside &= dist >= 0
        near |= np.abs(dist) < 0.7072  # the pixel square may straddle this edge's line
    cov = inside.astype(np.float64)
    poly = [tuple(p) for p in quad]
    for yy, xx in zip(*np.nonzero(near)):
        px, py = xs[yy, xx], ys[yy, xx]
        clipped = clip_polygon_to_box(poly, px - 0.5, py - 0.5, px + 0.5, py + 0.5)
        cov[yy, xx] = abs(polygon_area(np.array(clipped))) if len(clipped) >= 3 else 0.0
    return cov, (x0, y0)


def sample_texture(tex, Hinv, xs, ys):
    """Bilinear look-up of tex [th, tw, C] (linear light) at image points through Hinv (image ->
    unit square). Points outside the unit square are clamped onto it."""
    th, tw = tex.shape[:2]
    den = Hinv[2, 0] * xs + Hinv[2, 1] * ys + Hinv[2, 2]
    u = (Hinv[0, 0] * xs + Hinv[0, 1] * ys + Hinv[0, 2]) / den
    v = (Hinv[1, 0] * xs + Hinv[1, 1] * ys + Hinv[1, 2]) / den
    # texel centres at integers: u in [0, 1] spans [-0.5, tw - 0.5]
    tu = np.clip(u, 0, 1) * tw - 0.5
    tv = np.clip(v, 0, 1) * th - 0.5
    return np.stack([ndimage.map_coordinates(tex[..., c], [tv, tu], order=1, mode="nearest")
                     for c in range(tex.shape[2])], axis=-1)


def render_quad(img, quad, tex, ss=4):
    """Composite texture tex (mapped onto the unit square) into img (linear, in place) with the
    unit square's corners (0,0),(1,0),(1,1),(0,1) at quad's TL, TR, BR, BL."""
    H_, W_ = img.shape[:2]
    Hm = homography([(0, 0), (1, 0), (1, 1), (0, 1)], quad)
    Hinv = np.linalg.inv(Hm)
    cov, (x0, y0) = coverage(quad, W_, H_)
    h, w = cov.shape
    offs = (np.arange(ss) + 0.5) / ss - 0.5
    acc = np.zeros((h, w, tex.shape[2]), np.float64)
    rows = max(1, 2_000_000 // max(1, w * ss * ss))
    for r0 in range(0, h, rows):
        r1 = min(h, r0 + rows)
        ys = np.arange(y0 + r0, y0 + r1, dtype=np.float64)
        xs = np.arange(x0, x0 + w, dtype=np.float64)
        # sub-sample grid [rows, ss, w, ss]
        Y = (ys[:, None, None, None] + offs[None, :, None, None]) + np.zeros((1, 1, w, ss))
        X = (xs[None, None, :, None] + offs[None, None, None, :]) + np.zeros((r1 - r0, ss, 1, 1))
        col = sample_texture(tex, Hinv, X.ravel(), Y.ravel()).reshape(r1 - r0, ss, w, ss, -1)
        acc[r0:r1] = col.mean(axis=(1, 3))
    region = img[y0:y0 + h, x0:x0 + w]
    c = cov[..., None]
    region[...] = (c * acc + (1 - c) * region).astype(img.dtype)
    return Hm


def supersampled_mask(W, H, fn, ss=4, box=None):
    """Anti-aliased mask from an implicit function fn(x, y) -> bool (pixel-centre coords)."""
    x0, y0, x1, y1 = box if box else (0, 0, W - 1, H - 1)
    x0, y0 = max(0, x0), max(0, y0)
    x1, y1 = min(W - 1, x1), min(H - 1, y1)
    m = np.zeros((H, W), np.float32)
    if x1 < x0 or y1 < y0:
        return m
    offs = (np.arange(ss) + 0.5) / ss - 0.5
    ys = np.arange(y0, y1 + 1)[:, None, None, None] + offs[None, :, None, None]
    xs = np.arange(x0, x1 + 1)[None, None, :, None] + offs[None, None, None, :]
    Y, X = np.broadcast_arrays(ys, xs)
    m[y0:y1 + 1, x0:x1 + 1] = fn(X, Y).mean(axis=(1, 3))
    return m


# --- the flat object: photo, matte, frame -------------------------------------------------------

def ring_luminance(img, quad, width):
    """Mean linear luminance of img in a band `width` px wide around the quad."""
    H_, W_ = img.shape[:2]
    lo = np.floor(quad.min(axis=0) - width - 1).astype(int)
    hi = np.ceil(quad.max(axis=0) + width + 1).astype(int)
    x0, y0 = max(0, lo[0]), max(0, lo[1])
    x1, y1 = min(W_, hi[0] + 1), min(H_, hi[1] + 1)
    cov, (cx, cy) = coverage(quad, W_, H_)
    inside = np.zeros((y1 - y0, x1 - x0), bool)
    inside[cy - y0:cy - y0 + cov.shape[0], cx - x0:cx - x0 + cov.shape[1]] = cov > 0
    ring = ndimage.binary_dilation(inside, iterations=max(1, width)) & ~inside
    return float(luminance(img[y0:y1, x0:x1])[ring].mean())


def make_object_texture(photo_name, aspect_wh, long_px, frame, rng, low_contrast_target=None):
    """Texture (linear float32) for the whole flat object with width/height = aspect_wh.
    frame: "none" | "dark" | "light" | "nested". Returns (tex, inner_rect_uv (u0, v0, u1, v1), info)."""
    if aspect_wh >= 1:
        tw, th = long_px, max(16, int(round(long_px / aspect_wh)))
    else:
        th, tw = long_px, max(16, int(round(long_px * aspect_wh)))
    short = min(tw, th)
    tex = np.zeros((th, tw, 3), np.float32)
    info = {"frame": frame}
    bands = []  # (width_px, srgb colour, texture amount)
    dark = np.clip(np.array(rng.choice([[0.08, 0.06, 0.05], [0.20, 0.12, 0.07], [0.12, 0.12, 0.13],
                                        [0.30, 0.20, 0.12]]), np.float32) + rng.normal(0, 0.02, 3), 0, 1)
    light = np.clip(np.array(rng.choice([[0.95, 0.94, 0.92], [0.92, 0.89, 0.82], [0.88, 0.88, 0.88]]),
                             np.float32) + rng.normal(0, 0.015, 3), 0, 1)
    if frame == "dark":
        bands.append((rng.uniform(0.03, 0.08) * short, dark, 0.12))
        if rng.random() < 0.5:
            bands.append((rng.uniform(0.05, 0.12) * short, light, 0.02))
            info["frame"] = "dark+matte"
    elif frame == "light":
        bands.append((rng.uniform(0.06, 0.15) * short, light, 0.02))
    elif frame == "nested":
        bands.append((rng.uniform(0.03, 0.06) * short, dark, 0.12))
        bands.append((rng.uniform(0.10, 0.18) * short, light, 0.02))
        bands.append((rng.uniform(0.015, 0.03) * short, dark * 1.3, 0.12))
    grain = ndimage.gaussian_filter(rng.normal(0, 1, (th, tw)).astype(np.float32), (1.5, 8.0))
    grain /= grain.std() + 1e-6
    x0 = y0 = 0.0
    x1, y1 = float(tw), float(th)
    yy, xx = np.mgrid[0:th, 0:tw].astype(np.float32) + 0.5
    for width, colour, amount in bands:
        inside = (xx >= x0) & (xx < x1) & (yy >= y0) & (yy < y1)
        col = srgb_to_linear(np.clip(colour[None, None, :] * (1 + amount * grain[..., None]), 0, 1))
        tex[inside] = col[inside]
        x0, y0, x1, y1 = x0 + width, y0 + width, x1 - width, y1 - width
    ix0, iy0 = int(round(x0)), int(round(y0))
    ix1, iy1 = int(round(x1)), int(round(y1))
    pw, ph = ix1 - ix0, iy1 - iy0
    photo = crop_to_aspect(source(photo_name), pw / ph, rng, 0.7)
    photo = srgb_to_linear(resize_u8(photo, pw, ph).astype(np.float32) / 255.0)
    if low_contrast_target is not None:
        lum = luminance(photo)
        m = float(lum.mean())
        photo = m + 0.6 * (photo - m)  # lower the contrast
        ratio = rng.uniform(1.06, 1.15) ** rng.choice([-1, 1])  # close to the wall, not equal
        photo = photo * (low_contrast_target / max(1e-4, m)) * ratio
        photo = np.clip(photo, 0, 1)
    tex[iy0:iy1, ix0:ix1] = photo
    inner = (ix0 / tw, iy0 / th, ix1 / tw, iy1 / th)
    return tex, inner, info


# --- degradations ------------------------------------------------------------------------------

def add_shadow(img, quad, rng, S):
    off = rng.uniform(0.004, 0.012) * S * np.array([rng.uniform(-0.6, 0.6), 1.0])
    sigma = rng.uniform(0.004, 0.01) * S
    cov, (x0, y0) = coverage(quad + off, img.shape[1], img.shape[0])
    m = np.zeros(img.shape[:2], np.float32)
    m[y0:y0 + cov.shape[0], x0:x0 + cov.shape[1]] = cov
    m = ndimage.gaussian_filter(m, sigma)
    strength = rng.uniform(0.25, 0.5)
    img *= (1 - strength * m)[..., None]
    return {"shadow_offset": [round(float(o), 2) for o in off], "shadow_sigma": round(sigma, 2)}


def add_occluder(img, quad, rng, W, H):
    """An irregular blob centred on one side (30-70 % along it) covering <= 15 % of that side."""
    side = int(rng.integers(4))
    a, b = quad[side], quad[(side + 1) % 4]
    L = float(np.hypot(*(b - a)))
    t = rng.uniform(0.3, 0.7)
    centre = a + t * (b - a)
    r = rng.uniform(0.05, 0.075) * L  # chord along the side <= 2r <= 15 % of L
    n = (np.array([-(b - a)[1], (b - a)[0]]) / L)  # inward normal
    centre = centre + n * rng.uniform(-0.5, 0.5) * r  # but keep the side line crossing the blob
    k = rng.integers(3, 6)
    amps = rng.uniform(0, 0.12, k)
    phases = rng.uniform(0, 2 * math.pi, k)

    def fn(X, Y):
        dx, dy = X - centre[0], Y - centre[1]
        ang = np.arctan2(dy, dx)
        rad = r * (1 - 0.25 + sum(amps[i] * np.cos((i + 2) * ang + phases[i]) for i in range(k)) * 1.0)
        return (dx * dx + dy * dy) <= np.minimum(rad, r) ** 2

    box = (int(centre[0] - r - 2), int(centre[1] - r - 2), int(centre[0] + r + 2), int(centre[1] + r + 2))
    m = supersampled_mask(W, H, fn, 4, box)
    name = rng.choice(["coffee", "chelsea", "grass", "astronaut"])
    patch = crop_to_aspect(source(name), 1.0, rng, 0.3)
    d = int(2 * r + 8)
    patch = srgb_to_linear(resize_u8(patch, d, d).astype(np.float32) / 255.0)
    if name == "grass":
        patch = patch * np.array([0.35, 0.8, 0.3], np.float32)
    layer = np.zeros_like(img)
    px, py = box[0], box[1]
    ys, xs = slice(max(0, py), min(H, py + d)), slice(max(0, px), min(W, px + d))
    layer[ys, xs] = patch[ys.start - py:ys.stop - py, xs.start - px:xs.stop - px]
    img[...] = img * (1 - m[..., None]) + layer * m[..., None]
    return {"occluded_side": ["top", "right", "bottom", "left"][side], "occluder_radius": round(r, 1),
            "occluder_at": round(t, 3)}


def add_lighting(img, rng, W, H):
    ang = rng.uniform(0, 2 * math.pi)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    S = max(W, H)
    ramp = ((xx - W / 2) * math.cos(ang) + (yy - H / 2) * math.sin(ang)) / S
    amp = rng.uniform(0.3, 0.8)
    g = 1 + amp * ramp
    cx, cy = rng.uniform(0.3, 0.7) * W, rng.uniform(0.3, 0.7) * H
    vig = 1 - rng.uniform(0.1, 0.35) * (((xx - cx) ** 2 + (yy - cy) ** 2) / (0.5 * S) ** 2)
    gain = np.clip(g * vig, 0.25, 1.6) * rng.uniform(0.85, 1.15)
    img *= gain[..., None]
    return {"light_amp": round(amp, 3)}


def to_u8(srgb):
    return np.clip(np.round(srgb * 255.0), 0, 255).astype(np.uint8)


def add_noise(srgb, rng):
    """Signal-dependent sensor-like noise, per channel, on the encoded image."""
    sigma = rng.uniform(0.008, 0.02)
    lum = srgb.mean(axis=-1, keepdims=True)
    noise = rng.normal(0, 1, srgb.shape).astype(np.float32) * sigma * np.sqrt(0.25 + lum)
    # a little spatial correlation (demosaicing)
    noise = ndimage.gaussian_filter(noise, (0.5, 0.5, 0))
    return np.clip(srgb + noise * 1.5, 0, 1), {"noise_sigma": round(sigma, 4)}


def jpeg_roundtrip(u8, quality):
    buf = io.BytesIO()
    Image.fromarray(u8).save(buf, "JPEG", quality=int(quality))
    buf.seek(0)
    return np.asarray(Image.open(buf).convert("RGB"))


# --- scenes ------------------------------------------------------------------------------------

PRIMARY = ["clean", "frame_dark", "matte_light", "blur", "noise", "jpeg", "lighting", "occluded",
           "nested", "low_contrast"]


def blurred_srgb(img, sigma, params, tags):
    """The linear-light scene blurred by a Gaussian of `sigma` px (recorded; tagged "blur" from
    0.5 px), as sRGB."""
    if sigma > 0.05:
        img = ndimage.gaussian_filter(img, (sigma, sigma, 0))
    params["blur_sigma"] = round(sigma, 3)
    if sigma >= 0.5:
        tags.append("blur")
    return linear_to_srgb(img)


def noisy(srgb, rng, params, tags):
    """add_noise, with its parameters recorded and the scene tagged "noise"."""
    srgb, p = add_noise(srgb, rng)
    params.update(p)
    tags.append("noise")
    return srgb


def make_positive(i, W, H, seed, lossless=False):
    """Scene i. lossless: it will be written as PNG, so put it on a plaster wall (a busy photo
    background costs ~1 MB as PNG)."""
    rng = np.random.default_rng([seed, i, 1])
    S = min(W, H)
    primary = PRIMARY[i % len(PRIMARY)]
    clean = primary == "clean"
    pic = PICTURES[int(rng.integers(len(PICTURES)))]
    if lossless:
        bgs = [b for b in WALLS if b.startswith("plaster:")]
    elif primary == "low_contrast" or rng.random() < 0.45:  # a wall: the common case, and the hard one
        bgs = WALLS
    else:
        bgs = [b for b in BACKGROUNDS if b not in WALLS and b != pic and (not clean or b not in CLUTTER)]
    bg_name = bgs[int(rng.integers(len(bgs)))]
    quad, params = make_quad(W, H, rng)
    params.update({"picture": pic, "background": bg_name})
    tags = []

    frame = {"frame_dark": "dark", "matte_light": "light", "nested": "nested",
             "low_contrast": "none"}.get(primary) or str(rng.choice(["none", "dark", "light"]))
    bg = make_background(bg_name, W, H, rng)
    img = bg.copy()
    long_px = int(min(1600, max(256, 1.5 * max(quad_dims(quad)))))
    aspect_wh = (1 / params["aspect"]) if not params["portrait"] else params["aspect"]
    target = None
    wall = ring_luminance(bg, quad, int(0.03 * S))
    if primary == "low_contrast":
        target = wall
        tags.append("low_contrast")
    tex, inner, info = make_object_texture(pic, aspect_wh, long_px, frame, rng, target)
    params.update(info)
    if frame != "none":
        # A frame or matte must stand out from the wall around it (Michelson contrast >= 0.2 in
        # linear light): otherwise its outer edge, the ground truth, is invisible. Repaint
        # (re-expose) the background if needed; a photo inside a white matte on a white wall is
        # what "low_contrast" is for, not this.
        keep_frame_visible(img, tex, wall, params)
    tags.append({"none": "no_frame", "dark": "frame_dark", "light": "matte_light", "nested": "nested"}[frame])
    if frame == "nested":
        tags.append("frame_dark")

    if not clean and frame in ("dark", "nested") and rng.random() < 0.6:
        params.update(add_shadow(img, quad, rng, S))
        tags.append("shadow")
    Hm = render_quad(img, quad, tex)
    u0, v0, u1, v1 = inner
    inner_quad = apply_h(Hm, [(u0, v0), (u1, v0), (u1, v1), (u0, v1)])

    def want(tag, p):
        return primary == tag or (not clean and primary != "low_contrast" and rng.random() < p)

    if want("occluded", 0.1):
        params.update(add_occluder(img, quad, rng, W, H))
        tags.append("occluded")
    if want("lighting", 0.3):
        params.update(add_lighting(img, rng, W, H))
        tags.append("lighting")
    sigma = 0.0
    if primary == "blur":
        sigma = rng.uniform(0.7, 1.5)
    elif not clean:
        sigma = rng.uniform(0.5, 1.5) if rng.random() < 0.25 else rng.uniform(0.0, 0.5)
    srgb = blurred_srgb(img, sigma, params, tags)
    if want("noise", 0.15):
        srgb = noisy(srgb, rng, params, tags)
    u8 = to_u8(srgb)
    if want("jpeg", 0.3):
        q = int(rng.integers(40, 91))
        u8 = jpeg_roundtrip(u8, q)
        params["jpeg_roundtrip_quality"] = q
        tags.append("jpeg")
    if clean:
        tags.append("clean")
    tags.extend(view_tags(params, bg_name))
    entry = {"kind": "positive", "quad": quad, "inner_quad": inner_quad, "tags": tags, "params": params}
    if frame == "nested":
        entry["note"] = ("nested frames: quad is the outer frame's outside edge; the inner frame "
                         "(around the photo) is a decoy")
    elif frame != "none":
        entry["note"] = "quad is the outside edge of the frame/matte; inner_quad is the photo"
    return u8, entry


def make_negative(j, W, H, seed):
    rng = np.random.default_rng([seed, j, 2])
    bg_name = NEGATIVE_BACKGROUNDS[j % len(NEGATIVE_BACKGROUNDS)]
    img = make_background(bg_name, W, H, rng)
    tags = ["negative"]
    params = {"background": bg_name}
    if rng.random() < 0.4:
        params.update(add_lighting(img, rng, W, H))
        tags.append("lighting")
    sigma = rng.uniform(0.0, 1.5)
    srgb = blurred_srgb(img, sigma, params, tags)
    if rng.random() < 0.4:
        srgb = noisy(srgb, rng, params, tags)
    u8 = to_u8(srgb)
    if rng.random() < 0.4:
        q = int(rng.integers(40, 91))
        u8 = jpeg_roundtrip(u8, q)
        params["jpeg_roundtrip_quality"] = q
        tags.append("jpeg")
    return u8, {"kind": "negative", "quad": None, "inner_quad": None, "tags": tags, "params": params}


# --- hard kinds (--kind) -------------------------------------------------------------------------
#
# Each kind renders scenes that isolate one hard case: the base scene is mild (blur sigma < 0.5,
# no other random degradation unless the kind says so) and the kind's difficulty is always
# applied. Positive i of kind K draws from default_rng([seed, i, 3, KIND_IDS[K]]), negative j
# from default_rng([seed, j, 4, KIND_IDS[K]]): it depends only on (seed, kind, i).

KINDS = ["sticky_notes", "low_contrast", "nested", "occlusion", "glare", "motion_blur",
         "strong_perspective", "phone"]
# Fixed numbers (part of each kind scene's seed): never renumber, add new kinds at the end.
KIND_IDS = {"sticky_notes": 1, "low_contrast": 2, "nested": 3, "occlusion": 4, "glare": 5,
            "motion_blur": 6, "strong_perspective": 7, "phone": 8}

NOTE_COLOURS = {"yellow": (0.99, 0.92, 0.38), "pink": (0.98, 0.56, 0.75), "green": (0.62, 0.92, 0.45),
                "blue": (0.45, 0.76, 0.98), "orange": (0.99, 0.66, 0.28)}
SKIN = [(0.90, 0.72, 0.60), (0.78, 0.58, 0.46), (0.56, 0.39, 0.29), (0.95, 0.80, 0.70)]


def parse_kinds(values):
    """--kind values (repeatable, comma lists, "all") -> list of kinds, in the order given."""
    out = []
    for v in values or []:
        for k in (p.strip() for p in v.split(",")):
            if not k:
                continue
            for name in (KINDS if k == "all" else [k]):
                if name not in KIND_IDS:
                    raise ValueError(f"unknown kind {name!r} (kinds: {', '.join(KINDS)}, all)")
                if name not in out:
                    out.append(name)
    return out


def soft_shadow(img, quad, off, sigma, strength):
    """Darken img (linear, in place) by a blurred copy of quad shifted by off."""
    cov, (x0, y0) = coverage(quad + np.asarray(off), img.shape[1], img.shape[0])
    m = np.zeros(img.shape[:2], np.float32)
    m[y0:y0 + cov.shape[0], x0:x0 + cov.shape[1]] = cov
    m = ndimage.gaussian_filter(m, sigma)
    img *= (1 - strength * m)[..., None]


def broad_shadow(img, rng, S):
    """A soft-edged shadow over part of the scene (a half-plane, darkened 10-30 %)."""
    H_, W_ = img.shape[:2]
    ang = rng.uniform(0, 2 * math.pi)
    yy, xx = np.mgrid[0:H_, 0:W_].astype(np.float32)
    d = (xx - rng.uniform(0.2, 0.8) * W_) * math.cos(ang) + (yy - rng.uniform(0.2, 0.8) * H_) * math.sin(ang)
    soft = rng.uniform(0.03, 0.12) * S
    strength = rng.uniform(0.1, 0.3)
    img *= (1 - strength / (1 + np.exp(-d / soft)))[..., None]
    return {"broad_shadow_strength": round(strength, 3), "broad_shadow_softness": round(soft, 1)}


def view_tags(params, background):
    """Tags for how the picture is seen: strong_tilt, small, large, portrait, clutter."""
    tags = []
    if params["tilt_deg"] > 25:
        tags.append("strong_tilt")
    if params["size"] < 0.3:
        tags.append("small")
    if params["size"] > 0.55:
        tags.append("large")
    if params["portrait"]:
        tags.append("portrait")
    if background in CLUTTER:
        tags.append("clutter")
    return tags


def keep_frame_visible(img, tex, wall, params):
    """Re-expose the background (in place) if the frame/matte's outer band has a Michelson
    contrast < 0.2 with the wall around it; records the gain in params."""
    band = float(np.concatenate([luminance(tex[0]), luminance(tex[-1]),
                                 luminance(tex[:, 0]), luminance(tex[:, -1])]).mean())
    c = abs(band - wall) / (band + wall + 1e-6)
    if c < 0.2:
        want_wall = band * 0.8 / 1.2 if band > wall else min(1.0, band * 1.2 / 0.8)
        gain = want_wall / max(wall, 1e-4)
        img *= gain
        params["background_gain"] = round(gain, 3)


def grey_wall(W, H, rng):
    g = rng.uniform(0.45, 0.85)
    colour = (g, g, g * rng.uniform(0.96, 1.03))
    name = ["plaster:gravel", "plaster:grass"][int(rng.integers(2))]
    return name, make_background(name, W, H, rng, wall_colour=colour)


def kind_base(kind, rng, W, H, tilt_range=(0.0, 35.0), frame=None):
    """One picture on a wall or photo background, with a random (or the given) frame. Returns
    (linear img, quad, inner_quad, params, tags)."""
    S = min(W, H)
    pic = PICTURES[int(rng.integers(len(PICTURES)))]
    low = kind == "low_contrast"
    if not low:
        bgs = WALLS if rng.random() < 0.45 else [b for b in BACKGROUNDS if b not in WALLS and b != pic]
        bg_name = bgs[int(rng.integers(len(bgs)))]
    quad, params = make_quad(W, H, rng, tilt_range)
    if low:
        bg_name, bg = grey_wall(W, H, rng)
        frame = "none"
    else:
        bg = make_background(bg_name, W, H, rng)
        frame = frame or str(rng.choice(["none", "dark", "light"]))
    params.update({"hard_kind": kind, "picture": pic, "background": bg_name})
    img = bg.copy()
    long_px = int(min(1600, max(256, 1.5 * max(quad_dims(quad)))))
    aspect_wh = (1 / params["aspect"]) if not params["portrait"] else params["aspect"]
    wall = ring_luminance(bg, quad, int(0.03 * S))
    tex, inner, info = make_object_texture(pic, aspect_wh, long_px, frame, rng, wall if low else None)
    params.update(info)
    tags = [kind]
    if low:
        sat = rng.uniform(0.0, 0.35)  # a grey poster: mostly desaturated
        lum = luminance(tex)[..., None]
        tex = np.clip(lum + sat * (tex - lum), 0, 1).astype(np.float32)
        params["saturation"] = round(sat, 3)
    elif frame != "none":
        keep_frame_visible(img, tex, wall, params)
    tags.append({"none": "no_frame", "dark": "frame_dark", "light": "matte_light", "nested": "nested"}[frame])
    if frame == "nested":
        tags.append("frame_dark")
    if low:
        off = rng.uniform(0.004, 0.015) * S * np.array([rng.uniform(-0.6, 0.6), 1.0])
        sigma, strength = rng.uniform(0.015, 0.03) * S, rng.uniform(0.15, 0.35)
        soft_shadow(img, quad, off, sigma, strength)
        params.update({"shadow_offset": [round(float(o), 2) for o in off], "shadow_sigma": round(sigma, 2),
                       "shadow_strength": round(strength, 3)})
        tags.append("shadow")
    elif frame in ("dark", "nested") and rng.random() < 0.6:
        params.update(add_shadow(img, quad, rng, S))
        tags.append("shadow")
    Hm = render_quad(img, quad, tex)
    if low and rng.random() < 0.6:
        params.update(broad_shadow(img, rng, S))
        tags.append("soft_shadow")
    u0, v0, u1, v1 = inner
    inner_quad = apply_h(Hm, [(u0, v0), (u1, v0), (u1, v1), (u0, v1)])
    return img, quad, inner_quad, params, tags


def quads_apart(a, b, gap):
    """True when convex quads a and b are separated by more than gap px (separating axes)."""
    for poly in (a, b):
        for i in range(4):
            e = poly[(i + 1) % 4] - poly[i]
            n = np.array([-e[1], e[0]]) / np.hypot(*e)
            pa, pb = a @ n, b @ n
            if pa.max() + gap < pb.min() or pb.max() + gap < pa.min():
                return True
    return False


def place_notes(W, H, rng, count, tilt_range=(0.0, 30.0), side_range=(0.08, 0.20)):
    """Up to `count` square notes on one plane seen through one pinhole camera (plane tilt 0-30
    degrees, roll +-15, each note turned +-8 degrees in the plane), each 8-20 % of the shorter image
    side, inside the image (3 % margin), >= 1.5 % of the shorter side apart. Per note: every side
    >= 6 % of the shorter side, aspect >= 0.52, corners within 28 degrees of square.
    tilt_range (degrees) and side_range (fractions of the shorter side) replace the 0-30 and
    0.08-0.20 above (tools/make_note_scenes.py uses them; the defaults draw exactly as before)."""
    S = min(W, H)
    while True:
        vfov = math.radians(rng.uniform(45.0, 70.0))
        f = (H / 2) / math.tan(vfov / 2)
        tilt, phi = math.radians(rng.uniform(*tilt_range)), rng.uniform(0, 2 * math.pi)
        roll = math.radians(rng.uniform(-15.0, 15.0))
        R = rodrigues((math.cos(phi), math.sin(phi), 0.0), tilt)
        nrm = R @ np.array([0.0, 0.0, 1.0])
        c, s = math.cos(roll), math.sin(roll)
        rot = np.array([[c, s], [-s, c]])
        side_px = rng.uniform(*side_range) * S
        centre = np.array([(W - 1) / 2, (H - 1) / 2])
        quads, sizes = [], []
        for _try in range(300):
            if len(quads) == count:
                break
            m = 0.03 * S + 0.75 * side_px
            sx, sy = rng.uniform(m, W - 1 - m), rng.uniform(m, H - 1 - m)
            size = side_px / f * rng.uniform(0.93, 1.07)
            th = math.radians(rng.uniform(-8.0, 8.0))
            u = (np.array([sx, sy]) - centre) @ rot.T  # undo the roll
            ray = np.array([u[0], u[1], f])
            X = ray * (nrm[2] / float(nrm @ ray))  # on the plane through (0, 0, 1)
            pc = (R.T @ (X - np.array([0.0, 0.0, 1.0])))[:2]
            ct, st = math.cos(th), math.sin(th)
            local = (np.array([[-.5, -.5], [.5, -.5], [.5, .5], [-.5, .5]]) * size) @ np.array([[ct, st], [-st, ct]]) + pc
            P = np.c_[local, np.zeros(4)] @ R.T + np.array([0.0, 0.0, 1.0])
            if np.any(P[:, 2] <= 0.05):
                continue
            q = (f * P[:, :2] / P[:, 2:3]) @ rot + centre
            if (q.min() < 0.03 * S - 0.5 or q[:, 0].max() > W - 0.5 - 0.03 * S
                    or q[:, 1].max() > H - 0.5 - 0.03 * S or polygon_area(q) <= 0):
                continue
            sides = np.hypot(*(np.roll(q, -1, axis=0) - q).T)
            dims = sorted(quad_dims(q))
            if sides.min() < 0.06 * S or dims[0] / dims[1] < 0.52 or corner_deviation_deg(q) > 28:
                continue
            if all(quads_apart(q, o, 0.015 * S) for o in quads):
                quads.append(q)
                sizes.append(round(dims[0] / S, 3))
        if quads:
            params = {"tilt_deg": round(math.degrees(tilt), 2), "tilt_axis_deg": round(math.degrees(phi), 1),
                      "roll_deg": round(math.degrees(roll), 2), "vfov_deg": round(math.degrees(vfov), 1),
                      "note_sizes": sizes, "notes_wanted": count}
            return quads, params


def note_background(W, H, rng, hue=None):
    """A desk or wall for notes: a neutral wall, a wall of a hue similar to `hue` (sRGB), or a
    wooden desk. Returns (name, linear img)."""
    choice = int(rng.integers(3))
    if choice == 2:
        D = int(math.ceil(math.hypot(W, H))) + 4  # streaks on a larger square, turned, then cropped
        grain = ndimage.gaussian_filter(rng.normal(0, 1, (D, D)).astype(np.float32), (1.0, 40.0))
        grain /= grain.std() + 1e-6
        fine = ndimage.gaussian_filter(rng.normal(0, 1, (D, D)).astype(np.float32), 0.8)
        wood = np.array([[0.55, 0.37, 0.22], [0.72, 0.55, 0.36], [0.40, 0.27, 0.17]][int(rng.integers(3))], np.float32)
        field = np.asarray(Image.fromarray(0.12 * grain + 0.03 * fine).rotate(rng.uniform(-20, 20), Image.Resampling.BILINEAR))
        y0, x0 = (D - H) // 2, (D - W) // 2
        srgb = np.clip(wood * (1 + field[y0:y0 + H, x0:x0 + W])[..., None], 0, 1)
        return "desk_wood", srgb_to_linear(srgb)
    name = ["plaster:gravel", "plaster:grass"][int(rng.integers(2))]
    if choice == 1 and hue is not None:
        colour = 0.85 * (0.6 * np.array(hue) + 0.4 * 0.7)
        return name + ":similar_hue", make_background(name, W, H, rng, wall_colour=colour)
    colour = WALL_COLOURS[int(rng.integers(5))]
    return name + ":neutral", make_background(name, W, H, rng, wall_colour=colour)


def note_texture(colour, rng, n=128):
    """A plain note: the colour with slight paper grain, a shading ramp and a darker curl edge."""
    yy, xx = (np.mgrid[0:n, 0:n].astype(np.float32) + 0.5) / n
    grain = ndimage.gaussian_filter(rng.normal(0, 1, (n, n)).astype(np.float32), 0.8)
    grain /= grain.std() + 1e-6
    ang = rng.uniform(0, 2 * math.pi)
    ramp = (xx - 0.5) * math.cos(ang) + (yy - 0.5) * math.sin(ang)
    shade = 1 + rng.uniform(0.04, 0.12) * ramp + 0.015 * grain - rng.uniform(0.0, 0.10) * yy ** 3
    return srgb_to_linear(np.clip(np.array(colour, np.float32) * shade[..., None], 0, 1))


def make_sticky_notes(rng, W, H):
    S = min(W, H)
    count = int(rng.integers(1, 7))
    names = list(NOTE_COLOURS)
    main_colour = names[int(rng.integers(len(names)))]
    bg_name, bg = note_background(W, H, rng, NOTE_COLOURS[main_colour])
    quads, params = place_notes(W, H, rng, count)
    img = bg.copy()
    colours = []
    for q in quads:
        cname = main_colour if rng.random() < 0.6 else names[int(rng.integers(len(names)))]
        colours.append(cname)
        off = rng.uniform(0.002, 0.006) * S * np.array([rng.uniform(-0.5, 0.5), 1.0])
        soft_shadow(img, q, off, rng.uniform(0.003, 0.008) * S, rng.uniform(0.15, 0.3))
        render_quad(img, q, note_texture(NOTE_COLOURS[cname], rng))
    params.update({"hard_kind": "sticky_notes", "background": bg_name, "notes": len(quads),
                   "note_colours": colours, "size": min(params["note_sizes"])})
    tags = ["sticky_notes", "multi" if len(quads) > 1 else "single_note"]
    return img, quads, params, tags


def add_hard_occluder(img, quad, rng, W, H):
    """A hand (skin-coloured blob with a wrist/arm running out of the image) or an object (a photo
    patch) covering one corner of the quad, or up to 30 % of one side away from the corners."""
    S = min(W, H)
    L = np.hypot(*(np.roll(quad, -1, axis=0) - quad).T)  # L[k]: side k from corner k to k+1
    centroid = quad.mean(axis=0)
    p = {}
    if rng.random() < 0.5:
        k = int(rng.integers(4))
        r = rng.uniform(0.10, 0.18) * min(L[k], L[k - 1])
        b = (centroid - quad[k]) / np.linalg.norm(centroid - quad[k])
        centre = quad[k] + b * rng.uniform(-0.3, 0.4) * r  # the corner stays inside the blob
        p = {"occlusion_mode": "corner", "occluded_corner": ["top-left", "top-right", "bottom-right", "bottom-left"][k]}
    else:
        k = int(rng.integers(4))
        a, e = quad[k], quad[(k + 1) % 4] - quad[k]
        r = rng.uniform(0.10, 0.15) * L[k]  # chord along the side <= 2r <= 30 % of it
        t = rng.uniform(0.12 + r / L[k], 0.88 - r / L[k])
        n = np.array([-e[1], e[0]]) / L[k]  # inward normal
        centre = a + t * e + n * rng.uniform(-0.4, 0.4) * r
        p = {"occlusion_mode": "side", "occluded_side": ["top", "right", "bottom", "left"][k],
             "occluder_at": round(t, 3)}
    kk = int(rng.integers(3, 6))
    amps, phases = rng.uniform(0, 0.05, kk), rng.uniform(0, 2 * math.pi, kk)
    hand = bool(rng.random() < 0.5)
    out = centre - centroid
    out /= np.linalg.norm(out)
    arm_w = 0.7 * r  # half-width: a wrist/arm slightly narrower than the hand

    def fn(X, Y):
        dx, dy = X - centre[0], Y - centre[1]
        ang = np.arctan2(dy, dx)
        rad = r * (0.85 + sum(amps[i] * np.cos((i + 2) * ang + phases[i]) for i in range(kk)))
        inside = (dx * dx + dy * dy) <= rad ** 2
        if hand:  # the wrist and arm: a band from the blob's centre out of the image
            along = dx * out[0] + dy * out[1]
            across = -dx * out[1] + dy * out[0]
            inside |= (along >= 0) & (np.abs(across) <= arm_w)
        return inside

    if hand:
        m = supersampled_mask(W, H, fn, 4)
        m = ndimage.gaussian_filter(m, 0.8)  # a little out of focus
        yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
        la = rng.uniform(0, 2 * math.pi)  # light direction over the hand
        ramp = ((xx - centre[0]) * math.cos(la) + (yy - centre[1]) * math.sin(la)) / max(r, 1)
        skin = np.array(SKIN[int(rng.integers(len(SKIN)))], np.float32)
        layer = srgb_to_linear(np.clip(skin * (1 + 0.08 * np.clip(ramp, -2, 2))[..., None], 0, 1))
    else:
        box = (int(centre[0] - r - 2), int(centre[1] - r - 2), int(centre[0] + r + 2), int(centre[1] + r + 2))
        m = supersampled_mask(W, H, fn, 4, box)
        name = ["coffee", "chelsea", "astronaut"][int(rng.integers(3))]
        patch = crop_to_aspect(source(name), 1.0, rng, 0.3)
        d = int(2 * r + 8)
        patch = srgb_to_linear(resize_u8(patch, d, d).astype(np.float32) / 255.0)
        layer = np.zeros_like(img)
        px, py = box[0], box[1]
        ys, xs = slice(max(0, py), min(H, py + d)), slice(max(0, px), min(W, px + d))
        layer[ys, xs] = patch[ys.start - py:ys.stop - py, xs.start - px:xs.stop - px]
    img[...] = img * (1 - m[..., None]) + layer * m[..., None]
    p.update({"occluder": "hand" if hand else "object", "occluder_radius": round(r, 1)})
    return p


def add_glare(img, quad, rng, S):
    """1-2 specular highlights: bright soft-edged ellipses added in linear light (peaks 0.8-2.5,
    so the core saturates). The first is centred near one side and crosses it; on the wall
    outside the quad only a fraction (20-50 %) of it shows (a glossy print, a matte wall)."""
    H_, W_ = img.shape[:2]
    cov, (x0, y0) = coverage(quad, W_, H_)
    on_pic = np.zeros((H_, W_), np.float32)
    on_pic[y0:y0 + cov.shape[0], x0:x0 + cov.shape[1]] = cov
    spill = rng.uniform(0.2, 0.5)
    weight = on_pic + spill * (1 - on_pic)
    yy, xx = np.mgrid[0:H_, 0:W_].astype(np.float32)
    L = np.hypot(*(np.roll(quad, -1, axis=0) - quad).T)
    p = {"glare_spill": round(spill, 3), "glare": []}
    k = int(rng.integers(4))
    n_hl = 1 + int(rng.random() < 0.5)
    for h in range(n_hl):
        if h == 0:
            a, e = quad[k], quad[(k + 1) % 4] - quad[k]
            ax = rng.uniform(0.12, 0.3) * L[k]
            nrm = np.array([-e[1], e[0]]) / L[k]
            c = a + rng.uniform(0.2, 0.8) * e + nrm * rng.uniform(-0.3, 0.3) * ax
        else:
            ax = rng.uniform(0.06, 0.15) * L.mean()
            c = quad.mean(axis=0) + (quad[int(rng.integers(4))] - quad.mean(axis=0)) * rng.uniform(0, 0.6)
        bx = ax * rng.uniform(0.3, 0.7)
        ang = rng.uniform(0, math.pi)
        u = (xx - c[0]) * math.cos(ang) + (yy - c[1]) * math.sin(ang)
        v = -(xx - c[0]) * math.sin(ang) + (yy - c[1]) * math.cos(ang)
        rr = np.sqrt((u / ax) ** 2 + (v / bx) ** 2)
        soft = rng.uniform(0.12, 0.3)
        prof = 1 / (1 + np.exp((rr - 1) / soft))
        peak = rng.uniform(0.8, 2.5)
        tint = np.array([1.0, rng.uniform(0.95, 1.0), rng.uniform(0.85, 1.0)], np.float32)
        img += (peak * prof * weight)[..., None] * tint
        p["glare"].append({"centre": [round(float(c[0]), 1), round(float(c[1]), 1)], "axes": [round(ax, 1), round(bx, 1)],
                           "peak": round(peak, 3), "softness": round(soft, 3)})
    p["glare_side"] = ["top", "right", "bottom", "left"][k]
    return p


def motion_kernel(length, angle):
    """Anti-aliased line kernel of `length` px at `angle`, symmetric about its centre (points
    spread evenly over [-length/2, length/2] and splatted bilinearly), sum 1."""
    rad = int(math.ceil(length / 2)) + 1
    k = np.zeros((2 * rad + 1, 2 * rad + 1), np.float64)
    n = max(2, int(8 * length))
    for t in np.linspace(-length / 2, length / 2, n):
        x, y = rad + t * math.cos(angle), rad + t * math.sin(angle)
        ix, iy = int(math.floor(x)), int(math.floor(y))
        fx, fy = x - ix, y - iy
        k[iy, ix] += (1 - fx) * (1 - fy)
        k[iy, ix + 1] += fx * (1 - fy)
        k[iy + 1, ix] += (1 - fx) * fy
        k[iy + 1, ix + 1] += fx * fy
    k = 0.5 * (k + k[::-1, ::-1])  # exactly symmetric
    return k / k.sum()


def add_motion_blur(img, rng):
    from scipy.signal import fftconvolve
    length = rng.uniform(5.0, 25.0)
    angle = rng.uniform(0, math.pi)
    k = motion_kernel(length, angle)
    r = k.shape[0] // 2
    for c in range(img.shape[2]):
        padded = np.pad(img[..., c], r, mode="edge")
        img[..., c] = fftconvolve(padded, k, mode="valid").astype(img.dtype)
    return {"motion_length": round(length, 2), "motion_angle_deg": round(math.degrees(angle), 1)}


def phone_look(srgb, rng):
    """Phone-photo processing on the encoded image: strong signal-dependent noise, blotchy chroma
    noise, then sharpening (unsharp mask: halos at edges, amplified noise)."""
    H_, W_ = srgb.shape[:2]
    sigma = rng.uniform(0.02, 0.045)
    lum = srgb.mean(axis=-1, keepdims=True)
    noise = rng.normal(0, 1, srgb.shape).astype(np.float32) * sigma * np.sqrt(0.15 + lum)
    noise = ndimage.gaussian_filter(noise, (0.6, 0.6, 0))
    chroma_amp = rng.uniform(0.01, 0.03)
    chroma = ndimage.gaussian_filter(rng.normal(0, 1, srgb.shape).astype(np.float32), (2.0, 2.0, 0))
    chroma -= chroma.mean(axis=-1, keepdims=True)  # colour only, no brightness
    chroma *= chroma_amp / (chroma.std() + 1e-6)
    out = np.clip(srgb + noise + chroma, 0, 1)
    us_sigma, amount = rng.uniform(1.0, 2.0), rng.uniform(0.6, 1.5)
    out = np.clip(out + amount * (out - ndimage.gaussian_filter(out, (us_sigma, us_sigma, 0))), 0, 1)
    return out, {"phone_noise_sigma": round(sigma, 4), "phone_chroma": round(chroma_amp, 4),
                 "sharpen_sigma": round(us_sigma, 2), "sharpen_amount": round(amount, 2)}


def finish_kind(kind, img, rng, params, tags):
    """Common end of a kind scene: slight blur (sigma < 0.5), the kind's processing, to uint8."""
    if kind == "motion_blur":
        params.update(add_motion_blur(img, rng))
    srgb = blurred_srgb(img, rng.uniform(0.0, 0.5), params, tags)
    if kind == "phone":
        srgb, p = phone_look(srgb, rng)
        params.update(p)
    u8 = to_u8(srgb)
    if kind == "phone":
        q = int(rng.integers(30, 71))
        u8 = jpeg_roundtrip(u8, q)
        params["jpeg_roundtrip_quality"] = q
        tags.append("jpeg")
    return u8


def make_kind_positive(kind, i, W, H, seed):
    rng = np.random.default_rng([seed, i, 3, KIND_IDS[kind]])
    S = min(W, H)
    if kind == "sticky_notes":
        img, quads, params, tags = make_sticky_notes(rng, W, H)
        u8 = finish_kind(kind, img, rng, params, tags)
        if params["size"] < 0.1:
            tags.append("small")
        largest = max(quads, key=polygon_area)
        entry = {"kind": "positive", "quad": largest, "quads": quads, "inner_quad": None, "tags": tags,
                 "params": params,
                 "note": "several truths: quads lists every note, quad is the largest (score with all observations)"}
        return u8, entry
    tilt = (35.0, 60.0) if kind == "strong_perspective" else (0.0, 35.0)
    frame = "nested" if kind == "nested" else None
    img, quad, inner_quad, params, tags = kind_base(kind, rng, W, H, tilt, frame)
    if kind == "occlusion":
        params.update(add_hard_occluder(img, quad, rng, W, H))
    elif kind == "glare":
        params.update(add_glare(img, quad, rng, S))
    u8 = finish_kind(kind, img, rng, params, tags)
    tags.extend(view_tags(params, params["background"]))
    entry = {"kind": "positive", "quad": quad, "inner_quad": inner_quad, "tags": tags, "params": params}
    if params["frame"] == "nested":
        entry["note"] = ("nested frames: quad is the outer frame's outside edge; the inner frame "
                         "(around the photo) is a decoy")
    elif params["frame"] != "none":
        entry["note"] = "quad is the outside edge of the frame/matte; inner_quad is the photo"
    return u8, entry


def make_kind_negative(kind, j, W, H, seed):
    """A background of the kind's sort with the kind's degradation and no picture."""
    rng = np.random.default_rng([seed, j, 4, KIND_IDS[kind]])
    S = min(W, H)
    params = {"hard_kind": kind}
    if kind == "sticky_notes":
        names = list(NOTE_COLOURS)
        bg_name, img = note_background(W, H, rng, NOTE_COLOURS[names[int(rng.integers(len(names)))]])
    elif kind == "low_contrast":
        bg_name, img = grey_wall(W, H, rng)
        params.update(broad_shadow(img, rng, S))
    else:
        bg_name = NEGATIVE_BACKGROUNDS[j % len(NEGATIVE_BACKGROUNDS)]
        img = make_background(bg_name, W, H, rng)
    params["background"] = bg_name
    tags = ["negative", kind]
    if kind in ("occlusion", "glare"):
        fake, _ = make_quad(W, H, rng)  # only places the hand or highlight; nothing is drawn there
        params.update(add_hard_occluder(img, fake, rng, W, H) if kind == "occlusion" else add_glare(img, fake, rng, S))
    u8 = finish_kind(kind, img, rng, params, tags)
    return u8, {"kind": "negative", "quad": None, "inner_quad": None, "tags": tags, "params": params}


def rounded(q):
    return None if q is None else [[round(float(x), 3), round(float(y), 3)] for x, y in q]


def selftest():
    """A white quad on black: total intensity = area, intensity centroid = quad centroid."""
    rng = np.random.default_rng(1)
    W, H = 320, 240
    worst = 0.0
    for _ in range(20):
        q, _p = make_quad(W, H, rng)
        img = np.zeros((H, W, 1), np.float64)
        render_quad(img, q, np.ones((8, 8, 1), np.float32))
        m = img[..., 0]
        area = polygon_area(q)
        # polygon centroid
        x, y = q[:, 0], q[:, 1]
        cr = x * np.roll(y, -1) - np.roll(x, -1) * y
        cx = float(np.sum((x + np.roll(x, -1)) * cr) / (6 * area))
        cy = float(np.sum((y + np.roll(y, -1)) * cr) / (6 * area))
        yy, xx = np.mgrid[0:H, 0:W]
        s = m.sum()
        ex = abs(float((m * xx).sum() / s) - cx)
        ey = abs(float((m * yy).sum() / s) - cy)
        ea = abs(s - area) / area
        worst = max(worst, ex, ey)
        assert ea < 1e-6 and ex < 1e-3 and ey < 1e-3, (ea, ex, ey)
    print(f"selftest ok: area exact, centroid within {worst:.2e} px over 20 quads")
    # every hard kind renders, its truth inside the image; sticky notes' quads do not overlap
    for kind in KINDS:
        for i in range(2):
            u8, e = make_kind_positive(kind, i, W, H, 99)
            assert u8.shape == (H, W, 3) and u8.dtype == np.uint8, (kind, u8.shape)
            assert kind in e["tags"], (kind, e["tags"])
            quads = e.get("quads") or [e["quad"]]
            for q in quads:
                q = np.asarray(q)
                assert q.shape == (4, 2) and polygon_area(q) > 0, (kind, q)
                assert q.min() >= -0.5 and q[:, 0].max() <= W - 0.5 and q[:, 1].max() <= H - 0.5, (kind, q)
            if kind == "sticky_notes":
                assert 1 <= len(quads) <= 6 and e["quad"] is max(quads, key=polygon_area), kind
                for a in range(len(quads)):
                    for b in range(a):
                        assert quads_apart(quads[a], quads[b], 0.0), (kind, i, a, b)
        u8, e = make_kind_negative(kind, 0, W, H, 99)
        assert u8.shape == (H, W, 3) and e["quad"] is None and kind in e["tags"], kind
    print(f"selftest ok: {len(KINDS)} kinds render with their truth inside the image, notes apart")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="output folder")
    ap.add_argument("--count", type=int, default=40, help="positive scenes (default 40)")
    ap.add_argument("--negatives", type=int, default=10, help="scenes with no picture (default 10)")
    ap.add_argument("--size", default="1280x720", help="WxH (default 1280x720)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--png", type=int, default=1, help="how many of the clean positives to write as PNG (default 1)")
    ap.add_argument("--jpeg-quality", type=int, default=92, help="quality of the written .jpg files (default 92)")
    ap.add_argument("--max-mb", type=float, default=0.0,
                    help="if > 0, lower the JPEG quality (not below 75) until all images fit in this many MB")
    ap.add_argument("--kind", action="append", metavar="KIND",
                    help="render only this hard kind (repeatable or a comma list; 'all' = every kind: "
                         + ", ".join(KINDS) + "). --count and --negatives are then totals, dealt to the kinds "
                         "in turn. Default: the mixed scenes")
    ap.add_argument("--selftest", action="store_true", help="check the renderer's sub-pixel accuracy and exit")
    args = ap.parse_args(argv)
    try:
        kinds = parse_kinds(args.kind)
    except ValueError as e:
        ap.error(str(e))
    if args.selftest:
        selftest()
        return 0
    if not args.out:
        ap.error("--out is required")
    W, H = (int(v) for v in args.size.lower().split("x"))
    os.makedirs(args.out, exist_ok=True)
    # PNG for some of the "clean" positives (noise-free, on a plaster wall: keeps PNGs small)
    clean = [i for i in range(args.count) if PRIMARY[i % len(PRIMARY)] == "clean"]
    png_pos = set((clean[::2] + clean[1::2])[:max(0, args.png)])

    scenes = []  # (name, u8, entry)
    jobs = [("p", i) for i in range(args.count)] + [("n", j) for j in range(args.negatives)]
    for k, (kind, i) in enumerate(jobs):
        as_png = kind == "p" and i in png_pos and not kinds
        if kinds:  # scene i of this sort goes to kind i % n, as that kind's (i // n)-th
            hard = kinds[i % len(kinds)]
            make = make_kind_positive if kind == "p" else make_kind_negative
            u8, entry = make(hard, i // len(kinds), W, H, args.seed)
        elif kind == "p":
            u8, entry = make_positive(i, W, H, args.seed, as_png)
        else:
            u8, entry = make_negative(i, W, H, args.seed)
        if as_png:
            entry["tags"].append("png")
        scenes.append((f"{k:03d}." + ("png" if as_png else "jpg"), u8, entry))
        print(f"rendered {scenes[-1][0]}  {entry['kind']:8s} {' '.join(entry['tags'])}", file=sys.stderr)

    def encode(u8, name, quality):
        buf = io.BytesIO()
        if name.endswith(".png"):
            Image.fromarray(u8).save(buf, "PNG", optimize=True)
        else:
            Image.fromarray(u8).save(buf, "JPEG", quality=quality)
        return buf.getvalue()

    quality = args.jpeg_quality
    while True:
        blobs = [encode(u8, name, quality) for name, u8, _ in scenes]
        total = sum(len(b) for b in blobs)
        if args.max_mb <= 0 or total <= args.max_mb * 1e6 or quality <= 75:
            break
        print(f"{total / 1e6:.2f} MB at JPEG quality {quality} > {args.max_mb} MB: trying {quality - 1}", file=sys.stderr)
        quality -= 1

    manifest = []
    for (name, _u8, entry), blob in zip(scenes, blobs):
        with open(os.path.join(args.out, name), "wb") as f:
            f.write(blob)
        e = {"file": name, "kind": entry["kind"], "quad": rounded(entry["quad"])}
        if "quads" in entry:
            e["quads"] = [rounded(q) for q in entry["quads"]]
        e.update({"inner_quad": rounded(entry["inner_quad"]), "tags": entry["tags"], "width": W, "height": H})
        if "note" in entry:
            e["note"] = entry["note"]
        e["params"] = entry["params"]
        if name.endswith(".jpg"):
            e["params"]["file_jpeg_quality"] = quality
        manifest.append(e)
    with open(os.path.join(args.out, "scenes.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    print(f"{len(manifest)} scenes, {total / 1e6:.2f} MB of images (JPEG quality {quality}) in {args.out}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
