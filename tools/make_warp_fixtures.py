#!/usr/bin/env python3
"""Write homography and perspective-warp reference fixtures to
Tests/GPUStyleTests/Fixtures/warp/*.gpsw.

Independent of gpustyle's code: homographies come from the textbook DLT solved by SVD (the null
vector of the 8x9 system, with Hartley normalisation), warps from explicit numpy bilinear and
Keys-bicubic sampling in float64, cross-checked here against scipy.ndimage.map_coordinates
(order=1, mode="nearest"). Seeds are fixed, so re-running reproduces the files byte for byte.

Needs numpy and scipy. Run from anywhere:
    python3 tools/make_warp_fixtures.py [--out DIR]

Conventions (gpustyle's Point/Quad): pixel centres at integer coordinates, origin top-left, y
down; quads are top-left, top-right, bottom-right, bottom-left. Doubles are stored as two float32
tensors, NAME_hi = float32(x) and NAME_lo = float32(x - NAME_hi), so x = hi + lo to ~1e-14.

homography.gpsw
    src_hi/lo  [N, 4, 2]  source corners
    dst_hi/lo  [N, 4, 2]  destination corners
    h_hi/lo    [N, 3, 3]  H with H @ (src, 1) ~ (dst, 1), scaled so H[2, 2] = 1 (valid cases)
    valid      [N]        1 = a convex, non-degenerate pair that must be accepted
    kind       [N]        expected rejection: 0 none, 1 non-finite, 2 collinear (some corner's
                          |sin angle| < 1e-3, or two corners equal), 3 self-intersecting,
                          4 non-convex, 5 area < 1 px^2
    sv_ratio   [N]        smallest / largest singular value of the normalised 8x9 DLT matrix's
                          first 8 singular values (near 0 = degenerate; informative)
    probe_hi/lo [N, 16, 2], mapped_hi/lo [N, 16, 2]: points inside the source quad and H(points)

warp_<name>.gpsw
    source     [C, H, W]   C = 3, or 4 with alpha last   (absent for procedural sources)
    procedural [1]         1: source[c, y, x] = 0.5 + 0.45 sin(0.37 x + 0.23 y + c) evaluated in
                           float64 and rounded to float32, of size src_size
    src_size   [2]         (W, H) of the source
    m_hi/lo    [3, 3]      output -> source homography (output pixel (originX + i, originY + j))
    out_size   [2]         (width, height) of the output
    origin     [2]         (originX, originY)
    bilinear   [C, h, w]   clamp-to-edge bilinear samples
    bicubic    [C, h, w]   clamp-to-edge Keys (a = -0.5) bicubic samples, clamped to [0, 1]
"""
import argparse
import os
import sys

import numpy as np
from scipy import ndimage

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpsw  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "Tests", "GPUStyleTests", "Fixtures", "warp")


def split(x):
    x = np.asarray(x, np.float64)
    hi = x.astype(np.float32)
    lo = (x - hi.astype(np.float64)).astype(np.float32)
    return hi, lo


def hartley(p):
    c = p.mean(axis=0)
    d = np.sqrt(((p - c) ** 2).sum(axis=1)).mean()
    s = np.sqrt(2) / d
    t = np.array([[s, 0, -s * c[0]], [0, s, -s * c[1]], [0, 0, 1]])
    return (p - c) * s, t


def dlt_svd(src, dst):
    """H by SVD of the 8x9 DLT matrix with Hartley normalisation; and the singular-value ratio."""
    ns, ts = hartley(src)
    nd, td = hartley(dst)
    rows = []
    for (x, y), (u, v) in zip(ns, nd):
        rows.append([-x, -y, -1, 0, 0, 0, u * x, u * y, u])
        rows.append([0, 0, 0, -x, -y, -1, v * x, v * y, v])
    a = np.array(rows)
    _, s, vt = np.linalg.svd(a)
    hn = vt[-1].reshape(3, 3)
    h = np.linalg.inv(td) @ hn @ ts
    return h / h[2, 2], s[7] / s[0]


def expected_kind(p):
    """gpustyle's documented acceptance rules, written independently."""
    if not np.all(np.isfinite(p)):
        return 1
    for i in range(4):
        if np.array_equal(p[i], p[(i + 1) % 4]):
            return 2
    crosses = []
    for i in range(4):
        a = p[i] - p[(i - 1) % 4]
        b = p[(i + 1) % 4] - p[i]
        cross = a[0] * b[1] - a[1] * b[0]
        if abs(cross) / (np.linalg.norm(a) * np.linalg.norm(b)) < 1e-3:
            return 2
        crosses.append(cross)
    positive = sum(c > 0 for c in crosses)
    if positive == 2:
        return 3
    if positive in (1, 3):
        return 4
    area = 0.5 * abs(sum(p[i, 0] * p[(i + 1) % 4, 1] - p[(i + 1) % 4, 0] * p[i, 1] for i in range(4)))
    if area < 1:
        return 5
    return 0


def random_quad(rng, w, h, strength=0.25):
    """A plausible perspective view of a rectangle inside a w x h image, TL TR BR BL."""
    cx, cy = rng.uniform(0.35, 0.65) * w, rng.uniform(0.35, 0.65) * h
    hw, hh = rng.uniform(0.15, 0.3) * w, rng.uniform(0.15, 0.3) * h
    base = np.array([[-hw, -hh], [hw, -hh], [hw, hh], [-hw, hh]])
    jitter = rng.uniform(-strength, strength, size=(4, 2)) * np.array([hw, hh])
    return base + jitter + np.array([cx, cy])


def homography_cases():
    rng = np.random.default_rng(1234)
    cases = []  # (src, dst)
    rect = lambda w, h: np.array([[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]], np.float64)
    # Rectification-style pairs: output rectangle -> quad in a photo.
    for w, h in [(640, 480), (1920, 1080), (4032, 3024), (128, 96)]:
        for _ in range(4):
            q = random_quad(rng, w, h)
            cases.append((rect(int(rng.integers(64, 1200)), int(rng.integers(64, 900))), q))
    # General quad -> quad pairs, both orientations the same.
    for _ in range(6):
        cases.append((random_quad(rng, 800, 600, 0.4), random_quad(rng, 1000, 700, 0.4)))
    # Identity and a pure translation / scale.
    cases.append((rect(100, 50), rect(100, 50)))
    cases.append((rect(100, 50), rect(100, 50) * 3 + np.array([17.25, -4.5])))
    # Strong perspective (one side much shorter), still convex.
    cases.append((rect(300, 200), np.array([[100, 50], [200, 50], [400, 300], [0, 300]], np.float64)))
    # Near-degenerate but acceptable: a corner angle of ~0.3 degrees (sin ~ 5e-3).
    cases.append((rect(300, 200), np.array([[0, 0], [200, 0], [400, 1.0], [0, 300]], np.float64)))
    # Tiny but acceptable: a 2 x 1.5 px quad.
    cases.append((rect(10, 10), np.array([[5, 5], [7, 5], [7, 6.5], [5, 6.5]], np.float64)))
    # Rejected: three corners collinear within 1e-4 px, exactly collinear, a repeated corner.
    cases.append((rect(300, 200), np.array([[0, 0], [100, 0], [200, 1e-4], [0, 300]], np.float64)))
    cases.append((rect(300, 200), np.array([[0, 0], [100, 50], [200, 100], [0, 300]], np.float64)))
    cases.append((rect(300, 200), np.array([[0, 0], [100, 0], [100, 0], [0, 300]], np.float64)))
    # Rejected: self-intersecting (bottom corners swapped: a bow tie), non-convex (a dart).
    cases.append((rect(300, 200), np.array([[0, 0], [300, 0], [0, 200], [300, 200]], np.float64)))
    cases.append((rect(300, 200), np.array([[0, 0], [300, 0], [60, 50], [0, 200]], np.float64)))
    # Rejected: sub-pixel area (a 0.5 x 0.5 square), non-finite corner, degenerate source side.
    cases.append((rect(300, 200), np.array([[5, 5], [5.5, 5], [5.5, 5.5], [5, 5.5]], np.float64)))
    cases.append((rect(300, 200), np.array([[0, 0], [np.nan, 0], [300, 200], [0, 200]], np.float64)))
    cases.append((np.array([[0, 0], [100, 0], [100, 1e-5], [0, 1e-5]], np.float64), rect(300, 200)))

    src = np.stack([c[0] for c in cases])
    dst = np.stack([c[1] for c in cases])
    n = len(cases)
    hs = np.zeros((n, 3, 3))
    valid = np.zeros(n)
    kind = np.zeros(n)
    ratio = np.zeros(n)
    probes = np.zeros((n, 16, 2))
    mapped = np.zeros((n, 16, 2))
    for i, (s, d) in enumerate(cases):
        k = max(expected_kind(s), expected_kind(d), key=lambda k: k != 0)
        kind[i] = k
        valid[i] = 1 if k == 0 else 0
        if k == 0:
            h, ratio[i] = dlt_svd(s, d)
            hs[i] = h
            # Probe points: bilinear blends of the source corners (inside the convex quad).
            uv = rng.uniform(0, 1, size=(16, 2))
            u, v = uv[:, :1], uv[:, 1:]
            pts = (1 - v) * ((1 - u) * s[0] + u * s[1]) + v * ((1 - u) * s[3] + u * s[2])
            hom = np.c_[pts, np.ones(16)] @ h.T
            probes[i] = pts
            mapped[i] = hom[:, :2] / hom[:, 2:]
            corners = np.c_[s, np.ones(4)] @ h.T
            assert np.allclose(corners[:, :2] / corners[:, 2:], d, atol=1e-6 * (np.abs(d).max() + 1)), i
        elif np.all(np.isfinite(s)) and np.all(np.isfinite(d)):
            _, ratio[i] = dlt_svd(s, d)
    out = {}
    for name, x in [("src", src), ("dst", dst), ("h", hs), ("probe", probes), ("mapped", mapped)]:
        out[name + "_hi"], out[name + "_lo"] = split(np.nan_to_num(x, nan=np.nan))
    out["valid"] = valid
    out["kind"] = kind
    out["sv_ratio"] = ratio
    return out


# ---------------------------------------------------------------------------------------- warps

def procedural(w, h, channels=3):
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    return np.stack([0.5 + 0.45 * np.sin(0.37 * x + 0.23 * y + c) for c in range(channels)]).astype(np.float32)


def source_coords(m, width, height, origin):
    j, i = np.mgrid[0:height, 0:width].astype(np.float64)
    x = i + origin[0]
    y = j + origin[1]
    w = m[2, 0] * x + m[2, 1] * y + m[2, 2]
    return (m[0, 0] * x + m[0, 1] * y + m[0, 2]) / w, (m[1, 0] * x + m[1, 1] * y + m[1, 2]) / w


def bilinear(src, sx, sy):
    c, h, w = src.shape
    src = src.astype(np.float64)
    sx = np.clip(sx, 0, w - 1)
    sy = np.clip(sy, 0, h - 1)
    x0 = np.floor(sx).astype(int)
    y0 = np.floor(sy).astype(int)
    fx, fy = sx - x0, sy - y0
    x1 = np.minimum(x0 + 1, w - 1)
    y1 = np.minimum(y0 + 1, h - 1)
    out = (src[:, y0, x0] * (1 - fx) * (1 - fy) + src[:, y0, x1] * fx * (1 - fy)
           + src[:, y1, x0] * (1 - fx) * fy + src[:, y1, x1] * fx * fy)
    # Independent check: scipy's order-1 spline with nearest-edge extension is the same sampler.
    ref = np.stack([ndimage.map_coordinates(src[k], [np.clip(sy, 0, h - 1), np.clip(sx, 0, w - 1)],
                                            order=1, mode="nearest") for k in range(c)])
    assert np.abs(ref - out).max() < 1e-9, np.abs(ref - out).max()
    return out


def keys(t, a=-0.5):
    t = np.abs(t)
    return np.where(t <= 1, ((a + 2) * t - (a + 3)) * t * t + 1,
                    np.where(t < 2, ((a * t - 5 * a) * t + 8 * a) * t - 4 * a, 0.0))


def bicubic(src, sx, sy):
    c, h, w = src.shape
    src = src.astype(np.float64)
    # Far outside, every tap is the edge pixel; clipping only keeps floor() within int range.
    sx = np.clip(sx, -1e6, 1e6)
    sy = np.clip(sy, -1e6, 1e6)
    x0 = np.floor(sx).astype(int)
    y0 = np.floor(sy).astype(int)
    out = np.zeros((c,) + sx.shape)
    for dy in range(-1, 3):
        wy = keys(sy - (y0 + dy))
        yy = np.clip(y0 + dy, 0, h - 1)
        for dx in range(-1, 3):
            wx = keys(sx - (x0 + dx))
            xx = np.clip(x0 + dx, 0, w - 1)
            out += src[:, yy, xx] * (wx * wy)
    return np.clip(out, 0, 1)


def rect_to_quad(width, height, quad):
    rect = np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], np.float64)
    h, _ = dlt_svd(rect, np.asarray(quad, np.float64))
    return h


def warp_case(src, m, out_size, origin=(0, 0), procedural_size=None):
    sx, sy = source_coords(m, out_size[0], out_size[1], origin)
    t = {}
    if procedural_size is None:
        t["source"] = src
        t["procedural"] = np.array([0])
        t["src_size"] = np.array([src.shape[2], src.shape[1]])
    else:
        t["procedural"] = np.array([1])
        t["src_size"] = np.array(procedural_size)
    t["m_hi"], t["m_lo"] = split(m)
    t["out_size"] = np.array(out_size)
    t["origin"] = np.array(origin)
    t["bilinear"] = bilinear(src, sx, sy)
    t["bicubic"] = bicubic(src, sx, sy)
    return t


def warp_cases():
    rng = np.random.default_rng(99)
    cases = {}
    # Random values (the steepest gradients there are) in a small source, quad inside.
    noise = rng.uniform(0, 1, size=(3, 29, 37)).astype(np.float32)
    cases["noise_inside"] = warp_case(noise, rect_to_quad(23, 19, [[4.3, 3.1], [31.7, 5.2], [29.9, 25.6], [2.2, 22.8]]), (23, 19))
    # Quad partly outside the source: the clamped border.
    cases["noise_border"] = warp_case(noise, rect_to_quad(41, 33, [[-6.5, -4.0], [44.0, 2.5], [39.0, 35.0], [-3.0, 31.0]]), (41, 33))
    # Magnification (many output pixels per source pixel) with an origin offset, alpha plane.
    rgba = rng.uniform(0, 1, size=(4, 12, 16)).astype(np.float32)
    cases["rgba_origin"] = warp_case(rgba, rect_to_quad(120, 90, [[2.0, 1.5], [13.2, 2.4], [12.6, 10.1], [1.1, 9.7]]), (50, 40),
                                     origin=(37, 21))
    # Minification of a photo-sized procedural source far from the origin (Float precision).
    big = procedural(1920, 1080)
    cases["procedural_1080p"] = warp_case(big, rect_to_quad(1024, 768, [[1212.3, 301.7], [1890.4, 355.1], [1861.2, 1002.9], [1180.8, 1040.2]]),
                                          (97, 75), origin=(911, 677), procedural_size=(1920, 1080))
    # A general homography (not from a rectangle) with the horizon inside the output, odd width.
    m = np.array([[0.9, 0.08, 3.0], [-0.05, 1.1, 2.0], [0.0223, 0.0113, 1.0]])
    j, i = np.mgrid[-30:15, -40:21]
    w = m[2, 0] * i + m[2, 1] * j + m[2, 2]
    assert w.min() < 0 < w.max() and np.abs(w).min() > 1e-3, np.abs(w).min()
    cases["horizon"] = warp_case(noise, m, (61, 45), origin=(-40, -30))
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=DEFAULT_OUT)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    gpsw.write(os.path.join(args.out, "homography.gpsw"), homography_cases())
    for name, tensors in warp_cases().items():
        gpsw.write(os.path.join(args.out, f"warp_{name}.gpsw"), tensors)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
