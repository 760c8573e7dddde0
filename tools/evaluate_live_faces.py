#!/usr/bin/env python3
"""Measure `gpustyle live --faces` / `--mask` on a clip of tools/make_face_video.py (issue 19's
live bars): where the masks go against where the truth says they should, how still they stay
while the face rests, and whether the frames keep up.

    python3 tools/evaluate_live_faces.py --clip DIR [--gpustyle .build/release/gpustyle]
        [--pace realtime|lockstep] [--device cpu] [--extra "--mask leftEye=..."]

DIR holds video.y4m and truth.json (make_face_video.py). The truth mesh is the reference models'
(onnxruntime's RetinaFace crop, ai-edge-litert's face mesh) on the source photo, moved with the
face: the masks' placements are computed from it here with a numpy twin of
FaceMasking.placement (each region's points in the eye line's frame, their extent x 1.2, turned
with the eye line), independent of the Swift code.

Printed, and with --json written:
- mask position error: per region, the distance between the centre gpustyle logged and the
  truth's, mean over the frames a face was drawn on; the headline is the mean over the regions a
  mask is placed on by docs/live.md's example (eyes, eyebrows, lips, pupils, face oval) and the
  mean corner error of their rectangles (centre, size and angle together);
  the centre error is also split between the frames where the face rests and where it moves
  (where the filter's lag adds to the model's own error);
- jitter at rest: in the frames where the face rests (truth "rest"), the mean frame-to-frame
  movement of each region's logged centre (0 for a mask that does not move), over all rest
  frames and over those at least 0.3 s into a rest (after the filter has caught up);
- frames: drawn / total, the run's summary line (fps in/out, dropped).
"""
import argparse
import json
import math
import os
import subprocess
import sys

import numpy as np

REGIONS = {  # FaceRegion.indices (Sources/GPUStyle/Faces/FaceRegion.swift), MediaPipe's outline connections
    "faceContour": [10, 338, 297, 332, 284, 251, 389, 356, 454, 323, 361, 288, 397, 365, 379, 378, 400, 377,
                    152, 148, 176, 149, 150, 136, 172, 58, 132, 93, 234, 127, 162, 21, 54, 103, 67, 109],
    "leftEye": [33, 246, 161, 160, 159, 158, 157, 173, 133, 155, 154, 153, 145, 144, 163, 7],
    "rightEye": [263, 466, 388, 387, 386, 385, 384, 398, 362, 382, 381, 380, 374, 373, 390, 249],
    "leftEyebrow": [70, 63, 105, 66, 107, 55, 65, 52, 53, 46],
    "rightEyebrow": [300, 293, 334, 296, 336, 285, 295, 282, 283, 276],
    "outerLips": [61, 185, 40, 39, 37, 0, 267, 269, 270, 409, 291, 375, 321, 405, 314, 17, 84, 181, 91, 146],
    "innerLips": [78, 191, 80, 81, 82, 13, 312, 311, 310, 415, 308, 324, 318, 402, 317, 14, 87, 178, 88, 95],
}
MASKED = ["faceContour", "leftEye", "rightEye", "leftEyebrow", "rightEyebrow", "outerLips", "innerLips",
          "leftPupil", "rightPupil"]
MARGIN = 1.2  # FaceMasking.margin
SETTLE = 0.3  # seconds into a rest before the settled jitter counts


def placement(mesh, region):
    """FaceMasking.placement's twin: centre, width, height, rotation."""
    mesh = np.asarray(mesh)
    le, re = mesh[REGIONS["leftEye"]].mean(0), mesh[REGIONS["rightEye"]].mean(0)
    rot = math.atan2(re[1] - le[1], re[0] - le[0])
    eye = {"leftPupil": "leftEye", "rightPupil": "rightEye"}.get(region)
    pts = mesh[REGIONS[eye or region]]
    mid = pts.mean(0)
    c, s = math.cos(rot), math.sin(rot)
    d = pts - mid
    lx, ly = d[:, 0] * c + d[:, 1] * s, -d[:, 0] * s + d[:, 1] * c
    w, h = (lx.max() - lx.min()) * MARGIN, (ly.max() - ly.min()) * MARGIN
    mx, my = (lx.max() + lx.min()) / 2, (ly.max() + ly.min()) / 2
    centre = mid + [mx * c - my * s, mx * s + my * c]
    if eye:
        centre, w = mid, h
    return centre, w, h, rot


def corners(centre, w, h, rot):
    c, s = math.cos(rot), math.sin(rot)
    local = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
    return np.asarray(centre) + local @ np.array([[c, s], [-s, c]])


def evaluate(truth, log):
    fps = truth["fps"]
    frames = truth["frames"]
    by_frame = {r["frame"]: r for r in log}
    centre_err = {r: [] for r in MASKED}
    corner_err = []
    rest_err, moving_err = [], []
    drawn = wrong = 0
    logged = {}
    for k, t in enumerate(frames):
        r = by_frame.get(k)
        if not r or not r["faces"]:
            continue
        drawn += 1
        # The drawn face nearest the truth (one face in these clips; another would be a false one).
        tc = np.asarray(t["mesh"]).mean(0)
        faces = sorted(r["faces"], key=lambda f: np.hypot(f["box"][0] + f["box"][2] / 2 - tc[0], f["box"][1] + f["box"][3] / 2 - tc[1]))
        wrong += len(faces) - 1
        f = faces[0]
        logged[k] = f
        for region in MASKED:
            got = f["regions"][region]
            want = placement(t["mesh"], region)
            e = float(np.hypot(*(np.asarray(got["centre"]) - want[0])))
            centre_err[region].append(e)
            (rest_err if t["rest"] else moving_err).append(e)
            a = corners(got["centre"], got["width"], got["height"], got["rotation"])
            b = corners(*want)
            corner_err.append(float(np.linalg.norm(a - b, axis=1).mean()))
    # Jitter: frame-to-frame movement of each region's centre within a rest.
    rest_start = None
    jitter_all, jitter_settled = [], []
    for k, t in enumerate(frames):
        if not t["rest"]:
            rest_start = None
            continue
        if rest_start is None:
            rest_start = k
            continue
        if k in logged and k - 1 in logged:
            moves = [float(np.hypot(*(np.asarray(logged[k]["regions"][r]["centre"]) - logged[k - 1]["regions"][r]["centre"])))
                     for r in MASKED]
            jitter_all.append(np.mean(moves))
            if (k - rest_start) / fps >= SETTLE:
                jitter_settled.append(np.mean(moves))
    per_region = {r: float(np.mean(v)) if v else None for r, v in centre_err.items()}
    all_centres = [e for v in centre_err.values() for e in v]
    return {
        "frames": len(frames), "drawn": drawn, "extra_faces": wrong,
        "mask_centre_error_mean": float(np.mean(all_centres)) if all_centres else None,
        "mask_centre_error_p95": float(np.percentile(all_centres, 95)) if all_centres else None,
        "mask_centre_error_rest": float(np.mean(rest_err)) if rest_err else None,
        "mask_centre_error_moving": float(np.mean(moving_err)) if moving_err else None,
        "mask_corner_error_mean": float(np.mean(corner_err)) if corner_err else None,
        "per_region_centre_error": per_region,
        "jitter_rest_mean": float(np.mean(jitter_all)) if jitter_all else None,
        "jitter_settled_mean": float(np.mean(jitter_settled)) if jitter_settled else None,
        "rest_frames": len(jitter_all),
    }


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--clip", required=True)
    p.add_argument("--gpustyle", default=".build/release/gpustyle")
    p.add_argument("--pace", default="realtime", choices=["realtime", "lockstep", "all"])
    p.add_argument("--device", default="cpu")
    p.add_argument("--extra", default="", help="more arguments for gpustyle live (e.g. --mask ...)")
    p.add_argument("--json", help="write the figures here")
    a = p.parse_args()
    truth = json.load(open(os.path.join(a.clip, "truth.json")))
    log_path = os.path.join(a.clip, f"log-{a.pace}.jsonl")
    cmd = [a.gpustyle, "live", "--faces", "--input", os.path.join(a.clip, "video.y4m"), "--pace", a.pace,
           "--device", a.device, "--quad-log", log_path, "-o", os.path.join(a.clip, f"out-{a.pace}.y4m")] + a.extra.split()
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"gpustyle failed ({run.returncode}): {run.stderr}")
    summary = [line for line in run.stderr.splitlines() if line.startswith("summary:")]
    log = [json.loads(line) for line in open(log_path)]
    result = evaluate(truth, log)
    result["summary"] = summary[-1] if summary else None
    result["command"] = " ".join(cmd)
    for k, v in result.items():
        if k != "per_region_centre_error":
            print(f"{k}: {v:.3f}" if isinstance(v, float) else f"{k}: {v}")
    print("per region centre error (px): " + ", ".join(f"{r} {v:.2f}" for r, v in result["per_region_centre_error"].items() if v is not None))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
