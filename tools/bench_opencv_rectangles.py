#!/usr/bin/env python3
"""OpenCV peer for gpustyle's rectangle detection and perspective crop: speed, and (optionally)
detection quality on the rectangle fixture scenes.

Needs numpy and opencv-python-headless (pip). Usage:
    python3 tools/bench_opencv_rectangles.py [--runs 20] [--warmup 3] [--threads N]
                                             [--scenes DIR] [--no-rate] [--json]
    python3 tools/bench_opencv_rectangles.py --detect IMAGE      # one image, gpustyle's JSON

Work timed (wall clock, time.perf_counter, median of --runs after --warmup untimed runs, one
process, OpenCV's default thread count unless --threads):
  detect  OpenCV's samples/cpp/squares.cpp algorithm, faithfully: pyrDown + pyrUp to denoise;
          for each of the 3 colour planes and each of N = 11 levels: level 0 = Canny(0, 50,
          aperture 5) + dilate(3x3), level l > 0 = binary threshold at (l+1)*255/N; findContours
          (RETR_LIST, CHAIN_APPROX_SIMPLE); approxPolyDP(eps = 2 % of the perimeter); keep
          polygons with 4 vertices, |area| > 1000, convex, max |cos| of the corner angles < 0.3.
          A Python port, so the loop over the ~10k contours per image costs Python overhead that
          the C++ sample does not have (contours whose bounding box is <= 1000 px^2 are skipped
          before approxPolyDP, which cannot change the result); the OpenCV calls are native.
          Input: the first scene of --scenes resized (area) to 640x480 and 1920x1080 (BGR uint8).
  warp    cv2.getPerspectiveTransform + cv2.warpPerspective (INTER_LINEAR, BORDER_CONSTANT) of
          a 1920x1080 image onto a 1024x768 rectangle, the quad being that scene's ground truth
          scaled to 1920x1080 (only the warp is timed).

Detection rate: squares.cpp returns every square it finds; as a detector we drop those touching
the image border (within 1 px) and those failing Vision's defaults (shorter dimension, the mean
of two opposite sides, >= 0.2 of the image's shorter side; short/long >= 0.5), and take the
largest of the rest, corners ordered
top-left, top-right, bottom-right, bottom-left (clockwise on screen, the top-left one being the
corner nearest the -135 degree direction from the centroid). Contour points are pixel indices,
i.e. pixel centres at integer coordinates, the convention of the scenes. The rate, false
positives and corner errors are scored with tools/evaluate_rectangles.py's rules (tolerance 10 px)
at the scenes' own size (1280x720), in process.

--detect IMAGE prints the same JSON as `gpustyle detect --json IMAGE` (so it can also be driven
by `evaluate_rectangles.py --cmd "python3 tools/bench_opencv_rectangles.py --detect {image}"`).

--json prints {"peer": "opencv", "version": cv2.__version__, "threads": n,
 "results": [{"work": "detect", "size": "640x480", "median_ms": ..., "min_ms": ..., "runs": N},
             {"work": "detect", "size": "1920x1080", ...},
             {"work": "warp", "size": "1920x1080->1024x768", "median_ms": ..., ...}],
 "quality": {"scenes": DIR, "detection_rate": ..., "false_positive_rate": ...,
             "mean_corner_error_px": ..., "p95_corner_error_px": ..., "median_ms_1280x720": ...}}
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

import numpy as np

try:
    import cv2
except ImportError:  # pragma: no cover
    sys.exit("error: needs OpenCV: pip install opencv-python-headless")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evaluate_rectangles as ev  # noqa: E402

THRESH, N_LEVELS = 50, 11


def angle_cos(p0, p1, p2):
    """squares.cpp's angle(): cosine of the angle at p0 between p0->p1 and p0->p2."""
    d1, d2 = p1 - p0, p2 - p0
    return float(np.dot(d1, d2) / math.sqrt(float(np.dot(d1, d1)) * float(np.dot(d2, d2)) + 1e-10))


def find_squares(image):
    """squares.cpp findSquares(): list of 4x2 int arrays."""
    squares = []
    h, w = image.shape[:2]
    pyr = cv2.pyrDown(image, dstsize=(w // 2, h // 2))
    timg = cv2.pyrUp(pyr, dstsize=(w, h))
    for c in range(3):
        gray0 = np.ascontiguousarray(timg[:, :, c])
        for level in range(N_LEVELS):
            if level == 0:
                gray = cv2.Canny(gray0, 0, THRESH, apertureSize=5)
                gray = cv2.dilate(gray, None)
            else:  # gray0 >= t, as squares.cpp writes it
                gray = cv2.threshold(gray0, (level + 1) * 255 // N_LEVELS - 1, 255, cv2.THRESH_BINARY)[1]
            contours, _ = cv2.findContours(gray, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
            for cnt in contours:
                # Shortcut with the same result, to cut Python overhead (~10k contours per image):
                # the polygon's vertices are contour points, so its area <= the bounding box's.
                if len(cnt) < 4:
                    continue
                _, _, bw, bh = cv2.boundingRect(cnt)
                if bw * bh <= 1000:
                    continue
                approx = cv2.approxPolyDP(cnt, cv2.arcLength(cnt, True) * 0.02, True)
                if len(approx) == 4 and abs(cv2.contourArea(approx)) > 1000 and cv2.isContourConvex(approx):
                    pts = approx.reshape(4, 2).astype(np.float64)
                    max_cos = max(abs(angle_cos(pts[(j - 1) % 4], pts[j % 4], pts[(j - 2) % 4]))
                                  for j in range(2, 5))
                    if max_cos < 0.3:
                        squares.append(approx.reshape(4, 2))
    return squares


def order_corners(q):
    """TL, TR, BR, BL (clockwise on screen, y down)."""
    q = np.asarray(q, np.float64)
    c = q.mean(axis=0)
    ang = np.arctan2(q[:, 1] - c[1], q[:, 0] - c[0])
    q = q[np.argsort(ang)]  # increasing angle = clockwise on screen
    ang = np.sort(ang)
    start = int(np.argmin(np.abs(np.angle(np.exp(1j * (ang + 3 * math.pi / 4))))))
    return np.roll(q, -start, axis=0)


def detect(image):
    """squares.cpp's squares filtered like Vision's defaults, the largest one as ordered corners,
    or None."""
    h, w = image.shape[:2]
    best, best_area = None, 0.0
    for sq in find_squares(image):
        q = sq.astype(np.float64)
        if q[:, 0].min() <= 1 or q[:, 1].min() <= 1 or q[:, 0].max() >= w - 2 or q[:, 1].max() >= h - 2:
            continue  # touches the image border: a threshold blob cut by the frame, not an object
        sides = np.hypot(*(np.roll(q, -1, axis=0) - q).T)
        dims = sorted([0.5 * (sides[0] + sides[2]), 0.5 * (sides[1] + sides[3])])
        if dims[0] < 0.2 * min(w, h) or dims[0] / dims[1] < 0.5:
            continue  # Vision's minimumSize 0.2 and minimumAspectRatio 0.5
        a = abs(cv2.contourArea(sq.astype(np.float32)))
        if a > best_area:
            best, best_area = sq, a
    return None if best is None else order_corners(best)


def detect_json(path):
    image = cv2.imread(path, cv2.IMREAD_COLOR)
    if image is None:
        print(f"error: cannot read {path}", file=sys.stderr)
        return 2
    h, w = image.shape[:2]
    q = detect(image)
    obs = []
    if q is not None:
        keys = ev.CORNER_KEYS
        corners = {k: [float(x), float(y)] for k, (x, y) in zip(keys, q)}
        norm = {k: [(x + 0.5) / w, 1 - (y + 0.5) / h] for k, (x, y) in corners.items()}
        x0, y0 = q.min(axis=0)
        x1, y1 = q.max(axis=0)
        obs.append({"corners": corners, "normalized": norm, "confidence": 1.0,
                    "boundingBox": [float(x0), float(y0), float(x1 - x0), float(y1 - y0)]})
    print(json.dumps({"width": w, "height": h, "observations": obs}))
    return 0


def timeit(fn, runs, warmup):
    for _ in range(warmup):
        fn()
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t0) * 1000)
    return {"median_ms": round(statistics.median(ts), 3), "min_ms": round(min(ts), 3), "runs": runs}


def quality(scenes_dir, tol=10.0):
    with open(os.path.join(scenes_dir, "scenes.json")) as f:
        manifest = json.load(f)
    results, times = [], []
    for e in manifest:
        img = cv2.imread(os.path.join(scenes_dir, e["file"]), cv2.IMREAD_COLOR)
        t0 = time.perf_counter()
        q = detect(img)
        times.append((time.perf_counter() - t0) * 1000)
        r = ev.score_scene(e, None if q is None else q.tolist(), tol)
        r["ms"] = times[-1]
        results.append(r)
    s = ev.summarize(results)
    tags = {t: ev.summarize([r for r in results if t in r["tags"]])
            for t in sorted({t for r in results for t in r["tags"]})}
    return s, tags, results


def main(argv=None):
    ap = argparse.ArgumentParser(description="OpenCV peer: squares.cpp detection and warpPerspective timings.")
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", type=int, help="cv2.setNumThreads (default: OpenCV's own)")
    ap.add_argument("--scenes", default=ev.DEFAULT_SCENES, help="scenes folder (scenes.json)")
    ap.add_argument("--no-rate", action="store_true", help="skip the detection-rate run on the scenes")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--detect", metavar="IMAGE", help="detect in one image and print gpustyle-style JSON")
    args = ap.parse_args(argv)
    if args.threads is not None:
        cv2.setNumThreads(args.threads)
    if args.detect:
        return detect_json(args.detect)

    with open(os.path.join(args.scenes, "scenes.json")) as f:
        manifest = json.load(f)
    first = next(e for e in manifest if e["kind"] == "positive")
    src = cv2.imread(os.path.join(args.scenes, first["file"]), cv2.IMREAD_COLOR)
    sh, sw = src.shape[:2]
    results = []
    for W, H in [(640, 480), (1920, 1080)]:
        img = cv2.resize(src, (W, H), interpolation=cv2.INTER_AREA if W < sw else cv2.INTER_LINEAR)
        r = timeit(lambda: find_squares(img), args.runs, args.warmup)
        results.append({"work": "detect", "size": f"{W}x{H}", **r, "squares_found": len(find_squares(img))})
    big = cv2.resize(src, (1920, 1080), interpolation=cv2.INTER_LINEAR)
    sx, sy = 1920 / sw, 1080 / sh
    quad = np.array([[(x + 0.5) * sx - 0.5, (y + 0.5) * sy - 0.5] for x, y in first["quad"]], np.float32)
    dst = np.array([[-0.5, -0.5], [1023.5, -0.5], [1023.5, 767.5], [-0.5, 767.5]], np.float32)
    M = cv2.getPerspectiveTransform(quad, dst)
    r = timeit(lambda: cv2.warpPerspective(big, M, (1024, 768), flags=cv2.INTER_LINEAR,
                                           borderMode=cv2.BORDER_CONSTANT), args.runs, args.warmup)
    results.append({"work": "warp", "size": "1920x1080->1024x768", **r})
    out = {"peer": "opencv", "version": cv2.__version__, "threads": cv2.getNumThreads(), "results": results}

    if not args.no_rate:
        s, tags, _ = quality(args.scenes)
        out["quality"] = {"scenes": os.path.relpath(args.scenes), "tolerance_px": 10.0,
                          "positives": s["positives"], "negatives": s["negatives"],
                          "detection_rate": s["detection_rate"], "false_positive_rate": s["false_positive_rate"],
                          "mean_corner_error_px": s["mean_corner_error_px"],
                          "p95_corner_error_px": s["p95_corner_error_px"],
                          "wrong": s["wrong"], "missed": s["missed"],
                          "median_ms_1280x720": s["median_ms"],
                          "tags": {t: {"n": v["positives"] + v["negatives"], "detected": v["detected"],
                                       "false_positives": v["false_positives"]} for t, v in tags.items()}}
    if args.json:
        json.dump(out, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    print(f"OpenCV {out['version']}, {out['threads']} thread(s); median of {args.runs} runs after {args.warmup} warm-up")
    print(f"{'work':8s} {'size':22s} {'median ms':>10s} {'min ms':>9s}")
    for r in results:
        print(f"{r['work']:8s} {r['size']:22s} {r['median_ms']:10.2f} {r['min_ms']:9.2f}")
    if "quality" in out:
        q = out["quality"]
        f = lambda v, spec: "-" if v is None else format(v, spec)
        print(f"\nsquares.cpp as a detector on {q['scenes']} ({q['positives']} positives, {q['negatives']} negatives,"
              f" 1280x720, tolerance 10 px):")
        print(f"  detection rate {f(q['detection_rate'] * 100, '.1f')}% (wrong corners {q['wrong']}, missed {q['missed']}),"
              f" false positives {f(q['false_positive_rate'] * 100, '.1f')}%,"
              f" corner error mean {f(q['mean_corner_error_px'], '.2f')} px, p95 {f(q['p95_corner_error_px'], '.2f')} px,"
              f" median {f(q['median_ms_1280x720'], '.1f')} ms/image")
    return 0


if __name__ == "__main__":
    sys.exit(main())
