#!/usr/bin/env python3
"""Feasibility trial (issue 17, item 1, "learned" option): a tiny CNN that maps the rectangle
detector's working image (640x360 RGB, the 1280x720 photo box-downscaled by 2) to an "outline"
map: 1 on pixels within 1 px of a true picture's side, 0 elsewhere (texture, the picture's own
content, a nested frame's inner decoy).

A measured feasibility trial, not a product: the detector never runs the net. The trial's
detector hook is not in main (commit a6c4e73, "experiment, not for main", on branch `learn`): it
read IMAGE.outline.png written by `sidecars` below when present, and let only the edge pixels
where the map's 3x3 maximum is at least a threshold vote in the Hough transforms (every later
stage kept the ungated edges). Results: at the end of this docstring.

Subcommands
-----------
    python3 tools/train_outline_net.py prep  --out CACHE.npz DIR [DIR ...]   # scenes -> arrays
    python3 tools/train_outline_net.py train --data CACHE.npz --out NET.pt [--minutes 30]
    python3 tools/train_outline_net.py eval  --net NET.pt DIR [DIR ...]      # pixel-level metrics
    python3 tools/train_outline_net.py sidecars --net NET.pt --src DIR --dst DIR
        # copies DIR's scenes to DST and writes IMAGE.outline.png (working size, 0-255) beside
        # each; branch `learn`'s experimental detector hook reads them (GPUSTYLE_OUTLINE_*).
    python3 tools/train_outline_net.py flops                                 # model size / FLOPs

Data recipe (training seeds 5000-5999 only; 1001-1009, 2001, 2002 are development sets and
3001-3009 held out, never used here):
    for i in $(seq 0 15); do
      python3 tools/make_rectangle_scenes.py --out D/k$((5000+i)) --kind all --count 24 --negatives 2 --seed $((5000+i))
      python3 tools/make_rectangle_scenes.py --out D/m$((5100+i)) --count 16 --negatives 2 --seed $((5100+i))
    done
    python3 tools/train_outline_net.py prep --out D/cache.npz D/k5* D/m5*
(704 scenes, 1280x720, about 16 minutes on the shared 2 cores.)

Targets: every quad of a scene ("quads" when present, else "quad"; never "inner_quad") is
converted to working coordinates (p_w = (p + 0.5) / 2 - 0.5, pixel centres at integers) and a
pixel is positive when its centre is within 1.0 px of one of the quad's four sides (segments).

Model (`build_model`): 8,697 parameters (tools/outline_net.pt, 40 KB), 0.483 GFLOP at 640x360
(convolutions' multiply-adds x 2): conv3x3 3->8 at full size; 8->16 stride 2; 16->16 stride 2;
16->16 at dilations 2 and 4 (quarter size); 1x1 convs bring the half- and quarter-size features
to 8 channels, bilinear upsampling adds them to the full-size ones; conv3x3 8->1, sigmoid. At the
project's 100-150 GFLOP/s for 3x3 convs that is about 3.2-4.8 ms plus upsampling and memory
traffic: the 5 ms budget is plausible but tight (torch itself takes 130-300 ms for it on this
shared machine; its thin-channel convs say nothing about the project's conv path).

Training (`train`): random 256x320 crops of the working-size images, flips, photometric jitter
(gain 0.6-1.3, per-channel 0.9-1.1, offset +-0.1), batch 12; loss BCE (positives x5, pixels 1-2.5
px from a side at weight 0.3) + soft Dice; Adam 3e-3, cosine to 1e-4; seed 0.
    python3 tools/train_outline_net.py train --data D/cache.npz --out tools/outline_net.pt --minutes 32 --threads 2
2098 steps in 32 minutes on 2 threads (the machine shared with another job).

Results (2026-11-27; development sets = /tmp/hard/K seeds 1001-1009 and the mixed seeds 2001,
2002, docs/speed.md's commands; 280 scenes, 1220 true sides)
-------
Pixel level (`eval`; positives within 1 px of a true side, negatives > 3 px from every side):
    learned map:                   AP 0.516, recall at precision 0.3 / 0.5 / 0.7 = 0.705 / 0.577 / 0.403
    gradient magnitude (DetectEdges in numpy): AP 0.115,                    0.007 / 0.000 / 0.000
  per kind, learned vs gradient AP: sticky notes 0.82 / 0.93 (little texture), low contrast 0.69 /
  0.09, nested 0.57 / 0.13, occlusion 0.35 / 0.15, glare 0.40 / 0.14, motion blur 0.12 / 0.08,
  strong perspective 0.51 / 0.12, phone 0.49 / 0.16, all kinds 0.47 / 0.15, mixed 2001 0.56 / 0.10.
Per side (share of a side's length with a voting pixel within 1.5 px across it):
  * the detector's voting edges (NMS, >= strongThreshold): 0.875 (92 % of sides >= 50 % covered),
    with 1.50 M voting pixels > 3 px from any side ("texture");
  * maxima of the learned map (NMS along the image gradient) >= 0.02: 0.781 (83 %) with only
    0.33 M texture pixels (the map never reaches the detector's texture count);
  * the hook's gate (voting edges kept where the map's 3x3 maximum >= t), against the detector's
    own edges with the strong threshold raised until they keep the same texture:
        t     texture kept   side share (>= 50 % covered)   gradient alone, same texture
        0.05     15.4 %         0.749 (0.794)                  0.393 (0.386)   (threshold x 3.3)
        0.10     12.0 %         0.725 (0.766)                  0.281 (0.273)
        0.30      7.6 %         0.670 (0.712)                  0.187 (0.185)   (threshold x 4.9)
        0.50      5.6 %         0.631 (0.665)                  0.142 (0.140)
    So the map does keep true sides while suppressing texture (at 7.6 % of the texture votes it
    keeps 3.6x the side length that a higher gradient threshold keeps), but it also loses about
    a quarter of the side length: motion-blurred sides worst (0.544 -> 0.252 at t 0.3), glare
    0.81 -> 0.54, occlusion 0.83 -> 0.60.
Detector level (`tools/evaluate_rectangles.py`, scenes copied with sidecars; "main" = main's
release build /tmp/gs-main, "off" = this branch with GPUSTYLE_OUTLINE=0, "hough t" = only edge
pixels where the map's 3x3 max >= t vote in the Hough transforms, everything else unchanged):
    development (305 pictures / 60 negatives):  main 244 (80.0 %), off 245, hough 0.1: 267 (87.5 %),
      hough 0.3: 264 (86.6 %), hough 0.5: 265 (86.9 %); false positives 1 -> 0; extra observations
      on the note scenes (--maximum-observations 0) 20 -> 77 / 66 / 57; corner error unchanged
      (motion blur 4.55 -> 4.14 px). GPUSTYLE_OUTLINE_MODE=edges (the gate applied to every
      stage's edges): 164 (53.8 %): the later stages need the ungated edges.
      hough 0.3 per set (main -> hook): sticky notes 86 -> 94 of 95, low contrast 8 -> 9, nested
      9 -> 10, occlusion 9 -> 9, glare 8 -> 9, motion blur 4 -> 5, strong perspective 9 -> 10,
      phone 11 -> 11, all kinds 27 -> 37 of 46, mixed 2001 37 -> 35, mixed 2002 36 -> 35.
    held out, once, hough 0.3 (seeds 3001-3009, 215 pictures / 42 negatives): main 175 (81.4 %),
      off 176, hook 186 (86.5 %); false positives 0 -> 0; extra observations 12 -> 43. All of the
      gain is the sticky notes (78 -> 89 of 91, mostly on wooden desks); the single-picture sets
      97 -> 97 of 124 (low contrast 5 -> 6, motion blur 8 -> 7, mixed 30 -> 30, others equal).
"""
import argparse
import json
import math
import os
import shutil
import sys
import time

import numpy as np
from PIL import Image

SCALE = 2  # 1280x720 -> 640x360, DetectEdges.workingPixels
WEIGHTS = np.array([[0.299, 0.587, 0.114], [0.5, -0.5, 0.0], [0.0, 0.5, -0.5]], np.float32)


# ----------------------------------------------------------------------------- data

def load_working(path):
    """The photo box-downscaled by SCALE (as Image.boxFactor / gs_edge_downscale_rows), HxWx3 in 0-1."""
    a = np.asarray(Image.open(path).convert("RGB"), np.float32) / 255
    h, w = a.shape[0] // SCALE, a.shape[1] // SCALE
    a = a[:h * SCALE, :w * SCALE].reshape(h, SCALE, w, SCALE, 3).mean(axis=(1, 3))
    return a


def scene_quads(entry):
    if entry.get("kind") != "positive":
        return []
    if entry.get("quads"):
        return entry["quads"]
    return [entry["quad"]] if entry.get("quad") else []


def side_distance(quads, h, w):
    """Distance (working px) from each pixel centre to the nearest side of any quad."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    d = np.full((h, w), 1e9, np.float32)
    for q in quads:
        pts = [((x + 0.5) / SCALE - 0.5, (y + 0.5) / SCALE - 0.5) for x, y in q]
        for k in range(4):
            (x0, y0), (x1, y1) = pts[k], pts[(k + 1) % 4]
            dx, dy = x1 - x0, y1 - y0
            L2 = max(dx * dx + dy * dy, 1e-9)
            t = np.clip(((xs - x0) * dx + (ys - y0) * dy) / L2, 0, 1)
            d = np.minimum(d, np.hypot(xs - (x0 + t * dx), ys - (y0 + t * dy)))
    return d


def working_sides(quads):
    out = []
    for q in quads:
        pts = [((x + 0.5) / SCALE - 0.5, (y + 0.5) / SCALE - 0.5) for x, y in q]
        out += [(pts[k], pts[(k + 1) % 4]) for k in range(4)]
    return out


def scenes(dirs):
    for d in dirs:
        manifest = json.load(open(os.path.join(d, "scenes.json")))
        for e in manifest:
            yield d, e


def cmd_prep(args):
    imgs, dists = [], []
    for d, e in scenes(args.dirs):
        a = load_working(os.path.join(d, e["file"]))
        dist = side_distance(scene_quads(e), a.shape[0], a.shape[1])
        imgs.append((a * 255 + 0.5).astype(np.uint8))
        dists.append(np.minimum(dist * 10, 255).astype(np.uint8))  # 0.1 px steps, capped 25.5
    np.savez(args.out, images=np.stack(imgs), dist=np.stack(dists))
    print(f"{len(imgs)} scenes -> {args.out}")


# ----------------------------------------------------------------------------- model

def build_model():
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    class OutlineNet(nn.Module):
        """Full-res 3->8, a stride-2 stage (8->16) and a quarter-res context stage (16->16 stride
        2, then two 16->16 convs at dilations 2 and 4); the half- and quarter-res features come back
        through 1x1 convs to 8 channels, are upsampled (bilinear) and added to the full-res
        features, and a 3x3 conv 8->1 gives the logit."""

        def __init__(self):
            super().__init__()
            self.a = nn.Conv2d(3, 8, 3, padding=1)
            self.b = nn.Conv2d(8, 16, 3, stride=2, padding=1)
            self.c = nn.Conv2d(16, 16, 3, stride=2, padding=1)
            self.e = nn.Conv2d(16, 16, 3, padding=2, dilation=2)
            self.f = nn.Conv2d(16, 16, 3, padding=4, dilation=4)
            self.pb = nn.Conv2d(16, 8, 1)
            self.pf = nn.Conv2d(16, 8, 1)
            self.h = nn.Conv2d(8, 1, 3, padding=1)

        def forward(self, x):
            x = x - 0.5
            a = F.relu(self.a(x))
            b = F.relu(self.b(a))
            c = F.relu(self.c(b))
            c = F.relu(self.e(c))
            c = F.relu(self.f(c))
            size = a.shape[-2:]
            up = F.interpolate(self.pb(b), size=size, mode="bilinear", align_corners=False)
            up = up + F.interpolate(self.pf(c), size=size, mode="bilinear", align_corners=False)
            return self.h(F.relu(a + up))

    return OutlineNet()


def flops(model, h=360, w=640):
    """Multiply-adds x 2 of the convolutions at h x w (bias, ReLU, upsampling not counted)."""
    import torch
    total = 0
    hooks = []

    def hook(m, i, o):
        nonlocal total
        total += 2 * o.numel() * m.in_channels // m.groups * m.kernel_size[0] * m.kernel_size[1]
    for m in model.modules():
        if isinstance(m, torch.nn.Conv2d):
            hooks.append(m.register_forward_hook(hook))
    with torch.no_grad():
        model(torch.zeros(1, 3, h, w))
    for k in hooks:
        k.remove()
    return total


def cmd_flops(args):
    import torch
    torch.set_num_threads(1)
    m = build_model().eval()
    n = sum(p.numel() for p in m.parameters())
    f = flops(m)
    x = torch.rand(1, 3, 360, 640)
    with torch.no_grad():
        for _ in range(3):
            m(x)
        t = time.perf_counter()
        for _ in range(10):
            m(x)
        ms = (time.perf_counter() - t) * 100
    print(f"parameters {n}, {f / 1e9:.3f} GFLOP at 640x360, torch CPU 1 thread {ms:.1f} ms")


def cmd_train(args):
    import torch
    import torch.nn.functional as F
    torch.manual_seed(0)
    torch.set_num_threads(args.threads)
    rng = np.random.default_rng(0)
    data = np.load(args.data)
    images, dist = data["images"], data["dist"]
    n = len(images)
    model = build_model()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    start = time.time()
    step = 0
    ch, cw = args.crop
    while time.time() - start < args.minutes * 60:
        frac = (time.time() - start) / (args.minutes * 60)
        for g in opt.param_groups:
            g["lr"] = 3e-3 * (0.5 * (1 + math.cos(math.pi * min(1, frac)))) + 1e-4
        idx = rng.integers(0, n, args.batch)
        xs, ys, ws = [], [], []
        for i in idx:
            y0 = rng.integers(0, images.shape[1] - ch + 1)
            x0 = rng.integers(0, images.shape[2] - cw + 1)
            im = images[i, y0:y0 + ch, x0:x0 + cw].astype(np.float32) / 255
            d = dist[i, y0:y0 + ch, x0:x0 + cw].astype(np.float32) / 10
            if rng.random() < 0.5:
                im, d = im[:, ::-1], d[:, ::-1]
            if rng.random() < 0.5:
                im, d = im[::-1], d[::-1]
            # photometric jitter: gain, offset, per-channel gain
            im = np.clip(im * rng.uniform(0.6, 1.3) * rng.uniform(0.9, 1.1, 3) + rng.uniform(-0.1, 0.1), 0, 1)
            xs.append(im.transpose(2, 0, 1).astype(np.float32))
            ys.append((d <= 1.0).astype(np.float32)[None])
            # pixels 1-2.5 px from a side are ambiguous (the blurred edge's shoulders): half weight
            ws.append(np.where((d > 1.0) & (d <= 2.5), 0.3, 1.0).astype(np.float32)[None])
        x = torch.from_numpy(np.stack(xs))
        y = torch.from_numpy(np.stack(ys))
        wt = torch.from_numpy(np.stack(ws))
        logit = model(x)
        loss = F.binary_cross_entropy_with_logits(logit, y, weight=wt * (1 + (args.pos_weight - 1) * y))
        p = torch.sigmoid(logit)
        dice = 1 - (2 * (p * y).sum() + 1) / (p.sum() + y.sum() + 1)
        total = loss + dice
        opt.zero_grad()
        total.backward()
        opt.step()
        step += 1
        if step % 50 == 0:
            print(f"step {step} {time.time() - start:.0f}s bce {loss.item():.4f} dice {dice.item():.3f}", flush=True)
            torch.save(model.state_dict(), args.out)
    torch.save(model.state_dict(), args.out)
    print(f"done: {step} steps in {(time.time() - start) / 60:.1f} min -> {args.out}")


def predict(model, a):
    import torch
    with torch.no_grad():
        x = torch.from_numpy(a.transpose(2, 0, 1).copy())[None]
        return torch.sigmoid(model(x))[0, 0].numpy()


def load_net(path):
    import torch
    m = build_model()
    m.load_state_dict(torch.load(path, map_location="cpu"))
    return m.eval()


# ----------------------------------------------------------------------------- the detector's edges

def blur5(c):
    k = np.array([1, 4, 6, 4, 1], np.float32) / 16
    p = np.pad(c, ((0, 0), (2, 2)), mode="edge")
    t = sum(k[i] * p[:, i:i + c.shape[1]] for i in range(5))
    p = np.pad(t, ((2, 2), (0, 0)), mode="edge")
    return sum(k[i] * p[i:i + c.shape[0]] for i in range(5))


def detector_edges(a):
    """DetectEdges.run in numpy: magnitude, gx, gy, NMS edges, strong threshold."""
    h, w, _ = a.shape
    chans = [blur5(a @ WEIGHTS[k]) for k in range(3)]
    mag = np.zeros((h, w), np.float32)
    gx = np.zeros((h, w), np.float32)
    gy = np.zeros((h, w), np.float32)
    for c in chans:
        sx = np.zeros((h, w), np.float32)
        sy = np.zeros((h, w), np.float32)
        sx[1:-1, 1:-1] = ((c[:-2, 2:] + 2 * c[1:-1, 2:] + c[2:, 2:]) - (c[:-2, :-2] + 2 * c[1:-1, :-2] + c[2:, :-2])) / 8
        sy[1:-1, 1:-1] = ((c[2:, :-2] + 2 * c[2:, 1:-1] + c[2:, 2:]) - (c[:-2, :-2] + 2 * c[:-2, 1:-1] + c[:-2, 2:])) / 8
        m = np.hypot(sx, sy)
        better = m > mag
        mag = np.where(better, m, mag)
        gx = np.where(better, sx, gx)
        gy = np.where(better, sy, gy)
    hist = np.bincount(np.minimum(255, (mag * 512).astype(np.int64)).ravel(), minlength=256)
    target = mag.size * 9 // 10
    seen, b = 0, 0
    while b < 255 and seen + hist[b] < target:
        seen += hist[b]
        b += 1
    high = max(b / 512, 0.02)
    return mag, gx, gy, nms(mag, gx, gy, mag, high * 0.4), high


def nms(score, gx, gy, ref, low):
    """Pixels where `score` is a maximum across the edge whose direction is (gx, gy), quantised as
    DetectEdges.suppressNonMaxima does; `ref` >= low as its floor. Returns score there, else 0."""
    h, w = score.shape
    ax, ay = np.abs(gx), np.abs(gy)
    horiz = ay <= ax * 0.41421356
    vert = ay >= ax * 2.41421356
    diag1 = ~horiz & ~vert & ((gx > 0) == (gy > 0))
    out = np.zeros_like(score)
    s = score
    c = s[2:-2, 2:-2]
    def nb(dy, dx):
        return s[2 + dy:h - 2 + dy, 2 + dx:w - 2 + dx]
    prev = np.where(horiz[2:-2, 2:-2], nb(0, -1), np.where(vert[2:-2, 2:-2], nb(-1, 0),
                    np.where(diag1[2:-2, 2:-2], nb(-1, -1), nb(-1, 1))))
    nxt = np.where(horiz[2:-2, 2:-2], nb(0, 1), np.where(vert[2:-2, 2:-2], nb(1, 0),
                   np.where(diag1[2:-2, 2:-2], nb(1, 1), nb(1, -1))))
    keep = (c >= prev) & (c > nxt) & (ref[2:-2, 2:-2] >= low)
    out[2:-2, 2:-2] = np.where(keep, c, 0)
    return out


# ----------------------------------------------------------------------------- evaluation

def side_samples(sides, h, w):
    """Points every working px along each side (inside the image), with the side's unit normal."""
    out = []
    for (x0, y0), (x1, y1) in sides:
        L = math.hypot(x1 - x0, y1 - y0)
        n = max(2, int(L))
        t = (np.arange(n) + 0.5) / n
        px, py = x0 + t * (x1 - x0), y0 + t * (y1 - y0)
        ok = (px >= 3) & (py >= 3) & (px <= w - 4) & (py <= h - 4)
        out.append((px[ok], py[ok], (-(y1 - y0) / L, (x1 - x0) / L)))
    return out


def side_hits(thin, samples):
    """Per side: share of its sample points with a non-zero `thin` pixel within 1.5 px across."""
    res = []
    for px, py, (nx, ny) in samples:
        if len(px) == 0:
            continue
        hit = np.zeros(len(px), bool)
        for s in (-1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5):
            xi = np.rint(px + s * nx).astype(int)
            yi = np.rint(py + s * ny).astype(int)
            hit |= thin[yi, xi] > 0
        res.append(hit.mean())
    return res


def cmd_eval(args):
    model = load_net(args.net)
    import torch
    torch.set_num_threads(args.threads)
    bins = 1000
    hist = {k: np.zeros((2, bins)) for k in ("learned", "gradient")}
    per = []  # per image: dict of arrays
    for d, e in scenes(args.dirs):
        a = load_working(os.path.join(d, e["file"]))
        h, w, _ = a.shape
        quads = scene_quads(e)
        dist = side_distance(quads, h, w)
        pos, neg = dist <= 1.0, dist > 3.0
        p = predict(model, a.astype(np.float32))
        mag, gx, gy, edges, high = detector_edges(a)
        g = np.clip(mag / 0.5, 0, 1)  # a 0->1 step gives 0.5
        for k, s in (("learned", p), ("gradient", g)):
            b = np.minimum(bins - 1, (s * bins).astype(int))
            hist[k][0] += np.bincount(b[pos], minlength=bins)
            hist[k][1] += np.bincount(b[neg], minlength=bins)
        samples = side_samples(working_sides(quads), h, w)
        # (b) the detector's voting pixels: NMS edges >= its strong threshold
        voting = edges >= high
        # (a) local maxima of the learned map across the image's edge direction
        thin_p = nms(p, gx, gy, p, 0.02)
        per.append(dict(neg=neg, voting=voting, thin_p=thin_p, samples=samples, p=p, edges=edges, high=high))
    print(f"{len(per)} scenes from {len(args.dirs)} folders")
    for k in hist:
        tp = np.cumsum(hist[k][0][::-1])
        fp = np.cumsum(hist[k][1][::-1])
        prec = tp / np.maximum(tp + fp, 1)
        rec = tp / tp[-1]
        ap = np.sum(np.diff(np.concatenate([[0], rec])) * prec)
        r_at = {q: rec[prec >= q].max() if (prec >= q).any() else 0 for q in (0.3, 0.5, 0.7)}
        print(f"pixel level, {k:8s}: AP {ap:.3f}; recall at precision 0.3/0.5/0.7: "
              f"{r_at[0.3]:.3f} / {r_at[0.5]:.3f} / {r_at[0.7]:.3f}")
    # equal texture budget: texture pixels (> 3 px from any true side) that vote in (b)
    texture_b = sum(int((q["voting"] & q["neg"]).sum()) for q in per)
    allp = np.concatenate([q["thin_p"][q["neg"]] for q in per])
    allp = np.sort(allp[allp > 0])[::-1]
    t = allp[min(texture_b, len(allp)) - 1] if texture_b <= len(allp) else 0.02
    cover_b, cover_a = [], []
    for q in per:
        cover_b += side_hits(q["voting"], q["samples"])
        cover_a += side_hits(q["thin_p"] >= t, q["samples"])
    cover_a, cover_b = np.array(cover_a), np.array(cover_b)
    tex_a = sum(int(((q["thin_p"] >= t) & q["neg"]).sum()) for q in per)
    print(f"per side ({len(cover_a)} sides), texture budget: the detector's voting edges ({texture_b} px > 3 px from "
          f"any side); learned maxima >= {t:.3f}: {tex_a} px")
    for name, c in (("gradient (detector's voting edges)", cover_b), ("learned map maxima", cover_a)):
        print(f"  {name:36s} mean share of length {c.mean():.3f}; sides >= 50 % covered "
              f"{(c >= 0.5).mean():.3f}, >= 25 % {(c >= 0.25).mean():.3f}, < 10 % {(c < 0.1).mean():.3f}")
    # the hook: detector's voting edges kept where the learned map's 3x3 max >= t, against the
    # detector's own edges with the strong threshold raised (x k per image) to keep as much texture
    from scipy.ndimage import maximum_filter
    ratios = np.sort(np.concatenate([(q["edges"] / q["high"])[q["neg"] & q["voting"]] for q in per]))[::-1]
    for thr in args.gates:
        kept_tex, cov = 0, []
        for q in per:
            gate = maximum_filter(q["p"], size=3) >= thr
            v = q["voting"] & gate
            kept_tex += int((v & q["neg"]).sum())
            cov += side_hits(v, q["samples"])
        cov = np.array(cov)
        k = ratios[max(0, min(len(ratios) - 1, kept_tex - 1))]
        cov_g = np.array([c for q in per for c in side_hits(q["edges"] >= k * q["high"], q["samples"])])
        print(f"  gate learned >= {thr:.2f}: texture votes {kept_tex / max(texture_b, 1):.3f} of before; "
              f"side share {cov.mean():.3f} (before {cover_b.mean():.3f}), sides >= 50 % {(cov >= 0.5).mean():.3f}; "
              f"gradient alone at the same texture (threshold x {k:.2f}): side share {cov_g.mean():.3f}, "
              f">= 50 % {(cov_g >= 0.5).mean():.3f}")


def cmd_sidecars(args):
    model = load_net(args.net)
    import torch
    torch.set_num_threads(args.threads)
    os.makedirs(args.dst, exist_ok=True)
    shutil.copy(os.path.join(args.src, "scenes.json"), args.dst)
    times = []
    for _, e in scenes([args.src]):
        src = os.path.join(args.src, e["file"])
        dst = os.path.join(args.dst, e["file"])
        if not os.path.exists(dst):
            os.symlink(os.path.abspath(src), dst)
        a = load_working(src).astype(np.float32)
        t = time.perf_counter()
        p = predict(model, a)
        times.append(time.perf_counter() - t)
        Image.fromarray((p * 255 + 0.5).astype(np.uint8)).save(dst + ".outline.png")
    print(f"{len(times)} sidecars in {args.dst}; torch inference median {np.median(times) * 1000:.1f} ms")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prep")
    p.add_argument("--out", required=True)
    p.add_argument("dirs", nargs="+")
    p = sub.add_parser("train")
    p.add_argument("--data", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--minutes", type=float, default=30)
    p.add_argument("--batch", type=int, default=12)
    p.add_argument("--crop", type=int, nargs=2, default=[256, 320])
    p.add_argument("--pos-weight", type=float, default=5)
    p.add_argument("--threads", type=int, default=2)
    p = sub.add_parser("eval")
    p.add_argument("--net", required=True)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--gates", type=lambda v: [float(x) for x in v.split(",")], default=[0.05, 0.1, 0.2, 0.3, 0.5],
                   help="comma list of learned-map gate thresholds")
    p.add_argument("dirs", nargs="+")
    p = sub.add_parser("sidecars")
    p.add_argument("--net", required=True)
    p.add_argument("--src", required=True)
    p.add_argument("--dst", required=True)
    p.add_argument("--threads", type=int, default=2)
    sub.add_parser("flops")
    args = ap.parse_args()
    {"prep": cmd_prep, "train": cmd_train, "eval": cmd_eval, "sidecars": cmd_sidecars, "flops": cmd_flops}[args.cmd](args)


if __name__ == "__main__":
    main()
