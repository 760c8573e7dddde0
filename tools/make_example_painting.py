#!/usr/bin/env python3
"""examples/painting.png: the bundled painting for `gpustyle --style-image` (README, docs).

The synthetic "brush strokes" painting of tools/make_arbitrary_style_fixtures.py (made here, so
no licence question), seeded as there. Run from the repository root: python3 tools/make_example_painting.py
"""
import importlib.util
import pathlib

import numpy as np

root = pathlib.Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("fixtures", root / "tools" / "make_arbitrary_style_fixtures.py")
fixtures = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fixtures)

strokes = fixtures.paintings(np.random.default_rng(39))[0]
strokes.save(root / "examples" / "painting.png", optimize=True)
print("examples/painting.png", strokes.size)
