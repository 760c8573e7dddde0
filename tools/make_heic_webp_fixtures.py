#!/usr/bin/env python3
"""Regenerates Tests/GPUStyleTests/Fixtures/heic-webp/ for ImageHEICWebPTests.

WebP files are written by Pillow (its own libwebp), HEIC files by pillow-heif (its own
libheif + x265), AVIF by Pillow's AVIF plugin (libavif). The expected values are the
reference decoders' output, not the source arrays: lossy codecs change the pixels, and the
tests check that gpustyle's libheif/libwebp decode agrees with these decoders (within 3
levels of 255). HEIC orientation: pillow-heif turns an EXIF orientation into irot/imir boxes
(this script checks they are there) and libheif applies them on decode, so the reference is
pillow-heif's decode as is. WebP EXIF orientation: the reference is Pillow's decode after
ImageOps.exif_transpose.

The picture has four quadrants of distinct colours (a wrong rotation or mirror cannot pass)
with gentle gradients in them, 64x48 pixels, so every file is a few KB.

Output: one file per fixture, and its reference decode as expected/<file>.png: 8-bit RGB or
RGBA, or 16-bit for the 10-bit HEIC (v * 65535 / 1023, rounded, as gpustyle scales HDR HEIC).
The PNGs are written by make_image_fixtures.py's own encoder (Pillow cannot write 16-bit RGB).

Usage: python3 tools/make_heic_webp_fixtures.py   (needs numpy, Pillow >= 11.3, pillow-heif,
and heif-convert from libheif-examples to check the damaged file)
"""
import io
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
import pillow_heif
from PIL import Image, ImageCms, ImageOps

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_image_fixtures import RGB, RGBA, encode_png  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "GPUStyleTests", "Fixtures", "heic-webp")
W, H = 64, 48
QUADRANTS = [(220, 40, 40), (40, 200, 60), (30, 60, 210), (230, 220, 50)]  # TL, TR, BL, BR


def picture():
    """uint8 [H, W, 3]: the quadrants, each with a horizontal and vertical ramp of +-20."""
    y, x = np.mgrid[0:H, 0:W]
    out = np.zeros((H, W, 3), dtype=np.float64)
    for i, colour in enumerate(QUADRANTS):
        mask = ((y >= H // 2) == (i >= 2)) & ((x >= W // 2) == (i % 2 == 1))
        for c in range(3):
            out[..., c][mask] = colour[c]
    ramp = (x % (W // 2)) / (W // 2) * 20 - 10 + (y % (H // 2)) / (H // 2) * 20 - 10
    return np.clip(out + ramp[..., None], 0, 255).round().astype(np.uint8)


def alpha_plane():
    """uint8 [H, W]: a diagonal ramp from transparent to opaque, some fully transparent pixels."""
    y, x = np.mgrid[0:H, 0:W]
    return np.clip((x + y) * 255 / (W + H - 2) * 1.4 - 40, 0, 255).round().astype(np.uint8)


def exif_with_orientation(value):
    exif = Image.Exif()
    exif[0x0112] = value
    return exif.tobytes()


def reference(array, bit_depth=8):
    """[H, W, C] samples -> (samples, PNG bit depth)."""
    return np.asarray(array).astype(np.int64), bit_depth


def save(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    return data


def webp(image, **options):
    buffer = io.BytesIO()
    image.save(buffer, "WEBP", **options)
    return buffer.getvalue()


def heic(image, **options):
    buffer = io.BytesIO()
    image.save(buffer, "HEIF", **options)
    return buffer.getvalue()


def reference_webp(data, transpose=False):
    image = Image.open(io.BytesIO(data))
    image.load()
    if transpose:
        image = ImageOps.exif_transpose(image)
    return reference(image)


def reference_heif(data):
    """pillow-heif's decode (irot/imir applied by libheif); 8-bit, or 16-bit for HDR files."""
    heif = pillow_heif.open_heif(io.BytesIO(data), convert_hdr_to_8bit=False)
    array = np.asarray(heif)
    if heif.info.get("bit_depth", 8) > 8:
        # pillow-heif hands 10-bit samples shifted left to 16 bits (v << 6); back to 0...1023.
        assert np.all(array % 64 == 0), "expected 10-bit samples shifted to 16 bits"
        ten = array.astype(np.int64) >> 6
        return reference((ten * 65535 + 511) // 1023, bit_depth=16)
    return reference(array)


def has_box(data, fourcc):
    return data.find(fourcc) >= 0


def main():
    os.makedirs(OUT, exist_ok=True)
    pillow_heif.register_heif_opener()
    rgb = Image.fromarray(picture())
    rgba = Image.fromarray(np.dstack([picture(), alpha_plane()]))
    expected = {}

    # --- WebP ---
    expected["lossy.webp"] = reference_webp(save("lossy.webp", webp(rgb, quality=80)))
    expected["lossless.webp"] = reference_webp(save("lossless.webp", webp(rgb, lossless=True)))
    expected["lossless_alpha.webp"] = reference_webp(save("lossless_alpha.webp", webp(rgba, lossless=True, exact=True)))
    expected["lossy_alpha.webp"] = reference_webp(save("lossy_alpha.webp", webp(rgba, quality=80)))
    # Stored 64x48 with EXIF orientation 6 (rotate 90 clockwise to display): shown 48x64.
    data = save("exif6.webp", webp(rgb, lossless=True, exif=exif_with_orientation(6)))
    expected["exif6.webp"] = reference_webp(data, transpose=True)
    # Animated (two frames, the second upside down): gpustyle decodes the first frame.
    data = save("animated.webp", webp(rgb, lossless=True, save_all=True, append_images=[rgb.rotate(180)], duration=100))
    assert Image.open(io.BytesIO(data)).n_frames == 2, "animated.webp is not animated"
    expected["animated.webp"] = reference_webp(data)
    # A WebP under a PNG name: the bytes decide, not the extension.
    save("webp_named.png", webp(rgb, lossless=True))

    # --- HEIC ---
    expected["plain.heic"] = reference_heif(save("plain.heic", heic(rgb, quality=90)))
    expected["alpha.heic"] = reference_heif(save("alpha.heic", heic(rgba, quality=90)))
    # pillow-heif stores EXIF orientation 6 as irot (angle 3: 270 degrees anticlockwise) and
    # 2 as imir; the file must really carry them, or the test would prove nothing.
    data = save("irot.heic", heic(rgb, quality=90, exif=exif_with_orientation(6)))
    assert has_box(data, b"irot") and not has_box(data, b"imir"), "irot.heic: no irot box"
    expected["irot.heic"] = reference_heif(data)
    # One byte of the SPS (inside the hvcC box) changed: libde265 prints "SPS error: CB
    # alignment" to stderr, which gpustyle must keep off its own stderr.
    damaged = bytearray(data)
    damaged[damaged.find(b"hvcC") + 81] = 188
    save("damaged_sps.heic", bytes(damaged))
    with tempfile.TemporaryDirectory() as scratch:
        check = subprocess.run(["heif-convert", os.path.join(OUT, "damaged_sps.heic"), os.path.join(scratch, "out.png")],
                               capture_output=True, text=True)
    assert "SPS error" in check.stderr, "damaged_sps.heic: libde265 no longer prints: " + check.stderr
    data = save("imir.heic", heic(rgb, quality=90, exif=exif_with_orientation(2)))
    assert has_box(data, b"imir") and not has_box(data, b"irot"), "imir.heic: no imir box"
    expected["imir.heic"] = reference_heif(data)
    # An ICC profile (LittleCMS's sRGB, ~500 bytes) in a 'colr' prof box; the test compares bytes.
    icc = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes())
    # A fixed creation date (header bytes 24-35) and no profile ID (84-99, zero = not computed)
    # keep the files the same from run to run.
    icc[24:36] = struct.pack(">6H", 2024, 6, 11, 0, 0, 0)
    icc[84:100] = bytes(16)
    icc = bytes(icc)
    save("icc.icc", icc)
    data = save("icc.heic", heic(rgb, quality=90, icc_profile=icc))
    assert has_box(data, b"prof"), "icc.heic: no prof colr box"
    expected["icc.heic"] = reference_heif(data)
    expected["icc.webp"] = reference_webp(save("icc.webp", webp(rgb, lossless=True, icc_profile=icc)))
    # 10-bit: a 16-bit picture (the 8-bit one times 257, so values differ from 8-bit ones).
    deep = pillow_heif.from_bytes(mode="RGB;16", size=(W, H), data=(picture().astype(np.uint16) * 257).tobytes())
    buffer = io.BytesIO()
    deep.save(buffer, quality=90)
    data = save("ten_bit.heic", buffer.getvalue())
    assert pillow_heif.open_heif(io.BytesIO(data)).info["bit_depth"] == 10, "ten_bit.heic is not 10-bit"
    expected["ten_bit.heic"] = reference_heif(data)

    # --- AVIF (libheif decodes it with dav1d; the reference is Pillow's libavif) ---
    # 4:4:4: with 4:2:0 the two disagree by up to 105 levels along the red/green edge, as
    # libheif 1.15 upsamples chroma by repeating samples where libavif interpolates.
    buffer = io.BytesIO()
    rgb.save(buffer, "AVIF", quality=90, subsampling="4:4:4")
    data = save("plain.avif", buffer.getvalue())
    expected["plain.avif"] = reference_webp(data)

    os.makedirs(os.path.join(OUT, "expected"), exist_ok=True)
    for name, (samples, bit_depth) in expected.items():
        png = encode_png(samples, RGBA if samples.shape[2] == 4 else RGB, bit_depth)
        save(os.path.join("expected", name + ".png"), png)
    for folder in [OUT, os.path.join(OUT, "expected")]:
        for name in sorted(os.listdir(folder)):
            if os.path.isfile(os.path.join(folder, name)):
                print(f"{name}: {os.path.getsize(os.path.join(folder, name))} bytes")


if __name__ == "__main__":
    main()
