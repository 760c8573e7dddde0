#!/usr/bin/env python3
"""Generated text scenes with ground truth, for `gpustyle text` (docs/text.md).

    python3 tools/make_text_scenes.py --seed 100-101 --count 40 --out /work/textscenes/dev
    python3 tools/make_text_scenes.py --seed 9001-9003 --count 60 --out /work/textscenes/heldout
    python3 tools/make_text_scenes.py --seed 7 --count 6 --max-side 640 --max-bytes 60000 \
        --kinds sign,poster,label,document,photo,negative --out Tests/GPUStyleTests/Fixtures/text

What it makes. Each scene is one of the kinds sign, poster, label, document (a page of rows),
photo (text drawn straight onto a photo) or negative (no text; about 10% of scenes unless
--kinds says otherwise). Text is laid out flat on a "surface" (a board, a page, a tag or a
transparent layer), then the surface goes into the picture through one homography: a
perspective tilt of the surface plane up to 35 degrees (pinhole camera, distance 1.2-3x the
surface size), an in-plane rotation up to +-25 degrees, a scale near 1 and a translation. Then
the whole picture gets, at random, a lighting gradient, a Gaussian blur, Gaussian noise and
JPEG compression at quality 60-95 (about 20% of scenes are saved as PNG, without JPEG).
Sizes are 640-1600 px a side (--max-side caps them); line heights 12-120 px.

Truth, DIR/scene-XXXX.json:
  {"file", "width", "height", "kind", "seed", "index",
   "lines": [{"quad": [[x,y] x4: TL, TR, BR, BL in reading direction], "string": "...",
              "height_px": h, "font": "file name", "package": "Debian package",
              "characters": [{"quad": [[x,y] x4], "character": "A"}, ...]}]}
Coordinates are continuous pixel coordinates (pixel (i, j) covers [i, i+1] x [j, j+1]).
A line's quad is the ink box of its characters in the surface's own frame (no margin) put
through the scene's homography. height_px is the text size, not the ink height: the box from
the top of the font's "H" to the bottom of its "g" over the line's width, through the same
homography, mean of its left and right edges (a line "on a new" has an ink box about half as
tall; a line in capitals about 0.75).
A character's quad is its glyph's ink box (the bounding box of the pixels FreeType draws for
it, from ImageFont.getmask2 at render time, outline stroke included when there is one) put
through the same homography. Spaces have no entry in "characters"; all other characters
appear in reading order. Lines are single words or short phrases (signs, posters, labels,
captions) or whole rows of a page (documents). DIR/index.json lists the scenes.

Determinism: scene j of seed S is drawn from numpy.random.default_rng([S, j]) alone, so a
scene does not depend on --count; with a seed range (100-101) the scenes are split evenly
over the seeds and numbered scene-0000... in order. Pillow's BASIC layout engine is used.

Fonts: picked by file path from these Debian packages (missing files are skipped with a
message on stderr; at least one must exist): fonts-dejavu-core, fonts-dejavu-extra,
fonts-liberation2, fonts-freefont-ttf, fonts-noto-core, fonts-urw-base35,
fonts-crosextra-carlito, fonts-crosextra-caladea, fonts-croscore. Install with
    apt-get install -y fonts-dejavu fonts-liberation2 fonts-freefont-ttf fonts-noto-core \
        fonts-urw-base35 fonts-crosextra-carlito fonts-crosextra-caladea fonts-croscore
Text is Latin only (A-Z a-z 0-9 and ASCII punctuation, which PP-OCRv6's dictionary covers):
words from the built-in WORDS list below (written for this script) and generated numbers,
prices, dates, times, codes, phone numbers and web addresses.

Backgrounds: the photos in Tests/GPUStyleTests/Fixtures/faces (those without visible text;
their sources and licences are in that folder's NOTICE) and examples/photo.png, scaled to
cover the picture, or generated gradients and textures.

Measured: the dev set (--seed 100-101 --count 40) takes 61 s and 360 MB under nice on 2 shared
vCPUs (load about 8), about 1.5 s a scene; run twice, its pictures are byte-identical. The
reference (tools/text_reference.py) finds 99.2% of dev's 260 lines and 98.4% of held-out's
322 (docs/text.md).
Needs numpy and Pillow.
"""
import argparse
import io
import json
import math
import pathlib
import sys

import numpy as np
from PIL import Image, ImageDraw, ImageFilter, ImageFont

ROOT = pathlib.Path(__file__).resolve().parent.parent

# (Debian package, font file). Regular, bold, italic, condensed, serif, mono and display faces.
FONT_FILES = [
    ("fonts-dejavu-core", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"),
    ("fonts-dejavu-core", "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"),
    ("fonts-dejavu-core", "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"),
    ("fonts-dejavu-core", "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"),
    ("fonts-dejavu-extra", "/usr/share/fonts/truetype/dejavu/DejaVuSansCondensed-Bold.ttf"),
    ("fonts-dejavu-extra", "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Italic.ttf"),
    ("fonts-liberation2", "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf"),
    ("fonts-liberation2", "/usr/share/fonts/truetype/liberation2/LiberationSans-Bold.ttf"),
    ("fonts-liberation2", "/usr/share/fonts/truetype/liberation2/LiberationSerif-Regular.ttf"),
    ("fonts-liberation2", "/usr/share/fonts/truetype/liberation2/LiberationSerif-Bold.ttf"),
    ("fonts-liberation2", "/usr/share/fonts/truetype/liberation2/LiberationMono-Regular.ttf"),
    ("fonts-freefont-ttf", "/usr/share/fonts/truetype/freefont/FreeSans.ttf"),
    ("fonts-freefont-ttf", "/usr/share/fonts/truetype/freefont/FreeSansBold.ttf"),
    ("fonts-freefont-ttf", "/usr/share/fonts/truetype/freefont/FreeSerif.ttf"),
    ("fonts-freefont-ttf", "/usr/share/fonts/truetype/freefont/FreeMonoBold.ttf"),
    ("fonts-noto-core", "/usr/share/fonts/truetype/noto/NotoSans-Regular.ttf"),
    ("fonts-noto-core", "/usr/share/fonts/truetype/noto/NotoSans-Bold.ttf"),
    ("fonts-noto-core", "/usr/share/fonts/truetype/noto/NotoSans-Italic.ttf"),
    ("fonts-noto-core", "/usr/share/fonts/truetype/noto/NotoSerif-Regular.ttf"),
    ("fonts-noto-core", "/usr/share/fonts/truetype/noto/NotoSansDisplay-Bold.ttf"),
    ("fonts-noto-core", "/usr/share/fonts/truetype/noto/NotoSerif-Bold.ttf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/NimbusSans-Regular.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/NimbusSans-Bold.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/NimbusSansNarrow-Bold.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/NimbusRoman-Regular.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/URWGothic-Demi.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/URWBookman-Light.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/C059-Roman.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/P052-Bold.otf"),
    ("fonts-urw-base35", "/usr/share/fonts/opentype/urw-base35/NimbusMonoPS-Regular.otf"),
    ("fonts-crosextra-carlito", "/usr/share/fonts/truetype/crosextra/Carlito-Regular.ttf"),
    ("fonts-crosextra-carlito", "/usr/share/fonts/truetype/crosextra/Carlito-Bold.ttf"),
    ("fonts-crosextra-caladea", "/usr/share/fonts/truetype/crosextra/Caladea-Regular.ttf"),
    ("fonts-croscore", "/usr/share/fonts/truetype/croscore/Arimo-Regular.ttf"),
    ("fonts-croscore", "/usr/share/fonts/truetype/croscore/Arimo-Bold.ttf"),
    ("fonts-croscore", "/usr/share/fonts/truetype/croscore/Tinos-Regular.ttf"),
    ("fonts-croscore", "/usr/share/fonts/truetype/croscore/Cousine-Regular.ttf"),
]

# Photos without visible text, used as backgrounds (relative to the repository).
BACKGROUND_PHOTOS = [
    "Tests/GPUStyleTests/Fixtures/faces/01-camera.jpg",
    "Tests/GPUStyleTests/Fixtures/faces/03-coffee-faces.jpg",
    "Tests/GPUStyleTests/Fixtures/faces/04-chelsea-faces.jpg",
    "Tests/GPUStyleTests/Fixtures/faces/05-rocket-faces.jpg",
    "Tests/GPUStyleTests/Fixtures/faces/06-coins-faces.jpg",
    "Tests/GPUStyleTests/Fixtures/faces/07-hubble_deep_field-faces.jpg",
    "Tests/GPUStyleTests/Fixtures/faces/08-immunohistochemistry-faces.jpg",
    "Tests/GPUStyleTests/Fixtures/faces/09-colorwheel-faces.jpg",
    "Tests/GPUStyleTests/Fixtures/faces/10-horse-faces.jpg",
    "Tests/GPUStyleTests/Fixtures/faces/11-moon-faces.jpg",
    "Tests/GPUStyleTests/Fixtures/faces/14-clock-faces.jpg",
    "Tests/GPUStyleTests/Fixtures/faces/15-grass-faces.jpg",
    "Tests/GPUStyleTests/Fixtures/faces/16-brick-faces.jpg",
    "examples/photo.png",
]

# About 350 common English words, written for this script. Some appear twice (they are drawn
# a little more often); the list is left as it is because the scenes depend on its order.
WORDS = """
the and for you with that this from have are not all new one can will more about your
time day year home work life world hand part place case week company system program
question number night point city water room mother area money story fact month lot right
study book eye job word business issue side kind head house service friend father power
hour game line end member law car name president team minute idea kid body information
back parent face others level office door health person art war history party result
change morning reason research girl guy moment air teacher force education open closed
exit entrance sale free price fresh coffee tea bread milk cheese market street road avenue
park garden station train bus ticket platform north south east west left stop slow caution
danger warning keep out private parking only entry push pull welcome thank please hello
today tomorrow daily special offer menu lunch dinner breakfast pizza burger salad soup
apple orange banana lemon sugar salt pepper rice pasta chicken beef fish wine beer juice
hotel motel bank school library hospital pharmacy museum theatre cinema gallery shop store
center central main hall floor level room suite gate terminal airport police fire emergency
phone email web address contact call now best quality great small large medium extra super
light dark green blue red yellow black white silver gold summer winter spring autumn
january february march april may june july august september october november december
monday tuesday wednesday thursday friday saturday sunday open daily hours total amount
order receipt invoice date time customer account balance payment card cash change item
quantity weight size color model serial batch expiry best before use store cool dry place
keep away from children made in product ingredients water natural organic local farm
fresh baked hand crafted since family owned established quality first safety notice
attention please do not touch smoking allowed wet paint under construction closed for
repairs sorry we are back soon meeting agenda chapter section page note summary report
figure table the quick brown fox jumps over lazy dog river mountain valley island beach
harbor bridge tower castle church market square village town county state national
international public service department office manager director staff only visitors
""".split()


def log(message):
    print(message, file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# Fonts


class Fonts:
    def __init__(self):
        self.available = []
        for package, path in FONT_FILES:
            if pathlib.Path(path).is_file():
                self.available.append((package, path))
            else:
                log(f"make_text_scenes: skipping missing font {path} (Debian package {package})")
        if not self.available:
            raise SystemExit("make_text_scenes: no font files found; install the packages listed "
                             "in this script's docstring")
        self.cache = {}

    def pick(self, rng, mono_ok=True):
        choices = self.available
        if not mono_ok:
            choices = [f for f in choices if "Mono" not in f[1] and "Cousine" not in f[1]] or choices
        return choices[int(rng.integers(len(choices)))]

    def font(self, path, size):
        key = (path, int(size))
        if key not in self.cache:
            self.cache[key] = ImageFont.truetype(path, int(size), layout_engine=ImageFont.Layout.BASIC)
        return self.cache[key]


# ---------------------------------------------------------------------------------------------
# Text content


def case_style(rng, word, upper_bias=0.25):
    r = rng.random()
    if r < upper_bias:
        return word.upper()
    if r < upper_bias + 0.35:
        return word[:1].upper() + word[1:]
    return word


def token(rng, upper_bias=0.25, word_share=0.72):
    """One word-like token: mostly dictionary words, sometimes a number, price, date..."""
    r = rng.random()
    if r < word_share:
        return case_style(rng, WORDS[int(rng.integers(len(WORDS)))], upper_bias)
    kind = int(rng.integers(10))
    if kind == 0:
        return str(int(rng.integers(0, 100000)) if rng.random() < 0.5 else int(rng.integers(0, 100)))
    if kind == 1:
        d, c = int(rng.integers(0, 500)), int(rng.integers(0, 100))
        style = int(rng.integers(4))
        return [f"${d}.{c:02d}", f"{d}.{c:02d}", f"USD {d}.{c:02d}", f"{d},{c:02d}"][style]
    if kind == 2:
        y, m, d = int(rng.integers(1990, 2031)), int(rng.integers(1, 13)), int(rng.integers(1, 29))
        months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        style = int(rng.integers(4))
        return [f"{y}-{m:02d}-{d:02d}", f"{d:02d}/{m:02d}/{y}", f"{months[m - 1]} {d}, {y}",
                f"{m:02d}.{d:02d}.{y % 100:02d}"][style]
    if kind == 3:
        h, mi = int(rng.integers(0, 24)), int(rng.choice([0, 15, 30, 45, int(rng.integers(60))]))
        return f"{h}:{mi:02d}" if rng.random() < 0.6 else f"{h % 12 + 1}:{mi:02d} {'AM' if h < 12 else 'PM'}"
    if kind == 4:
        letters = "".join(chr(65 + int(x)) for x in rng.integers(0, 26, int(rng.integers(1, 4))))
        return f"{letters}-{int(rng.integers(10, 10000))}"
    if kind == 5:
        return f"{int(rng.integers(1, 100))}%"
    if kind == 6:
        return f"+1 {int(rng.integers(200, 999))} {int(rng.integers(1000, 9999))}"
    if kind == 7:
        w = WORDS[int(rng.integers(len(WORDS)))]
        return [f"www.{w}.com", f"info@{w}.org", f"{w}.net"][int(rng.integers(3))]
    if kind == 8:
        return f"No. {int(rng.integers(1, 999))}"
    return f"#{int(rng.integers(1, 9999))}"


def phrase(rng, low, high, upper_bias=0.25):
    words = [token(rng, upper_bias) for _ in range(int(rng.integers(low, high + 1)))]
    text = " ".join(words)
    if rng.random() < 0.12:
        text += str(rng.choice(list("!?.:,")))
    if rng.random() < 0.04:
        text = f"({text})"
    return text


# ---------------------------------------------------------------------------------------------
# Geometry


def homography_from_points(src, dst):
    """The 3x3 H with H @ [x, y, 1] ~ [u, v, 1] for four point pairs (direct linear solve)."""
    a, b = [], []
    for (x, y), (u, v) in zip(src, dst):
        a.append([x, y, 1, 0, 0, 0, -u * x, -u * y])
        b.append(u)
        a.append([0, 0, 0, x, y, 1, -v * x, -v * y])
        b.append(v)
    h = np.linalg.solve(np.array(a, dtype=np.float64), np.array(b, dtype=np.float64))
    return np.append(h, 1.0).reshape(3, 3)


def apply_h(h, points):
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    q = np.c_[p, np.ones(len(p))] @ h.T
    return q[:, :2] / q[:, 2:3]


def camera_corners(rng, width, height, max_tilt_deg=35.0, max_rot_deg=25.0, scale=1.0):
    """Where the corners of a flat width x height surface land (relative to its centre) when it
    is tilted by up to max_tilt_deg toward a pinhole camera and rotated in-plane."""
    tilt = math.radians(max_tilt_deg) * float(rng.random()) ** 1.3
    direction = float(rng.uniform(0, 2 * math.pi))
    ax, ay = tilt * math.cos(direction), tilt * math.sin(direction)
    rz = math.radians(float(rng.uniform(-max_rot_deg, max_rot_deg))) * (1.0 if rng.random() < 0.7 else 0.3)
    rx = np.array([[1, 0, 0], [0, math.cos(ax), -math.sin(ax)], [0, math.sin(ax), math.cos(ax)]])
    ry = np.array([[math.cos(ay), 0, math.sin(ay)], [0, 1, 0], [-math.sin(ay), 0, math.cos(ay)]])
    rot = ry @ rx
    distance = float(rng.uniform(1.2, 3.0)) * max(width, height)
    corners = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float64)
    centred = np.c_[corners - [width / 2, height / 2], np.zeros(4)]
    p3 = centred @ rot.T
    z = p3[:, 2] + distance
    projected = p3[:, :2] * (distance / z)[:, None] * scale
    c, s = math.cos(rz), math.sin(rz)
    return projected @ np.array([[c, s], [-s, c]])


def polygon_area(p):
    x, y = p[:, 0], p[:, 1]
    return 0.5 * abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


# ---------------------------------------------------------------------------------------------
# Drawing text on a surface


class Line:
    """A laid-out line: string, font, origin (left end of the baseline) in surface pixels."""

    def __init__(self, text, package, path, size, tracking=0, stroke=0):
        self.text, self.package, self.path, self.size = text, package, path, size
        self.tracking, self.stroke = tracking, stroke
        self.x, self.y = 0, 0

    def measure(self, fonts):
        """Ink boxes of the characters relative to the origin; sets self.ink (union box) and
        self.advance (pen travel)."""
        font = fonts.font(self.path, self.size)
        self.chars = []
        for i, ch in enumerate(self.text):
            pen = int(round(font.getlength(self.text[:i]) + i * self.tracking))
            if ch == " ":
                continue
            mask, offset = font.getmask2(ch, mode="L", anchor="ls", stroke_width=self.stroke)
            box = mask.getbbox()
            if box is None:
                continue
            self.chars.append((ch, pen, (pen + offset[0] + box[0], offset[1] + box[1],
                                         pen + offset[0] + box[2], offset[1] + box[3])))
        boxes = np.array([c[2] for c in self.chars], dtype=np.float64)
        self.ink = (boxes[:, 0].min(), boxes[:, 1].min(), boxes[:, 2].max(), boxes[:, 3].max())
        self.advance = font.getlength(self.text) + len(self.text) * self.tracking
        top = font.getmask2("H", mode="L", anchor="ls")
        bottom = font.getmask2("g", mode="L", anchor="ls")
        self.size_top = top[1][1] + top[0].getbbox()[1]
        self.size_bottom = bottom[1][1] + bottom[0].getbbox()[3]
        return self

    @property
    def width(self):
        return self.ink[2] - self.ink[0]

    @property
    def height(self):
        return self.ink[3] - self.ink[1]

    def place(self, left, top):
        """Put the ink box's top-left corner at (left, top)."""
        self.x, self.y = int(round(left - self.ink[0])), int(round(top - self.ink[1]))

    def draw(self, draw, fonts, fill, stroke_fill=None):
        font = fonts.font(self.path, self.size)
        for ch, pen, _ in self.chars:
            draw.text((self.x + pen, self.y), ch, font=font, fill=fill, anchor="ls",
                      stroke_width=self.stroke, stroke_fill=stroke_fill)

    def truth(self):
        x0, y0, x1, y1 = self.ink
        quad = [[self.x + x0, self.y + y0], [self.x + x1, self.y + y0],
                [self.x + x1, self.y + y1], [self.x + x0, self.y + y1]]
        chars = []
        for ch, _, (a, b, c, d) in self.chars:
            chars.append((ch, [[self.x + a, self.y + b], [self.x + c, self.y + b],
                               [self.x + c, self.y + d], [self.x + a, self.y + d]]))
        size_quad = [[self.x + x0, self.y + self.size_top], [self.x + x1, self.y + self.size_top],
                     [self.x + x1, self.y + self.size_bottom], [self.x + x0, self.y + self.size_bottom]]
        return quad, chars, size_quad


SIZE_PROBE = "Hg"


def size_for(fonts, path, target_height):
    """The font size (pixels per em) at which 'H' top to 'g' bottom is target_height pixels."""
    key = ("size", path)
    if key not in fonts.cache:
        probe = Line(SIZE_PROBE, "", path, 100).measure(fonts)
        fonts.cache[key] = probe.height / 100.0
    return max(6, int(round(target_height / fonts.cache[key])))


def sized_line(fonts, rng, text, target_height, font=None, tracking_em=0.0, stroke_em=0.0, mono_ok=True):
    """A Line whose text size (see size_for) is close to target_height pixels."""
    package, path = font or fonts.pick(rng, mono_ok)
    size = size_for(fonts, path, target_height)
    return Line(text, package, path, size, int(round(tracking_em * size)),
                int(round(stroke_em * size))).measure(fonts)


def luminance(rgb):
    r, g, b = rgb[:3]
    return 0.299 * r + 0.587 * g + 0.114 * b


def random_color(rng):
    return tuple(int(v) for v in rng.integers(0, 256, 3))


def contrasting(rng, background, minimum=110):
    """A text colour whose luminance differs from background's by at least minimum."""
    bg = luminance(background)
    for _ in range(50):
        c = random_color(rng)
        if abs(luminance(c) - bg) >= minimum:
            return c
    return (0, 0, 0) if bg > 127 else (255, 255, 255)


# ---------------------------------------------------------------------------------------------
# Backgrounds


def load_photo(path):
    image = Image.open(path).convert("RGB")
    a = np.asarray(image).astype(np.int16)
    # The faces fixtures are padded on the right and bottom with one grey: cut it off.
    corner = a[-1, -1]
    rows = np.where(np.abs(a - corner).max(axis=(1, 2)) > 6)[0]
    cols = np.where(np.abs(a - corner).max(axis=(0, 2)) > 6)[0]
    if len(rows) and len(cols):
        image = image.crop((0, 0, int(cols[-1]) + 1, int(rows[-1]) + 1))
    return image


class Backgrounds:
    def __init__(self):
        self.photos = []
        for rel in BACKGROUND_PHOTOS:
            path = ROOT / rel
            if path.is_file():
                self.photos.append((rel, load_photo(path)))
            else:
                log(f"make_text_scenes: skipping missing background photo {rel}")

    def photo(self, rng, width, height):
        name, image = self.photos[int(rng.integers(len(self.photos)))]
        scale = max(width / image.width, height / image.height) * float(rng.uniform(1.0, 1.3))
        w, h = int(math.ceil(image.width * scale)), int(math.ceil(image.height * scale))
        big = image.resize((w, h), Image.BICUBIC)
        x, y = int(rng.integers(0, w - width + 1)), int(rng.integers(0, h - height + 1))
        if rng.random() < 0.5:
            big = big.transpose(Image.FLIP_LEFT_RIGHT)
        return big.crop((x, y, x + width, y + height)), name

    def generated(self, rng, width, height):
        """A desk / wall / wood-like texture: two-colour gradient plus smooth noise."""
        c0 = np.array(random_color(rng), dtype=np.float32)
        c1 = np.clip(c0 + rng.normal(0, 40, 3), 0, 255)
        yy, xx = np.mgrid[0:height, 0:width].astype(np.float32)
        angle = float(rng.uniform(0, 2 * math.pi))
        t = (xx * math.cos(angle) + yy * math.sin(angle))
        t = (t - t.min()) / max(float(t.max() - t.min()), 1.0)
        img = c0[None, None, :] * (1 - t[..., None]) + c1[None, None, :] * t[..., None]
        small = rng.normal(0, 1, (max(2, height // 24), max(2, width // 24), 1)).astype(np.float32)
        noise = np.asarray(Image.fromarray(((small[..., 0] * 40) + 128).clip(0, 255).astype(np.uint8))
                           .resize((width, height), Image.BICUBIC)).astype(np.float32) - 128
        if rng.random() < 0.4:  # grain / stripes, like wood or fabric
            stripes = np.sin(yy * float(rng.uniform(0.05, 0.4)) + noise * 0.05) * float(rng.uniform(4, 14))
            noise = noise + stripes
        img = img + noise[..., None] * float(rng.uniform(0.2, 0.8))
        return Image.fromarray(img.clip(0, 255).astype(np.uint8)), "generated"


# ---------------------------------------------------------------------------------------------
# Surfaces: a flat RGBA picture with lines on it


class Surface:
    def __init__(self, width, height, fill, lines, text_fill=None, stroke_fill=None, border=None,
                 transparent=False):
        self.width, self.height = int(math.ceil(width)), int(math.ceil(height))
        self.fill, self.lines = fill, lines
        self.text_fill, self.stroke_fill, self.border = text_fill, stroke_fill, border
        self.transparent = transparent
        self.max_tilt, self.max_rot = 35.0, 25.0

    def render(self, fonts):
        if self.transparent:
            base = self.stroke_fill if self.stroke_fill is not None else self.text_fill
            image = Image.new("RGBA", (self.width, self.height), tuple(base) + (0,))
        else:
            image = Image.new("RGBA", (self.width, self.height), tuple(self.fill) + (255,))
        draw = ImageDraw.Draw(image)
        if self.border is not None:
            colour, width = self.border
            inset = width // 2 + 3
            draw.rectangle([inset, inset, self.width - 1 - inset, self.height - 1 - inset],
                           outline=tuple(colour), width=width)
        for line in self.lines:
            fill = getattr(line, "fill", None) or self.text_fill
            line.draw(draw, fonts, tuple(fill) + (255,),
                      None if self.stroke_fill is None else tuple(self.stroke_fill) + (255,))
        return image


def stack_lines(lines, width, top, gap, align, rng, margin):
    """Place lines one under another, starting at top; returns the bottom."""
    y = top
    for line in lines:
        if align == "center":
            left = (width - line.width) / 2
        elif align == "right":
            left = width - margin - line.width
        else:
            left = margin
        line.place(left, y)
        y += line.height + gap * (0.8 + 0.4 * float(rng.random()))
    return y


def make_sign(fonts, rng, max_height):
    count = int(rng.choice([1, 1, 2, 2, 3]))
    font = fonts.pick(rng, mono_ok=False) if rng.random() < 0.7 else None
    height = float(np.exp(rng.uniform(math.log(24), math.log(min(120, max_height)))))
    lines = []
    for i in range(count):
        h = height * (1.0 if i == 0 else float(rng.uniform(0.45, 0.9)))
        lines.append(sized_line(fonts, rng, phrase(rng, 1, 2, upper_bias=0.6), max(h, 12), font,
                                tracking_em=float(rng.choice([0, 0, 0.05, 0.12]))))
    margin = height * float(rng.uniform(0.4, 0.9))
    width = max(l.width for l in lines) + 2 * margin
    gap = height * float(rng.uniform(0.35, 0.7))
    bottom = stack_lines(lines, width, margin, gap, "center", rng, margin)
    fill = random_color(rng)
    border = (contrasting(rng, fill, 60), int(max(2, height * 0.08))) if rng.random() < 0.5 else None
    return Surface(width, bottom - gap + margin, fill, lines, contrasting(rng, fill), border=border)


def make_poster(fonts, rng, max_height):
    title_h = float(np.exp(rng.uniform(math.log(36), math.log(min(120, max_height * 1.2)))))
    title_font = fonts.pick(rng, mono_ok=False)
    body_font = fonts.pick(rng)
    lines = [sized_line(fonts, rng, phrase(rng, 1, 3, upper_bias=0.5), title_h, title_font)]
    body_h = float(rng.uniform(14, max(15, min(50, title_h * 0.6))))
    for _ in range(int(rng.integers(2, 6))):
        h = body_h * float(rng.uniform(0.85, 1.15))
        lines.append(sized_line(fonts, rng, phrase(rng, 1, 4), max(h, 12), body_font))
    margin = title_h * float(rng.uniform(0.3, 0.8))
    width = max(l.width for l in lines) + 2 * margin
    align = str(rng.choice(["center", "left", "center"]))
    bottom = stack_lines(lines, width, margin, body_h * 0.9, align, rng, margin)
    fill = random_color(rng)
    text_fill = contrasting(rng, fill)
    lines[0].fill = contrasting(rng, fill)
    return Surface(width, bottom + margin, fill, lines, text_fill)


def make_label(fonts, rng, max_height):
    font = fonts.pick(rng)
    h = float(rng.uniform(12, min(45, max_height)))
    texts = [phrase(rng, 1, 3)]
    for _ in range(int(rng.integers(1, 4))):
        texts.append(token(rng) if rng.random() < 0.6 else phrase(rng, 1, 3))
    lines = [sized_line(fonts, rng, t, h * (1.3 if i == 0 else float(rng.uniform(0.8, 1.0))), font)
             for i, t in enumerate(texts)]
    margin = h * float(rng.uniform(0.5, 1.0))
    width = max(l.width for l in lines) + 2 * margin
    bottom = stack_lines(lines, width, margin, h * 0.45, str(rng.choice(["left", "center"])), rng, margin)
    fill = tuple(int(v) for v in (rng.integers(200, 256, 3) if rng.random() < 0.7 else rng.integers(0, 256, 3)))
    border = (contrasting(rng, fill, 60), 2) if rng.random() < 0.5 else None
    return Surface(width, bottom - h * 0.45 + margin, fill, lines, contrasting(rng, fill), border=border)


def make_document(fonts, rng, page_width, page_height):
    font = fonts.pick(rng)
    h = float(rng.uniform(13, 28))
    margin = page_width * float(rng.uniform(0.06, 0.1))
    lines, y = [], margin
    heading = sized_line(fonts, rng, phrase(rng, 2, 4, upper_bias=0.4), h * float(rng.uniform(1.4, 2.2)),
                         font)
    if heading.width < page_width - 2 * margin:
        heading.place(margin, y)
        lines.append(heading)
        y += heading.height + h * 1.5
    leading = h * float(rng.uniform(1.5, 2.2))
    paragraph_left = int(rng.integers(2, 6))
    size = size_for(fonts, font[1], h)
    face = fonts.font(font[1], size)
    while y + h * 1.4 < page_height - margin:
        target = (page_width - 2 * margin) * float(rng.uniform(0.55, 1.0))
        words = [token(rng, upper_bias=0.05, word_share=0.88)]
        while True:
            word = token(rng, upper_bias=0.05, word_share=0.88)
            if face.getlength(" ".join(words + [word])) > target:
                break
            words.append(word)
        if face.getlength(" ".join(words)) > page_width - 2 * margin:
            continue
        line = Line(" ".join(words), font[0], font[1], size).measure(fonts)
        line.place(margin, y)
        lines.append(line)
        y += leading
        paragraph_left -= 1
        if paragraph_left == 0:
            y += leading * 0.6
            paragraph_left = int(rng.integers(2, 6))
    fill = tuple(int(v) for v in rng.integers(225, 256, 3))
    surface = Surface(page_width, page_height, fill, lines, tuple(int(v) for v in rng.integers(0, 60, 3)))
    surface.max_tilt, surface.max_rot = 30.0, 12.0
    return surface


def make_caption(fonts, rng, max_height):
    count = int(rng.choice([1, 1, 2]))
    height = float(np.exp(rng.uniform(math.log(14), math.log(min(100, max_height)))))
    font = fonts.pick(rng)
    stroke = float(rng.choice([0, 0, 0.04, 0.07]))
    lines = [sized_line(fonts, rng, phrase(rng, 1, 3, upper_bias=0.35), height * (1 if i == 0 else 0.7),
                        font, stroke_em=stroke) for i in range(count)]
    margin = height * 0.3 + 4
    width = max(l.width for l in lines) + 2 * margin
    bottom = stack_lines(lines, width, margin, height * 0.5, "left", rng, margin)
    surface = Surface(width, bottom + margin, None, lines, None, transparent=True)
    surface.stroke_em = stroke
    return surface


# ---------------------------------------------------------------------------------------------
# Scenes


KINDS = ["sign", "poster", "label", "document", "photo"]


def warp_into(canvas, surface_image, h):
    """Composite an RGBA surface into canvas (RGB) through homography h (surface -> canvas)."""
    inv = np.linalg.inv(h)
    inv = inv / inv[2, 2]
    coeffs = tuple(float(v) for v in inv.reshape(-1)[:8])
    warped = surface_image.transform(canvas.size, Image.PERSPECTIVE, coeffs, Image.BICUBIC)
    canvas.paste(warped, (0, 0), warped)


def try_place(rng, surface, width, height, occupied, scale_hint=1.0, attempts=40):
    """A homography putting the surface wholly inside the picture without overlapping
    earlier surfaces' bounding boxes; None when none was found."""
    scale = scale_hint
    for attempt in range(attempts):
        corners = camera_corners(rng, surface.width, surface.height, surface.max_tilt, surface.max_rot, scale)
        lo, hi = corners.min(axis=0), corners.max(axis=0)
        span = hi - lo
        if span[0] > width - 4 or span[1] > height - 4:
            scale *= 0.85
            continue
        cx = float(rng.uniform(-lo[0] + 2, width - hi[0] - 2))
        cy = float(rng.uniform(-lo[1] + 2, height - hi[1] - 2))
        placed = corners + [cx, cy]
        box = (placed[:, 0].min(), placed[:, 1].min(), placed[:, 0].max(), placed[:, 1].max())
        if any(box[0] < o[2] and o[0] < box[2] and box[1] < o[3] and o[1] < box[3] for o in occupied):
            continue
        src = [[0, 0], [surface.width, 0], [surface.width, surface.height], [0, surface.height]]
        return homography_from_points(src, placed), box, scale
    return None


def line_truth(line, h, surface_kind):
    quad, chars, size_quad = line.truth()
    q = apply_h(h, quad)
    sq = apply_h(h, size_quad)
    height = 0.5 * (np.linalg.norm(sq[3] - sq[0]) + np.linalg.norm(sq[2] - sq[1]))
    return {
        "quad": [[round(float(x), 2), round(float(y), 2)] for x, y in q],
        "string": line.text,
        "height_px": round(float(height), 2),
        "font": pathlib.Path(line.path).name,
        "package": line.package,
        "characters": [{"quad": [[round(float(x), 2), round(float(y), 2)] for x, y in apply_h(h, cq)],
                        "character": ch} for ch, cq in chars],
    }


def make_scene(rng, kind, fonts, backgrounds, max_side, size=None):
    lo_side = min(640, max_side)
    width = int(rng.integers(lo_side, max_side + 1))
    aspect = float(np.exp(rng.uniform(math.log(0.6), math.log(1.8))))
    height = int(np.clip(round(width / aspect), lo_side * 0.55, max_side))
    if size is not None:
        width, height = size
    if kind in ("photo", "negative") or rng.random() < 0.5:
        canvas, background = backgrounds.photo(rng, width, height)
    else:
        canvas, background = backgrounds.generated(rng, width, height)
    canvas = canvas.convert("RGB")
    lines_out, occupied = [], []
    max_height = min(120.0, height / 4)

    def put(surface, scale_hint=1.0):
        placed = try_place(rng, surface, width, height, occupied, scale_hint)
        if placed is None:
            return False
        h, box, scale = placed
        if surface.transparent:
            # Text colour against what lies under the caption.
            region = canvas.crop(tuple(int(v) for v in box)).resize((8, 8), Image.BILINEAR)
            under = np.asarray(region).reshape(-1, 3).mean(axis=0)
            if getattr(surface, "stroke_em", 0) > 0:
                surface.text_fill = (255, 255, 255) if rng.random() < 0.6 else (255, 230, 0)
                surface.stroke_fill = (0, 0, 0)
            else:
                surface.text_fill = contrasting(rng, under, 120)
        new_lines = [line_truth(line, h, kind) for line in surface.lines]
        if any(l["height_px"] < 11 for l in new_lines):
            return False
        warp_into(canvas, surface.render(fonts), h)
        occupied.append(box)
        lines_out.extend(new_lines)
        return True

    if kind == "sign":
        for _ in range(int(rng.choice([1, 1, 2]))):
            put(make_sign(fonts, rng, max_height))
    elif kind == "poster":
        put(make_poster(fonts, rng, max_height))
        if rng.random() < 0.3:
            put(make_label(fonts, rng, 30))
    elif kind == "label":
        for _ in range(int(rng.integers(2, 7))):
            put(make_label(fonts, rng, max_height))
    elif kind == "document":
        fill = float(rng.uniform(0.6, 0.92))
        page_h = height * fill
        page_w = min(width * 0.95, page_h * float(rng.uniform(0.7, 1.3)))
        put(make_document(fonts, rng, page_w, page_h))
    elif kind == "photo":
        for _ in range(int(rng.integers(1, 4))):
            put(make_caption(fonts, rng, max_height))
    elif kind == "negative":
        if rng.random() < 0.5:  # an empty board or page: no text on it
            w, hgt = float(rng.uniform(0.2, 0.6)) * width, float(rng.uniform(0.2, 0.6)) * height
            empty = Surface(w, hgt, random_color(rng), [], None,
                            border=(random_color(rng), 4) if rng.random() < 0.5 else None)
            put(empty)
    if kind != "negative" and not lines_out:
        return None
    return canvas, lines_out, background, (width, height)


def degrade(rng, canvas):
    """Lighting gradient, blur and noise (JPEG is applied when saving)."""
    a = np.asarray(canvas).astype(np.float32)
    if rng.random() < 0.35:
        hgt, wid = a.shape[:2]
        yy, xx = np.mgrid[0:hgt, 0:wid].astype(np.float32)
        angle = float(rng.uniform(0, 2 * math.pi))
        t = xx / wid * math.cos(angle) + yy / hgt * math.sin(angle)
        t = (t - t.min()) / max(float(t.max() - t.min()), 1e-6)
        a = a * (1 - float(rng.uniform(0.15, 0.45)) * t[..., None])
    image = Image.fromarray(a.clip(0, 255).astype(np.uint8))
    if rng.random() < 0.45:
        image = image.filter(ImageFilter.GaussianBlur(float(rng.uniform(0.4, 1.6))))
    if rng.random() < 0.5:
        a = np.asarray(image).astype(np.float32) + rng.normal(0, float(rng.uniform(2, 8)), (image.height, image.width, 1)) \
            * np.ones(3, dtype=np.float32)
        image = Image.fromarray(a.clip(0, 255).astype(np.uint8))
    return image


def truth_json(truth):
    """The truth as JSON with one line object per text line (compact but diffable)."""
    head = {k: v for k, v in truth.items() if k != "lines"}
    text = json.dumps(head)[:-1] + ', "lines": ['
    rows = [json.dumps(line, separators=(",", ":")) for line in truth["lines"]]
    return text + ("\n " + ",\n ".join(rows) + "\n" if rows else "") + "]}\n"


def parse_seeds(text):
    seeds = []
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-")
            seeds.extend(range(int(a), int(b) + 1))
        else:
            seeds.append(int(part))
    return seeds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", required=True, help="a seed, a range 100-101 or a list 1,5,9")
    parser.add_argument("--count", type=int, required=True, help="scenes in all (split over the seeds)")
    parser.add_argument("--out", type=pathlib.Path, required=True)
    parser.add_argument("--max-side", type=int, default=1600, help="largest picture side (default 1600)")
    parser.add_argument("--size", help="WxH: every picture this size instead of drawn sizes")
    parser.add_argument("--kinds", help="comma list of kinds to cycle through instead of drawing them "
                        "(sign, poster, label, document, photo, negative)")
    parser.add_argument("--max-bytes", type=int, help="lower the JPEG quality (never below 60) until each "
                        "file is at most this big; forces JPEG")
    args = parser.parse_args()

    seeds = parse_seeds(args.seed)
    fonts, backgrounds = Fonts(), Backgrounds()
    if not backgrounds.photos:
        raise SystemExit("make_text_scenes: no background photos found (run from a checkout)")
    args.out.mkdir(parents=True, exist_ok=True)
    kinds = args.kinds.split(",") if args.kinds else None
    size = tuple(int(v) for v in args.size.lower().split("x")) if args.size else None
    per_seed = [args.count // len(seeds) + (1 if i < args.count % len(seeds) else 0) for i in range(len(seeds))]
    index = []
    number = 0
    for seed, count in zip(seeds, per_seed):
        for j in range(count):
            rng = np.random.default_rng([seed, j])
            if kinds:
                kind = kinds[number % len(kinds)]
            else:
                kind = "negative" if rng.random() < 0.1 else KINDS[int(rng.integers(len(KINDS)))]
            for _ in range(20):
                made = make_scene(rng, kind, fonts, backgrounds, args.max_side, size)
                if made is not None:
                    break
            else:
                raise SystemExit(f"make_text_scenes: could not place any text for seed {seed} scene {j}")
            canvas, lines, background, (width, height) = made
            image = degrade(rng, canvas)
            as_png = rng.random() < 0.2 and args.max_bytes is None
            quality = int(rng.integers(60, 96))
            name = f"scene-{number:04d}"
            if as_png:
                file = f"{name}.png"
                image.save(args.out / file, optimize=True)
            else:
                file = f"{name}.jpg"
                while True:
                    buffer = io.BytesIO()
                    image.save(buffer, "JPEG", quality=quality)
                    if args.max_bytes is None or buffer.tell() <= args.max_bytes or quality <= 60:
                        break
                    quality -= 5
                (args.out / file).write_bytes(buffer.getvalue())
            truth = {"file": file, "width": width, "height": height, "kind": kind, "seed": seed,
                     "index": j, "background": background, "jpeg_quality": None if as_png else quality,
                     "lines": lines}
            (args.out / f"{name}.json").write_text(truth_json(truth))
            index.append({"file": file, "truth": f"{name}.json", "kind": kind, "seed": seed, "index": j,
                          "lines": len(lines)})
            print(f"{file}: {kind}, {width}x{height}, {len(lines)} lines", file=sys.stderr)
            number += 1
    (args.out / "index.json").write_text(json.dumps({
        "generator": "tools/make_text_scenes.py",
        "arguments": {"seed": args.seed, "count": args.count, "max_side": args.max_side,
                      "kinds": args.kinds, "max_bytes": args.max_bytes, "size": args.size},
        "scenes": index}, indent=1) + "\n")


if __name__ == "__main__":
    main()
