#!/usr/bin/env python3
"""Regenerates Tests/GPUStyleTests/Fixtures/images/ for the image I/O tests.

PNGs are written by a small encoder in this file, not by libpng or Pillow,
because Pillow cannot write 16-bit colour, low bit depths with every colour
type, or Adam7 interlacing. The expected values come from the numpy arrays
that were encoded, so they are independent of any PNG decoder; as a check on
the encoder itself, every file is also decoded with Pillow and compared.

JPEGs are written by Pillow with a hand-built EXIF block (both byte orders).
Their expected values are Pillow's decode after ImageOps.exif_transpose; the
Swift tests compare with a tolerance since IDCTs may differ slightly. The
pictures have four distinct quadrants so a wrong rotation cannot pass.

Output: one file per fixture plus expected.gpsw holding a float32 tensor
[C, H, W] per fixture name (C = 3 for RGB, 4 when there is alpha).

Usage: python3 tools/make_image_fixtures.py   (needs numpy and Pillow)
"""
import io
import os
import struct
import sys
import zlib

import numpy as np
from PIL import Image, ImageOps

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpsw  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "GPUStyleTests", "Fixtures", "images")
RNG = np.random.default_rng(20240611)

GRAY, RGB, PALETTE, GRAY_ALPHA, RGBA = 0, 2, 3, 4, 6
CHANNELS = {GRAY: 1, RGB: 3, PALETTE: 1, GRAY_ALPHA: 2, RGBA: 4}
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


# --- minimal PNG encoder -------------------------------------------------------------------

def chunk(tag, data):
    body = tag + data
    return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)


def pack_row(samples, bit_depth):
    """samples: 1-D ints for one row (channels interleaved)."""
    if bit_depth == 16:
        return samples.astype(">u2").tobytes()
    if bit_depth == 8:
        return samples.astype(np.uint8).tobytes()
    per_byte = 8 // bit_depth
    padded = np.zeros(-(-len(samples) // per_byte) * per_byte, dtype=np.int64)
    padded[: len(samples)] = samples
    groups = padded.reshape(-1, per_byte)
    shifts = np.arange(per_byte - 1, -1, -1) * bit_depth  # first sample in the high bits
    return bytes((groups << shifts).sum(axis=1).astype(np.uint8))


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    return a if pa <= pb and pa <= pc else (b if pb <= pc else c)


def filter_row(kind, row, prev, bpp):
    """Applies PNG filter `kind` (0..4) so the decoder's unfiltering is exercised too."""
    out = bytearray([kind])
    for i, x in enumerate(row):
        a = row[i - bpp] if i >= bpp else 0
        b = prev[i]
        c = prev[i - bpp] if i >= bpp else 0
        predictor = [0, a, b, (a + b) // 2, paeth(a, b, c)][kind]
        out.append((x - predictor) & 0xFF)
    return bytes(out)


def encode_png(samples, color_type, bit_depth, interlace=False, palette=None, trns=None, extra_chunks=()):
    """samples: int array [H, W, channels] of raw sample values (palette indices for PALETTE)."""
    height, width, channels = samples.shape
    bpp = max(1, channels * bit_depth // 8)
    raw = bytearray()
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    for x0, y0, dx, dy in passes:
        sub = samples[y0::dy, x0::dx]
        if sub.size == 0:
            continue  # empty Adam7 passes contribute no scanlines at all
        prev = bytes(len(pack_row(sub[0].reshape(-1), bit_depth)))
        for y, line in enumerate(sub):
            row = pack_row(line.reshape(-1), bit_depth)
            raw += filter_row(y % 5, row, prev, bpp)
            prev = row
    png = b"\x89PNG\r\n\x1a\n"
    png += chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, bit_depth, color_type, 0, 0, int(interlace)))
    for tag, data in extra_chunks:
        png += chunk(tag, data)
    if palette is not None:
        png += chunk(b"PLTE", bytes(np.asarray(palette, dtype=np.uint8).reshape(-1)))
    if trns is not None:
        png += chunk(b"tRNS", trns)
    compressed = zlib.compress(bytes(raw), 9)
    # Split the data over two IDAT chunks: decoders must concatenate them.
    half = len(compressed) // 2
    png += chunk(b"IDAT", compressed[:half]) + chunk(b"IDAT", compressed[half:])
    return png + chunk(b"IEND", b"")


# --- PNG fixtures --------------------------------------------------------------------------

def planar(rgb, alpha=None):
    """[H, W, 3] floats (+ [H, W] alpha) -> [C, H, W] float32."""
    planes = [rgb[..., c] for c in range(3)] + ([alpha] if alpha is not None else [])
    return np.stack(planes).astype(np.float32)


def gray_case(width, height, bit_depth, interlace=False, alpha=False, trns_value=None):
    top = (1 << bit_depth) - 1
    gray = RNG.integers(0, top + 1, size=(height, width))
    gray[0, :3] = [0, top, top // 2]  # make sure the extremes are present
    channels = [gray]
    expected_alpha = None
    trns = None
    if alpha:
        a = RNG.integers(0, top + 1, size=(height, width))
        channels.append(a)
        expected_alpha = a / top
    elif trns_value is not None:
        gray[1, :2] = trns_value
        trns = struct.pack(">H", trns_value)
        expected_alpha = (gray != trns_value).astype(np.float64)
    samples = np.stack(channels, axis=-1)
    color_type = GRAY_ALPHA if alpha else GRAY
    png = encode_png(samples, color_type, bit_depth, interlace, trns=trns)
    v = gray / top
    return png, planar(np.stack([v, v, v], axis=-1), expected_alpha)


def color_case(width, height, bit_depth, interlace=False, alpha=False):
    top = (1 << bit_depth) - 1
    channels = 4 if alpha else 3
    samples = RNG.integers(0, top + 1, size=(height, width, channels))
    samples[0, 0] = 0
    samples[0, 1] = top
    png = encode_png(samples, RGBA if alpha else RGB, bit_depth, interlace)
    values = samples / top
    return png, planar(values[..., :3], values[..., 3] if alpha else None)


def palette_case(width, height, bit_depth, interlace=False, with_trns=False):
    entries = min(1 << bit_depth, 12)
    palette = RNG.integers(0, 256, size=(entries, 3))
    index = RNG.integers(0, entries, size=(height, width))
    index[0, :entries] = np.arange(entries)[: width]
    trns = None
    expected_alpha = None
    if with_trns:
        # Shorter than the palette on purpose: missing entries are opaque.
        alphas = np.array([0, 128, 255, 7][: entries - 1])
        trns = bytes(alphas.astype(np.uint8))
        table = np.concatenate([alphas, np.full(entries - len(alphas), 255)]) / 255
        expected_alpha = table[index]
    png = encode_png(index[..., None], PALETTE, bit_depth, interlace, palette=palette, trns=trns)
    return png, planar(palette[index] / 255, expected_alpha)


def png_cases():
    # (name, (png bytes, expected [C,H,W]))
    yield "gray1", gray_case(13, 11, 1)
    yield "gray2", gray_case(7, 5, 2)
    yield "gray4", gray_case(13, 11, 4)
    yield "gray8", gray_case(7, 5, 8)
    yield "gray16", gray_case(13, 11, 16)
    yield "gray8_trns", gray_case(7, 5, 8, trns_value=77)
    yield "graya8", gray_case(7, 5, 8, alpha=True)
    yield "graya16", gray_case(13, 11, 16, alpha=True)
    yield "rgb8", color_case(7, 5, 8)
    yield "rgb16", color_case(13, 11, 16)
    yield "rgba8", color_case(13, 11, 8, alpha=True)
    yield "rgba16", color_case(7, 5, 16, alpha=True)
    yield "palette8", palette_case(13, 11, 8)
    yield "palette8_trns", palette_case(7, 5, 8, with_trns=True)
    yield "palette4_trns", palette_case(13, 11, 4, with_trns=True)
    yield "palette1", palette_case(7, 5, 1)
    yield "gray1_adam7", gray_case(13, 11, 1, interlace=True)
    yield "gray16_adam7", gray_case(7, 5, 16, interlace=True)
    yield "graya8_adam7", gray_case(13, 11, 8, interlace=True, alpha=True)
    yield "rgb8_adam7", color_case(13, 11, 8, interlace=True)
    yield "rgba16_adam7", color_case(13, 11, 16, interlace=True, alpha=True)
    yield "palette4_trns_adam7", palette_case(7, 5, 4, interlace=True, with_trns=True)
    yield "rgb8_adam7_tiny", color_case(3, 2, 8, interlace=True)  # several empty passes
    # Gamma and an ancillary chunk with a bad CRC: pixels pass through untouched.
    png, expected = color_case(7, 5, 8)
    gama = chunk(b"gAMA", struct.pack(">I", 100000))
    bad_text = bytearray(chunk(b"tEXt", b"Comment\0bad crc"))
    bad_text[-1] ^= 0xFF
    yield "rgb8_gamma_badtext", (png[:33] + gama + bytes(bad_text) + png[33:], expected)


def pillow_view(path):
    """Pillow's reading of a PNG, for checking this file's encoder. Returns
    (values scaled to [0,1], tolerance): Pillow reduces 16-bit colour to 8 bits."""
    im = Image.open(path)
    if im.mode in ("I;16", "I;16B", "I"):
        v = np.asarray(im, dtype=np.float64) / 65535
        return planar(np.stack([v, v, v], axis=-1)), 1e-9
    has_alpha = im.mode in ("LA", "RGBA", "PA") or "transparency" in im.info
    rgba = np.asarray(im.convert("RGBA" if has_alpha else "RGB"), dtype=np.float64) / 255
    return planar(rgba[..., :3], rgba[..., 3] if has_alpha else None), 1.01 / 255


# --- JPEG fixtures -------------------------------------------------------------------------

QUADRANTS = {  # display-space colours: top-left, top-right, bottom-left, bottom-right
    "tl": (220, 30, 30), "tr": (30, 190, 60), "bl": (40, 50, 220), "br": (235, 235, 235),
}
# The transform Pillow's exif_transpose applies, and its inverse (used to make the stored pixels).
TRANSPOSE = {
    2: Image.Transpose.FLIP_LEFT_RIGHT, 3: Image.Transpose.ROTATE_180, 4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE, 6: Image.Transpose.ROTATE_270, 7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,
}
INVERSE = {**TRANSPOSE, 6: Image.Transpose.ROTATE_90, 8: Image.Transpose.ROTATE_270}


def display_picture(width=24, height=16):
    pixels = np.zeros((height, width, 3), dtype=np.uint8)
    hw, hh = width // 2, height // 2
    pixels[:hh, :hw] = QUADRANTS["tl"]
    pixels[:hh, hw:] = QUADRANTS["tr"]
    pixels[hh:, :hw] = QUADRANTS["bl"]
    pixels[hh:, hw:] = QUADRANTS["br"]
    return Image.fromarray(pixels)


def exif_block(orientation, big_endian):
    """APP1 payload: 'Exif\\0\\0' + TIFF whose IFD0 holds Make (ASCII, stored out of line) then Orientation."""
    e = ">" if big_endian else "<"
    make = b"gpustyle fixtures\0"
    entries = 2
    ifd_offset = 8
    data_offset = ifd_offset + 2 + 12 * entries + 4
    tiff = (b"MM" if big_endian else b"II") + struct.pack(e + "HI", 42, ifd_offset)
    tiff += struct.pack(e + "H", entries)
    tiff += struct.pack(e + "HHII", 0x010F, 2, len(make), data_offset)  # Make first: the parser must skip it
    tiff += struct.pack(e + "HHI", 0x0112, 3, 1) + struct.pack(e + "HH", orientation, 0)
    tiff += struct.pack(e + "I", 0) + make
    return b"Exif\0\0" + tiff


def jpeg_bytes(image, **options):
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=95, **options)
    return buffer.getvalue()


def jpeg_cases():
    display = display_picture()
    for orientation in range(1, 9):
        for big_endian in ([False, True] if orientation in (3, 6) else [False]):
            stored = display if orientation == 1 else display.transpose(INVERSE[orientation])
            name = "exif%d%s" % (orientation, "_mm" if big_endian else "")
            yield name, jpeg_bytes(stored, exif=exif_block(orientation, big_endian))
    yield "gray", jpeg_bytes(display.convert("L"))
    yield "progressive_exif8", jpeg_bytes(display.transpose(INVERSE[8]), progressive=True,
                                         exif=exif_block(8, False))
    yield "cmyk", jpeg_bytes(display.convert("CMYK"))
    yield "plain", jpeg_bytes(display)  # no EXIF at all


def pillow_jpeg_expected(path):
    im = ImageOps.exif_transpose(Image.open(path))
    rgb = np.asarray(im.convert("RGB"), dtype=np.float64) / 255
    return planar(rgb)


# --- main ----------------------------------------------------------------------------------

def main():
    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        os.remove(os.path.join(OUT, old))
    expected = {}
    for name, (png, values) in png_cases():
        path = os.path.join(OUT, name + ".png")
        with open(path, "wb") as f:
            f.write(png)
        expected["png/" + name] = values
        if name.endswith("_badtext"):
            continue  # Pillow rejects any bad CRC; the pixels are those of an rgb8 case
        seen, tolerance = pillow_view(path)
        assert seen.shape == values.shape, (name, seen.shape, values.shape)
        assert np.abs(seen - values).max() <= tolerance, name
    for name, data in jpeg_cases():
        path = os.path.join(OUT, name + ".jpg")
        with open(path, "wb") as f:
            f.write(data)
        expected["jpeg/" + name] = pillow_jpeg_expected(path)
    gpsw.write(os.path.join(OUT, "expected.gpsw"), expected)
    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print("wrote %d fixtures, %d bytes" % (len(expected), total))


if __name__ == "__main__":
    main()
