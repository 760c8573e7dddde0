#!/usr/bin/env python3
"""The learned picture finder (issue 36): a small encoder/decoder that maps the working image
(320x240 RGB = the 640x480 live frame halved) to heatmaps at 1/4 resolution from which quads are
decoded; its training on tools/finder_data.py's shards (torch CPU), its evaluation on development
seeds, and its ONNX export for the project's runtime.

    python3 tools/train_finder.py train --data /work/finder-data/train --dev /work/finder-data/dev \\
        --ckpt-dir /work/finder-ckpt [--steps 6000] [--minutes 100] [--batch 16] [--seed 0] \\
        [--threads 2] [--bf16 auto] [--ckpt-minutes 10] [--repo-copy tools/finder.pt] [--resume CKPT]
    python3 tools/train_finder.py eval   --ckpt C --dev /work/finder-data/dev     # detection table
    python3 tools/train_finder.py eval-scenes --ckpt C DIR [DIR ...]              # make_rectangle_scenes folders
    python3 tools/train_finder.py export --ckpt C --out tools/finder.onnx         # + onnxruntime check
    python3 tools/train_finder.py smoke                                           # one tiny step
    python3 tools/train_finder.py speed  [--batch 16] [--threads 2]               # fp32 vs bf16 img/s
    python3 tools/train_finder.py flops                                           # params, GFLOPs

Outputs (one tensor "heads", [1, 14, H/4, W/4], raw: the decoder applies the sigmoids)
------------------------------------------------------------------------------------
 channel 0       centre heatmap (logit): a Gaussian at each quad's centre, the intersection of
                 its diagonals (CenterNet: Zhou, Wang, Kraehenbuehl, "Objects as Points", 2019)
 channels 1-8    corner offsets regressed at the centre: (corner - cell) / OFFSET_SCALE for TL, TR,
                 BR, BL (x, y), in output pixels; trained at the 3x3 cells around the centre, each
                 with its own target, so the sub-pixel position of the centre needs no channel
 channels 9-12   corner-type heatmaps (logits) for TL, TR, BR, BL in the quad's own order (CornerNet:
                 Law, Deng, "CornerNet: Detecting Objects as Paired Keypoints", 2018): the regressed
                 corners are snapped to them
 channel 13      outline (logit): output pixels within 1 output px of a quad's side
Output pixel j (pixel centres at integers) is input pixel 4 j + 1.5.

Losses: the penalty-reduced focal loss of CornerNet / CenterNet on the heatmaps (alpha 2, beta 4,
normalised by the number of quads), L1 on the offsets at the 3x3 cells around each centre, BCE
(positives x 2) on the outline. Written from the papers' equations; no code copied.

Network (`Finder`): plain ops that the project's ONNX importer and both backends have (Conv with
BatchNormalization folded at load, Relu, Resize nearest x2, Add; docs/runtime.md's op table; no
dilations, which the importer refuses). Encoder: 3x3 stride-2 convs to 1/2 (16 ch), 1/4 (32),
1/8 (64), 1/16 (96), each followed by one 3x3 conv, plus two more at 1/16. An output pixel's
theoretical receptive field is 187 input px (+-93), while a large picture's corners are up to
~190 px from its centre: their offsets are partly extrapolated (the step-1008 checkpoint's
regressed corners were 10-30 px off on pictures over ~100 px; the relative snap radius below
compensates). More context (a 1/32 level on inputs padded to a multiple of 32, or more 1/16
convs) is the first thing to try next. Decoder: 1x1 conv, nearest x2, add the skip (FPN-like adds are cheaper than
concats: the 1/4 level costs the most), one 3x3 conv per level; head 3x3 32 -> 32, 1x1 32 -> 14.
Why this size: issue 36 asks for 640x480 <= 10 ms on the CPU path including the network; at the
project's 100-150 GFLOP/s for 3x3 convs the budget for the net is ~1 GFLOP. `flops` MEASURED below.

Decoder (`decode`, numpy): centre peaks (3x3 maxima >= threshold); corners = the peak cell +
offsets; each snapped to the nearest corner-type peak (3x3 maximum >= 0.1, sub-pixel by a
parabola through its neighbours) of its type within max(SNAP_RADIUS, SNAP_FRAC x the regressed
quad's shortest side) output px (or kept as regressed); duplicates
(every corner within 2 output px of a stronger quad's) dropped. Score = the centre peak.

Evaluation (`evaluate`): a truth quad is found when a decoded quad (score >= 0.3) has all four
corners within 3 % of the image diagonal (12 px at 320x240, 24 px at 640x480): a front end's job
is to hand the sub-pixel side fit (kept from today's detector) a quad inside its search window.
The stricter 10 px at 640x480 (5 px here) is printed too. False positives: negative scenes with
any quad; extra quads on positive scenes are counted separately. Mean corner error of the found
quads is in 640x480 px (x 2).

The first run (2026-11-29; shards 5000-5159 and 5200-5325 = 28,600 scenes at 320x240, made by
`python3 tools/finder_data.py shards --out /work/finder-data/train --seeds 5000-5199` and
`... --seeds 5200-5399`, both stopped when training started; dev = 6000-6004, 500 scenes):
    OMP_NUM_THREADS=2 nohup nice -n 19 python3 tools/train_finder.py train \
        --data /work/finder-data/train --dev /work/finder-data/dev --ckpt-dir /work/finder-ckpt \
        --repo-copy tools/finder.pt --steps 5400 --minutes 100 --ckpt-minutes 10 --batch 16 \
        --lr 2e-3 --seed 0 --threads 2 --bf16 auto > /work/finder-ckpt/train.out 2>&1 &
(--steps 5400: a first start with 9000 made 600 steps in its first 10 minutes (~16 img/s: the
benchmark has the CPU first), so it would have stopped at 2/3 of its schedule; it was stopped
and started again with a schedule that fits 100 minutes. Its step-600 dev result: 30.8 % found,
sticky notes 78 %, every single-picture kind <= 14 %.)
Log: /work/finder-ckpt/train_log.jsonl (every 20 steps: loss parts, lr, img/s; each checkpoint:
the dev table). Continue it with `--resume /work/finder-ckpt/last.pt` and the same arguments
(tools/finder.pt is the weights-only copy: the full checkpoint with Adam's moments is 5.3 MB).

Its end (step 5400; the first process stopped at step 3960 when the helper session that started it
ended, and the run was resumed bit-exactly from the step-3547 checkpoint with `--resume`, so the
log, committed as tools/finder_train_log.jsonl, holds steps 3547-3960 twice): dev 6000-6004
93.2 % found, strict 87.9 %, false positives on 1 of 55 negatives, 48 extra quads, mean corner
error 2.0 px at 640x480; these were the committed weights until the second run (below). Through the side fit (`gpustyle detect --front-end learned`):
docs/finder.md.
Interim results of that run (the decoder of this file, `eval` / `eval-scenes`, threshold 0.3):
  step 2252 (31 minutes; the log's own dev line, with the start-time decoder: 61.3 %):
    dev 6000-6004 (636 quads, 55 negatives): 79.6 % found, strict 72.3 %, false positives on 3
      negatives, 93 extra quads on positives, mean corner error 2.58 px at 640x480; sticky notes
      99.5, multi 93.0, nested 91.4, mixed 68.9, motion blur 65.7, glare 64.3, strong perspective
      57.7, occlusion 57.1, low contrast 54.1, phone 47.6 %.
    the committed fixture set (Tests/GPUStyleTests/Fixtures/rectangles, 1280x720, seed 7, never
      trained on; scored only): 37/40 = 92.5 %, strict 77.5 %, 1/10 negatives with a quad.
  The ONNX export of that checkpoint: onnxruntime vs torch max |diff| 2.2e-5.

The second run (2026-11-29, the built-in weights until the third): three context blocks at 1/16
(`--context 3`, receptive field 187 -> 475 px), warm-started from the first run's step 5400
(`--init tools/finder.pt`; the blocks start as identities), seed 1, lr 1.5e-3:
    OMP_WAIT_POLICY=PASSIVE OMP_NUM_THREADS=2 nohup nice -n 10 python3 tools/train_finder.py train \
        --data /work/finder-data/train --dev /work/finder-data/dev --ckpt-dir /work/finder-ckpt2 \
        --repo-copy /work/finder-ckpt2/weights.pt --init tools/finder.pt --context 3 --steps 9000 \
        --minutes 130 --ckpt-minutes 10 --batch 16 --lr 1.5e-3 --seed 1 --threads 2 --bf16 auto
stopped at its step-2882 checkpoint (40 minutes) and continued with `--resume
/work/finder-ckpt2/step002882.pt --steps 6400` (same other arguments) so that the schedule ended
within the session; log tools/finder_train_log_run2.jsonl. Dev 6000-6004 at step 6400 (80
minutes): 96.7 % found, strict 93.2 %, no negative with a quad, mean corner error 1.87 px at
640x480 (step 5441: 97.0 / 92.9 %). docs/finder.md has the curve and, through `gpustyle detect`,
the held-out table. (OMP_WAIT_POLICY=PASSIVE: with the default spinning OpenMP threads a Swift
build beside the training cut it from 29 to 3 img/s; passive waiting kept 15-20.)

The third run (2026-11-29, the built-in weights since): run 2's last checkpoint fine-tuned on
twice the scenes, the 28,600 above and 20,000 new ones (`python3 tools/finder_data.py shards
--out /work/finder-data/train3 --seeds 5400-5599 --jobs 2`, 9 minutes; both folders' shards
linked into /work/finder-data/train-all), seed 3, lr 1e-3, 5000 steps:
    OMP_WAIT_POLICY=PASSIVE OMP_NUM_THREADS=2 nohup nice -n 10 python3 tools/train_finder.py train \
        --data /work/finder-data/train-all --dev /work/finder-data/dev --ckpt-dir /work/finder-ckpt3 \
        --init /work/finder-ckpt2/step006400.pt --context 3 --steps 5000 --minutes 110 \
        --ckpt-minutes 12 --lr 1e-3 --seed 3
62 minutes; log tools/finder_train_log_run3.jsonl; tools/finder.pt is its step 5000 without
Adam's moments (the ONNX exported from either is byte-identical). Dev 6000-6004 at step 5000:
98.0 % found, strict 95.1 %, no negative with a quad, mean corner error 1.81 px at 640x480.
The same command run again (--ckpt-dir /work/finder-ckpt3b) gave the same model bit for bit
(every logged loss, every tensor of the step-5000 checkpoint, the exported ONNX).

Seeds: trains on finder_data shards of seeds 5000-5999 only; evaluates and chooses on 6000-6099;
make_rectangle_scenes.py's held-out 3001-3009 never enter this file.

MEASURED (Intel Xeon Processor, model 207 (Emerald Rapids) under KVM; the VM exposes avx512_bf16
and amx is NOT in /proc/cpuinfo, so oneDNN's bf16 runs on AVX-512 BF16, not AMX tiles;
2 threads, torch 2.13.0+cpu, machine shared with a benchmark, nice 19, 2026-11-29):
  `flops`: 441,502 parameters; 0.831 GFLOP at 320x240, 0.532 at 256x192 (conv multiply-adds x 2).
  `speed` (training steps, batch 16, 320x240, 2 threads, the shard generators paused):
      fp32 46.6 img/s (0.34 s/step), bf16 autocast 43.7 img/s (0.37 s/step).
  bf16 does not pay here (without AMX the thin convs gain nothing from AVX-512 BF16 and pay the
  casts), so `--bf16 auto` turns it on only where /proc/cpuinfo has amx_bf16; issue 36's 2.5x
  was measured on a machine with AMX. Under the benchmark's load training ran at 15-39 img/s.
  `export`: ONNX opset 13 (Conv with BatchNormalization folded, Relu, Resize nearest asymmetric
  floor, Add, Constant); onnxruntime 1.32.0 vs torch max |diff| 2.4e-6 on 4 scenes.
  A resume (`--stop-after 3`, then `--resume`) ends bit-identical to an uninterrupted 6 steps.
  Decoding perfect targets (make_targets -> logits -> decode) finds 262/262 dev quads, mean corner
  error 0.54 px at 320x240 (max 1.16): the target/decoder pair loses nothing that matters.
"""
import argparse
import json
import math
import os
import random
import shutil
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

OFFSET_SCALE = 32.0  # output px; offsets / 32 stay within about +-1.5
SNAP_RADIUS = 3.0    # output px (12 input px)
SNAP_FRAC = 0.5      # of the regressed quad's shortest side (see decode). Chosen on dev seeds
# 6000-6002 (398 quads) with the first run's step-1008 checkpoint, whose regressed corners were
# 10-30 px off on pictures over ~100 px: found at 12 px tolerance, radius 3 fixed: 160; 8: 255;
# 12: 263; 0.25 x side: 238; 0.35: 257; 0.5: 264 (extra quads 204 -> 94; negatives' false
# positives 4 of 33 in every case). Re-choose on the final checkpoint. The training log's dev
# numbers use the decoder as it was when the run started (radius 3, no fraction).
OFFSET_WEIGHT = 2.0  # 1 output px of error on one coordinate costs 0.06, CenterNet's size loss 0.1 a px
STRIDE = 4
CH = 14


# ----------------------------------------------------------------------------- network

CONTEXT_KERNEL = 7  # depthwise kernel of a context block at 1/16: each block adds 6 x 16 = 96 input px


def build_model(context=0):
    """`context` residual blocks (depthwise 7x7 -> BN -> ReLU -> 1x1 -> BN, added to the input) at 1/16
    after the encoder: the receptive field grows from 187 to 187 + 96 x context input px for
    ~8 MFLOP a block at 320x240. Each block's BN scale starts at 0, so a block starts as the
    identity and a context-0 checkpoint warm-starts a wider model exactly (`train --init`)."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F

    def cbr(i, o, k=3, s=1):
        return nn.Sequential(nn.Conv2d(i, o, k, s, k // 2, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))

    class Context(nn.Module):
        def __init__(self, c):
            super().__init__()
            k = CONTEXT_KERNEL
            self.dw = nn.Sequential(nn.Conv2d(c, c, k, 1, k // 2, groups=c, bias=False), nn.BatchNorm2d(c), nn.ReLU())
            self.pw = nn.Conv2d(c, c, 1, bias=False)
            self.bn = nn.BatchNorm2d(c)
            nn.init.zeros_(self.bn.weight)  # no ReLU after it: ReLU's gradient at 0 is 0, the block would stay dead

        def forward(self, x):
            return x + self.bn(self.pw(self.dw(x)))

    class Finder(nn.Module):
        def __init__(self):
            super().__init__()
            self.context = context
            self.e1 = nn.Sequential(cbr(3, 16, s=2), cbr(16, 16))
            self.e2 = nn.Sequential(cbr(16, 32, s=2), cbr(32, 32))
            self.e3 = nn.Sequential(cbr(32, 64, s=2), cbr(64, 64))
            self.e4 = nn.Sequential(cbr(64, 96, s=2), cbr(96, 96), cbr(96, 96), cbr(96, 96))
            self.ctx = nn.Sequential(*[Context(96) for _ in range(context)])
            self.l4 = nn.Conv2d(96, 64, 1)
            self.d3 = cbr(64, 64)
            self.l3 = nn.Conv2d(64, 32, 1)
            self.d2 = cbr(32, 32)
            self.h = cbr(32, 32)
            self.out = nn.Conv2d(32, CH, 1)
            with torch.no_grad():  # heatmaps start near 0.01 (CenterNet's prior), offsets near 0
                self.out.bias.zero_()
                for c in (0, 9, 10, 11, 12, 13):
                    self.out.bias[c] = -4.6

        def forward(self, x):
            x2 = self.e1(x)
            x4 = self.e2(x2)
            x8 = self.e3(x4)
            x16 = self.ctx(self.e4(x8))
            y8 = self.d3(F.interpolate(self.l4(x16), scale_factor=2.0, mode="nearest") + x8)
            y4 = self.d2(F.interpolate(self.l3(y8), scale_factor=2.0, mode="nearest") + x4)
            return self.out(self.h(y4))

    return Finder()


def load_model(path):
    """The model a checkpoint (full or weights-only) describes, with its weights."""
    import torch
    ck = torch.load(path, map_location="cpu", weights_only=False)
    model = build_model(ck.get("config", {}).get("context", 0))
    model.load_state_dict(ck["model"])
    return model, ck


def count_flops(model, W=320, H=240):
    """Multiply-adds x 2 of the convolutions (and the adds), by hooks on one forward."""
    import torch
    total = [0]

    def hook(m, inp, out):
        if isinstance(m, torch.nn.Conv2d):
            k = m.kernel_size[0] * m.kernel_size[1] * m.in_channels // m.groups
            total[0] += 2 * k * out.numel()

    hs = [m.register_forward_hook(hook) for m in model.modules() if isinstance(m, torch.nn.Conv2d)]
    model.eval()
    with torch.no_grad():
        model(torch.zeros(1, 3, H, W))
    for h in hs:
        h.remove()
    return total[0]


# ----------------------------------------------------------------------------- targets

def quad_centre(q):
    """Intersection of the diagonals TL-BR and TR-BL."""
    p, r = q[0], q[2] - q[0]
    s, t = q[1], q[3] - q[1]
    den = r[0] * t[1] - r[1] * t[0]
    if abs(den) < 1e-9:
        return q.mean(axis=0)
    u = ((s[0] - p[0]) * t[1] - (s[1] - p[1]) * t[0]) / den
    return p + u * r


def to_out(pts):
    return (np.asarray(pts, np.float64) - (STRIDE - 1) / 2) / STRIDE


def to_in(pts):
    return np.asarray(pts, np.float64) * STRIDE + (STRIDE - 1) / 2


def _gauss(hm, cx, cy, sigma):
    h, w = hm.shape
    r = int(math.ceil(3 * sigma))
    ix, iy = int(round(cx)), int(round(cy))
    x0, x1, y0, y1 = max(0, ix - r), min(w, ix + r + 1), max(0, iy - r), min(h, iy + r + 1)
    if x0 >= x1 or y0 >= y1:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1]
    g = np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * sigma * sigma))
    hm[y0:y1, x0:x1] = np.maximum(hm[y0:y1, x0:x1], g)
    if 0 <= ix < w and 0 <= iy < h:
        hm[iy, ix] = 1.0  # the peak cell is the positive of the focal loss


def make_targets(quads, h, w):
    """quads: [n, 4, 2] in input px. Returns heat [6, h, w] (centre, TL, TR, BR, BL, outline),
    off [8, h, w], offmask [h, w]."""
    heat = np.zeros((6, h, w), np.float32)
    off = np.zeros((8, h, w), np.float32)
    offw = np.zeros((h, w), np.float32)
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    dist = np.full((h, w), 1e9, np.float32)
    for q in quads:
        qo = to_out(q)
        c = to_out(quad_centre(np.asarray(q, np.float64)))
        sides = np.hypot(*(np.roll(qo, -1, axis=0) - qo).T)
        s = float(sides.min())
        _gauss(heat[0], c[0], c[1], float(np.clip(0.12 * s, 0.8, 3.0)))
        for k in range(4):
            _gauss(heat[1 + k], qo[k, 0], qo[k, 1], float(np.clip(0.06 * s, 0.7, 1.5)))
        ix, iy = int(round(c[0])), int(round(c[1]))
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                x, y = ix + dx, iy + dy
                if 0 <= x < w and 0 <= y < h:
                    off[:, y, x] = ((qo - np.array([x, y])) / OFFSET_SCALE).reshape(-1)
                    offw[y, x] = 1.0 if (dx == 0 and dy == 0) else 0.5
        for k in range(4):
            a, b = qo[k], qo[(k + 1) % 4]
            d = b - a
            L2 = max(float(d @ d), 1e-9)
            t = np.clip(((xs - a[0]) * d[0] + (ys - a[1]) * d[1]) / L2, 0, 1)
            dist = np.minimum(dist, np.hypot(xs - (a[0] + t * d[0]), ys - (a[1] + t * d[1])))
    heat[5] = (dist <= 1.0).astype(np.float32)
    return heat, off, offw


def hflip(img, quads):
    """Mirror left-right; the mirrored quad's own TL is the old TR (order TR, TL, BL, BR)."""
    W = img.shape[1]
    q = np.asarray(quads, np.float32).copy()
    if len(q):
        q[..., 0] = (W - 1) - q[..., 0]
        q = q[:, [1, 0, 3, 2]]
    return img[:, ::-1], q


# ----------------------------------------------------------------------------- losses

def focal(logits, gt, npos):
    """CornerNet's penalty-reduced focal loss (alpha 2, beta 4) summed / npos."""
    import torch
    p = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = gt.eq(1).float()
    neg = 1 - pos
    lp = -torch.log(p) * (1 - p) ** 2 * pos
    ln = -torch.log(1 - p) * p ** 2 * (1 - gt) ** 4 * neg
    return (lp.sum() + ln.sum()) / max(1.0, npos)


def losses(out, heat, off, offw, npos):
    import torch
    import torch.nn.functional as F
    out = out.float()
    lc = focal(out[:, 0], heat[:, 0], npos)
    lk = focal(out[:, 9:13], heat[:, 1:5], npos)  # the four types summed: a corner weighs as a centre
    lo = (F.l1_loss(out[:, 1:9], off, reduction="none").sum(1) * offw).sum() / max(1.0, float(offw.sum()))
    lb = F.binary_cross_entropy_with_logits(out[:, 13], heat[:, 5], pos_weight=torch.tensor(2.0))
    return {"centre": lc, "corner": lk, "offset": lo, "outline": lb}


# ----------------------------------------------------------------------------- decoding

def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _peaks(hm, thr, k=50):
    """3x3 local maxima >= thr, strongest first: (y, x, value) with sub-pixel (parabola) x, y."""
    from scipy import ndimage
    mx = ndimage.maximum_filter(hm, size=3, mode="constant", cval=0)
    ys, xs = np.nonzero((hm == mx) & (hm >= thr))
    v = hm[ys, xs]
    order = np.argsort(-v)[:k]
    out = []
    h, w = hm.shape
    for i in order:
        y, x = int(ys[i]), int(xs[i])
        dx = dy = 0.0
        if 0 < x < w - 1:
            l, c, r = hm[y, x - 1], hm[y, x], hm[y, x + 1]
            den = l - 2 * c + r
            dx = float(np.clip(0.5 * (l - r) / den, -0.5, 0.5)) if den < 0 else 0.0
        if 0 < y < h - 1:
            u, c, d = hm[y - 1, x], hm[y, x], hm[y + 1, x]
            den = u - 2 * c + d
            dy = float(np.clip(0.5 * (u - d) / den, -0.5, 0.5)) if den < 0 else 0.0
        out.append((y, x, x + dx, y + dy, float(v[i])))
    return out


def decode(heads, threshold=0.3, snap_radius=SNAP_RADIUS, snap_frac=SNAP_FRAC):
    """heads: [14, h, w] raw network output. Returns a list of (quad [4, 2] in input px, score).
    A regressed corner snaps to a corner peak of its type within max(snap_radius, snap_frac x the
    regressed quad's shortest side) output px."""
    centre = _sigmoid(heads[0])
    corners = _sigmoid(heads[9:13])
    cpeaks = [_peaks(corners[k], 0.1, 100) for k in range(4)]
    quads = []
    for (y, x, _sx, _sy, v) in _peaks(centre, threshold):
        q = np.array([x, y], np.float64) + heads[1:9, y, x].reshape(4, 2) * OFFSET_SCALE
        side = float(np.hypot(*(np.roll(q, -1, axis=0) - q).T).min())
        radius = max(snap_radius, snap_frac * side)
        for k in range(4):
            best, bd = None, radius
            for (_py, _px, px, py, pv) in cpeaks[k]:
                d = math.hypot(px - q[k, 0], py - q[k, 1])
                if d <= bd:
                    best, bd = (px, py), d
            if best is not None:
                q[k] = best
        quads.append((q, v))
    kept = []
    for q, v in quads:  # strongest first (peaks are sorted)
        if all(np.abs(q - k[0]).max() > 2.0 for k in kept):
            kept.append((q, v))
    return [(to_in(q), v) for q, v in kept]


# ----------------------------------------------------------------------------- data

class ShardStream:
    """Scenes in a deterministic order, a function of (seed, position) only (so a resumed run
    sees what an uninterrupted one would): each epoch permutes the shards, takes them in groups
    of `group` and permutes the scenes within a group (only `group` shards in memory)."""

    def __init__(self, paths, seed, group=8):
        import finder_data
        self.fd = finder_data
        self.paths = sorted(paths)
        self.seed, self.group = seed, group
        z = np.load(self.paths[0])
        self.per = len(z["counts"])
        self.N = self.per * len(self.paths)
        self.cache = {}
        self.epoch_order = {}

    def _order(self, epoch):
        if epoch not in self.epoch_order:
            rng = np.random.default_rng([self.seed, epoch, 17])
            sh = rng.permutation(len(self.paths))
            seq = []
            for g in range(0, len(sh), self.group):
                ids = np.concatenate([np.arange(self.per) + s * self.per for s in sh[g:g + self.group]])
                seq.append(ids[rng.permutation(len(ids))])
            self.epoch_order = {epoch: np.concatenate(seq)}
        return self.epoch_order[epoch]

    def _shard(self, s):
        if s not in self.cache:
            if len(self.cache) >= self.group + 2:
                self.cache.pop(next(iter(self.cache)))
            z = np.load(self.paths[s])
            qs, o = [], 0
            for c in z["counts"]:
                qs.append(z["quads"][o:o + c])
                o += c
            self.cache[s] = (z["images"], qs, [str(k) for k in z["kinds"]])
        return self.cache[s]

    def item(self, pos):
        epoch, i = divmod(pos, self.N)
        sid = int(self._order(epoch)[i])
        ims, qs, ks = self._shard(sid // self.per)
        return ims[sid % self.per], qs[sid % self.per], ks[sid % self.per]


def make_batch(items, rng, train=True):
    """items: [(uint8 [H,W,3], quads)] -> torch tensors (x, heat, off, offw, npos)."""
    import torch
    xs, hs, os_, ws = [], [], [], []
    npos = 0
    for img, q in items:
        img = np.asarray(img)
        if train and rng.random() < 0.5:
            img, q = hflip(img, q)
        x = img.astype(np.float32) / 255.0
        if train:  # photometric jitter on top of the engine's camera
            x = x * rng.uniform(0.8, 1.2) * rng.uniform(0.93, 1.07, 3).astype(np.float32) + rng.uniform(-0.06, 0.06)
            x = np.clip(x, 0, 1)
        H, W = x.shape[:2]
        heat, off, offw = make_targets(q, H // STRIDE, W // STRIDE)
        npos += len(q)
        xs.append(np.ascontiguousarray(x.transpose(2, 0, 1)))
        hs.append(heat)
        os_.append(off)
        ws.append(offw)
    t = lambda a: torch.from_numpy(np.stack(a))
    return t(xs), t(hs), t(os_), t(ws), npos


# ----------------------------------------------------------------------------- evaluation

def match(truths, dets, tol):
    """Greedy: each truth to the unused detection with the smallest max corner error <= tol."""
    used, errs = set(), []
    found = 0
    for t in truths:
        best, be = None, tol
        for j, (q, _s) in enumerate(dets):
            if j in used:
                continue
            e = float(np.hypot(*(q - t).T).max())
            if e <= be:
                best, be = j, e
        if best is not None:
            used.add(best)
            found += 1
            errs.append(float(np.hypot(*(dets[best][0] - t).T).mean()))
    return found, errs, len(dets) - len(used)


def evaluate(model, paths, threshold=0.3, bf16=False, limit=None, log=print, data=None, diag=None):
    """paths: finder_data shards; or data = (images, quads, kinds) already loaded; diag: the
    image diagonal the 3 % tolerance is taken of (default: the arrays' own)."""
    import torch
    from finder_data import load_shards
    ims, qs, ks = data if data is not None else load_shards(sorted(paths))
    if limit:
        ims, qs, ks = ims[:limit], qs[:limit], ks[:limit]
    H, W = ims.shape[1:3]
    diag = diag or math.hypot(W, H)
    tol, strict = 0.03 * diag, 5.0 * W / 320
    model.eval()
    per = {}
    fp_scenes = negs = extra = 0
    errs_all = []
    with torch.no_grad():
        for b in range(0, len(ims), 16):
            x = torch.from_numpy(np.ascontiguousarray(ims[b:b + 16].transpose(0, 3, 1, 2))).float() / 255
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                out = model(x)
            out = out.float().numpy()
            for j in range(out.shape[0]):
                dets = decode(out[j], threshold)
                truth, kind = qs[b + j], ks[b + j]
                if len(truth) == 0:
                    negs += 1
                    fp_scenes += bool(dets)
                    continue
                f, errs, ex = match(list(truth), dets, tol)
                fs, _e, _x = match(list(truth), dets, strict)
                extra += ex
                errs_all += errs
                r = per.setdefault(kind, [0, 0, 0])
                r[0] += f
                r[1] += len(truth)
                r[2] += fs
    model.train()
    found = sum(r[0] for r in per.values())
    total = sum(r[1] for r in per.values())
    fstrict = sum(r[2] for r in per.values())
    res = {"found": found, "truths": total, "rate": found / max(1, total), "rate_strict": fstrict / max(1, total),
           "fp_negatives": fp_scenes, "negatives": negs, "extra_on_positives": extra,
           "mean_corner_err_640": 2 * float(np.mean(errs_all)) * 320 / W if errs_all else None,
           "per_kind": {k: round(v[0] / max(1, v[1]), 3) for k, v in sorted(per.items())}}
    return res


def load_scene_dir(d, width=320):
    """A make_rectangle_scenes.py folder at working size: ((images, quads, kinds), height before
    padding). Each photo is
    box-downscaled to `width` (1280x720 -> 320x180), edge-padded at the bottom/right to a
    multiple of 16 (the net's 1/16 level), truth mapped as p_w = (p + 0.5) / f - 0.5."""
    import json as _json
    from PIL import Image
    entries = _json.load(open(os.path.join(d, "scenes.json")))
    ims, qs, ks = [], [], []
    for e in entries:
        im = Image.open(os.path.join(d, e["file"])).convert("RGB")
        f = im.width / width
        h = int(round(im.height / f))
        a = np.asarray(im.resize((width, h), Image.Resampling.BOX))
        ph = (-h) % 16
        a = np.pad(a, ((0, ph), (0, 0), (0, 0)), mode="edge")
        truth = e.get("quads") or ([e["quad"]] if e.get("quad") else [])
        qs.append(np.array([(np.asarray(q, np.float64) + 0.5) / f - 0.5 for q in truth], np.float32).reshape(-1, 4, 2))
        ims.append(a)
        hk = e.get("params", {}).get("hard_kind")
        ks.append(hk or ("mixed" if e["kind"] == "positive" else "negative"))
    return (np.stack(ims), qs, ks), h


def print_eval(res):
    print(f"found {res['found']}/{res['truths']} = {100 * res['rate']:.1f} % (corners within 3 % of the diagonal); "
          f"strict (10 px at 640x480) {100 * res['rate_strict']:.1f} %")
    print(f"false positives: {res['fp_negatives']}/{res['negatives']} negative scenes; "
          f"{res['extra_on_positives']} extra quads on positive scenes; mean corner error "
          f"{res['mean_corner_err_640'] if res['mean_corner_err_640'] is None else round(res['mean_corner_err_640'], 2)} px at 640x480")
    for k, v in res["per_kind"].items():
        print(f"  {k:20s} {100 * v:5.1f} %")


# ----------------------------------------------------------------------------- training

def bf16_supported():
    """bf16 autocast only where AMX tiles are: on this VM (avx512_bf16, no amx) bf16 trained
    slower than fp32 (`speed`: 43.7 vs 46.6 img/s), so `--bf16 auto` keeps fp32 here."""
    return "amx_bf16" in open("/proc/cpuinfo").read()


def seed_all(seed):
    import torch
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def lr_at(step, total, base, warm=200):
    if step < warm:
        return base * (step + 1) / warm
    t = min(1.0, (step - warm) / max(1, total - warm))
    return base * (0.03 + 0.97 * 0.5 * (1 + math.cos(math.pi * t)))


def save_atomic(obj, path):
    import torch
    tmp = path + ".tmp"
    torch.save(obj, tmp)
    os.replace(tmp, path)


def train(args):
    import glob
    import torch
    torch.set_num_threads(args.threads)
    seed_all(args.seed)
    # SEED.npz only (a shard being written is SEED.npz.tmp.npz)
    paths = sorted(p for p in glob.glob(os.path.join(args.data, "*.npz")) if os.path.basename(p)[:-4].isdigit())
    for p in paths:
        s = int(os.path.basename(p).split(".")[0])
        if not 5000 <= s <= 5999:
            sys.exit(f"error: {p}: training uses seeds 5000-5999 only")
    dev = sorted(p for p in glob.glob(os.path.join(args.dev, "*.npz")) if os.path.basename(p)[:-4].isdigit()) if args.dev else []
    for p in dev:
        s = int(os.path.basename(p).split(".")[0])
        if not 6000 <= s <= 6099:
            sys.exit(f"error: {p}: development seeds are 6000-6099")
    ck = torch.load(args.resume, map_location="cpu", weights_only=False) if args.resume else None
    context = ck.get("config", {}).get("context", 0) if ck else args.context
    model = build_model(context)
    if args.init and not args.resume:  # warm start: the checkpoint's weights; new context blocks start as identities
        init = torch.load(args.init, map_location="cpu", weights_only=False)["model"]
        missing, unexpected = model.load_state_dict(init, strict=False)
        if unexpected or any(not k.startswith("ctx.") for k in missing):
            sys.exit(f"error: {args.init} does not fit the model: missing {missing}, unexpected {unexpected}")
        print(f"initialised from {args.init} ({len(missing)} new tensors)", flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: lr_at(s, args.steps, 1.0))
    step = 0
    if ck:
        model.load_state_dict(ck["model"])
        step = ck["step"]
        if "opt" in ck:
            opt.load_state_dict(ck["opt"])
            sched.load_state_dict(ck["sched"])
        else:  # the repo's weights-only copy: Adam's moments start again (not an exact resume)
            print("note: weights-only checkpoint: the optimizer starts afresh at the schedule's step", flush=True)
            for _ in range(step):
                opt.step()  # no gradients: only moves the scheduler's counter legally
                sched.step()
        random.setstate(ck["rng"]["python"])
        np.random.set_state(ck["rng"]["numpy"])
        torch.set_rng_state(ck["rng"]["torch"])
        print(f"resumed {args.resume} at step {step}", flush=True)
    bf16 = bf16_supported() if args.bf16 == "auto" else args.bf16 == "on"
    stream = ShardStream(paths, args.seed)
    os.makedirs(args.ckpt_dir, exist_ok=True)
    log_path = args.log or os.path.join(args.ckpt_dir, "train_log.jsonl")
    logf = open(log_path, "a")
    logf.write(json.dumps({"event": "start", "step": step, "args": vars(args), "bf16": bf16,
                           "shards": len(paths), "scenes": stream.N, "time": time.time()}) + "\n")
    logf.flush()
    t_start = time.time()
    t_ck = time.time()
    t_win, n_win = time.time(), 0
    model.train()

    def checkpoint(final=False):
        ck = {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "step": step,
              "rng": {"python": random.getstate(), "numpy": np.random.get_state(), "torch": torch.get_rng_state()},
              "args": vars(args), "config": {"offset_scale": OFFSET_SCALE, "stride": STRIDE, "channels": CH, "context": context}}
        path = os.path.join(args.ckpt_dir, "last.pt")
        save_atomic(ck, path)
        shutil.copyfile(path, os.path.join(args.ckpt_dir, f"step{step:06d}.pt"))
        if args.repo_copy:
            if os.path.getsize(path) < 5e6:
                shutil.copyfile(path, args.repo_copy + ".tmp")
            else:  # weights only (Adam's moments double it)
                save_atomic({k: v for k, v in ck.items() if k != "opt"}, args.repo_copy + ".tmp")
            os.replace(args.repo_copy + ".tmp", args.repo_copy)
        entry = {"event": "checkpoint", "step": step, "minutes": (time.time() - t_start) / 60}
        if dev:
            res = evaluate(model, dev, bf16=False, limit=args.dev_limit)
            entry["dev"] = res
            print(f"step {step} dev: {100 * res['rate']:.1f} % found, strict {100 * res['rate_strict']:.1f} %, "
                  f"fp {res['fp_negatives']}/{res['negatives']}, {res['per_kind']}", flush=True)
        logf.write(json.dumps(entry) + "\n")
        logf.flush()

    while step < min(args.steps, args.stop_after or args.steps):
        if (time.time() - t_start) / 60 >= args.minutes:
            break
        rng = np.random.default_rng([args.seed, step, 5])
        items = [stream.item(step * args.batch + i)[:2] for i in range(args.batch)]
        x, heat, off, offw, npos = make_batch(items, rng)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            out = model(x)
        parts = losses(out, heat, off, offw, npos)
        loss = parts["centre"] + parts["corner"] + OFFSET_WEIGHT * parts["offset"] + parts["outline"]
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        opt.step()
        sched.step()
        step += 1
        n_win += args.batch
        if step % args.log_every == 0 or step == 1:
            dt = time.time() - t_win
            rec = {"step": step, "loss": float(loss.detach()), **{k: round(float(v), 5) for k, v in parts.items()},
                   "lr": opt.param_groups[0]["lr"], "img_s": round(n_win / max(dt, 1e-9), 2),
                   "minutes": round((time.time() - t_start) / 60, 2)}
            logf.write(json.dumps(rec) + "\n")
            logf.flush()
            print(json.dumps(rec), flush=True)
            t_win, n_win = time.time(), 0
        if not math.isfinite(float(loss)):
            sys.exit(f"loss not finite at step {step}")
        if (time.time() - t_ck) / 60 >= args.ckpt_minutes:
            checkpoint()
            t_ck = time.time()
            t_win, n_win = time.time(), 0
    checkpoint(final=True)
    logf.write(json.dumps({"event": "end", "step": step, "minutes": (time.time() - t_start) / 60}) + "\n")
    logf.close()


def smoke():
    """One step on a tiny batch rendered on the fly (no shards needed); loss finite."""
    import torch
    import finder_data
    torch.set_num_threads(2)
    seed_all(0)
    t = time.time()
    items = [finder_data.render_scene(5000, i, 128, 96)[:2] for i in range(2)]
    model = build_model()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    x, heat, off, offw, npos = make_batch(items, np.random.default_rng(0))
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16_supported()):
        out = model(x)
    parts = losses(out, heat, off, offw, npos)
    loss = sum(parts.values())
    loss.backward()
    opt.step()
    assert out.shape == (2, CH, 24, 32), out.shape
    assert math.isfinite(float(loss.detach())), parts
    decode(out[0].detach().float().numpy())
    print(f"smoke ok: loss {float(loss):.3f} ({', '.join(f'{k} {float(v):.3f}' for k, v in parts.items())}) "
          f"in {time.time() - t:.1f} s")


def speed(args):
    import torch
    import finder_data
    torch.set_num_threads(args.threads)
    seed_all(0)
    W, H = (int(v) for v in args.size.split("x"))
    items = [finder_data.render_scene(5000, i, W, H)[:2] for i in range(args.batch)]
    x, heat, off, offw, npos = make_batch(items, np.random.default_rng(0))
    for bf16 in (False, True):
        model = build_model()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
        times = []
        for it in range(args.iters + 2):
            t = time.time()
            with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
                out = model(x)
            loss = sum(losses(out, heat, off, offw, npos).values())
            opt.zero_grad()
            loss.backward()
            opt.step()
            if it >= 2:
                times.append(time.time() - t)
        print(f"{'bf16' if bf16 else 'fp32'}: {args.batch / np.median(times):.1f} img/s at {W}x{H}, batch {args.batch}, "
              f"{args.threads} threads (median of {args.iters} steps; {np.median(times):.2f} s/step)", flush=True)


def export(args):
    import torch
    model, ck = load_model(args.ckpt)
    model.eval()
    W, H = (int(v) for v in args.size.split("x"))
    x = torch.zeros(1, 3, H, W)
    kw = dict(input_names=["input"], output_names=["heads"], opset_version=13, do_constant_folding=True)
    try:
        torch.onnx.export(model, (x,), args.out, dynamo=False, **kw)
    except TypeError:
        torch.onnx.export(model, (x,), args.out, **kw)
    print(f"wrote {args.out} ({os.path.getsize(args.out)} bytes)")
    try:
        import onnx
        import onnxruntime as ort
    except ImportError:
        print("onnxruntime not installed: parity not checked")
        return
    m = onnx.load(args.out)
    print("ops:", sorted({n.op_type for n in m.graph.node}))
    sess = ort.InferenceSession(args.out, providers=["CPUExecutionProvider"])
    import finder_data
    worst = 0.0
    for i in range(4):
        u8, _q, _ = finder_data.render_scene(6000, i, W, H)
        xi = torch.from_numpy(np.ascontiguousarray(u8.transpose(2, 0, 1)))[None].float() / 255
        with torch.no_grad():
            a = model(xi).numpy()
        b = sess.run(None, {"input": xi.numpy()})[0]
        worst = max(worst, float(np.abs(a - b).max()))
    print(f"onnxruntime vs torch: max |diff| {worst:.2e} over 4 scenes ({'ok' if worst <= 1e-4 else 'TOO LARGE'})")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("train")
    p.add_argument("--data", required=True)
    p.add_argument("--dev")
    p.add_argument("--dev-limit", type=int, default=None)
    p.add_argument("--ckpt-dir", required=True)
    p.add_argument("--repo-copy")
    p.add_argument("--log")
    p.add_argument("--steps", type=int, default=6000, help="length of the LR schedule (and a stop)")
    p.add_argument("--minutes", type=float, default=100.0, help="wall-clock stop")
    p.add_argument("--ckpt-minutes", type=float, default=10.0)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--bf16", choices=["auto", "on", "off"], default="auto")
    p.add_argument("--log-every", type=int, default=20)
    p.add_argument("--stop-after", type=int, default=0, help="stop at this step (the schedule stays --steps')")
    p.add_argument("--resume")
    p.add_argument("--init", help="warm start from this checkpoint's weights (a fresh optimizer and schedule)")
    p.add_argument("--context", type=int, default=0, help="context blocks at 1/16 (see build_model)")
    p = sub.add_parser("eval")
    p.add_argument("--ckpt", required=True)
    p.add_argument("--dev", required=True)
    p.add_argument("--threshold", type=float, default=0.3)
    p.add_argument("--threads", type=int, default=2)
    p = sub.add_parser("eval-scenes", help="make_rectangle_scenes.py folders at working size (development sets)")
    p.add_argument("--ckpt", required=True)
    p.add_argument("--threshold", type=float, default=0.3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("dirs", nargs="+")
    p = sub.add_parser("export")
    p.add_argument("--ckpt", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--size", default="320x240")
    sub.add_parser("smoke")
    p = sub.add_parser("speed")
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--iters", type=int, default=5)
    p.add_argument("--size", default="320x240")
    p = sub.add_parser("flops")
    p.add_argument("--context", type=int, default=0)
    args = ap.parse_args(argv)
    if args.cmd == "train":
        train(args)
    elif args.cmd == "smoke":
        smoke()
    elif args.cmd == "speed":
        speed(args)
    elif args.cmd == "flops":
        m = build_model(args.context)
        n = sum(p.numel() for p in m.parameters())
        for W, H in ((320, 240), (256, 192), (320, 192)):
            print(f"{n} parameters; {count_flops(m, W, H) / 1e9:.3f} GFLOP at {W}x{H} (conv multiply-adds x 2)")
    elif args.cmd == "eval":
        import glob
        import torch
        torch.set_num_threads(args.threads)
        model, _ = load_model(args.ckpt)
        print_eval(evaluate(model, sorted(glob.glob(os.path.join(args.dev, "*.npz"))), args.threshold))
    elif args.cmd == "export":
        export(args)
    elif args.cmd == "eval-scenes":
        import torch
        torch.set_num_threads(args.threads)
        model, _ = load_model(args.ckpt)
        for d in args.dirs:
            print(f"== {d}")
            data, h = load_scene_dir(d)
            print_eval(evaluate(model, None, args.threshold, data=data, diag=math.hypot(320, h)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
