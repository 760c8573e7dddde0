#!/usr/bin/env python3
"""Score `gpustyle live`'s picture tracking on a video with known ground truth.

    python3 tools/evaluate_live.py DIR_OR_VIDEO [--gpustyle .build/release/gpustyle] [--style 2]
        [--device cpu] [--extra "..."] [--pace realtime] [--decode] [--truth truth.json]
        [--log EXISTING.jsonl] [--save-log PATH] [--timeout 900] [--json] [--verbose]

DIR_OR_VIDEO is a folder written by tools/make_live_video.py (truth.json plus video.y4m or
video.mp4; the .y4m is used when both are there) or a video file with truth.json next to it
(or given by --truth). The evaluator runs

    GPUSTYLE live --input VIDEO --quad-log LOG.jsonl --style 2 --pace realtime --output /dev/null
                  [--device DEVICE] [EXTRA...]

(EXTRA split like a shell would; write --extra="--x 1" with an equals sign when it starts with a
dash). The default pace plays the video at its frame rate, as a camera would deliver it, so
the figures are the real-time ones; --pace lockstep makes the quads reproducible (what the test
asserts), --pace all runs as fast as it can. `gpustyle live --input` decodes any video
through ffmpeg; with --decode, a video that is not .y4m (the committed .mp4) is first decoded to
a temporary .y4m here (8-bit 4:2:0) and that is passed instead. The video's size and frame count
must match the truth (checked from the Y4M header, or with ffprobe when it is installed). With
--log, an existing log is scored and gpustyle is not run (the video is then not needed).

Quad log (the contract with `gpustyle live --quad-log`)
-------------------------------------------------------
One JSON object per line, one line per output frame:
    {"frame": <0-based index of the input frame the output frame was made from>,
     "quad": [[x, y], [x, y], [x, y], [x, y]] | null,
     "state": "detected" | "tracked" | "searching" | ...}
"quad" is where the overlay was drawn (null: no overlay), corners top-left, top-right,
bottom-right, bottom-left, in pixels with pixel centres at integer coordinates (the truth's
convention, see tools/make_live_video.py). Any "state" string is counted; "detected", "tracked",
"lost" and "searching" (and "held", the tracker's state before issue 14) also give the losses and
re-acquisitions below. An optional boolean
"overlaid" (whether the stylized image was actually drawn; false while the first one is still
being made) is reported for information; the scores use "quad". An optional numeric "score" (the
tracker's appearance-verification score; null or absent when there is none) gives the score
statistics. Other keys are ignored.

Scoring
-------
* Corner error of an output frame = mean distance of its 4 corners to the truth's corners of its
  input frame, after the best cyclic assignment (evaluate_rectangles.match: 4 rotations, both
  windings; a best assignment other than the given order is counted as a wrong orientation).
  Reported over the output frames made from visible frames (truth "visible": the whole picture
  inside the image) that have an overlay: mean, 95th percentile and max. Frames where the
  picture is only partly in view, and the frames where the hand covers part of it, are also
  reported on their own; every step of the clip's motion script ("phase") gets a line too.
* Overlay share (coverage) = visible input frames with at least one overlaid output frame /
  visible input frames (an input frame with no output frame at all counts as without overlay).
* Answered = input frames with at least one output frame / input frames; unanswered input
  frames = those with none. With --pace realtime gpustyle drops a frame that arrives while the
  previous one is still being processed (its mailbox keeps only the newest), and a dropped frame
  gets no log line, so on a machine that cannot keep up this target fails by design of the pace;
  lockstep and all answer every frame.
* Late overlays = output frames with a quad made from an input frame more than 0.2 s
  (LATE_SECONDS) after the picture left the view (truth quad null since then), or at any time
  before it first appeared. Overlays made from the first 0.2 s of frames after it left are
  counted separately. The old "false overlays" (the same with a 1-s grace) are still reported.
  Overlays within 10 px of the second picture are neither late, false, wrong partial nor wrong
  overlays: since issue 35 a confirmed other picture becomes the tracked one.
* Second-picture overlays (clips with "quad2" in the truth, make_live_video.py --script second):
  output frames whose quad is closer (mean corner error) to the second picture's corners than to
  the first's, or, when the first is out of view, within 20 px of the second's.
* Wrong partial overlays: overlays on frames where the picture is only partly in view whose
  corner error (to the whole picture's corners, outside the image included) is over 10 px, e.g.
  a quad shrunk onto the visible part.
* Losses and re-acquisitions, from the states in log order: "tracked"/"detected"/"held" followed
  by "lost"/"searching" is a loss, "lost" followed by "detected" a re-acquisition. Also reported:
  for each return of the picture into full view after it had been gone, the time until the first
  input frame with an overlay within 6 px.
* Score statistics (for choosing the verification threshold): over the output frames with a
  numeric "score", its min, 5th percentile and median on right overlays (corner error <= 6 px)
  and its max, 95th percentile and median on wrong ones (error > 6 px) or where the picture was
  gone; "separable" when every right score is above every wrong one.
* Targets, printed as PASS/FAIL: overlay share >= 97 %, mean corner error <= 2 px, p95 <= 6 px,
  no late overlays, no wrong partial overlays, no unanswered input frames; issue 35's acquisition
  (per entry into full view, "in_view_from": frames to the first overlay within 10 px) median
  <= 10 and max <= 20, and no wrong overlays (drawn more than 10 px off the picture, or with no
  picture in view, but not on the second picture: since issue 35 a confirmed other picture is
  taken; its frames are reported as second-picture overlays, no longer a target).
  Exit code 0 when the evaluation ran (whether or not the targets pass), 2 when gpustyle
  cannot be run or fails, or the truth, video or log is unusable.

--json prints one JSON object instead: {"summary": {...}, "targets": {...}, "phases": {...},
"states": {...}, "frames": [{"frame", "state", "overlay", "drawn", "score", "truth":
"visible"|"partial"|"gone", "occluded", "phase", "error_px", "corner_errors", "rotation", "reversed",
"false_overlay", "late_overlay", "second_error_px", "second_overlay", "wrong_partial"}]}; the summary
holds late_overlays, answered, unanswered_input_frames, second_picture_overlays,
wrong_partial_overlays, losses, reacquisitions, reacquire_delays_s and "scores" ({"right": {count,
min, p5, median}, "wrong_or_gone": {count, max, p95, median}, ...}).
"""
import argparse
import collections
import json
import math
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evaluate_rectangles import match, mean, percentile  # noqa: E402

TARGETS = {"overlay_share": (">=", 0.97), "mean_corner_error_px": ("<=", 2.0), "p95_corner_error_px": ("<=", 6.0),
           "late_overlays": ("<=", 0), "wrong_partial_overlays": ("<=", 0),
           "unanswered_input_frames": ("<=", 0), "acquisition_median_frames": ("<=", 10),
           "acquisition_max_frames": ("<=", 20), "wrong_overlays": ("<=", 0)}
LATE_SECONDS = 0.2  # an overlay from an input frame this long after the picture left is late
GRACE_SECONDS = 1.0  # the old "false overlays" (reported, no longer a target): later than this
SECOND_MATCH_PX = 20.0  # an overlay this close to the second picture (and no first one) is on it
PARTIAL_WRONG_PX = 10.0  # an overlay on a partly visible picture further off than this is wrong
GOOD_PX = 6.0  # the score statistics: an overlay within this is right
WRONG_PX = 10.0  # issue 35: an overlay further than this from the picture (or with none in view) is wrong
LOST_STATES = {"lost", "searching"}
HELD_STATES = {"tracked", "detected", "held"}  # "held": main's last quad kept after a failed track


class BadInput(Exception):
    """Unusable truth, video or log, or gpustyle could not run: exit code 2."""


# --- inputs ----------------------------------------------------------------------------------------

def locate(path, truth_arg, need_video):
    """(video path or None, truth path) for a clip folder or a video file."""
    if os.path.isdir(path):
        truth = truth_arg or os.path.join(path, "truth.json")
        video = None
        for name in ("video.y4m", "video.mp4"):
            if os.path.isfile(os.path.join(path, name)):
                video = os.path.join(path, name)
                break
    else:
        video = path
        truth = truth_arg or os.path.join(os.path.dirname(os.path.abspath(path)), "truth.json")
        if not os.path.isfile(video) and need_video:
            raise BadInput(f"no such video: {video}")
    if need_video and video is None:
        raise BadInput(f"no video.y4m or video.mp4 in {path}")
    return video, truth


def load_truth(path):
    try:
        with open(path) as f:
            truth = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        raise BadInput(f"cannot read truth {path}: {e}")
    try:
        W, H, fps = int(truth["width"]), int(truth["height"]), float(truth["fps"])
        frames = truth["frames"]
        for i, fr in enumerate(frames):
            if fr["frame"] != i:
                raise ValueError(f"entry {i} is for frame {fr['frame']}")
            if fr["quad"] is not None and not valid_quad(fr["quad"]):
                raise ValueError(f"frame {i}: bad quad {fr['quad']!r}")
    except (KeyError, TypeError, ValueError) as e:
        raise BadInput(f"{path} is not a make_live_video.py truth file: {e!r}")
    if not frames or fps <= 0:
        raise BadInput(f"{path}: no frames or no frame rate")
    return truth


def valid_quad(q):
    try:
        return len(q) == 4 and all(len(p) == 2 and all(math.isfinite(float(v)) for v in p) for p in q)
    except (TypeError, ValueError):
        return False


def y4m_info(path):
    """(width, height, frame count) of a Y4M file; raises BadInput when it is not one."""
    try:
        with open(path, "rb") as f:
            header = f.readline(1024)
            if not header.startswith(b"YUV4MPEG2 ") or not header.endswith(b"\n"):
                raise BadInput(f"{path} is not a YUV4MPEG2 file")
            tokens = header.split()[1:]
            fields = {t[:1]: t[1:] for t in tokens}
            W, H = int(fields[b"W"]), int(fields[b"H"])
            chroma = fields.get(b"C", b"420").decode()
            cw, ch = {"444": (W, H), "422": ((W + 1) // 2, H), "mono": (0, 0)}.get(
                chroma[:4] if chroma.startswith("mono") else chroma[:3], ((W + 1) // 2, (H + 1) // 2))
            frame_bytes = W * H + 2 * cw * ch
            size = os.fstat(f.fileno()).st_size
            count = 0
            while f.tell() < size:
                line = f.readline(1024)
                if not line.startswith(b"FRAME"):
                    raise BadInput(f"{path}: frame {count} does not start with FRAME")
                f.seek(frame_bytes, os.SEEK_CUR)
                count += 1
            if f.tell() > size:
                raise BadInput(f"{path}: the last frame is cut short")
    except OSError as e:
        raise BadInput(f"cannot read {path}: {e}")
    except (KeyError, ValueError) as e:
        raise BadInput(f"{path}: bad Y4M header: {e!r}")
    return W, H, count


def to_y4m(video, tmpdir):
    """Decodes a non-Y4M video to tmpdir/input.y4m with ffmpeg."""
    exe = shutil.which("ffmpeg")
    if not exe:
        raise BadInput(f"{video} is not .y4m and ffmpeg is not on the PATH to decode it")
    out = os.path.join(tmpdir, "input.y4m")
    p = subprocess.run([exe, "-hide_banner", "-loglevel", "error", "-y", "-i", video, "-f", "yuv4mpegpipe",
                        "-pix_fmt", "yuv420p", out], capture_output=True, text=True)
    if p.returncode != 0:
        raise BadInput(f"ffmpeg could not decode {video}: {p.stderr.strip()[:300]}")
    return out


def video_info(path):
    """(width, height, frame count) of a video: from the Y4M header, or ffprobe's packet count for
    other formats; None when it cannot be told (no ffprobe)."""
    if path.lower().endswith(".y4m"):
        return y4m_info(path)
    exe = shutil.which("ffprobe")
    if not exe:
        return None
    p = subprocess.run([exe, "-v", "error", "-select_streams", "v:0", "-count_packets", "-show_entries",
                        "stream=width,height,nb_read_packets", "-of", "json", path], capture_output=True, text=True)
    try:
        st = json.loads(p.stdout)["streams"][0]
        return int(st["width"]), int(st["height"]), int(st["nb_read_packets"])
    except (json.JSONDecodeError, KeyError, IndexError, ValueError):
        raise BadInput(f"ffprobe cannot read {path}: {p.stderr.strip()[:300]}")


def run_gpustyle(args, video, log_path):
    """Runs gpustyle live; returns its wall-clock seconds."""
    exe = args.gpustyle
    found = (os.path.isfile(exe) and os.access(exe, os.X_OK)) if os.sep in exe else bool(shutil.which(exe))
    if not found:
        raise BadInput(f"gpustyle binary not found or not executable: {exe} "
                       f"(build it with `swift build -c release`, or pass --gpustyle PATH)")
    cmd = [exe, "live", "--input", video, "--quad-log", log_path, "--style", str(args.style), "--pace", args.pace,
           "--output", "/dev/null"]
    if args.device:
        cmd += ["--device", args.device]
    cmd += shlex.split(args.extra or "")
    print("running: " + " ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        raise BadInput(f"gpustyle live timed out after {args.timeout:g} s")
    except OSError as e:
        raise BadInput(f"cannot start {exe}: {e}")
    seconds = time.perf_counter() - t0
    if p.returncode != 0:
        raise BadInput(f"gpustyle live exited with {p.returncode}: {p.stderr.strip()[-600:] or 'no message'}")
    return seconds


def load_log(path):
    """The quad log's entries, in file order."""
    entries = []
    try:
        with open(path) as f:
            for n, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    e = json.loads(line)
                    frame, quad, state = e["frame"], e.get("quad"), e.get("state", "")
                    if not isinstance(frame, int) or isinstance(frame, bool) or frame < 0:
                        raise ValueError(f"bad frame {frame!r}")
                    if quad is not None and not valid_quad(quad):
                        raise ValueError(f"bad quad {quad!r}")
                    if not isinstance(state, str):
                        raise ValueError(f"bad state {state!r}")
                except (json.JSONDecodeError, KeyError, TypeError, ValueError) as err:
                    raise BadInput(f"{path}:{n}: not a quad-log line ({err}): {line.strip()[:200]!r}")
                quad = None if quad is None else [[float(x), float(y)] for x, y in quad]
                drawn = e.get("overlaid")
                score = e.get("score")
                score = float(score) if (isinstance(score, (int, float)) and not isinstance(score, bool)
                                         and math.isfinite(score)) else None
                ms = e.get("ms")
                ms = float(ms) if isinstance(ms, (int, float)) and not isinstance(ms, bool) else None
                entries.append({"frame": frame, "quad": quad, "state": state,
                                "overlaid": drawn if isinstance(drawn, bool) else None, "score": score, "ms": ms,
                                "refused": e.get("refused"), "loss": e.get("loss")})
    except OSError as e:
        raise BadInput(f"cannot read log {path}: {e}")
    if not entries:
        raise BadInput(f"{path}: the log is empty")
    return entries


# --- scoring ---------------------------------------------------------------------------------------

def seconds_since_gone(frames, fps):
    """Per input frame: seconds since the picture left the view (0 on the first frame without it),
    None while it is (partly) in view, inf before it first appeared."""
    out, gone_at = [], None
    for fr in frames:
        if fr["quad"] is not None:
            gone_at = -1
            out.append(None)
            continue
        if gone_at is None:
            out.append(math.inf)
            continue
        if gone_at == -1:
            gone_at = fr["frame"]
        out.append((fr["frame"] - gone_at) / fps)
    return out


def score_entries(truth, entries):
    """One result per output frame: its truth condition and, with both quads, its corner errors."""
    frames, fps = truth["frames"], float(truth["fps"])
    since_gone = seconds_since_gone(frames, fps)
    results = []
    for e in entries:
        r = {"frame": e["frame"], "state": e["state"], "overlay": e["quad"] is not None, "drawn": e["overlaid"],
             "score": e.get("score"), "error_px": None,
             "corner_errors": None, "rotation": None, "reversed": None, "false_overlay": False,
             "late_overlay": False, "second_error_px": None, "second_overlay": False, "wrong_partial": False,
             "wrong_overlay": False, "ms": e.get("ms"), "refused": e.get("refused")}
        if e["frame"] >= len(frames):
            r.update(truth="out_of_range", occluded=0.0, phase=None)
            results.append(r)
            continue
        fr = frames[e["frame"]]
        r["truth"] = "gone" if fr["quad"] is None else ("visible" if fr["visible"] else "partial")
        r["occluded"] = fr.get("occluded", 0.0)
        r["phase"] = fr.get("phase")
        if e["quad"] is not None and fr["quad"] is not None:
            errs, rot, rev = match(e["quad"], fr["quad"])
            r.update(error_px=round(mean(errs), 4), corner_errors=[round(v, 4) for v in errs], rotation=rot,
                     reversed=rev)
        if e["quad"] is not None and fr.get("quad2") is not None:
            e2 = mean(match(e["quad"], fr["quad2"])[0])
            r["second_error_px"] = round(e2, 4)
            r["second_overlay"] = e2 < r["error_px"] if r["error_px"] is not None else e2 < SECOND_MATCH_PX
        # Since issue 35 a picture that is not the lost one becomes the picture once a second
        # detection confirms it (issue 14: "none on the second picture unless it is the one that
        # was tracked"): a quad on the second picture (--script second) is neither late, nor a
        # wrong partial overlay of the first, nor a wrong overlay; those frames are the
        # second-picture overlays.
        on_second = r["second_error_px"] is not None and r["second_error_px"] <= WRONG_PX
        if e["quad"] is not None and fr["quad"] is None:
            r["false_overlay"] = since_gone[e["frame"]] > GRACE_SECONDS + 1e-9 and not on_second
            r["late_overlay"] = since_gone[e["frame"]] > LATE_SECONDS + 1e-9 and not on_second
        if (r["truth"] == "partial" and r["error_px"] is not None and r["error_px"] > PARTIAL_WRONG_PX
                and not on_second):
            r["wrong_partial"] = True
        # Issue 35: drawn while the quad is more than 10 px from the picture, or with no picture in
        # view (on the second picture: see above).
        if e["quad"] is not None and (fr["quad"] is None or r["error_px"] > WRONG_PX) and not on_second:
            r["wrong_overlay"] = True
        results.append(r)
    return results


def error_stats(results):
    errs = [r["error_px"] for r in results if r["error_px"] is not None]
    return {"count": len(errs), "mean": mean(errs), "p95": percentile(errs, 95), "max": max(errs) if errs else None}


def transitions(results):
    """(losses, re-acquisitions) from the log's states in file order: tracked/detected (or held, the
    state before issue 14) followed by lost/searching is a loss, lost followed by detected a
    re-acquisition."""
    losses = reacquisitions = 0
    prev = None
    for r in results:
        if prev in HELD_STATES and r["state"] in LOST_STATES:
            losses += 1
        elif prev == "lost" and r["state"] == "detected":
            reacquisitions += 1
        prev = r["state"]
    return losses, reacquisitions


def reacquire_delays(truth, results):
    """Seconds from each return of the picture into full view after it had been gone to the first
    input frame with an overlay within GOOD_PX (None when none came before it left again)."""
    frames, fps = truth["frames"], float(truth["fps"])
    good = {r["frame"] for r in results if r["error_px"] is not None and r["error_px"] <= GOOD_PX}
    delays, was_gone, waiting = [], False, None
    for fr in frames:
        if fr["quad"] is None:
            if waiting is not None:
                delays.append(None)
                waiting = None
            was_gone = True
        elif fr["visible"] and was_gone:
            was_gone, waiting = False, fr["frame"]
        if waiting is not None and fr["frame"] in good:
            delays.append(round((fr["frame"] - waiting) / fps, 3))
            waiting = None
    if waiting is not None:
        delays.append(None)
    return delays


def in_view_from(truth):
    """The frames on which the picture comes fully into view after a frame on which it was not:
    the truth's "in_view_from" (make_live_video.py writes it), else from "visible"."""
    frames = truth["frames"]
    if isinstance(truth.get("in_view_from"), list):
        return truth["in_view_from"]
    return [fr["frame"] for k, fr in enumerate(frames) if fr["visible"] and (k == 0 or not frames[k - 1]["visible"])]


def acquisitions(truth, results):
    """Per entry into full view (issue 35): frames from the first fully visible frame to the
    first input frame with an overlay within WRONG_PX of the picture. An entry whose view ends
    (the picture leaves full view) with no such overlay counts the frames it lasted, marked
    "never"; an entry while the overlay is already on (it never left) is 0."""
    frames = truth["frames"]
    right = {r["frame"] for r in results if r["error_px"] is not None and r["error_px"] <= WRONG_PX}
    out = []
    for start in in_view_from(truth):
        k = start
        while k < len(frames) and frames[k]["visible"] and k not in right:
            k += 1
        found = k < len(frames) and frames[k]["visible"]
        out.append({"frame": start, "frames": k - start, "found": found})
    return out


def score_stats(results):
    """The verification score on right overlays (error <= GOOD_PX) and on wrong ones (error >
    GOOD_PX, or the picture gone): what a threshold has to separate."""
    right = sorted(r["score"] for r in results if r["score"] is not None and r["error_px"] is not None
                   and r["error_px"] <= GOOD_PX)
    wrong = sorted(r["score"] for r in results if r["score"] is not None and r["truth"] != "out_of_range"
                   and (r["truth"] == "gone" or (r["error_px"] is not None and r["error_px"] > GOOD_PX)))
    other = sum(1 for r in results if r["score"] is not None and r["error_px"] is None and r["truth"] != "gone")
    med = lambda v: percentile(v, 50) if v else None
    return {"frames_with_score": sum(1 for r in results if r["score"] is not None),
            "right": {"count": len(right), "min": right[0] if right else None,
                      "p5": percentile(right, 5) if right else None, "median": med(right)},
            "wrong_or_gone": {"count": len(wrong), "max": wrong[-1] if wrong else None,
                              "p95": percentile(wrong, 95) if wrong else None, "median": med(wrong)},
            "without_overlay_picture_in_view": other,
            "separable": (right[0] > wrong[-1]) if right and wrong else None}


def overlay_coverage(frame_ids, covered):
    return (sum(1 for f in frame_ids if f in covered) / len(frame_ids)) if frame_ids else None


def summarize(truth, results):
    frames, fps = truth["frames"], float(truth["fps"])
    visible = [fr["frame"] for fr in frames if fr["visible"]]
    covered = {r["frame"] for r in results if r["overlay"]}
    on_visible = [r for r in results if r["truth"] == "visible"]
    vis_stats = error_stats(on_visible)
    occluded_ids = [fr["frame"] for fr in frames if fr["visible"] and fr.get("occluded", 0) > 0]
    partial_ids = [fr["frame"] for fr in frames if fr["quad"] is not None and not fr["visible"]]
    on_gone = [r for r in results if r["truth"] == "gone" and r["overlay"]]
    output_for = {r["frame"] for r in results}

    # longest run of visible frames without an overlay, and the first overlay's delay
    longest, run = 0, 0
    for fr in frames:
        if fr["visible"] and fr["frame"] not in covered:
            run += 1
            longest = max(longest, run)
        elif fr["visible"]:
            run = 0
    first_visible = visible[0] if visible else None
    first_overlay = min((f for f in covered if f < len(frames) and frames[f]["visible"]), default=None)
    s = {
        "input_frames": len(frames), "output_frames": len(results),
        "input_frames_without_output": sum(1 for fr in frames if fr["frame"] not in output_for),
        "out_of_range_entries": sum(1 for r in results if r["truth"] == "out_of_range"),
        "visible_frames": len(visible),
        "visible_frames_with_overlay": sum(1 for f in visible if f in covered),
        "overlay_share": overlay_coverage(visible, covered),
        "mean_corner_error_px": vis_stats["mean"], "p95_corner_error_px": vis_stats["p95"],
        "max_corner_error_px": vis_stats["max"], "scored_output_frames": vis_stats["count"],
        "wrong_orientation": sum(1 for r in results if r["rotation"] not in (None, 0) or r["reversed"]),
        "occluded_frames": len(occluded_ids), "occluded_overlay_share": overlay_coverage(occluded_ids, covered),
        "occluded_mean_corner_error_px": error_stats([r for r in on_visible if r["occluded"] > 0])["mean"],
        "partial_frames": len(partial_ids), "partial_overlay_share": overlay_coverage(partial_ids, covered),
        "partial_mean_corner_error_px": error_stats([r for r in results if r["truth"] == "partial"])["mean"],
        "gone_frames": sum(1 for fr in frames if fr["quad"] is None),
        "overlays_within_grace": sum(1 for r in on_gone if not r["false_overlay"]),
        "false_overlays": sum(1 for r in on_gone if r["false_overlay"]),
        "overlays_within_late": sum(1 for r in on_gone if not r["late_overlay"]),
        "late_overlays": sum(1 for r in on_gone if r["late_overlay"]),
        "answered": len(output_for & set(range(len(frames)))) / len(frames),
        "unanswered_input_frames": sum(1 for fr in frames if fr["frame"] not in output_for),
        "second_picture_frames": sum(1 for fr in frames if fr.get("quad2") is not None),
        "second_picture_overlays": sum(1 for r in results if r["second_overlay"]),
        "wrong_partial_overlays": sum(1 for r in results if r["wrong_partial"]),
        "losses": None, "reacquisitions": None,
        "truth_exits": sum(1 for a, b in zip(frames, frames[1:]) if a["quad"] is not None and b["quad"] is None),
        "reacquire_delays_s": reacquire_delays(truth, results),
        "longest_gap_frames": longest,
        "visible_frames_drawn_share": overlay_coverage(visible, {r["frame"] for r in results if r["drawn"]})
        if any(r["drawn"] is not None for r in results) else None,
        "first_overlay_delay_s": None if first_overlay is None or first_visible is None
        else (first_overlay - first_visible) / fps,
    }
    s["losses"], s["reacquisitions"] = transitions(results)
    acq = acquisitions(truth, results)
    s["acquisitions"] = acq
    counts = sorted(a["frames"] for a in acq)
    s["acquisition_median_frames"] = percentile(counts, 50) if counts else None
    s["acquisition_max_frames"] = counts[-1] if counts else None
    s["wrong_overlays"] = sum(1 for r in results if r["wrong_overlay"])
    ms = [r["ms"] for r in results if r.get("ms") is not None]
    s["ms_per_frame_median"] = percentile(ms, 50) if ms else None
    s["ms_per_frame_p95"] = percentile(ms, 95) if ms else None
    s["refusals"] = dict(collections.Counter(r["refused"] for r in results if r.get("refused")).most_common())
    s["scores"] = score_stats(results)
    return s


def per_phase(truth, results):
    covered = {r["frame"] for r in results if r["overlay"]}
    out = collections.OrderedDict()
    for fr in truth["frames"]:
        p = out.setdefault(fr.get("phase") or "-", {"frames": 0, "visible": [], "results": []})
        p["frames"] += 1
        if fr["visible"]:
            p["visible"].append(fr["frame"])
    for r in results:
        if r["truth"] == "visible":
            out[r["phase"] or "-"]["results"].append(r)
    table = collections.OrderedDict()
    for name, p in out.items():
        st = error_stats(p["results"])
        table[name] = {"frames": p["frames"], "visible": len(p["visible"]),
                       "overlay_share": overlay_coverage(p["visible"], covered),
                       "mean_corner_error_px": st["mean"], "p95_corner_error_px": st["p95"],
                       "max_corner_error_px": st["max"]}
    return table


def check_targets(s):
    out = {}
    for k, (op, lim) in TARGETS.items():
        v = s.get(k)
        if v is None:
            ok = False if s["visible_frames"] else None  # nothing scored although there was something to see
        else:
            ok = v >= lim if op == ">=" else v <= lim
        out[k] = {"value": v, "target": f"{op} {lim}", "pass": ok}
    return out


# --- report ----------------------------------------------------------------------------------------

def fmt(v, spec=".2f", none="-"):
    return none if v is None else format(v, spec)


def pct(v):
    return "-" if v is None else f"{v * 100:.1f}%"


def print_report(run, s, states, phases, targets, results, verbose, out=sys.stdout):
    w = out.write
    if verbose:
        w(f"{'frame':>5s} {'truth':8s} {'phase':12s} {'occl':>5s} {'state':10s} {'error':>7s}  notes\n")
        for r in results:
            notes = []
            if r["late_overlay"]:
                notes.append("LATE OVERLAY" + (" (also > 1 s: false)" if r["false_overlay"] else ""))
            elif r["truth"] == "gone" and r["overlay"]:
                notes.append(f"overlay after the picture left (within {LATE_SECONDS:g} s)")
            if r["second_overlay"]:
                notes.append(f"ON THE SECOND PICTURE ({r['second_error_px']:.1f} px)")
            if r["wrong_partial"]:
                notes.append("WRONG ON A PARTIAL VIEW")
            if r["truth"] in ("visible", "partial") and not r["overlay"]:
                notes.append("no overlay")
            if r["rotation"] not in (None, 0) or r["reversed"]:
                notes.append(f"corner order: rotation {r['rotation']}{', reversed' if r['reversed'] else ''}")
            if r["score"] is not None:
                notes.insert(0, f"score {r['score']:.3f}")
            w(f"{r['frame']:5d} {r['truth']:8s} {str(r['phase']):12s} {fmt(r['occluded'], '.2f'):>5s} "
              f"{r['state']:10s} {fmt(r['error_px']):>7s}  {'; '.join(notes)}\n")
        w("\n")
    if run.get("video"):
        w(f"video: {run['video']} ({s['input_frames']} frames, {run['width']}x{run['height']} @ {run['fps']:g} fps)\n")
    if run.get("seconds") is not None:
        rate = s["output_frames"] / run["seconds"]
        w(f"gpustyle live: {run['seconds']:.1f} s wall clock ({rate:.1f} output frames/s)\n")
    w(f"log: {run['log']}: {s['output_frames']} output frames; states: "
      + ", ".join(f"{k} {v}" for k, v in states.items()) + "\n")
    w(f"answered: {s['output_frames']} output frames for {s['input_frames']} input frames; "
      f"{pct(s['answered'])} of the input frames have an output frame, {s['unanswered_input_frames']} never "
      f"answered (with --pace realtime a frame that arrives while the previous one is still being processed is "
      f"dropped and gets no log line; it counts as without overlay)\n")
    if s["out_of_range_entries"]:
        w(f"WARNING: {s['out_of_range_entries']} log line(s) name a frame past the video's end\n")
    w(f"visible frames: {s['visible_frames']}, with an overlay {s['visible_frames_with_overlay']} "
      f"({pct(s['overlay_share'])}); first overlay {fmt(s['first_overlay_delay_s'], '.2f')} s after the picture "
      f"was in view; longest gap {s['longest_gap_frames']} frames\n")
    if s["visible_frames_drawn_share"] is not None:
        w(f"stylized image actually drawn (\"overlaid\") on {pct(s['visible_frames_drawn_share'])} of the visible "
          f"frames (not a target)\n")
    w(f"corner error on visible frames with an overlay (px, mean of the 4 corners per frame, "
      f"{s['scored_output_frames']} frames): mean {fmt(s['mean_corner_error_px'], '.3f')}, "
      f"p95 {fmt(s['p95_corner_error_px'], '.3f')}, max {fmt(s['max_corner_error_px'], '.3f')}\n")
    w(f"hand over the picture: {s['occluded_frames']} visible frames, overlay on {pct(s['occluded_overlay_share'])}, "
      f"mean error {fmt(s['occluded_mean_corner_error_px'], '.3f')} px\n")
    w(f"partly in view: {s['partial_frames']} frames, overlay on {pct(s['partial_overlay_share'])}, "
      f"mean error {fmt(s['partial_mean_corner_error_px'], '.3f')} px (not a target)\n")
    w(f"partly in view, overlay more than {PARTIAL_WRONG_PX:g} px off (shrunk onto the visible part?): "
      f"{s['wrong_partial_overlays']}\n")
    w(f"picture gone: {s['gone_frames']} frames ({s['truth_exits']} exit(s)); overlays made from frames within "
      f"{LATE_SECONDS:g} s of its leaving {s['overlays_within_late']}, later {s['late_overlays']} (late overlays); "
      f"later than {GRACE_SECONDS:g} s {s['false_overlays']} (the old false overlays)\n")
    if s["second_picture_frames"]:
        w(f"second picture: in view on {s['second_picture_frames']} frames; overlays on it "
          f"{s['second_picture_overlays']}\n")
    w(f"losses (tracked/detected/held -> lost/searching) {s['losses']}, re-acquisitions (lost -> detected) "
      f"{s['reacquisitions']}; back in full view after a loss of view -> first overlay within {GOOD_PX:g} px: "
      + (", ".join("never" if d is None else f"{d:.2f} s" for d in s["reacquire_delays_s"]) or "-") + "\n")
    w("acquisition (frames from fully in view to the first overlay within %g px): " % WRONG_PX
      + (", ".join(f"frame {a['frame']}: {a['frames']}" + ("" if a["found"] else " (never)") for a in s["acquisitions"])
         or "-") + f"; wrong overlays (> {WRONG_PX:g} px off, or no picture in view) {s['wrong_overlays']}; "
      f"ms/frame median {fmt(s['ms_per_frame_median'], '.1f')}, p95 {fmt(s['ms_per_frame_p95'], '.1f')}; refusals "
      + (", ".join(f"{k} {v}" for k, v in s["refusals"].items()) or "-") + "\n")
    sc = s["scores"]
    if sc["frames_with_score"]:
        r, x = sc["right"], sc["wrong_or_gone"]
        w(f"score ({sc['frames_with_score']} frames with one): right overlays (<= {GOOD_PX:g} px) {r['count']}: "
          f"min {fmt(r['min'], '.3f')}, p5 {fmt(r['p5'], '.3f')}, median {fmt(r['median'], '.3f')}; "
          f"wrong or picture gone {x['count']}: max {fmt(x['max'], '.3f')}, p95 {fmt(x['p95'], '.3f')}, median "
          f"{fmt(x['median'], '.3f')}; separable {sc['separable']}; with a score but no overlay while in view "
          f"{sc['without_overlay_picture_in_view']}\n")
    else:
        w("score: no numeric \"score\" in the log\n")
    if s["wrong_orientation"]:
        w(f"WARNING: {s['wrong_orientation']} output frame(s) matched only after changing the start corner or "
          f"winding (expected TL, TR, BR, BL clockwise)\n")
    w("\n")
    w(f"{'phase':12s} {'frames':>6s} {'visible':>7s} {'overlay':>8s} {'mean err':>9s} {'p95 err':>8s}"
      f" {'max err':>8s}\n")
    for name, p in phases.items():
        w(f"{name:12s} {p['frames']:6d} {p['visible']:7d} {pct(p['overlay_share']):>8s} "
          f"{fmt(p['mean_corner_error_px'], '.3f'):>9s} {fmt(p['p95_corner_error_px'], '.3f'):>8s} "
          f"{fmt(p['max_corner_error_px'], '.3f'):>8s}\n")
    w("\n")
    names = {"overlay_share": "overlay on visible frames", "mean_corner_error_px": "mean corner error",
             "p95_corner_error_px": "p95 corner error", "late_overlays": "late overlays",
             "second_picture_overlays": "second-picture overlays", "wrong_partial_overlays": "wrong partial overlays",
             "unanswered_input_frames": "unanswered input frames",
             "acquisition_median_frames": "acquisition median (frames)", "acquisition_max_frames": "acquisition max (frames)",
             "wrong_overlays": "wrong overlays"}
    for k, t in targets.items():
        v, lim = t["value"], t["target"].split()
        if k == "overlay_share":
            shown, tshown = pct(v), f"{lim[0]} {float(lim[1]) * 100:g}%"
        elif k.endswith("_px"):
            shown, tshown = ("-" if v is None else f"{v:.3f} px"), f"{lim[0]} {lim[1]} px"
        elif k == "late_overlays":
            shown, tshown = str(v), f"{lim[1]} later than {LATE_SECONDS:g} s after the picture left"
        else:
            shown, tshown = str(v), f"{lim[0]} {lim[1]}"
        verdict = {True: "PASS", False: "FAIL", None: "n/a"}[t["pass"]]
        w(f"{verdict:4s}  {names[k]:26s} {shown:>10s}  (target {tshown})\n")


# --- main ------------------------------------------------------------------------------------------

def evaluate(args):
    video, truth_path = locate(args.input, args.truth, need_video=not args.log)
    truth = load_truth(truth_path)
    run = {"video": video, "truth": truth_path, "width": truth["width"], "height": truth["height"],
           "fps": float(truth["fps"]), "seconds": None}
    with tempfile.TemporaryDirectory(prefix="evaluate_live.") as tmp:
        if args.log:
            log_path = args.log
        else:
            if args.decode and not video.lower().endswith(".y4m"):
                video = to_y4m(video, tmp)
            info = video_info(video)
            if info is not None and info != (truth["width"], truth["height"], len(truth["frames"])):
                raise BadInput(f"{video} is {info[0]}x{info[1]} with {info[2]} frames, {truth_path} describes "
                               f"{truth['width']}x{truth['height']} with {len(truth['frames'])}")
            log_path = args.save_log or os.path.join(tmp, "quads.jsonl")
            run["seconds"] = run_gpustyle(args, video, log_path)
        run["log"] = log_path
        entries = load_log(log_path)
    results = score_entries(truth, entries)
    summary = summarize(truth, results)
    states = dict(collections.Counter(r["state"] for r in results).most_common())
    phases = per_phase(truth, results)
    targets = check_targets(summary)
    if args.json:
        json.dump({"run": run, "summary": summary, "targets": targets, "states": states, "phases": phases,
                   "frames": results}, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        print_report(run, summary, states, phases, targets, results, args.verbose)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Score gpustyle live's picture tracking against a video's ground truth.",
                                 epilog="See the module docstring for the log format and the scoring.")
    ap.add_argument("input", metavar="DIR_OR_VIDEO",
                    help="make_live_video.py folder, or a video with truth.json beside it")
    ap.add_argument("--gpustyle", default=".build/release/gpustyle", help="gpustyle binary")
    ap.add_argument("--style", default="2", help="--style for gpustyle live (default 2)")
    ap.add_argument("--device", help="--device for gpustyle live (e.g. cpu); not passed when omitted")
    ap.add_argument("--extra", default="", help="more arguments for gpustyle live, e.g. \"--strength 0.8\"")
    ap.add_argument("--pace", default="realtime", help="--pace for gpustyle live (default realtime; lockstep is reproducible)")
    ap.add_argument("--decode", action="store_true", help="decode a non-Y4M video to a temporary .y4m first")
    ap.add_argument("--truth", help="truth.json (default: in the folder / next to the video)")
    ap.add_argument("--log", help="score this existing quad log instead of running gpustyle")
    ap.add_argument("--save-log", help="keep the quad log of the run at this path")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds allowed for gpustyle live (default 900)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of the report")
    ap.add_argument("--verbose", "-v", action="store_true", help="one line per output frame first")
    args = ap.parse_args(argv)
    try:
        evaluate(args)
    except BadInput as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
