#!/usr/bin/env python3
"""Data engine for the learned picture finder (issue 36): training scenes rendered directly at the
network's input size (320x240 = the 640x480 live frame halved; 256x192 and any other size work),
with every quad's ground truth, deterministic per (seed, index).

    python3 tools/finder_data.py shards --out /work/finder-data --seeds 5000-5099 [--per-seed 100]
                                        [--size 320x240] [--jobs 1]
    python3 tools/finder_data.py bench  [--count 60] [--size 320x240]        # scenes/s on one core
    python3 tools/finder_data.py show   --seed 6000 --count 16 --out sheet.png  # a contact sheet
    python3 tools/finder_data.py selftest

In Python: `render_scene(seed, index, W, H) -> (uint8 [H, W, 3], quads float32 [n, 4, 2], info)`
and `stream(seeds, W, H)` (an endless iterator of scenes, for training on the fly).

Shards: one `SEED.npz` per seed with `images` uint8 [N, H, W, 3], `quads` float32 [M, 4, 2]
(every quad of every scene, in scene order), `counts` int32 [N] (quads per scene; 0 for a
negative), `kinds` (str [N]: the scene's sort, see below), `size` [W, H]. Quads use
make_rectangle_scenes.py's conventions: pixel centres at integer coordinates, corners in the
picture's own order top-left, top-right, bottom-right, bottom-left (clockwise on screen), the
outer boundary of the flat object (a nested frame's inner frame and a framed photo's own edge
are not targets).

Seeds (issue 17's split, kept): training uses seeds 5000-5999 only; 6000-6099 are this engine's
development seeds (the training's evaluation and every choice); make_rectangle_scenes.py's
1001-1009, 2001, 2002 stay development sets and 3001-3009 stay held out: never rendered here for
training or choices. Scene `index` of `seed` draws only from default_rng([seed, index, 36]).

What a scene is (weights of the draw in `SORTS`)
------------------------------------------------
The scene logic is make_rectangle_scenes.py's (imported, not copied): the camera view of a
rectangle (`make_quad`, Vision's validity rules), the object texture (photo, dark frame, light
matte, nested frames), walls and photo backgrounds, the sticky notes on one plane, the hard
occluders (hand or object over a corner or a side), glare, soft and broad shadows, lighting, the
low-contrast grey poster. Sorts: "mixed" (one picture, random frame, the generator's mixed
degradations), the eight hard kinds (sticky_notes, low_contrast, nested, occlusion, glare,
motion_blur, strong_perspective, phone), "multi" (2-3 pictures or documents side by side, apart),
and "negative" (a background with the hard kinds' distractors: a hand, glare, a broad shadow,
round objects, no picture). On top of the generator's sources: more pictures (skimage's cat,
page and text (documents), clock, retina, colorwheel; OpenCV's baboon, orange, apple, messi5,
ela_original, HappyFish) and more backgrounds (graf1's graffiti wall, leuvenA's facade (clutter),
rubberwhale1, aero1, Blender_Suzanne1, basketball1, board, and a wooden desk). None of the photos
of tools/debian_photos.json (the real-photo evaluation) is used.

Camera at working scale: the generator's pixel-sized degradations were written for 1280x720
(the detector then works at half of it), here they are scaled to the output size (`px` = pixels
at 320 wide): Gaussian blur sigma 0-0.4 px (25 %: 0.4-1.2), motion blur 1.5-8 px (the
generator's 5-25 px at 1280 wide, /4 minus a little), signal-dependent noise sigma 0.005-0.03
with demosaic-like correlation, phone look (strong noise, blotchy chroma, unsharp-mask halos at
sigma 0.5-1 px, JPEG 30-70), phone-like tone curves (exposure, gamma, S-curve, white balance,
crushed blacks or lifted shadows), JPEG round trips at quality 30-95 through Pillow.

Speed (why it is fast): the generator renders 1280x720 at ~5 s/scene; called at 320x240 it is
4.1 scenes/s (profiled: 44 % in `coverage`'s per-pixel Python polygon clipping, 17 % in the
4x4-supersampled texture look-ups, 20 % in one-time scipy.signal import). Here `coverage` is the
closed-form area of a pixel square on the inner side of one edge (the CDF of a sum of two
uniforms; exact for every pixel near only one side; the few pixels near two sides, at corners,
still go through the generator's exact clipping; `selftest`: equal within 1e-10), textures
are sampled once per pixel instead of 4x4 (made at ~1.5x the quad's size, so a mild downscale;
the coverage, hence the edge's position, stays exact) with the four bilinear taps gathered for
all channels at once, occluder masks at 2x2 samples instead of 4x4 (a hand's full-image 4x4 mask
took 118 ms), and the plaster walls' blurred textures are cached. Measured by `bench` (one process, one thread, Intel Xeon (Sapphire/Emerald Rapids,
KVM), 2026-11-29, machine shared with a benchmark, nice 19): see MEASURED below.

MEASURED: 320x240: 21.1 scenes/s on one core (`bench --count 100`: 4.75 s; 16.6 with three
other CPU-bound jobs on the 2 cores); `shards` wrote 100 scenes in 4.1-4.6 s (22-24 scenes/s)
while it ran alone beside the benchmark. Per sort (ms a scene): negative 28, strong
perspective 35, mixed 39, glare 46, low contrast 48, multi 48, nested 50, sticky notes 56,
motion blur 63, phone 63, occlusion 66. (make_rectangle_scenes.py itself at 320x240: 4.1.)
"""
import argparse
import math
import os
import sys
import time

import numpy as np
from PIL import Image
from scipy import ndimage

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_rectangle_scenes as msc  # noqa: E402

# --- more sources (training only; the generator's own lists are not changed) --------------------

EXTRA_SOURCES = {
    "cat": (msc._sk("cat"), "skimage.data.cat: CC0"),
    "page": (msc._sk("page"), "skimage.data.page: a scanned page"),
    "text": (msc._sk("text"), "skimage.data.text: text on a sign"),
    "clock": (msc._sk("clock"), "skimage.data.clock"),
    "retina": (msc._sk("retina"), "skimage.data.retina: CC-BY"),
    "colorwheel": (msc._sk("colorwheel"), "skimage.data.colorwheel"),
    "baboon": (msc._cv("baboon.jpg"), "opencv samples/data/baboon.jpg"),
    "orange": (msc._cv("orange.jpg"), "opencv samples/data/orange.jpg"),
    "apple": (msc._cv("apple.jpg"), "opencv samples/data/apple.jpg"),
    "messi5": (msc._cv("messi5.jpg"), "opencv samples/data/messi5.jpg"),
    "ela_original": (msc._cv("ela_original.jpg"), "opencv samples/data/ela_original.jpg"),
    "happyfish": (msc._cv("HappyFish.jpg"), "opencv samples/data/HappyFish.jpg"),
    "graf1": (msc._cv("graf1.png"), "opencv samples/data/graf1.png"),
    "leuvenA": (msc._cv("leuvenA.jpg"), "opencv samples/data/leuvenA.jpg"),
    "rubberwhale1": (msc._cv("rubberwhale1.png"), "opencv samples/data/rubberwhale1.png"),
    "aero1": (msc._cv("aero1.jpg"), "opencv samples/data/aero1.jpg"),
    "suzanne": (msc._cv("Blender_Suzanne1.jpg"), "opencv samples/data/Blender_Suzanne1.jpg"),
    "basketball1": (msc._cv("basketball1.png"), "opencv samples/data/basketball1.png"),
    "board": (msc._cv("board.jpg"), "opencv samples/data/board.jpg"),
}
for _k, _v in EXTRA_SOURCES.items():
    msc.SOURCES.setdefault(_k, _v)

PICTURES = msc.PICTURES + ["cat", "page", "text", "clock", "retina", "colorwheel", "baboon", "orange",
                           "apple", "messi5", "ela_original", "happyfish"]
PHOTO_BACKGROUNDS = ([b for b in msc.BACKGROUNDS if b not in msc.WALLS]
                     + ["graf1", "leuvenA", "rubberwhale1", "aero1", "suzanne", "basketball1", "board", "moon_wall"])
WALLS = msc.WALLS
CLUTTER = {"building", "leuvenA", "board"}

SORTS = {  # sort -> weight of the draw
    "mixed": 0.22, "multi": 0.08, "negative": 0.12,
    "sticky_notes": 0.11, "low_contrast": 0.07, "nested": 0.06, "occlusion": 0.07, "glare": 0.06,
    "motion_blur": 0.06, "strong_perspective": 0.07, "phone": 0.08,
}
SORT_NAMES = list(SORTS)
SORT_P = np.array([SORTS[k] for k in SORT_NAMES]) / sum(SORTS.values())

TRAIN_SEEDS = (5000, 5999)
DEV_SEEDS = (6000, 6099)
FORBIDDEN = set(range(1001, 1010)) | {2001, 2002} | set(range(3001, 3010))


# --- fast exact coverage ----------------------------------------------------------------------

def _halfplane_area(dist, a, b):
    """Area of the unit pixel square on the inner side of a line at signed distance `dist` from
    its centre, the line's unit normal having |components| a >= b: the CDF at dist of
    a*U + b*V with U, V uniform on [-1/2, 1/2] (a trapezoid density)."""
    b = np.maximum(b, 1e-9)
    h = 0.5 * (a + b)
    lo = (dist + h) ** 2 / (2 * a * b)
    mid = (dist + 0.5 * a) / a
    hi = 1 - (h - dist) ** 2 / (2 * a * b)
    out = np.where(dist <= -0.5 * (a - b), lo, np.where(dist < 0.5 * (a - b), mid, hi))
    return np.clip(np.where(dist <= -h, 0.0, np.where(dist >= h, 1.0, out)), 0.0, 1.0)


_exact_coverage = msc.coverage


def fast_coverage(quad, W, H):
    """Drop-in for make_rectangle_scenes.coverage (same result within float rounding): exact area
    of each pixel square inside the convex quad, closed form where one side crosses the pixel,
    the generator's polygon clipping where two do."""
    quad = np.asarray(quad, np.float64)
    x0 = max(0, int(math.floor(quad[:, 0].min() + 0.5)))
    y0 = max(0, int(math.floor(quad[:, 1].min() + 0.5)))
    x1 = min(W - 1, int(math.floor(quad[:, 0].max() + 0.5)))
    y1 = min(H - 1, int(math.floor(quad[:, 1].max() + 0.5)))
    if x1 < x0 or y1 < y0:
        return np.zeros((0, 0)), (x0, y0)
    xs = np.arange(x0, x1 + 1, dtype=np.float64)[None, :]
    ys = np.arange(y0, y1 + 1, dtype=np.float64)[:, None]
    cov = np.ones((y1 - y0 + 1, x1 - x0 + 1))
    nnear = np.zeros(cov.shape, np.int8)
    for i in range(4):
        p, q = quad[i], quad[(i + 1) % 4]
        e = q - p
        n = np.array([-e[1], e[0]]) / math.hypot(*e)  # inward for clockwise (y-down) order
        dist = (xs - p[0]) * n[0] + (ys - p[1]) * n[1]
        a, b = max(abs(n[0]), abs(n[1])), min(abs(n[0]), abs(n[1]))
        cov *= _halfplane_area(dist, a, b)
        nnear += (np.abs(dist) < 0.7072).astype(np.int8)
    multi = np.nonzero(nnear >= 2)
    if len(multi[0]):
        poly = [tuple(p) for p in quad]
        for yy, xx in zip(*multi):
            px, py = x0 + xx, y0 + yy
            clipped = msc.clip_polygon_to_box(poly, px - 0.5, py - 0.5, px + 0.5, py + 0.5)
            cov[yy, xx] = abs(msc.polygon_area(np.array(clipped))) if len(clipped) >= 3 else 0.0
    return cov, (x0, y0)


# Why patched in this process only: every generator function that draws a quad, a shadow or a
# ring looks `coverage` up as a module global; the generator's own runs (and the committed
# fixtures) never import this file. `selftest` checks the two agree.
msc.coverage = fast_coverage

_render_quad_exact = msc.render_quad


def _render_quad_1x1(img, quad, tex, ss=4):
    """msc.render_quad with one bilinear texture sample per pixel instead of 4x4 (16x fewer
    look-ups; the texture is made at about 1.5x the quad's size, so this is a mild downscale)."""
    return _render_quad_exact(img, quad, tex, ss=1)


msc.render_quad = _render_quad_1x1


def _sample_texture(tex, Hinv, xs, ys):
    """msc.sample_texture (bilinear, clamped to the unit square, texel centres at integers) with
    the four taps gathered once for all channels, in float32."""
    th, tw = tex.shape[:2]
    xs, ys = xs.astype(np.float32), ys.astype(np.float32)
    Hinv = Hinv.astype(np.float32)
    den = Hinv[2, 0] * xs + Hinv[2, 1] * ys + Hinv[2, 2]
    u = (Hinv[0, 0] * xs + Hinv[0, 1] * ys + Hinv[0, 2]) / den
    v = (Hinv[1, 0] * xs + Hinv[1, 1] * ys + Hinv[1, 2]) / den
    tu = np.clip(np.clip(u, 0, 1) * tw - 0.5, 0, tw - 1)
    tv = np.clip(np.clip(v, 0, 1) * th - 0.5, 0, th - 1)
    iu = np.minimum(tu.astype(np.int32), tw - 2 if tw > 1 else 0)
    iv = np.minimum(tv.astype(np.int32), th - 2 if th > 1 else 0)
    fu = (tu - iu).astype(np.float32)[:, None]
    fv = (tv - iv).astype(np.float32)[:, None]
    flat = tex.reshape(th * tw, -1)
    i00 = iv * tw + iu
    r0 = flat[i00] * (1 - fu) + flat[i00 + 1] * fu
    r1 = flat[i00 + tw] * (1 - fu) + flat[i00 + tw + 1] * fu
    return r0 * (1 - fv) + r1 * fv


msc.sample_texture = _sample_texture

_supersampled_mask = msc.supersampled_mask


def _supersampled_mask_2x2(W, H, fn, ss=4, box=None):
    """Occluder masks at 2x2 samples a pixel: the hand's full-image 4x4 mask was 118 ms a scene."""
    return _supersampled_mask(W, H, fn, 2, box)


msc.supersampled_mask = _supersampled_mask_2x2

_plaster_cache = {}


def _make_background(name, W, H, rng, wall_colour=None):
    """msc.make_background, plus a moon-surface wall; the plaster's blurred texture is cached per
    (texture, sigma rounded to 0.25) (the blur of a 512x512 texture was 10 ms a scene)."""
    if name == "moon_wall":
        name = "plaster:moon"
        msc.SOURCES.setdefault("moon", (msc._sk("moon"), "skimage.data.moon"))
    if name.startswith("plaster:"):
        src = name.split(":")[1]
        sigma = round(rng.uniform(1.5, 3.0) * 4) / 4
        key = (src, sigma)
        if key not in _plaster_cache:
            tex = msc.source(src)[..., 0].astype(np.float32) / 255.0
            tex = ndimage.gaussian_filter(tex, sigma)
            _plaster_cache[key] = (tex - tex.mean()) / (tex.std() + 1e-6)
        tex = _plaster_cache[key]
        # a random crop of the texture: more walls than one resize of the whole
        th, tw = tex.shape
        cw = int(rng.uniform(0.5, 1.0) * tw)
        ch = max(8, min(th, int(cw * H / W)))
        ox, oy = int(rng.integers(0, tw - cw + 1)), int(rng.integers(0, th - ch + 1))
        tex = np.asarray(Image.fromarray(np.ascontiguousarray(tex[oy:oy + ch, ox:ox + cw])).resize((W, H), Image.Resampling.BILINEAR))
        if wall_colour is None:
            colour = np.array(msc.WALL_COLOURS[rng.integers(len(msc.WALL_COLOURS))], np.float32)
        else:
            colour = np.array(wall_colour, np.float32)
        colour = np.clip(colour + rng.normal(0, 0.03, 3), 0.05, 0.97)
        srgb = colour[None, None, :] * (1.0 + rng.uniform(0.015, 0.06) * tex[..., None])
        return msc.srgb_to_linear(np.clip(srgb, 0, 1))
    return _make_background_orig(name, W, H, rng, wall_colour)


_make_background_orig = msc.make_background
msc.make_background = _make_background


# --- scenes -----------------------------------------------------------------------------------

def _background(rng, W, H, pic=None):
    if rng.random() < 0.45:
        name = WALLS[int(rng.integers(len(WALLS)))] if rng.random() < 0.8 else "moon_wall"
    elif rng.random() < 0.12:
        return "desk_wood", msc.note_background(W, H, _force(rng, 2))[1]
    else:
        bgs = [b for b in PHOTO_BACKGROUNDS if b != pic]
        name = bgs[int(rng.integers(len(bgs)))]
    return name, msc.make_background(name, W, H, rng)


class _force:
    """An rng whose first integers() answers `value` (note_background's desk choice), then rng."""
    def __init__(self, rng, value):
        self.rng, self.value = rng, value

    def integers(self, *a, **k):
        if self.value is not None:
            v, self.value = self.value, None
            return v
        return self.rng.integers(*a, **k)

    def __getattr__(self, name):
        return getattr(self.rng, name)


def _picture(img, bg, quad, rng, S, frame=None, low=False, pic=None):
    """Render one flat object (photo, frame/matte) at quad into img (linear, in place)."""
    pic = pic or PICTURES[int(rng.integers(len(PICTURES)))]
    dims = msc.quad_dims(quad)
    long_px = int(min(800, max(128, 1.5 * max(dims))))
    d = quad
    # the object's aspect from the quad's own side lengths (the view was drawn for it)
    w_obj, h_obj = dims
    aspect_wh = max(0.3, min(3.0, w_obj / max(h_obj, 1e-6)))
    wall = msc.ring_luminance(bg, quad, max(1, int(0.03 * S)))
    frame = frame or str(rng.choice(["none", "dark", "light", "nested"], p=[0.4, 0.3, 0.2, 0.1]))
    tex, inner, info = msc.make_object_texture(pic, aspect_wh, long_px, frame, rng, wall if low else None)
    if low:
        sat = rng.uniform(0.0, 0.35)
        lum = msc.luminance(tex)[..., None]
        tex = np.clip(lum + sat * (tex - lum), 0, 1).astype(np.float32)
    elif frame != "none":
        msc.keep_frame_visible(img, tex, wall, {})
    if frame in ("dark", "nested") and rng.random() < 0.6:
        msc.add_shadow(img, d, rng, S)
    msc.render_quad(img, d, tex)
    return frame


def _kind_scene(kind, rng, W, H):
    S = min(W, H)
    if kind == "sticky_notes":
        img, quads, _p, _t = msc.make_sticky_notes(rng, W, H)
        return img, quads
    tilt = (35.0, 60.0) if kind == "strong_perspective" else (0.0, 35.0)
    frame = "nested" if kind == "nested" else None
    img, quad, _inner, _p, _t = msc.kind_base(kind, rng, W, H, tilt, frame)
    if kind == "occlusion":
        msc.add_hard_occluder(img, quad, rng, W, H)
    elif kind == "glare":
        msc.add_glare(img, quad, rng, S)
    return img, [quad]


def _mixed_scene(rng, W, H):
    S = min(W, H)
    pic = PICTURES[int(rng.integers(len(PICTURES)))]
    low = rng.random() < 0.1
    quad, _p = msc.make_quad(W, H, rng)
    if low:
        _n, bg = msc.grey_wall(W, H, rng)
    else:
        _n, bg = _background(rng, W, H, pic)
    img = bg.copy()
    _picture(img, bg, quad, rng, S, "none" if low else None, low, pic)
    if rng.random() < 0.15:
        msc.add_occluder(img, quad, rng, W, H)
    return img, [quad]


def _multi_scene(rng, W, H):
    """2-3 pictures or documents side by side on one wall, >= 2 % of the shorter side apart."""
    S = min(W, H)
    _n, bg = _background(rng, W, H)
    img = bg.copy()
    want = 2 + int(rng.random() < 0.4)
    quads = []
    for _try in range(40):
        if len(quads) == want:
            break
        q, _p = _small_quad(W, H, rng)
        if all(msc.quads_apart(q, o, 0.02 * S) for o in quads):
            quads.append(q)
    for q in quads:
        _picture(img, bg, q, rng, S)
    return img, quads


def _small_quad(W, H, rng):
    """make_quad's view with the picture's shorter side 12-40 % of the image's (several fit)."""
    S = min(W, H)
    while True:
        q, p = msc._draw_quad(W, H, rng, (0.0, 35.0))
        c = q.mean(axis=0)
        s = rng.uniform(0.12, 0.40) / max(1e-6, p["size"])
        q = c + (q - c) * s
        # move to a random place inside the 3 % margin
        lo, hi = q.min(axis=0), q.max(axis=0)
        m = 0.03 * S
        if hi[0] - lo[0] > W - 2 * m - 2 or hi[1] - lo[1] > H - 2 * m - 2:
            continue
        q += np.array([rng.uniform(m - 0.5 - lo[0], W - 0.5 - m - hi[0]), rng.uniform(m - 0.5 - lo[1], H - 0.5 - m - hi[1])])
        sides = np.hypot(*(np.roll(q, -1, axis=0) - q).T)
        dims = sorted(msc.quad_dims(q))
        if sides.min() >= 0.08 * S and dims[0] / dims[1] >= 0.52 and msc.corner_deviation_deg(q) <= 28:
            return q, p


def _negative_scene(rng, W, H):
    """No picture: a background with the distractors the hard kinds add (hand or object, glare,
    a broad shadow) and round things (discs, ellipses: plates, coins, clocks)."""
    S = min(W, H)
    r = rng.random()
    if r < 0.2:
        names = list(msc.NOTE_COLOURS)
        _n, img = msc.note_background(W, H, rng, msc.NOTE_COLOURS[names[int(rng.integers(len(names)))]])
    elif r < 0.35:
        _n, img = msc.grey_wall(W, H, rng)
    else:
        _n, img = _background(rng, W, H)
    img = img.copy()
    fake, _p = msc.make_quad(W, H, rng)  # only places a distractor; nothing is drawn there
    u = rng.random()
    if u < 0.25:
        msc.add_hard_occluder(img, fake, rng, W, H)
    elif u < 0.45:
        msc.add_glare(img, fake, rng, S)
    elif u < 0.6:
        msc.broad_shadow(img, rng, S)
    if rng.random() < 0.5:
        _discs(img, rng, W, H)
    return img, []


def _discs(img, rng, W, H):
    """1-4 flat ellipses (plates, coins, clock faces) of a plain colour or a photo."""
    S = min(W, H)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    for _ in range(int(rng.integers(1, 5))):
        cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        a = rng.uniform(0.05, 0.3) * S
        b = a * rng.uniform(0.5, 1.0)
        t = rng.uniform(0, math.pi)
        u = (xx - cx) * math.cos(t) + (yy - cy) * math.sin(t)
        v = -(xx - cx) * math.sin(t) + (yy - cy) * math.cos(t)
        m = np.clip(1 - (np.sqrt((u / a) ** 2 + (v / b) ** 2) - 1) * a, 0, 1)[..., None]
        col = msc.srgb_to_linear(np.clip(rng.uniform(0.05, 0.95, 3), 0, 1)).astype(np.float32)
        img[...] = img * (1 - m) + col * m


# --- camera ------------------------------------------------------------------------------------

def _tone(srgb, rng):
    """A phone-like tone curve: exposure, gamma, an S-curve or lifted shadows, white balance."""
    x = srgb * rng.uniform(0.75, 1.25)
    x = np.clip(x, 0, 1) ** rng.uniform(0.8, 1.25)
    s = rng.uniform(-0.3, 0.6)  # > 0: S-curve (contrast), < 0: flattened
    x = x + s * x * (1 - x) * (2 * x - 1) * 2
    if rng.random() < 0.3:  # lifted blacks or crushed blacks
        x = rng.uniform(-0.05, 0.06) + x * (1 - rng.uniform(-0.05, 0.06))
    wb = 1 + rng.normal(0, 0.04, 3)
    return np.clip(x * wb.astype(np.float32), 0, 1).astype(np.float32)


def _noise(srgb, rng, sigma, corr):
    lum = srgb.mean(axis=-1, keepdims=True)
    n = rng.standard_normal(srgb.shape, dtype=np.float32) * np.float32(sigma) * np.sqrt(0.2 + lum)
    if corr > 0:
        n = ndimage.gaussian_filter(n, (corr, corr, 0))
        n *= 1.5
    return srgb + n


def _phone(srgb, rng, k):
    """msc.phone_look's steps with its pixel sizes at working scale (k = W / 320)."""
    out = _noise(srgb, rng, rng.uniform(0.015, 0.035), 0.4 * k)
    chroma = ndimage.gaussian_filter(rng.standard_normal(srgb.shape, dtype=np.float32), (0.7 * k, 0.7 * k, 0))
    chroma -= chroma.mean(axis=-1, keepdims=True)
    chroma *= rng.uniform(0.01, 0.03) / (chroma.std() + 1e-6)
    out = np.clip(out + chroma, 0, 1)
    s, amount = rng.uniform(0.5, 1.0) * k, rng.uniform(0.4, 1.2)
    return np.clip(out + amount * (out - ndimage.gaussian_filter(out, (s, s, 0))), 0, 1)


def _motion_blur(img, rng, k):
    length = rng.uniform(1.5, 8.0) * k
    kern = msc.motion_kernel(length, rng.uniform(0, math.pi)).astype(np.float32)
    for c in range(3):
        img[..., c] = ndimage.convolve(img[..., c], kern, mode="nearest")


def camera(img, rng, sort, W):
    """Linear-light scene -> uint8 sRGB through the working-scale camera."""
    k = W / 320.0
    if rng.random() < 0.3:
        msc.add_lighting(img, rng, W, img.shape[0])
    if sort == "motion_blur" or rng.random() < 0.05:
        _motion_blur(img, rng, k)
    sigma = (rng.uniform(0.4, 1.2) if rng.random() < 0.25 else rng.uniform(0.0, 0.4)) * k
    if sigma > 0.05:
        img = ndimage.gaussian_filter(img, (sigma, sigma, 0))
    srgb = msc.linear_to_srgb(img)
    if rng.random() < 0.6:
        srgb = _tone(srgb, rng)
    if sort == "phone":
        srgb = _phone(srgb, rng, k)
    elif rng.random() < 0.35:
        srgb = np.clip(_noise(srgb, rng, rng.uniform(0.005, 0.03), 0.5 * k), 0, 1)
    u8 = msc.to_u8(srgb)
    if sort == "phone":
        u8 = msc.jpeg_roundtrip(u8, int(rng.integers(30, 71)))
    elif rng.random() < 0.4:
        u8 = msc.jpeg_roundtrip(u8, int(rng.integers(30, 96)))
    return u8


def render_scene(seed, index, W=320, H=240, sort=None):
    """Scene `index` of `seed` at W x H: (uint8 [H, W, 3], quads float32 [n, 4, 2], info).
    sort: force one of SORTS (default: drawn by SORTS's weights)."""
    if seed in FORBIDDEN:
        raise ValueError(f"seed {seed} is a development / held-out seed of make_rectangle_scenes.py")
    rng = np.random.default_rng([seed, index, 36])
    drawn = SORT_NAMES[int(rng.choice(len(SORT_NAMES), p=SORT_P))]
    sort = sort or drawn
    if sort == "mixed":
        img, quads = _mixed_scene(rng, W, H)
    elif sort == "multi":
        img, quads = _multi_scene(rng, W, H)
    elif sort == "negative":
        img, quads = _negative_scene(rng, W, H)
    else:
        img, quads = _kind_scene(sort, rng, W, H)
    u8 = camera(img, rng, sort, W)
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    return u8, q, {"sort": sort}


def stream(seeds, W=320, H=240, start=0):
    """Endless scenes: index start, start+1, ... of each seed in turn."""
    seeds = list(seeds)
    i = start
    while True:
        for s in seeds:
            yield render_scene(s, i, W, H)
        i += 1


# --- commands ----------------------------------------------------------------------------------

def parse_seeds(text):
    out = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            out.extend(range(int(a), int(b) + 1))
        elif part:
            out.append(int(part))
    return out


def write_shard(path, seed, count, W, H):
    images = np.zeros((count, H, W, 3), np.uint8)
    quads, counts, kinds = [], [], []
    for i in range(count):
        u8, q, info = render_scene(seed, i, W, H)
        images[i] = u8
        quads.append(q)
        counts.append(len(q))
        kinds.append(info["sort"])
    tmp = path + ".tmp.npz"
    np.savez(tmp, images=images, quads=np.concatenate(quads).astype(np.float32) if quads else np.zeros((0, 4, 2), np.float32),
             counts=np.array(counts, np.int32), kinds=np.array(kinds), size=np.array([W, H], np.int32),
             seed=np.int64(seed))
    os.replace(tmp, path)


def _shard_job(a):
    out, seed, count, W, H = a
    path = os.path.join(out, f"{seed}.npz")
    if os.path.exists(path):
        return seed, 0.0
    t = time.time()
    write_shard(path, seed, count, W, H)
    return seed, time.time() - t


def load_shards(paths):
    """Concatenated shards: (images [N,H,W,3] uint8, list of quads arrays per scene, kinds)."""
    ims, qs, ks = [], [], []
    for p in paths:
        z = np.load(p)
        ims.append(z["images"])
        q, off = z["quads"], 0
        for c in z["counts"]:
            qs.append(q[off:off + c])
            off += c
        ks.extend(str(k) for k in z["kinds"])
    return np.concatenate(ims), qs, ks


def selftest():
    rng = np.random.default_rng(3)
    worst = 0.0
    for _ in range(30):
        q, _p = msc.make_quad(320, 240, rng)
        a, o1 = fast_coverage(q, 320, 240)
        b, o2 = _exact_coverage(q, 320, 240)
        assert o1 == o2 and a.shape == b.shape
        worst = max(worst, float(np.abs(a - b).max()))
    assert worst < 1e-6, worst
    print(f"selftest ok: fast coverage == the generator's exact coverage (max diff {worst:.1e}) on 30 quads")
    for sort in SORT_NAMES:
        u8, q, info = render_scene(5000, 1, 320, 240, sort)
        assert u8.shape == (240, 320, 3) and u8.dtype == np.uint8
        assert (len(q) == 0) == (sort == "negative"), (sort, len(q))
        for quad in q:
            assert msc.polygon_area(quad.astype(np.float64)) > 0
            assert quad.min() >= -0.5 and quad[:, 0].max() <= 319.5 and quad[:, 1].max() <= 239.5
    a = render_scene(5000, 7)
    b = render_scene(5000, 7)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    print(f"selftest ok: {len(SORT_NAMES)} sorts render with truth inside the image; deterministic per (seed, index)")


def bench(count, W, H):
    render_scene(5000, 0, W, H)  # sources, imports
    for s in SORT_NAMES:
        render_scene(5000, 0, W, H, s)
    t = time.time()
    per = {}
    for i in range(count):
        t0 = time.time()
        _u8, _q, info = render_scene(5001, i, W, H)
        per.setdefault(info["sort"], []).append(time.time() - t0)
    dt = time.time() - t
    print(f"{count} scenes at {W}x{H} in {dt:.2f} s: {count / dt:.1f} scenes/s on one core")
    for k, v in sorted(per.items()):
        print(f"  {k:20s} {len(v):3d}  {1000 * np.mean(v):6.1f} ms")


def show(seed, count, out, W, H):
    cols = 4
    rows = (count + cols - 1) // cols
    sheet = Image.new("RGB", (cols * W, rows * H))
    from PIL import ImageDraw
    for i in range(count):
        u8, q, info = render_scene(seed, i, W, H)
        im = Image.fromarray(u8)
        d = ImageDraw.Draw(im)
        for quad in q:
            pts = [(float(x), float(y)) for x, y in quad]
            d.line(pts + [pts[0]], fill=(255, 0, 0), width=1)
            d.ellipse([pts[0][0] - 2, pts[0][1] - 2, pts[0][0] + 2, pts[0][1] + 2], outline=(0, 255, 0))
        d.text((3, 3), info["sort"], fill=(255, 255, 0))
        sheet.paste(im, ((i % cols) * W, (i // cols) * H))
    sheet.save(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("shards")
    p.add_argument("--out", required=True)
    p.add_argument("--seeds", required=True, help="e.g. 5000-5099 (training: 5000-5999 only)")
    p.add_argument("--per-seed", type=int, default=100)
    p.add_argument("--size", default="320x240")
    p.add_argument("--jobs", type=int, default=1)
    p = sub.add_parser("bench")
    p.add_argument("--count", type=int, default=60)
    p.add_argument("--size", default="320x240")
    p = sub.add_parser("show")
    p.add_argument("--seed", type=int, default=6000)
    p.add_argument("--count", type=int, default=16)
    p.add_argument("--size", default="320x240")
    p.add_argument("--out", required=True)
    sub.add_parser("selftest")
    args = ap.parse_args(argv)
    if args.cmd == "selftest":
        selftest()
        return 0
    W, H = (int(v) for v in args.size.lower().split("x"))
    if args.cmd == "bench":
        bench(args.count, W, H)
    elif args.cmd == "show":
        show(args.seed, args.count, args.out, W, H)
    elif args.cmd == "shards":
        seeds = parse_seeds(args.seeds)
        bad = [s for s in seeds if s in FORBIDDEN]
        if bad:
            ap.error(f"seeds {bad} are make_rectangle_scenes.py's development / held-out seeds")
        os.makedirs(args.out, exist_ok=True)
        jobs = [(args.out, s, args.per_seed, W, H) for s in seeds]
        t = time.time()
        if args.jobs > 1:
            import multiprocessing as mp
            with mp.Pool(args.jobs) as pool:
                for seed, dt in pool.imap_unordered(_shard_job, jobs):
                    print(f"shard {seed}: {dt:.1f} s", file=sys.stderr, flush=True)
        else:
            for j in jobs:
                seed, dt = _shard_job(j)
                print(f"shard {seed}: {dt:.1f} s", file=sys.stderr, flush=True)
        print(f"{len(seeds)} shards x {args.per_seed} scenes in {time.time() - t:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
