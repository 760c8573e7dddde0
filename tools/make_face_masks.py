#!/usr/bin/env python3
"""Draw the bundled face masks (examples/masks/*.png, RGBA) for `gpustyle faces --mask`.

    python3 tools/make_face_masks.py [--out examples/masks]

Each is drawn here with Pillow from ellipses and polygons (no copied art), at 4x and reduced
(antialiased edges), transparent outside the shape:
  eye.png      a cartoon eye: white, a blue iris, a black pupil, a highlight (for leftEye, rightEye)
  lips.png     red lips with a darker parting line (for outerLips)
  eyebrow.png  a thick dark arch (for leftEyebrow, rightEyebrow)
  face.png     a half-transparent golden oval with a rim (for faceContour)
"""
import argparse
import os

from PIL import Image, ImageDraw

S = 4  # supersampling


def canvas(w, h):
    return Image.new("RGBA", (w * S, h * S), (0, 0, 0, 0))


def done(img, w, h, path):
    img.resize((w, h), Image.LANCZOS).save(path, optimize=True)
    print(f"wrote {path}")


def eye(path):
    w, h = 160, 80
    img = canvas(w, h)
    d = ImageDraw.Draw(img)
    d.ellipse([2 * S, 2 * S, (w - 2) * S, (h - 2) * S], fill=(250, 250, 250, 255), outline=(30, 30, 30, 255), width=3 * S)
    r = 30
    d.ellipse([(w / 2 - r) * S, (h / 2 - r) * S, (w / 2 + r) * S, (h / 2 + r) * S], fill=(40, 110, 220, 255))
    r = 13
    d.ellipse([(w / 2 - r) * S, (h / 2 - r) * S, (w / 2 + r) * S, (h / 2 + r) * S], fill=(10, 10, 10, 255))
    r = 6
    d.ellipse([(w / 2 + 6 - r) * S, (h / 2 - 10 - r) * S, (w / 2 + 6 + r) * S, (h / 2 - 10 + r) * S], fill=(255, 255, 255, 255))
    done(img, w, h, path)


def lips(path):
    w, h = 200, 90
    img = canvas(w, h)
    d = ImageDraw.Draw(img)
    upper = [(2, 45), (40, 18), (80, 10), (100, 20), (120, 10), (160, 18), (198, 45)]
    lower = [(198, 45), (160, 72), (100, 86), (40, 72), (2, 45)]
    d.polygon([(x * S, y * S) for x, y in upper + lower], fill=(200, 20, 50, 255))
    d.line([(x * S, y * S) for x, y in [(8, 45), (60, 50), (100, 52), (140, 50), (192, 45)]], fill=(110, 0, 20, 255), width=4 * S)
    done(img, w, h, path)


def eyebrow(path):
    w, h = 200, 60
    img = canvas(w, h)
    d = ImageDraw.Draw(img)
    d.polygon([(x * S, y * S) for x, y in [(2, 50), (40, 14), (100, 4), (160, 12), (198, 40), (160, 30), (100, 24), (40, 34)]],
              fill=(45, 30, 20, 255))
    done(img, w, h, path)


def face(path):
    w, h = 200, 240
    img = canvas(w, h)
    d = ImageDraw.Draw(img)
    d.ellipse([2 * S, 2 * S, (w - 2) * S, (h - 2) * S], fill=(255, 200, 40, 110), outline=(255, 160, 0, 255), width=6 * S)
    done(img, w, h, path)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "masks"))
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    eye(os.path.join(a.out, "eye.png"))
    lips(os.path.join(a.out, "lips.png"))
    eyebrow(os.path.join(a.out, "eyebrow.png"))
    face(os.path.join(a.out, "face.png"))


if __name__ == "__main__":
    main()
