#!/usr/bin/env python3
"""Regenerates Tests/GPUStyleTests/Fixtures/conformance/: decoding conformance against Pillow (issue 33).

What it writes (every file small: at most 64x64 pixels):

png/    PngSuite. The valid images are copied unchanged from two Debian/PyPI packages:
        - the `pngsuite` module in the pypng *sdist* (code/pngsuite.py, 28 images), and
        - Debian golang-1.19-src, /usr/share/go-1.19/src/image/png/testdata/pngsuite/ (libpng 1.6.26's
          contrib/pngsuite: the ftb*/ftp* transparency files, basn3p01/02/08, ...), only those not
          already taken from pypng.
        Neither package carries PngSuite's corrupt `x*` files, so they are re-made here from valid
        PngSuite images by the mutations PngSuite documents for them (one each):
          xs1n0g01 signature byte 1 with its most significant bit reset, xs2n0g01 signature byte 2 a
          'Q', xs4n0g01 signature byte 4 lower-case, xs7n0g01 signature byte 7 a space instead of ^Z,
          xcrn0g04 CR bytes added (a CR before every LF byte), xlfn0g04 LF bytes added (an LF after
          every CR byte), xhdn0g08 bad IHDR CRC, xc1n0g08 colour type 1, xc9n2c08
          colour type 9, xd0n2c08 bit depth 0, xd3n2c08 bit depth 3, xd9n2c08 bit depth 99,
          xdtn0g01 IDAT chunk removed, xcsn0g01 bad IDAT CRC.
        Plus a few made here with Pillow from a photo crop: exif3.png/exif6.png (eXIf orientation)
        and p3_iccp.png (Display P3 pixels with an iCCP chunk).
jpeg/   A photo crop encoded with libjpeg-turbo's cjpeg (Debian libjpeg-turbo-progs): chroma
        4:4:4/4:2:2/4:2:0/4:4:0, progressive, restart intervals (rows and blocks), arithmetic coding
        (sequential and progressive), greyscale; odd sizes so partial MCUs are exercised. The eight
        EXIF orientations (Pillow, EXIF block from tools/make_image_fixtures.py; 6 also big-endian).
        ICC: Display P3 (profile embedded by `jpegtran -icc`), Adobe RGB (1998) (a lossless
        `jpegtran -crop` of scikit-image's rocket.jpg, which carries Adobe's profile; and a Pillow
        save with icc-profiles-free's compatibleWithAdobeRGB1998.icc). CMYK by Pillow: Adobe-inverted (Pillow always writes
        Adobe's polarity and an APP14 marker), plain (non-inverted, APP14 removed), both with K = 0
        (Pillow's RGB->CMYK) and with a black channel (grey-component replacement), and one with a
        CMYK ICC profile.
heic/   pillow-heif (x265): plain sRGB, Display P3 ICC, and orientation stored as irot (pillow-heif
        also keeps the EXIF block, orientation 6 and all: a reader must apply irot, not both).
webp/   Pillow: lossy, lossless, lossless with alpha, lossy with alpha.

expected/<dir>/<file name>.png: one 8-bit RGBA PNG per file (alpha 255 where the file has none),
written by Pillow (a float .gpsw per file would have been 2 MB), which is Pillow's decode:
  - Image.open, then ImageOps.exif_transpose (JPEG, PNG eXIf, HEIC, WebP);
  - with an embedded ICC profile: ImageCms.profileToProfile(im, profile, sRGB, RELATIVE_COLORIMETRIC);
  - CMYK without a profile: Pillow's own CMYK->RGB. Pillow assumes Adobe polarity for every CMYK
    JPEG, even without an APP14 marker, so for the plain file the script inverts Pillow's samples
    first (libjpeg's convention: no Adobe marker means no inversion);
  - PNG: convert('RGBA'); the tests compare RGB only where alpha > 0. Where Pillow's view is wrong
    (16-bit files: I;16 greyscale is clipped, not scaled, by convert(), and a 16-bit tRNS colour is
    never matched after Pillow reduces the samples to 8 bits; 1/2/4-bit greyscale with tRNS: the
    tRNS grey is compared unscaled with the 8-bit samples, so transparent pixels stay opaque) the
    reference is the 16-bit decode
    of pypng's png.Reader, scaled to [0, 1]; elsewhere pypng and Pillow are checked to agree.
Also expected/unconverted/<dir>/<file name>.png for each file with an RGB ICC profile: Pillow's decode *without*
the profile conversion, so the test can show how far off an unconverted decode would be.

Profiles that no package ships small: Display P3 is written here with LittleCMS through ctypes
(cmsCreateRGBProfile: D65 white, P3 primaries, sRGB tone curve as parametric curve type 4), which is
what Apple's "Display P3" is; a CMYK profile is written here too (a 5x5x5x5 CLUT from a simple ink
model to Lab, LittleCMS), because the CMYK profiles found were either large (ghostscript's
default_cmyk.icc, 187 KB) or AGPL-licensed (ghostscript's ps_cmyk.icc, 5 KB; libgs-common's
copyright file puts iccprofiles/* under AGPL-3+).

Usage: python3 tools/make_conformance_fixtures.py [--check]
  --check re-derives everything into a temporary directory and compares with the committed files
  (reference pixels exactly, fixture bytes, and the file lists). Encoders are deterministic here, so a
  changed byte means a changed tool version; the script says which files differ.
Needs: numpy, Pillow (with WebP), pillow-heif, scikit-image (photos), liblcms2.so.2, and the Debian
packages libjpeg-turbo-progs (cjpeg, jpegtran) and golang-1.19-src (downloaded with `apt-get download`
and unpacked with `dpkg -x` when not installed); pypng's sdist is fetched with
`pip download --no-deps --no-binary :all: pypng==0.20220715.0`.
"""
import argparse
import ctypes
import glob
import io
import os
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import zlib

import numpy as np
from PIL import Image, ImageChops, ImageCms, ImageOps

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_image_fixtures import INVERSE, exif_block  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
OUT = os.path.join(ROOT, "Tests", "GPUStyleTests", "Fixtures", "conformance")
PYPNG = "pypng==0.20220715.0"
GO_SUITE = "usr/share/go-1.19/src/image/png/testdata/pngsuite"
ADOBE_RGB = "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc"  # icc-profiles-free, 580 bytes


# --- sources -------------------------------------------------------------------------------

def fetch_pypng(work):
    """pypng's sdist (not the wheel: only the sdist has code/pngsuite.py); returns (pngsuite, png)."""
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:",
                    PYPNG, "-d", work], check=True)
    (archive,) = glob.glob(os.path.join(work, "pypng-*.tar.gz"))
    with tarfile.open(archive) as tar:
        tar.extractall(work, filter="data")
    (code,) = glob.glob(os.path.join(work, "pypng-*", "code"))
    sys.path.insert(0, code)
    import png
    import pngsuite
    return pngsuite, png


def go_suite_dir(work):
    installed = os.path.join("/", GO_SUITE)
    if os.path.isdir(installed):
        return installed
    subprocess.run(["apt-get", "download", "-q", "golang-1.19-src"], cwd=work, check=True,
                   stdout=subprocess.DEVNULL)
    (deb,) = glob.glob(os.path.join(work, "golang-1.19-src_*.deb"))
    subprocess.run(["dpkg", "-x", deb, os.path.join(work, "go")], check=True)
    return os.path.join(work, "go", GO_SUITE)


def photo(name, box, size):
    """A crop of a scikit-image sample photo, area-averaged down to `size`."""
    import skimage
    path = os.path.join(os.path.dirname(skimage.__file__), "data", name)
    pixels = Image.open(path).convert("RGB").crop(box).resize(size, Image.Resampling.BOX)
    return Image.fromarray(np.asarray(pixels))  # without astronaut.png's iCCP, which savers would copy


# --- profiles made with LittleCMS ------------------------------------------------------------

class CIExyY(ctypes.Structure):
    _fields_ = [("x", ctypes.c_double), ("y", ctypes.c_double), ("Y", ctypes.c_double)]


class CIELab(ctypes.Structure):
    _fields_ = [("L", ctypes.c_double), ("a", ctypes.c_double), ("b", ctypes.c_double)]


def lcms():
    lib = ctypes.CDLL("liblcms2.so.2")
    lib.cmsCreateRGBProfile.restype = ctypes.c_void_p
    lib.cmsCreateRGBProfile.argtypes = [ctypes.POINTER(CIExyY), ctypes.POINTER(CIExyY * 3),
                                        ctypes.POINTER(ctypes.c_void_p * 3)]
    lib.cmsBuildParametricToneCurve.restype = ctypes.c_void_p
    lib.cmsBuildParametricToneCurve.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_double)]
    lib.cmsSaveProfileToMem.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_uint32)]
    lib.cmsCloseProfile.argtypes = [ctypes.c_void_p]
    lib.cmsFreeToneCurve.argtypes = [ctypes.c_void_p]
    lib.cmsMLUalloc.restype = ctypes.c_void_p
    lib.cmsMLUalloc.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    lib.cmsMLUsetASCII.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p]
    lib.cmsMLUfree.argtypes = [ctypes.c_void_p]
    lib.cmsWriteTag.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p]
    lib.cmsCreateProfilePlaceholder.restype = ctypes.c_void_p
    lib.cmsCreateProfilePlaceholder.argtypes = [ctypes.c_void_p]
    for name in ("cmsSetColorSpace", "cmsSetPCS", "cmsSetDeviceClass"):
        getattr(lib, name).argtypes = [ctypes.c_void_p, ctypes.c_uint32]
    lib.cmsSetProfileVersion.argtypes = [ctypes.c_void_p, ctypes.c_double]
    lib.cmsPipelineAlloc.restype = ctypes.c_void_p
    lib.cmsPipelineAlloc.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint32]
    lib.cmsStageAllocCLut16bit.restype = ctypes.c_void_p
    lib.cmsStageAllocCLut16bit.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint32, ctypes.c_uint32,
                                           ctypes.POINTER(ctypes.c_uint16)]
    lib.cmsStageAllocToneCurves.restype = ctypes.c_void_p
    lib.cmsStageAllocToneCurves.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_void_p]
    lib.cmsPipelineInsertStage.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
    lib.cmsPipelineFree.argtypes = [ctypes.c_void_p]
    lib.cmsD50_XYZ.restype = ctypes.c_void_p
    lib.cmsFloat2LabEncoded.argtypes = [ctypes.POINTER(ctypes.c_uint16 * 3), ctypes.POINTER(CIELab)]
    return lib


def sig(text):
    return struct.unpack(">I", text.encode("ascii"))[0]


def describe(lib, handle, text):
    mlu = lib.cmsMLUalloc(None, 1)
    lib.cmsMLUsetASCII(mlu, b"en", b"US", text.encode("ascii"))
    lib.cmsWriteTag(handle, sig("desc"), mlu)
    lib.cmsMLUfree(mlu)
    copyright_ = lib.cmsMLUalloc(None, 1)
    lib.cmsMLUsetASCII(copyright_, b"en", b"US", b"No copyright, use freely (CC0)")
    lib.cmsWriteTag(handle, sig("cprt"), copyright_)
    lib.cmsMLUfree(copyright_)


def save(lib, handle):
    size = ctypes.c_uint32(0)
    assert lib.cmsSaveProfileToMem(handle, None, ctypes.byref(size))
    buffer = ctypes.create_string_buffer(size.value)
    assert lib.cmsSaveProfileToMem(handle, buffer, ctypes.byref(size))
    lib.cmsCloseProfile(handle)
    profile = bytearray(buffer.raw[: size.value])
    # A fixed creation date (header bytes 24-35), so that the fixtures are reproducible;
    # LittleCMS leaves the profile ID (bytes 84-99) zero, which means "not computed".
    profile[24:36] = struct.pack(">6H", 2026, 1, 1, 0, 0, 0)
    assert profile[84:100] == bytes(16)
    return bytes(profile)


def display_p3_profile():
    lib = lcms()
    white = CIExyY(0.3127, 0.3290, 1.0)
    primaries = (CIExyY * 3)(CIExyY(0.680, 0.320, 1.0), CIExyY(0.265, 0.690, 1.0), CIExyY(0.150, 0.060, 1.0))
    params = (ctypes.c_double * 5)(2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045)
    curve = lib.cmsBuildParametricToneCurve(None, 4, params)
    curves = (ctypes.c_void_p * 3)(curve, curve, curve)
    handle = lib.cmsCreateRGBProfile(ctypes.byref(white), ctypes.byref(primaries), ctypes.byref(curves))
    lib.cmsFreeToneCurve(curve)
    describe(lib, handle, "Display P3 (gpustyle fixtures)")
    return save(lib, handle)


SRGB_TO_XYZ_D50 = np.array([[0.4360747, 0.3850649, 0.1430804],
                            [0.2225045, 0.7168786, 0.0606169],
                            [0.0139322, 0.0971045, 0.7141733]])
D50 = np.array([0.9642, 1.0, 0.8249])


def srgb_to_lab(rgb):
    linear = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    xyz = linear @ SRGB_TO_XYZ_D50.T / D50
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])], -1)


def cmyk_profile(grid=5):
    """An output-class CMYK profile whose A2B0 is a CLUT of a simple ink model: inks multiply
    (with 15% dot gain), a slightly warm paper, and a black that is not quite neutral; so its
    colours differ from Pillow's naive CMYK->RGB, and a test can tell the profile was used."""
    lib = lcms()
    handle = lib.cmsCreateProfilePlaceholder(None)
    lib.cmsSetProfileVersion(handle, 4.3)
    lib.cmsSetDeviceClass(handle, sig("prtr"))
    lib.cmsSetColorSpace(handle, sig("CMYK"))
    lib.cmsSetPCS(handle, sig("Lab "))
    axis = np.linspace(0, 1, grid)
    c, m, y, k = np.meshgrid(axis, axis, axis, axis, indexing="ij")  # first input varies slowest
    gain = lambda v: v + 0.15 * v * (1 - v) * 4 * 0.5  # noqa: E731
    paper = np.array([0.97, 0.96, 0.92])
    rgb = np.stack([(1 - gain(c)) * (1 - 0.10 * gain(m)), (1 - gain(m)) * (1 - 0.08 * gain(y)),
                    (1 - gain(y)) * (1 - 0.05 * gain(c))], -1)
    rgb = rgb * (1 - 0.92 * gain(k))[..., None] * paper + np.array([0.0, 0.004, 0.012]) * gain(k)[..., None]
    lab = srgb_to_lab(np.clip(rgb, 0, 1)).reshape(-1, 3)
    table = (ctypes.c_uint16 * (lab.shape[0] * 3))()
    encoded = (ctypes.c_uint16 * 3)()
    for i, (L, a, b) in enumerate(lab):
        lib.cmsFloat2LabEncoded(ctypes.byref(encoded), ctypes.byref(CIELab(L, a, b)))
        table[3 * i: 3 * i + 3] = list(encoded)
    pipeline = lib.cmsPipelineAlloc(None, 4, 3)
    stage = lib.cmsStageAllocCLut16bit(None, grid, 4, 3, table)
    # mAB needs A curves, CLUT, B curves: identity curves around the table (NULL = identity).
    for part in (lib.cmsStageAllocToneCurves(None, 4, None), stage, lib.cmsStageAllocToneCurves(None, 3, None)):
        lib.cmsPipelineInsertStage(pipeline, 1, part)  # cmsAT_END
    lib.cmsWriteTag(handle, sig("A2B0"), pipeline)
    lib.cmsWriteTag(handle, sig("wtpt"), lib.cmsD50_XYZ())
    lib.cmsPipelineFree(pipeline)
    describe(lib, handle, "CMYK ink model (gpustyle fixtures)")
    return save(lib, handle)


def check_p3(profile):
    """The written profile must be Display P3: its colourants as Apple's profile states them."""
    p = ImageCms.ImageCmsProfile(io.BytesIO(profile)).profile
    red, green, blue = ((c[0][0], c[0][1], c[0][2]) for c in (p.red_colorant, p.green_colorant, p.blue_colorant))
    apple = {"red": (0.5151, 0.2412, -0.0011), "green": (0.2920, 0.6922, 0.0419), "blue": (0.1571, 0.0666, 0.7841)}
    for (name, want), got in zip(apple.items(), (red, green, blue)):
        assert np.abs(np.array(got) - want).max() < 2e-3, (name, got, want)
    # sRGB red in P3 is about (234, 51, 35) (W3C CSS Color 4's worked example: color(display-p3 0.9175 0.2003 0.1386)).
    red_in_p3 = ImageCms.profileToProfile(Image.new("RGB", (1, 1), (255, 0, 0)), ImageCms.createProfile("sRGB"),
                                          ImageCms.ImageCmsProfile(io.BytesIO(profile)),
                                          renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)
    assert np.abs(np.array(red_in_p3.getpixel((0, 0))) - (234, 51, 35)).max() <= 2, red_in_p3.getpixel((0, 0))


# --- PNG -----------------------------------------------------------------------------------

def png_chunks(data):
    offset, chunks = 8, []
    while offset < len(data):
        (length,) = struct.unpack(">I", data[offset:offset + 4])
        chunks.append((data[offset + 4:offset + 8], data[offset + 8:offset + 8 + length],
                       data[offset + 8 + length:offset + 12 + length]))
        offset += 12 + length
    return chunks


def png_join(signature, chunks, fix_crc=True):
    out = bytearray(signature)
    for tag, body, crc in chunks:
        if fix_crc:
            crc = struct.pack(">I", zlib.crc32(tag + body) & 0xFFFFFFFF)
        out += struct.pack(">I", len(body)) + tag + body + crc
    return bytes(out)


def with_ihdr(data, colour_type=None, bit_depth=None):
    signature, chunks = data[:8], png_chunks(data)
    tag, body, crc = chunks[0]
    assert tag == b"IHDR"
    body = bytearray(body)
    if bit_depth is not None:
        body[8] = bit_depth
    if colour_type is not None:
        body[9] = colour_type
    return png_join(signature, [(tag, bytes(body), crc)] + chunks[1:])


def corrupt_pngs(valid):
    """PngSuite's x* files, re-made from valid PngSuite images by the mutation PngSuite documents."""
    def signature_byte(data, index, value):
        return data[:index] + bytes([value]) + data[index + 1:]

    def bad_crc(data, tag):
        chunks = png_chunks(data)
        out = []
        for t, body, crc in chunks:
            if t == tag:
                crc = bytes([crc[0] ^ 0xFF]) + crc[1:]
            out.append((t, body, crc))
        return png_join(data[:8], out, fix_crc=False)

    g01, g04, g08, c08 = valid["basn0g01"], valid["basn0g04"], valid["basn0g08"], valid["basn2c08"]
    yield "xs1n0g01", signature_byte(g01, 0, g01[0] & 0x7F)
    yield "xs2n0g01", signature_byte(g01, 1, ord("Q"))
    yield "xs4n0g01", signature_byte(g01, 3, ord("g"))
    yield "xs7n0g01", signature_byte(g01, 6, ord(" "))
    yield "xcrn0g04", g04.replace(b"\n", b"\r\n")  # a text-mode transfer adding CR before each LF
    yield "xlfn0g04", g04.replace(b"\r", b"\r\n")  # ... or an LF after each CR
    yield "xhdn0g08", bad_crc(g08, b"IHDR")
    yield "xc1n0g08", with_ihdr(g08, colour_type=1)
    yield "xc9n2c08", with_ihdr(c08, colour_type=9)
    yield "xd0n2c08", with_ihdr(c08, bit_depth=0)
    yield "xd3n2c08", with_ihdr(c08, bit_depth=3)
    yield "xd9n2c08", with_ihdr(c08, bit_depth=99)
    yield "xdtn0g01", png_join(g01[:8], [c for c in png_chunks(g01) if c[0] != b"IDAT"])
    yield "xcsn0g01", bad_crc(g01, b"IDAT")


def pypng_rgba(png, data):
    """pypng's decode as float RGBA [H, W, 4] in [0, 1], at the file's own bit depth. pypng would
    shift the samples down to the sBIT depth; PNG decoders (libpng, Pillow) do not, so sBIT goes."""
    data = png_join(data[:8], [c for c in png_chunks(data) if c[0] != b"sBIT"])
    width, height, rows, info = png.Reader(bytes=data).asRGBA()
    maximum = 2 ** info["bitdepth"] - 1
    return np.array([list(r) for r in rows], dtype=np.float64).reshape(height, width, 4) / maximum


PYPNG_REFERENCES = []  # the files whose reference is pypng's decode
PILLOW_ACCEPTS = []  # corrupt files that Pillow decodes anyway


def png_bit_depth(data):
    return data[24]


def png_reference(png, data, name):
    im = Image.open(io.BytesIO(data))
    im.load()
    exact = pypng_rgba(png, data)
    grey_trns = data[25] == 0 and png_bit_depth(data) < 8 and any(c[0] == b"tRNS" for c in png_chunks(data))
    if png_bit_depth(data) == 16 or grey_trns:
        PYPNG_REFERENCES.append(name)
        return exact  # Pillow's view is wrong here (see the docstring)
    rgba = np.asarray(ImageOps.exif_transpose(im).convert("RGBA"), dtype=np.float64) / 255
    if im.getexif().get(0x0112, 1) == 1:
        visible = exact[..., 3] > 0
        assert np.abs(rgba[..., 3] - exact[..., 3]).max() <= 1 / 255, name
        assert np.abs(rgba[visible][:, :3] - exact[visible][:, :3]).max() <= 1 / 255, name
    return rgba


def pillow_png(image, **options):
    buffer = io.BytesIO()
    image.save(buffer, "PNG", **options)
    return buffer.getvalue()


# --- JPEG ----------------------------------------------------------------------------------

def ppm(image):
    header = ("P6\n%d %d\n255\n" if image.mode == "RGB" else "P5\n%d %d\n255\n") % image.size
    return header.encode() + image.tobytes()


def cjpeg(image, *options):
    return subprocess.run(["cjpeg", "-quality", "90", *options], input=ppm(image), capture_output=True,
                          check=True).stdout


def jpegtran(data, *options):
    return subprocess.run(["jpegtran", *options], input=data, capture_output=True, check=True).stdout


def strip_app14(data):
    """Removes the Adobe APP14 marker segment (FF EE) of a baseline JPEG."""
    out, offset = bytearray(data[:2]), 2
    while True:
        marker = data[offset:offset + 2]
        (length,) = struct.unpack(">H", data[offset + 2:offset + 4])
        if marker == b"\xff\xda":
            return bytes(out + data[offset:])
        if marker != b"\xff\xee":
            out += data[offset:offset + 2 + length]
        offset += 2 + length


def pillow_jpeg(image, **options):
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=92, **options)
    return buffer.getvalue()


def gcr_cmyk(image):
    """RGB -> CMYK with full grey-component replacement: K = 1 - max(R, G, B)."""
    rgb = np.asarray(image, dtype=np.float64) / 255
    k = 1 - rgb.max(axis=-1)
    scale = np.where(k < 1, 1 - k, 1)
    cmy = (1 - rgb - k[..., None]) / scale[..., None]
    cmyk = np.concatenate([cmy, k[..., None]], -1)
    return Image.fromarray(np.round(cmyk * 255).astype(np.uint8), "CMYK")


# --- the fixture set -----------------------------------------------------------------------

def fixtures(work, pngsuite):
    """Yields (relative path, bytes)."""
    valid = {name: data for name, data in sorted(pngsuite.png.items())}
    go = go_suite_dir(work)
    for path in sorted(glob.glob(os.path.join(go, "*.png"))):
        name = os.path.basename(path)[:-4]
        if name not in valid:
            with open(path, "rb") as f:
                valid[name] = f.read()
    for name, data in valid.items():
        yield "png/%s.png" % name, data
    for name, data in corrupt_pngs(valid):
        yield "png/%s.png" % name, data

    p3 = display_p3_profile()
    check_p3(p3)
    srgb = ImageCms.createProfile("sRGB")
    p3_profile = ImageCms.ImageCmsProfile(io.BytesIO(p3))
    to_p3 = lambda im: ImageCms.profileToProfile(im, srgb, p3_profile,  # noqa: E731
                                                 renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)
    # Saturated content, so that reading P3 values as sRGB is visibly wrong.
    coffee = photo("coffee.png", (40, 20, 360, 260), (60, 45))
    astronaut = photo("astronaut.png", (100, 0, 400, 300), (40, 40))
    cat = photo("chelsea.png", (60, 20, 380, 260), (40, 30))

    exif_picture = photo("astronaut.png", (0, 100, 512, 484), (40, 30))
    for orientation in range(1, 9):
        stored = exif_picture if orientation == 1 else exif_picture.transpose(INVERSE[orientation])
        yield "jpeg/exif%d.jpg" % orientation, pillow_jpeg(stored, exif=exif_block(orientation, False))
    yield "jpeg/exif6_mm.jpg", pillow_jpeg(exif_picture.transpose(INVERSE[6]), exif=exif_block(6, True))
    for orientation in (3, 6):
        yield "png/exif%d.png" % orientation, pillow_png(exif_picture.transpose(INVERSE[orientation]),
                                                         exif=exif_block(orientation, False)[6:])
    yield "png/p3_iccp.png", pillow_png(to_p3(astronaut), icc_profile=p3)

    odd = photo("coffee.png", (40, 20, 400, 284), (45, 33))  # odd: partial MCUs
    yield "jpeg/sample_444.jpg", cjpeg(odd, "-sample", "1x1")
    yield "jpeg/sample_422.jpg", cjpeg(odd, "-sample", "2x1")
    yield "jpeg/sample_420.jpg", cjpeg(odd, "-sample", "2x2")
    yield "jpeg/sample_440.jpg", cjpeg(odd, "-sample", "1x2")
    yield "jpeg/progressive.jpg", cjpeg(odd, "-progressive")
    yield "jpeg/restart_rows.jpg", cjpeg(odd, "-restart", "1")
    yield "jpeg/restart_blocks.jpg", cjpeg(odd, "-restart", "5B", "-sample", "1x1")
    yield "jpeg/arithmetic.jpg", cjpeg(odd, "-arithmetic")
    yield "jpeg/arithmetic_progressive.jpg", cjpeg(odd, "-arithmetic", "-progressive")
    yield "jpeg/grayscale.jpg", cjpeg(odd, "-grayscale")
    yield "jpeg/grayscale_progressive.jpg", cjpeg(odd.convert("L"), "-progressive")

    yield "jpeg/p3.jpg", jpegtran(cjpeg(to_p3(astronaut), "-sample", "1x1", "-quality", "95"),
                                  "-copy", "none", "-icc", write_temp(work, "p3.icc", p3))
    import skimage
    rocket = os.path.join(os.path.dirname(skimage.__file__), "data", "rocket.jpg")
    with open(rocket, "rb") as f:
        yield "jpeg/adobergb_rocket.jpg", jpegtran(f.read(), "-crop", "48x48+288+128", "-copy", "all")
    with open(ADOBE_RGB, "rb") as f:
        adobe = f.read()
    to_adobe = ImageCms.profileToProfile(cat, srgb, ImageCms.ImageCmsProfile(io.BytesIO(adobe)),
                                         renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)
    yield "jpeg/adobergb_icc_free.jpg", pillow_jpeg(to_adobe, icc_profile=adobe, subsampling=0)

    naive = cat.convert("CMYK")  # Pillow's RGB->CMYK: K = 0
    gcr = gcr_cmyk(cat)
    yield "jpeg/cmyk_adobe.jpg", pillow_jpeg(naive)
    yield "jpeg/cmyk_plain.jpg", strip_app14(pillow_jpeg(ImageChops.invert(naive)))
    yield "jpeg/cmyk_black_adobe.jpg", pillow_jpeg(gcr)
    yield "jpeg/cmyk_black_plain.jpg", strip_app14(pillow_jpeg(ImageChops.invert(gcr)))
    yield "jpeg/cmyk_profile.jpg", pillow_jpeg(gcr, icc_profile=cmyk_profile())

    import pillow_heif
    pillow_heif.register_heif_opener()
    yield "heic/plain.heic", heif(coffee.crop((0, 0, 48, 32)))
    yield "heic/p3.heic", heif(to_p3(astronaut), icc_profile=p3)
    yield "heic/orientation6.heic", heif(exif_picture.transpose(INVERSE[6]), exif=exif_block(6, False))
    # Display P3 said by nclx code points (primaries 12, sRGB transfer), with no ICC profile, as
    # some phones write it.
    p3_values = to_p3(astronaut)
    p3_values.info.pop("icc_profile", None)  # ImageCms tags its output; pillow-heif would save it
    yield "heic/nclx_p3.heic", heif(p3_values, color_primaries=12, transfer_characteristics=13,
                                    matrix_coefficients=6, full_range_flag=1)

    alpha = Image.fromarray(np.tile(np.linspace(0, 255, 40).astype(np.uint8), (30, 1)))
    with_alpha = cat.copy()
    with_alpha.putalpha(alpha)
    yield "webp/lossy.webp", webp(cat, quality=85)
    yield "webp/lossless.webp", webp(cat, lossless=True)
    yield "webp/alpha_lossless.webp", webp(with_alpha, lossless=True, exact=True)
    yield "webp/alpha_lossy.webp", webp(with_alpha, quality=85)


def write_temp(work, name, data):
    path = os.path.join(work, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def heif(image, **options):
    buffer = io.BytesIO()
    image.save(buffer, "HEIF", quality=90, **options)
    return buffer.getvalue()


def webp(image, **options):
    buffer = io.BytesIO()
    image.save(buffer, "WEBP", method=6, **options)
    return buffer.getvalue()


# --- references ----------------------------------------------------------------------------

def reference_png(rgba):
    """RGBA in [0, 1] -> 8-bit RGBA PNG bytes (16-bit pypng references are rounded: <= 0.5 level)."""
    return pillow_png(Image.fromarray(np.round(np.clip(rgba, 0, 1) * 255).astype(np.uint8), "RGBA"), optimize=True)


def pillow_reference(data):
    """(converted RGBA [H, W, 4], unconverted RGBA or None): Pillow's decode as the docstring says."""
    im = Image.open(io.BytesIO(data))
    im.load()
    icc = im.info.get("icc_profile")
    nclx = im.info.get("nclx_profile") or {}
    if not icc and nclx.get("color_primaries") == 12 and nclx.get("transfer_characteristics") == 13:
        icc = display_p3_profile()  # what nclx (12, 13) describes; pillow-heif leaves it to us
    plain_cmyk = im.format == "JPEG" and im.mode == "CMYK" and b"\xff\xee" not in data[:data.find(b"\xff\xda")]
    im = ImageOps.exif_transpose(im)
    if plain_cmyk:
        im = ImageChops.invert(im)  # Pillow read it with Adobe polarity; libjpeg's rule is none
    unconverted = None
    if icc:
        profile = ImageCms.ImageCmsProfile(io.BytesIO(icc))
        if im.mode == "RGB":
            unconverted = np.asarray(im.convert("RGBA"), dtype=np.float64) / 255
        alpha = im.getchannel("A") if im.mode == "RGBA" else None
        source = im.convert("RGB") if im.mode == "RGBA" else im
        im = ImageCms.profileToProfile(source, profile, ImageCms.createProfile("sRGB"), outputMode="RGB",
                                       renderingIntent=ImageCms.Intent.RELATIVE_COLORIMETRIC)
        if alpha is not None:
            im.putalpha(alpha)
    return np.asarray(im.convert("RGBA"), dtype=np.float64) / 255, unconverted


def build(out, work):
    import pillow_heif
    pillow_heif.register_heif_opener()
    pngsuite, png = fetch_pypng(os.path.join(work, "pypng"))
    os.makedirs(out, exist_ok=True)
    expected, files = {}, {}
    for relative, data in fixtures(work, pngsuite):
        files[relative] = data
        path = os.path.join(out, relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        name = os.path.basename(relative)
        if name.startswith("x"):
            try:
                Image.open(io.BytesIO(data)).load()
            except Exception:  # noqa: BLE001 - Pillow refuses it: that is the point
                continue
            PILLOW_ACCEPTS.append(name)  # Pillow does not check IDAT CRCs: xcsn0g01 gets through
            continue
        if relative.endswith(".png") and "icc_profile" not in Image.open(io.BytesIO(data)).info:
            converted, unconverted = png_reference(png, data, relative), None
        else:
            converted, unconverted = pillow_reference(data)
        expected["expected/%s.png" % relative] = reference_png(converted)
        if unconverted is not None:
            expected["expected/unconverted/%s.png" % relative] = reference_png(unconverted)
    for relative, data in expected.items():
        os.makedirs(os.path.dirname(os.path.join(out, relative)), exist_ok=True)
        with open(os.path.join(out, relative), "wb") as f:
            f.write(data)
    check_heic_orientation(files["heic/orientation6.heic"])
    return files, expected


def check_heic_orientation(data):
    """The orientation must be stored as an irot (or imir) property, not only in EXIF."""
    assert b"irot" in data or b"imir" in data, "pillow-heif wrote no irot/imir box"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="re-derive and compare with the committed files")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        if args.check:
            fresh = os.path.join(work, "fresh")
            files, expected = build(fresh, work)
            listing = lambda root: sorted(os.path.relpath(p, root) for p in glob.glob(  # noqa: E731
                os.path.join(root, "**", "*"), recursive=True) if os.path.isfile(p) and not p.endswith("NOTICE"))
            problems = []
            if listing(fresh) != listing(OUT):
                problems.append("file lists differ: %s" % sorted(set(listing(fresh)) ^ set(listing(OUT))))
            for relative in sorted(set(listing(fresh)) & set(listing(OUT))):
                with open(os.path.join(fresh, relative), "rb") as f1, open(os.path.join(OUT, relative), "rb") as f2:
                    a, b = f1.read(), f2.read()
                if relative.startswith("expected/"):
                    pa, pb = (np.asarray(Image.open(io.BytesIO(x))) for x in (a, b))
                    if pa.shape != pb.shape or (pa != pb).any():
                        problems.append("%s: reference pixels differ" % relative)
                elif a != b:
                    problems.append("%s: bytes differ (another encoder version?)" % relative)
            print("\n".join(problems) or "conformance fixtures: all %d files and %d references match" % (
                len(files), len(expected)))
            sys.exit(1 if problems else 0)
        if os.path.isdir(OUT):
            for sub in ("png", "jpeg", "heic", "webp", "expected"):
                shutil.rmtree(os.path.join(OUT, sub), ignore_errors=True)
        files, expected = build(OUT, work)
        total = sum(os.path.getsize(p) for p in glob.glob(os.path.join(OUT, "**", "*"), recursive=True)
                    if os.path.isfile(p))
        print("reference from pypng, not Pillow:", " ".join(PYPNG_REFERENCES))
        print("corrupt, yet Pillow decodes them:", " ".join(PILLOW_ACCEPTS))
        print("wrote %d files and %d references, %d bytes" % (len(files), len(expected), total))


if __name__ == "__main__":
    main()
