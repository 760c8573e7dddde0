#!/usr/bin/env python3
"""Writes Tests/GPUStyleTests/Fixtures/photos/astronaut_iccp.png: scikit-image's astronaut.png
as people have it, re-saved by Pillow with its embedded ICC profile kept.

scikit-image's astronaut.png, chelsea.png and coffee.png carry an iCCP chunk holding an old HP
"sRGB IEC61966-2.1" profile that libpng recognises by its checksum and calls a "known incorrect
sRGB profile" (a benign error: the pixels are intact, every viewer shows the file). Pillow keeps
the profile when it re-saves, so every crop or resize of these photos carries it too. The
fixture is a 128x128 crop around the face (pixels unchanged), so that the tests can read it
through every command; the profile bytes are copied unchanged from the original file.

Usage: python3 tools/make_profile_photo_fixture.py   (needs Pillow and scikit-image 0.26)
"""
import os
import zlib

import skimage
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "Tests", "GPUStyleTests", "Fixtures", "photos", "astronaut_iccp.png")


def main():
    source = os.path.join(os.path.dirname(skimage.__file__), "data", "astronaut.png")
    photo = Image.open(source)
    profile = photo.info["icc_profile"]
    crop = photo.convert("RGB").crop((160, 32, 288, 160))
    crop.save(OUT, icc_profile=profile, optimize=True)
    # The check the test relies on: the profile went through unchanged.
    assert Image.open(OUT).info["icc_profile"] == profile
    print(f"{OUT}: {os.path.getsize(OUT)} bytes, profile {len(profile)} bytes (crc {zlib.crc32(profile):08x})")


if __name__ == "__main__":
    main()
