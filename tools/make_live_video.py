#!/usr/bin/env python3
"""Generate a synthetic video of a framed picture seen by a hand-held camera, with ground truth.

The test clip for `gpustyle live` (detect a picture, track it, stylize it, warp it back): a real
photo in a dark frame (the "picture") stands 1.2 m in front of another real photo or wall texture
(the "background"), both flat, and a pinhole camera moves in front of them the way a phone or
webcam held in a hand does. A hand passes over the picture once and, at the end, the camera moves
away until the picture has left the view. Every frame is rendered from the exact camera pose, so
the picture's corners are known to a small fraction of a pixel. Needs numpy, scipy, Pillow and
scikit-image (through tools/make_rectangle_scenes.py, whose photo sources, frame rendering,
backgrounds, perspective warping and sub-pixel-exact compositing it reuses; the committed clip's
picture, starry_night, comes from Debian's opencv-doc), plus ffmpeg with libx264 for --mp4. No
OpenCV: the ground truth must not come from the kind of code under test.

    python3 tools/make_live_video.py --out DIR [--script default] [--seconds 10] [--fps 30]
        [--width 640] [--height 480] [--seed 1] [--mp4] [--crf 18] [--jobs N] [--picture NAME]
        [--picture2 NAME] [--background NAME] [--shutter 0.5] [--noise 0.01]
        [--background-depth 1.2] [--truth-only]

writes DIR/video.y4m (or, with --mp4, DIR/video.mp4: H.264 made by piping the frames to ffmpeg)
and DIR/truth.json. The committed fixture was made with
    python3 tools/make_live_video.py --out Tests/GPUStyleTests/Fixtures/live --mp4
(about 4 minutes on 2 cores; 2.2 MB). The frames are deterministic for a given seed and set of
options, whatever --jobs (and library versions: numpy, scipy, Pillow, scikit-image's photos); the
.mp4's bytes also depend on the ffmpeg/x264 version.

Motion script (the default 10 s; other --seconds play the same script faster or slower)
---------------------------------------------------------------------------------------
At t = 0 the camera is 1.0 m in front of the picture (0.60 m wide, 0.40-0.48 m high, landscape),
looking at its centre: the picture's shorter side is about half the image height. Vertical field
of view 50 degrees (f = 515 px at 480 lines). The background is a plane 1.2 m behind the picture
(--background-depth), so it moves less than the picture when the camera slides (parallax). On
top of the script, the whole clip has hand shake: sums of sinusoids (0.6-3 Hz, about 0.25 degree
of yaw, pitch and roll and 2 mm of translation). Times are in seconds; steps overlap a little.

    0.0-0.5   hold: shake only
    0.5-2.25  translation: the camera slides 0.21 m left, then 0.34 m right, and back, with some
              up and down (the picture moves ~110 px right, ~175 px left; corners up to ~400 px/s)
    1.9-3.45  roll: the camera rolls to +22 degrees, then to -12, then back to 0 (corners up to
              ~360 px/s)
    3.0-4.1   approach: the camera comes to 0.68 m (the picture's shorter side grows from 0.47 to
              0.69 of the image height, its longer side to ~455 px), then backs off to 0.85 m
    4.1-5.75  tilt: the camera orbits around the picture, 24 degrees to the right then 10 to the
              left, and 8 degrees below then 6 above (perspective), going back to 1.0 m
    5.45-6.65 occlusion: a hand comes up from the bottom of the image and passes over the lower
              part of the picture, left to right (over it from 5.63 to 6.33 s, hiding up to 14 %
              of it; it covers the bottom-left corner for 2 frames as it comes in and the
              bottom-right one for 6 frames as it goes), and leaves at the bottom right
    6.45-7.75 leaving: the camera moves down 0.58 m (and 0.12 m right) and tips 6 degrees down: the
              picture leaves through the top of the image (corners up to ~480 px/s); partly out
              from 7.07 s, entirely out from 7.77 s
    7.77-10   gone: the camera keeps drifting slowly over the background; the picture does not
              come back (2.23 s without it)

(The times and sizes are for the committed clip, seed 1; other seeds change the hand shake, the
photos and the picture's height a little.)

Other scripts (--script NAME; issue 14's evaluation clips)
--------------------------------------------------------
Same camera, picture, shake and rendering; the camera starts 1.0 m in front of the picture. The
default length is the script's own (--seconds time-scales it). pan, pan-short, edges and second
put the background on the wall (--background-depth 0.02: the frame stands 2 cm off it) and pick
it from the textured brick, home and stuff (brick is synthesized from skimage's photo; home and
stuff are OpenCV sample photos of rooms), so the view away from the picture is full of edges.
truth.json's params then also hold "script" and "max_corner_speed_px_s" (the largest speed of a
picture corner at a frame's centre time over the frames in which the picture is at least partly
in view); the default script's truth has neither and stays byte-identical.

pan (7 s): fast pans away from the picture and back, twice (corners up to ~2500 px/s).
    0.0-1.0   hold
    1.0-1.5   the camera slides 1.2 m right and turns 6 degrees right: the picture leaves through
              the left side (gone from ~1.33 s)
    1.5-2.5   on the wall, away from the picture
    2.5-3.0   back (the picture re-enters from the left); 3.0-3.8 hold
    3.8-4.25  the camera slides 0.45 m right and 0.9 m down: the picture leaves through the top
    4.25-5.25 away; 5.25-5.7 back (re-enters from the top); 5.7-7.0 hold
    (Downwards rather than up: the home and stuff photos have their plain parts, sky and
    ceiling, at the top; the view away from the picture must be textured.)
pan-short (3.6 s): the first pan only (1.2 m right, 0.15 m up), for the committed fixture
    Tests/GPUStyleTests/Fixtures/live-pan:
    python3 tools/make_live_video.py --script pan-short --seed 11 --mp4 --crf 21 --out Tests/GPUStyleTests/Fixtures/live-pan
    0.0-1.0 hold, 1.0-1.5 pan away, 1.5-2.5 away (wall), 2.5-3.0 back, 3.0-3.6 hold
edges (8 s): the picture leaves and re-enters through each side in turn (corners up to ~1600 px/s).
    0.0-0.6   hold
    0.6-1.8   out through the left side (camera 1.0 m right) and back; 1.8-2.1 hold
    2.1-3.3   out through the top (camera 0.8 m down) and back; 3.3-3.6 hold
    3.6-5.0   half out through the right side (camera 0.62 m left; the picture's centre on the
              image's right edge), held there for 1 s
    5.0-6.0   on out through the right side (camera 1.0 m left) and back; 6.0-6.3 hold
    6.3-7.5   out through the bottom (camera 0.8 m up) and back; 7.5-8.0 hold
second (7.5 s): a second framed picture (another photo, same kind of frame: dark or dark with a
    light matte as the first; width within 8 % and height/width within 7 % of the first's) hangs
    on the same wall, its centre 1.0 m right of and 0.05 m below the first's (--picture2 picks the
    photo). The camera pans to it, holds, and comes back, twice; the first picture is out of view
    for about 1.4 s each time, the second fully in view for about 1.6 s.
    0.0-1.0 hold on the first; 1.0-1.7 pan to the second; 1.7-2.9 on the second; 2.9-3.6 back;
    3.6-4.5 hold; 4.5-5.1 to the second; 5.1-6.3 on it; 6.3-6.9 back; 6.9-7.5 hold
    Each frame's truth also has "quad2" (the second picture's corners, null when it is entirely
    out of view) and "visible2" (all four inside).
lighting (6 s): slow sway (a few cm, roll +5/-3 degrees, distance 1.0-0.9 m) under changing light,
    applied in linear light after the vignette and before the noise: the light level goes from 1
    to 0.45 (1.0-2.0 s), stays (2.0-3.0 s) and comes back (3.0-4.0 s); a soft shadow band (a
    raised cosine 0.44 of the image width wide, leaning 20 degrees, darkening by up to 55 %)
    crosses the image left to right from 2.3 to 5.9 s. Each frame's truth also has "light" (the
    global level). Phases: hold, dimming, dim, brightening, shadow.
busy (9 s; issue 35): a small picture (0.3 m wide: ~155 x 110 px at 1 m, 5.5 % of the image) on a
    busy wall ("busy": drawn by busy_wall, procedurally: graffiti strokes with dark outlines, torn
    posters with print, a third of them with a printed dark border, a tiled panel with dark grout;
    the frame stands 2 cm off it). The camera starts 0.95 m right of the picture (out of view).
    0.0-1.0 on the wall; 1.0-2.0 pan: the picture enters from the left (fully in view from ~1.5 s);
    2.0-2.4 hold; 2.4-3.9 roll to +30 and -30 degrees; 3.9-5.8 approach to 0.55 m while orbiting
    45 degrees to the side and 15 below (tilt), and back; 5.8-6.0 hold; 6.0-6.4 fast pan away
    (1.1 m right); 6.4-7.2 on the wall; 7.2-7.7 back; 7.7-9.0 hold.
busy-enter (3 s): the first part of busy (wall, entry, a roll to +30), for the committed fixture
    Tests/GPUStyleTests/Fixtures/live-busy (--seed 4 --crf 21).
Every script but default: truth.json also has "in_view_from", the frames on which the picture
comes fully into view after a frame on which it was not (acquisition's start, issue 35).
All: seeds chosen by tools/make_live_clips.sh (it writes the evaluation clips' exact
commands); --truth-only writes truth.json without rendering (a second or so), to try out a script.

Truth timestamps are frame centres: frame i is the exposure centred on t = i / fps. Motion blur
comes from rendering each frame as the mean (in linear light) of sub-frames spread over the
exposure (--shutter of the frame interval, default 0.5: 1/60 s at 30 fps): one sub-frame per
1.5 px that a picture corner or the hand moves during it (per 3 px of background motion), at most
24; still frames get 2x2 texture samples per pixel and the exact edge coverage of
make_rectangle_scenes.render_quad. Then a mild vignette, sRGB encoding and signal-dependent sensor noise (the model of
make_rectangle_scenes' add_noise at a fixed level, --noise).

Coordinates and truth.json
--------------------------
Same conventions as tools/make_rectangle_scenes.py: pixels, origin top-left, x right, y down,
**pixel centres at integer coordinates** (the image covers [-0.5, W-0.5] x [-0.5, H-0.5]);
corners in the order top-left, top-right, bottom-right, bottom-left of the picture as seen in the
image (the camera roll stays under 25 degrees); the quad is the outer edge of the frame.

    {"width": 640, "height": 480, "fps": 30, "seconds": 10.0, "seed": 1,
     "phases": [{"phase": "hold", "start": 0.0, "end": 0.5}, ...],
     "params": {...}, "sources": {...}, "conventions": "...",
     "frames": [{"frame": 0, "quad": [[x, y] x4] | null, "visible": true, "occluded": 0.0,
                 "phase": "hold", "blur_px": 0.21}, ...]}

* quad: the picture's corners at the frame's centre time; present while any part of the picture
  is in the image, null when it is entirely outside.
* visible: the whole quad is inside the image (all four corners in [-0.5, W-0.5] x
  [-0.5, H-0.5]). Occlusion does not change it: a visible picture may be partly hidden by the hand.
* occluded: the share (0-1) of the quad's area hidden by the hand at the frame's centre time.
* phase: the script step the frame belongs to (hold, translation, roll, approach, tilt,
  occlusion, leaving, gone; "gone" is any frame whose quad is null). blur_px: the largest
  distance a picture corner moves during the exposure (the motion blur's length).
* phases: the same steps as time ranges (seconds) of this clip; params: camera, picture and
  rendering parameters; sources: the licence notes of the photos used.

Video: 8-bit 4:2:0, BT.601 matrix, video (limited) range. video.y4m is written directly
(YUV4MPEG2, C420jpeg: chroma is the mean of each 2x2 block; XCOLORRANGE=LIMITED); video.mp4 is
libx264 (-preset slow, --crf, yuv420p, tagged smpte170m/tv), decoded by e.g.
    ffmpeg -i video.mp4 -f yuv4mpegpipe -pix_fmt yuv420p video.y4m
"""
import argparse
import json
import math
import multiprocessing
import os
import shutil
import subprocess
import sys
import time

import numpy as np
from scipy import ndimage
from scipy.interpolate import PchipInterpolator

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_rectangle_scenes as scenes  # noqa: E402

SCRIPT_SECONDS = 10.0  # the length the script below is written for
VFOV_DEG = 50.0
PICTURE_WIDTH_M = 0.60
SUBFRAME_STEP_PX = 1.5  # motion blur: at most this much motion between two sub-frames

# Camera keyframes, (script time in s, value), interpolated by monotone cubic (PCHIP) splines:
# smooth, no overshoot, still at the extremes. lx/ly: camera slide right/down (m); dist: distance
# to the look-at point (m); orbit_yaw/orbit_pitch: where on a sphere around the look-at point the
# camera sits (deg; > 0: to the right / above); turn_yaw/turn_pitch: extra turn of the camera away
# from the look-at point (deg; > 0: to the right / down); roll (deg; > 0: the camera rolls
# clockwise, the picture turns counter-clockwise on screen).
KEYFRAMES = {
    "lx": [(0, 0), (0.5, 0), (1.05, -0.21), (1.75, 0.13), (2.25, 0), (6.45, 0), (7.8, 0.12), (10, 0.2)],
    "ly": [(0, 0), (0.5, 0), (1.2, 0.07), (1.8, -0.06), (2.25, 0), (6.45, 0), (6.75, 0.04), (7.45, 0.45),
           (7.8, 0.58), (8.6, 0.70), (10, 0.76)],
    "roll": [(0, 0), (1.9, 0), (2.45, 22), (3.0, -12), (3.45, 0), (10, 0)],
    "dist": [(0, 1.0), (3.0, 1.0), (3.6, 0.68), (4.05, 0.85), (4.7, 0.85), (5.6, 1.0), (10, 1.0)],
    "orbit_yaw": [(0, 0), (4.1, 0), (4.7, 24), (5.3, -10), (5.7, 0), (10, 0)],
    "orbit_pitch": [(0, 0), (4.1, 0), (4.75, -8), (5.35, 6), (5.75, 0), (10, 0)],
    "turn_yaw": [(0, 0), (6.45, 0), (10, 6)],
    "turn_pitch": [(0, 0), (6.45, 0), (7.8, 6), (10, 10)],
}

# The hand: wrist position (fraction of width, of height) and the direction its fingers point
# (degrees from straight up, > 0 leaning right), by script time.
HAND_KEYS = [(5.45, 0.28, 1.40, -25), (5.75, 0.44, 0.93, -15), (6.05, 0.60, 0.86, 0),
             (6.35, 0.76, 1.00, 15), (6.65, 0.90, 1.40, 25)]

# Named steps of the script (script time); "gone" replaces them wherever the quad is null.
PHASES = [("hold", 0.0, 0.5), ("translation", 0.5, 1.9), ("roll", 1.9, 3.0), ("approach", 3.0, 4.1),
          ("tilt", 4.1, 5.5), ("occlusion", 5.5, 6.45), ("leaving", 6.45, SCRIPT_SECONDS)]

PICTURE_CHOICES = ["astronaut", "chelsea", "coffee", "rocket", "starry_night", "building", "camera"]
BACKGROUND_CHOICES = ["home", "stuff", "plaster:gravel", "brick", "coffee", "chelsea", "rocket"]
BUSY_NOTE = "busy: procedural wall (tools/make_live_video.py busy_wall): no photo"
SKIN_TONES = [(0.87, 0.67, 0.55), (0.78, 0.57, 0.44), (0.60, 0.42, 0.31), (0.92, 0.74, 0.64)]

# Other motion scripts (--script; see the docstring). Each: length (script seconds), camera
# keyframes (channels not given stay 0, dist 1.0), the hand (None: no hand), phases, and what else
# the scene holds. A pan's keyframes hold still before and after it, so PCHIP gives it a smooth
# start and stop with a peak speed of 1.5x its mean.
WALL_DEPTH = 0.02  # background "on the wall": the frame stands 2 cm off it
TEXTURED = ["brick", "home", "stuff"]

SCRIPTS = {
    "default": {"seconds": SCRIPT_SECONDS, "keyframes": KEYFRAMES, "hand": HAND_KEYS, "phases": PHASES},
    "pan": {
        "seconds": 7.0,
        "keyframes": {"lx": [(0, 0), (1.0, 0), (1.5, 1.2), (2.5, 1.2), (3.0, 0), (3.8, 0), (4.25, 0.45),
                             (5.25, 0.45), (5.7, 0), (7.0, 0)],
                      "ly": [(0, 0), (3.8, 0), (4.25, 0.9), (5.25, 0.9), (5.7, 0), (7.0, 0)],
                      "turn_yaw": [(0, 0), (1.0, 0), (1.5, 6), (2.5, 6), (3.0, 0), (7.0, 0)]},
        "phases": [("hold", 0.0, 1.0), ("pan_away", 1.0, 1.5), ("away", 1.5, 2.5), ("pan_back", 2.5, 3.0),
                   ("hold", 3.0, 3.8), ("pan_away", 3.8, 4.25), ("away", 4.25, 5.25), ("pan_back", 5.25, 5.7),
                   ("hold", 5.7, 7.0)],
        "background_depth": WALL_DEPTH, "backgrounds": TEXTURED},
    "pan-short": {
        "seconds": 3.6,
        "keyframes": {"lx": [(0, 0), (1.0, 0), (1.5, 1.2), (2.5, 1.2), (3.0, 0), (3.6, 0)],
                      "ly": [(0, 0), (1.0, 0), (1.5, -0.15), (2.5, -0.15), (3.0, 0), (3.6, 0)],
                      "turn_yaw": [(0, 0), (1.0, 0), (1.5, 6), (2.5, 6), (3.0, 0), (3.6, 0)]},
        "phases": [("hold", 0.0, 1.0), ("pan_away", 1.0, 1.5), ("away", 1.5, 2.5), ("pan_back", 2.5, 3.0),
                   ("hold", 3.0, 3.6)],
        "background_depth": WALL_DEPTH, "backgrounds": TEXTURED},
    "edges": {
        "seconds": 8.0,
        "keyframes": {"lx": [(0, 0), (0.6, 0), (1.1, 1.0), (1.3, 1.0), (1.8, 0), (3.6, 0), (4.0, -0.62),
                             (5.0, -0.62), (5.3, -1.0), (5.5, -1.0), (6.0, 0), (8.0, 0)],
                      "ly": [(0, 0), (2.1, 0), (2.6, 0.8), (2.8, 0.8), (3.3, 0), (6.3, 0), (6.8, -0.8),
                             (7.0, -0.8), (7.5, 0), (8.0, 0)]},
        "phases": [("hold", 0.0, 0.6), ("out_left", 0.6, 1.8), ("hold", 1.8, 2.1), ("out_top", 2.1, 3.3),
                   ("hold", 3.3, 3.6), ("half_right", 3.6, 5.0), ("out_right", 5.0, 6.0), ("hold", 6.0, 6.3),
                   ("out_bottom", 6.3, 7.5), ("hold", 7.5, 8.0)],
        "background_depth": WALL_DEPTH, "backgrounds": TEXTURED},
    "second": {
        "seconds": 7.5,
        "keyframes": {"lx": [(0, 0), (1.0, 0), (1.7, 1.0), (2.9, 1.0), (3.6, 0), (4.5, 0), (5.1, 1.0),
                             (6.3, 1.0), (6.9, 0), (7.5, 0)],
                      "ly": [(0, 0), (1.0, 0), (1.7, 0.05), (2.9, 0.05), (3.6, 0), (4.5, 0), (5.1, 0.05),
                             (6.3, 0.05), (6.9, 0), (7.5, 0)]},
        "phases": [("hold", 0.0, 1.0), ("to_second", 1.0, 1.7), ("on_second", 1.7, 2.9), ("back", 2.9, 3.6),
                   ("hold", 3.6, 4.5), ("to_second", 4.5, 5.1), ("on_second", 5.1, 6.3), ("back", 6.3, 6.9),
                   ("hold", 6.9, 7.5)],
        "second_at": (1.0, 0.05),  # the second picture's centre on the wall (m)
        "background_depth": WALL_DEPTH, "backgrounds": TEXTURED},
    "busy": {
        # Issue 35: a small picture (0.3 m wide: ~155 x 110 px, 5.5 % of the frame, at 1 m) on a
        # busy wall (graffiti, torn posters, tiles); the camera starts 0.95 m to its right (the
        # picture out of view on the left), holds on the wall for a second, pans to it (it enters
        # from the left), rolls to +30 and -30 degrees, comes to 0.55 m orbiting 45 degrees to the
        # side and 15 below (tilt), backs off, pans away fast and comes back.
        "seconds": 9.0,
        "keyframes": {"lx": [(0, 0.95), (1.0, 0.95), (2.0, 0), (6.0, 0), (6.4, 1.1), (7.2, 1.1), (7.7, 0),
                             (9.0, 0)],
                      "ly": [(0, 0), (6.0, 0), (6.4, 0.12), (7.2, 0.12), (7.7, 0), (9.0, 0)],
                      "roll": [(0, 0), (2.4, 0), (2.9, 30), (3.5, -30), (3.9, 0), (9.0, 0)],
                      "dist": [(0, 1.0), (3.9, 1.0), (4.6, 0.55), (5.2, 0.6), (5.8, 1.0), (9.0, 1.0)],
                      "orbit_yaw": [(0, 0), (3.9, 0), (4.7, 45), (5.2, 40), (5.8, 0), (9.0, 0)],
                      "orbit_pitch": [(0, 0), (3.9, 0), (4.7, -15), (5.2, -10), (5.8, 0), (9.0, 0)]},
        "phases": [("wall", 0.0, 1.0), ("enter", 1.0, 2.0), ("hold", 2.0, 2.4), ("roll", 2.4, 3.9),
                   ("approach_tilt", 3.9, 5.8), ("hold", 5.8, 6.0), ("pan_away", 6.0, 6.4), ("away", 6.4, 7.2),
                   ("pan_back", 7.2, 7.7), ("hold", 7.7, 9.0)],
        "picture_width_m": 0.3, "closest_m": 0.55, "background_depth": WALL_DEPTH, "backgrounds": ["busy"]},
    "busy-enter": {
        # The committed fixture's script: the first 3 s of "busy" (wall, entry, a roll to +30).
        "seconds": 3.0,
        "keyframes": {"lx": [(0, 0.95), (1.0, 0.95), (2.0, 0), (3.0, 0)],
                      "roll": [(0, 0), (2.2, 0), (2.7, 30), (3.0, 30)]},
        "phases": [("wall", 0.0, 1.0), ("enter", 1.0, 2.0), ("hold", 2.0, 2.2), ("roll", 2.2, 3.0)],
        "picture_width_m": 0.3, "closest_m": 0.55, "background_depth": WALL_DEPTH, "backgrounds": ["busy"]},
    "lighting": {
        "seconds": 6.0,
        "keyframes": {"lx": [(0, 0), (1.5, 0.06), (3.0, -0.05), (4.5, 0.04), (6.0, 0)],
                      "ly": [(0, 0), (2.0, 0.03), (4.0, -0.03), (6.0, 0)],
                      "roll": [(0, 0), (2.5, 5), (5.0, -3), (6.0, 0)],
                      "dist": [(0, 1.0), (3.0, 0.9), (6.0, 1.0)]},
        "phases": [("hold", 0.0, 1.0), ("dimming", 1.0, 2.0), ("dim", 2.0, 3.0), ("brightening", 3.0, 4.0),
                   ("shadow", 4.0, 6.0)],
        # global light level (linear) and a soft shadow band crossing the image (its centre as a
        # fraction of the width; outside the times given it is off screen)
        "light": [(0, 1.0), (1.0, 1.0), (2.0, 0.45), (3.0, 0.45), (4.0, 1.0), (6.0, 1.0)],
        "shadow": [(2.3, -0.4), (5.9, 1.4)], "shadow_depth": 0.55, "shadow_width": 0.22,
        "backgrounds": BACKGROUND_CHOICES},
}


# --- camera --------------------------------------------------------------------------------------

def rot_x(deg):
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def rot_y(deg):
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def rot_z(deg):
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


class Motion:
    """The camera's pose as a smooth function of script time: keyframes plus hand shake."""

    def __init__(self, rng, script=None):
        script = script or SCRIPTS["default"]
        self.length = script["seconds"]
        keys = {k: [(0, 1.0 if k == "dist" else 0.0), (self.length, 1.0 if k == "dist" else 0.0)]
                for k in KEYFRAMES}
        keys.update(script["keyframes"])
        self.splines = {k: PchipInterpolator([t for t, _ in v], [x for _, x in v]) for k, v in keys.items()}
        # shake: per channel, 3 sinusoids (frequency Hz, amplitude, phase)
        amp = {"turn_yaw": 0.25, "turn_pitch": 0.25, "roll": 0.25, "lx": 0.002, "ly": 0.002}
        self.shake = {k: [(rng.uniform(0.6, 3.0), a * rng.uniform(0.3, 0.7), rng.uniform(0, 2 * math.pi))
                          for _ in range(3)] for k, a in amp.items()}

    def params(self, s):
        s = min(max(s, 0.0), self.length)
        p = {k: float(f(s)) for k, f in self.splines.items()}
        for k, waves in self.shake.items():
            p[k] += sum(a * math.sin(2 * math.pi * fr * s + ph) for fr, a, ph in waves)
        return p

    def pose(self, s):
        """(R world->camera, camera centre C) at script time s. World: picture in the plane
        z = 0 centred on the origin, x right, y down, z away from the starting camera."""
        p = self.params(s)
        target = np.array([p["lx"], p["ly"], 0.0])
        back = rot_y(-p["orbit_yaw"]) @ rot_x(-p["orbit_pitch"]) @ np.array([0.0, 0.0, -1.0])
        centre = target + p["dist"] * back
        z = (target - centre) / np.linalg.norm(target - centre)
        x = np.cross([0.0, 1.0, 0.0], z)
        x /= np.linalg.norm(x)
        y = np.cross(z, x)
        cam_to_world = np.stack([x, y, z], axis=1) @ rot_y(p["turn_yaw"]) @ rot_x(-p["turn_pitch"]) @ rot_z(p["roll"])
        return cam_to_world.T, centre


def plane_homography(K, R, C, depth):
    """3x3 H mapping (X, Y) on the world plane z = depth to image pixels."""
    return K @ np.stack([R[:, 0], R[:, 1], depth * R[:, 2] - R @ C], axis=1)


def hand_pose(s, W, H, keys=HAND_KEYS):
    """(wrist [x, y] px, finger direction angle deg) at script time s, or None when no hand."""
    if not keys:
        return None
    ts = [k[0] for k in keys]
    if s < ts[0] or s > ts[-1]:
        return None
    x = float(PchipInterpolator(ts, [k[1] for k in keys])(s)) * W
    y = float(PchipInterpolator(ts, [k[2] for k in keys])(s)) * H
    ang = float(PchipInterpolator(ts, [k[3] for k in keys])(s))
    return np.array([x, y]), ang


def hand_shape(wrist, ang, H):
    """Implicit function fn(X, Y) -> bool of a hand seen from the back (forearm, palm, four
    fingers, thumb) pointing along `ang`, sized for an image H pixels high; and its bounding box."""
    a = math.radians(ang)
    u = np.array([math.sin(a), -math.cos(a)])  # towards the fingertips
    v = np.array([-u[1], u[0]])                # to the hand's right on screen
    capsules = [(wrist - 0.8 * H * u, wrist + 0.02 * H * u, 0.085 * H)]  # forearm
    palm_c, palm_ax = wrist + 0.11 * H * u, (0.10 * H, 0.12 * H)
    for off, turn, length in ((-0.066, -9, 0.13), (-0.022, -3, 0.16), (0.022, 2, 0.165), (0.066, 8, 0.14)):
        b = palm_c + 0.07 * H * u + off * H * v
        t = math.radians(turn)
        d = u * math.cos(t) + v * math.sin(t)
        capsules.append((b, b + length * H * d, 0.021 * H))
    tb = palm_c - 0.075 * H * v - 0.02 * H * u
    t = math.radians(-55)
    capsules.append((tb, tb + 0.11 * H * (u * math.cos(t) + v * math.sin(t)), 0.025 * H))

    def fn(X, Y):
        inside = np.zeros(X.shape, bool)
        for p0, p1, r in capsules:
            d = p1 - p0
            tt = np.clip(((X - p0[0]) * d[0] + (Y - p0[1]) * d[1]) / float(d @ d), 0, 1)
            inside |= (X - p0[0] - tt * d[0]) ** 2 + (Y - p0[1] - tt * d[1]) ** 2 <= r * r
        du, dv = (X - palm_c[0]) * u[0] + (Y - palm_c[1]) * u[1], (X - palm_c[0]) * v[0] + (Y - palm_c[1]) * v[1]
        return inside | ((du / palm_ax[1]) ** 2 + (dv / palm_ax[0]) ** 2 <= 1)

    pts = np.array([p for c in capsules for p in c[:2]])
    pad = 0.1 * H
    box = (int(pts[:, 0].min() - pad), int(pts[:, 1].min() - pad), int(pts[:, 0].max() + pad) + 1,
           int(pts[:, 1].max() + pad) + 1)
    return fn, box


# --- the scene ------------------------------------------------------------------------------------

class Scene:
    """Everything fixed for a clip: camera motion, textures, sizes."""

    def __init__(self, args):
        self.W, self.H, self.fps = args.width, args.height, args.fps
        self.script_name = args.script
        self.script = SCRIPTS[args.script]
        self.frames = int(round(args.seconds * args.fps))
        self.time_scale = self.script["seconds"] / args.seconds  # script seconds per clip second
        self.shutter = args.shutter
        self.noise = args.noise
        self.seed = args.seed
        self.bg_depth = (args.background_depth if args.background_depth is not None
                         else self.script.get("background_depth", 1.2))
        rng = np.random.default_rng([args.seed, 0])
        self.motion = Motion(rng, self.script)
        f = (self.H / 2) / math.tan(math.radians(VFOV_DEG) / 2)
        self.K = np.array([[f, 0, (self.W - 1) / 2], [0, f, (self.H - 1) / 2], [0, 0, 1]])

        self.picture = args.picture or PICTURE_CHOICES[int(rng.integers(len(PICTURE_CHOICES)))]
        bgs = [b for b in self.script.get("backgrounds", BACKGROUND_CHOICES) if b != self.picture]
        self.background = args.background or bgs[int(rng.integers(len(bgs)))]
        aspect = rng.uniform(0.66, 0.8)  # height / width
        width_m = self.script.get("picture_width_m", PICTURE_WIDTH_M)
        self.pic_w, self.pic_h = width_m, width_m * aspect
        # 1.5 texels per pixel at the closest approach (0.68 m in the default script)
        long_px = int(1.5 * f * self.pic_w / self.script.get("closest_m", 0.68))
        self.pic_tex, _inner, self.frame_info = scenes.make_object_texture(self.picture, 1 / aspect, long_px,
                                                                          "dark", rng)
        self.skin = scenes.srgb_to_linear(np.clip(np.array(SKIN_TONES[int(rng.integers(len(SKIN_TONES)))])
                                                  + rng.normal(0, 0.02, 3), 0, 1))
        self.second = None
        if "second_at" in self.script:
            self._make_second(args)
        self._make_background(rng)
        yy, xx = np.mgrid[0:self.H, 0:self.W].astype(np.float64)
        self.grid = (xx.ravel(), yy.ravel())
        r2 = ((xx - (self.W - 1) / 2) ** 2 + (yy - (self.H - 1) / 2) ** 2) / ((self.W / 2) ** 2 + (self.H / 2) ** 2)
        self.vignette = (1 - 0.25 * r2).astype(np.float32)[..., None]

    def _make_second(self, args):
        """The "second" script's other picture: another photo in the same kind of frame, about the
        same size, centred at script["second_at"] on the picture's plane. Its own random stream,
        so the first picture and the camera are what the same seed gives in the other scripts."""
        rng = np.random.default_rng([args.seed, 7])
        names = [n for n in PICTURE_CHOICES if n not in (self.picture, self.background)]
        self.picture2 = args.picture2 or names[int(rng.integers(len(names)))]
        aspect = self.pic_h / self.pic_w * rng.uniform(0.93, 1.07)
        self.pic2_w, self.pic2_h = self.pic_w * rng.uniform(0.92, 1.08), None
        self.pic2_h = self.pic2_w * aspect
        long_px = int(1.5 * self.K[0, 0] * self.pic2_w / 0.68)
        for _ in range(50):  # same frame style (dark, or dark with a light matte) as the first
            tex, _inner, info = scenes.make_object_texture(self.picture2, 1 / aspect, long_px, "dark", rng)
            if info["frame"] == self.frame_info["frame"]:
                break
        self.pic2_tex, self.frame2_info = tex, info
        self.second = np.array(self.script["second_at"], np.float64)

    def _make_background(self, rng):
        """A texture on the plane z = bg_depth covering everything the camera sees in the clip."""
        corners = np.array([[-0.5, -0.5], [self.W - 0.5, -0.5], [self.W - 0.5, self.H - 0.5], [-0.5, self.H - 0.5]])
        pts = []
        for i in range(self.frames + 1):
            R, C = self.motion.pose(i * self.time_scale / self.fps)
            Hinv = np.linalg.inv(plane_homography(self.K, R, C, self.bg_depth))
            pts.append(scenes.apply_h(Hinv, corners))
        pts = np.concatenate(pts)
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        pad = 0.05 * (hi - lo)
        self.bg_lo, self.bg_hi = lo - pad, hi + pad
        ppm = self.K[0, 0] / (1.0 + self.bg_depth)  # one texel per pixel at the start
        tw, th = (int(math.ceil(v * ppm)) for v in (self.bg_hi - self.bg_lo))
        if self.background == "busy":
            self.bg_tex = busy_wall(tw, th, rng, ppm)
        else:
            self.bg_tex = scenes.make_background(self.background, tw, th, rng)
        # The frame's outer edge (the truth) must stand out from what is behind it: Michelson
        # contrast >= 0.25 in linear light, else re-expose the background (as the stills do).
        band = float(scenes.luminance(self.pic_tex[0]).mean())
        behind = float(scenes.luminance(self.bg_tex).mean())
        self.bg_gain = 1.0
        if abs(band - behind) / (band + behind + 1e-6) < 0.25:
            self.bg_gain = min(3.0, band * (1.25 / 0.75) / max(behind, 1e-4))
            self.bg_tex = np.clip(self.bg_tex * self.bg_gain, 0, 1)

    def pose(self, t):
        return self.motion.pose(t * self.time_scale)

    def quad(self, t):
        R, C = self.pose(t)
        w, h = self.pic_w / 2, self.pic_h / 2
        return scenes.apply_h(plane_homography(self.K, R, C, 0.0), [(-w, -h), (w, -h), (w, h), (-w, h)])

    def quad2(self, t):
        """The second picture's corners (the "second" script), else None."""
        if self.second is None:
            return None
        R, C = self.pose(t)
        w, h = self.pic2_w / 2, self.pic2_h / 2
        x, y = self.second
        return scenes.apply_h(plane_homography(self.K, R, C, 0.0),
                              [(x - w, y - h), (x + w, y - h), (x + w, y + h), (x - w, y + h)])

    def light(self, t):
        """Linear-light gain image [H, W, 1] at time t (the "lighting" script), else None: a global
        level times a soft shadow band crossing the image."""
        if "light" not in self.script:
            return None
        s = t * self.time_scale
        level = self.light_level(t)
        (s0, c0), (s1, c1) = self.script["shadow"]
        gain = np.full((self.H, self.W), level, np.float32)
        if s0 <= s <= s1:
            centre = (c0 + (c1 - c0) * (s - s0) / (s1 - s0)) * self.W
            yy, xx = np.mgrid[0:self.H, 0:self.W].astype(np.float32)
            # the band leans 20 degrees; its profile is a raised cosine of full width shadow_width * W * 2
            d = (xx - centre) * math.cos(math.radians(20)) + (yy - self.H / 2) * math.sin(math.radians(20))
            half = self.script["shadow_width"] * self.W
            band = np.where(np.abs(d) < half, 0.5 + 0.5 * np.cos(np.pi * np.clip(d / half, -1, 1)), 0.0)
            gain *= (1 - self.script["shadow_depth"] * band).astype(np.float32)
        return gain[..., None]

    def light_level(self, t):
        keys = self.script.get("light")
        if not keys:
            return None
        s = min(max(t * self.time_scale, keys[0][0]), keys[-1][0])
        return float(PchipInterpolator([k[0] for k in keys], [k[1] for k in keys])(s))

    def hand(self, t):
        hp = hand_pose(t * self.time_scale, self.W, self.H, self.script.get("hand"))
        return None if hp is None else hand_shape(hp[0], hp[1], self.H)

    def motion_px(self, t0, t1):
        """How far the image moves between times t0 and t1 (px): the largest displacement of a
        picture corner or of the hand, and half that of the background (softer than the rest,
        so it needs half the sub-frames)."""
        d = float(np.max(np.hypot(*(self.quad(t1) - self.quad(t0)).T)))
        if self.second is not None:
            d = max(d, float(np.max(np.hypot(*(self.quad2(t1) - self.quad2(t0)).T))))
        probe = np.array([[0, 0], [self.W - 1, 0], [self.W - 1, self.H - 1], [0, self.H - 1],
                          [(self.W - 1) / 2, (self.H - 1) / 2]], np.float64)
        R0, C0 = self.pose(t0)
        R1, C1 = self.pose(t1)
        on_wall = scenes.apply_h(np.linalg.inv(plane_homography(self.K, R0, C0, self.bg_depth)), probe)
        moved = scenes.apply_h(plane_homography(self.K, R1, C1, self.bg_depth), on_wall)
        d = max(d, 0.5 * float(np.max(np.hypot(*(moved - probe).T))))
        h0 = hand_pose(t0 * self.time_scale, self.W, self.H, self.script.get("hand"))
        h1 = hand_pose(t1 * self.time_scale, self.W, self.H, self.script.get("hand"))
        if h0 and h1:
            d = max(d, float(np.hypot(*(h1[0] - h0[0]))) + math.radians(abs(h1[1] - h0[1])) * 0.45 * self.H)
        return d

    # --- rendering ---

    def render_instant(self, t, ss):
        """Linear-light image of the scene at time t (no blur, noise or vignette)."""
        R, C = self.pose(t)
        # background: bilinear texture look-ups through the plane's inverse homography
        Hbg = plane_homography(self.K, R, C, self.bg_depth)
        span = self.bg_hi - self.bg_lo
        to_unit = np.array([[1 / span[0], 0, -self.bg_lo[0] / span[0]], [0, 1 / span[1], -self.bg_lo[1] / span[1]],
                            [0, 0, 1]])
        img = scenes.sample_texture(self.bg_tex, to_unit @ np.linalg.inv(Hbg), *self.grid)
        img = img.reshape(self.H, self.W, 3).astype(np.float32)
        # picture: exact coverage at its edges, ss x ss texture samples per pixel
        q = self.quad(t)
        if clipped_area(q, self.W, self.H) > 0:
            scenes.render_quad(img, q, self.pic_tex, ss=ss)
        if self.second is not None:
            q2 = self.quad2(t)
            if clipped_area(q2, self.W, self.H) > 0:
                scenes.render_quad(img, q2, self.pic2_tex, ss=ss)
        hand = self.hand(t)
        if hand is not None:
            mask = scenes.supersampled_mask(self.W, self.H, hand[0], 2, hand[1])
            mask = ndimage.gaussian_filter(mask, 1.0)  # close to the lens: slightly out of focus
            shade = np.clip(ndimage.gaussian_filter(mask, 0.015 * self.H) * 1.6 - 0.3, 0, 1)
            colour = self.skin[None, None, :] * (0.45 + 0.55 * shade[..., None])
            img = img * (1 - mask[..., None]) + colour * mask[..., None]
        return img

    def occluded_share(self, t, q):
        hand = self.hand(t)
        if hand is None:
            return 0.0
        mask = scenes.supersampled_mask(self.W, self.H, hand[0], 4, hand[1])
        cov, (x0, y0) = scenes.coverage(q, self.W, self.H)
        hidden = float((cov * mask[y0:y0 + cov.shape[0], x0:x0 + cov.shape[1]]).sum())
        return hidden / scenes.polygon_area(q)

    def render_frame(self, i):
        """(uint8 RGB frame, truth entry) of frame i."""
        t = i / self.fps
        exposure = self.shutter / self.fps
        n = int(min(24, max(1, math.ceil(self.motion_px(t - exposure / 2, t + exposure / 2) / SUBFRAME_STEP_PX))))
        acc = np.zeros((self.H, self.W, 3), np.float64)
        for k in range(n):
            tk = t + exposure * ((k + 0.5) / n - 0.5) if n > 1 else t
            acc += self.render_instant(tk, ss=2 if n < 4 else 1)
        img = (acc / n).astype(np.float32) * self.vignette
        light = self.light(t)
        if light is not None:  # in linear light, before the noise
            img = img * light
        srgb = scenes.linear_to_srgb(img)
        srgb = sensor_noise(srgb, self.noise, np.random.default_rng([self.seed, i, 5]))
        return scenes.to_u8(srgb), self.truth_frame(i)

    def truth_frame(self, i):
        """Frame i's truth entry."""
        t = i / self.fps
        exposure = self.shutter / self.fps
        q = self.quad(t)
        corners_blur = float(np.max(np.hypot(*(self.quad(t + exposure / 2) - self.quad(t - exposure / 2)).T)))
        entry = truth_entry(i, q, self.W, self.H)
        entry["occluded"] = round(self.occluded_share(t, q), 4) if entry["quad"] is not None else 0.0
        entry["phase"] = "gone" if entry["quad"] is None else phase_at(t * self.time_scale, self.script["phases"])
        entry["blur_px"] = round(corners_blur, 2)
        if self.second is not None:
            e2 = truth_entry(i, self.quad2(t), self.W, self.H)
            entry["quad2"], entry["visible2"] = e2["quad"], e2["visible"]
        if "light" in self.script:
            entry["light"] = round(self.light_level(t), 4)
        return entry


def busy_wall(W, H, rng, ppm):
    """A busy, high-contrast wall (issue 35), linear light [H, W, 3], drawn procedurally so nothing is
    downloaded: a tiled dado with dark grout (a grid of strong edges and near-rectangles), torn
    posters (light, slightly turned rectangles with ragged edges, print-like bars and blocks,
    overlapping) and graffiti (thick spray strokes with dark outlines, tags). `ppm`: texels per
    metre, so sizes are physical (tiles 10-20 cm, posters 10-60 cm, strokes 3-6 cm wide)."""
    from PIL import Image as PILImage, ImageDraw
    base = np.array(WALL_BASES[int(rng.integers(len(WALL_BASES)))]) + rng.normal(0, 0.03, 3)
    im = PILImage.new("RGB", (W, H), tuple(int(255 * np.clip(v, 0, 1)) for v in base))
    d = ImageDraw.Draw(im)
    m = lambda metres: max(1, int(round(metres * ppm)))
    # tiles: a band of the wall (a dado or a tiled panel), grout 6 mm
    for _ in range(int(rng.integers(1, 3))):
        x0, y0 = int(rng.uniform(-0.2, 0.7) * W), int(rng.uniform(-0.2, 0.7) * H)
        x1, y1 = x0 + int(rng.uniform(0.3, 0.6) * W), y0 + int(rng.uniform(0.3, 0.6) * H)
        tile, grout = m(rng.uniform(0.1, 0.2)), m(0.006)
        hue = np.clip(np.array([0.7, 0.75, 0.8]) + rng.normal(0, 0.15, 3), 0.15, 0.95)
        d.rectangle([x0, y0, x1, y1], fill=(40, 40, 42))
        for ty in range(y0, y1, tile):
            for tx in range(x0, x1, tile):
                c = np.clip(hue * rng.uniform(0.75, 1.1), 0, 1)
                if min(x1, tx + tile) - grout <= tx + grout or min(y1, ty + tile) - grout <= ty + grout:
                    continue
                d.rectangle([tx + grout, ty + grout, min(x1, tx + tile) - grout, min(y1, ty + tile) - grout],
                            fill=tuple(int(255 * v) for v in c))
    # torn posters: light paper with print, turned a few degrees, ragged edges, overlapping
    area = W * H
    for _ in range(int(area / (0.4 * ppm) ** 2 * 0.6)):
        w, h = m(rng.uniform(0.1, 0.5)), m(rng.uniform(0.12, 0.6))
        cx, cy = rng.uniform(0, W), rng.uniform(0, H)
        a = math.radians(rng.uniform(-6, 6))
        ca, sa = math.cos(a), math.sin(a)

        def at(u, v):
            return (cx + (u - w / 2) * ca - (v - h / 2) * sa, cy + (u - w / 2) * sa + (v - h / 2) * ca)
        outline = []
        for (u0, v0, u1, v1) in ((0, 0, w, 0), (w, 0, w, h), (w, h, 0, h), (0, h, 0, 0)):
            torn = rng.random() < 0.35
            for k in range(12):
                t = k / 12
                u, v = u0 + (u1 - u0) * t, v0 + (v1 - v0) * t
                if torn:  # a ragged, torn side
                    u += rng.normal(0, 0.012 * ppm) * (v0 == v1 and 0 or 1)
                    v += rng.normal(0, 0.012 * ppm) * (u0 == u1 and 0 or 1)
                outline.append(at(u, v))
        paper = np.clip(np.array(POSTER_PAPERS[int(rng.integers(len(POSTER_PAPERS)))]) + rng.normal(0, 0.04, 3), 0, 1)
        d.polygon(outline, fill=tuple(int(255 * v) for v in paper))
        if rng.random() < 0.3:  # a printed border: as picture-like as a wall gets
            b = rng.uniform(0.04, 0.1) * min(w, h)
            dark = tuple(int(255 * v) for v in np.clip(rng.uniform(0.05, 0.3, 3), 0, 1))
            for q in ((0, 0, w, b), (w - b, 0, w, h), (0, h - b, w, h), (0, 0, b, h)):
                d.polygon([at(q[0], q[1]), at(q[2], q[1]), at(q[2], q[3]), at(q[0], q[3])], fill=dark)
        ink = tuple(int(255 * v) for v in np.clip(rng.uniform(0, 0.5, 3), 0, 1))
        for _ in range(int(rng.integers(3, 9))):  # headlines, text lines and picture blocks
            u0, v0 = rng.uniform(0.05, 0.6) * w, rng.uniform(0.05, 0.85) * h
            bw, bh = rng.uniform(0.2, 0.9) * (w - u0), rng.choice([0.02, 0.04, 0.25]) * h
            d.polygon([at(u0, v0), at(u0 + bw, v0), at(u0 + bw, v0 + bh), at(u0, v0 + bh)], fill=ink)
    # graffiti: spray strokes (random walks), dark outline under a saturated colour
    for _ in range(int(area / (0.5 * ppm) ** 2 * 0.5)):
        colour = tuple(int(255 * v) for v in GRAFFITI[int(rng.integers(len(GRAFFITI)))])
        width = m(rng.uniform(0.03, 0.06))
        p = np.array([rng.uniform(0, W), rng.uniform(0, H)])
        heading = rng.uniform(0, 2 * math.pi)
        pts = [tuple(p)]
        for _ in range(int(rng.integers(4, 12))):
            heading += rng.normal(0, 0.9)
            p = p + m(rng.uniform(0.05, 0.15)) * np.array([math.cos(heading), math.sin(heading)])
            pts.append(tuple(p))
        d.line(pts, fill=(15, 15, 15), width=width + m(0.012), joint="curve")
        d.line(pts, fill=colour, width=width, joint="curve")
    srgb = np.asarray(im).astype(np.float32) / 255.0
    srgb = ndimage.gaussian_filter(srgb, (0.6, 0.6, 0))  # paint and print are not pixel-sharp
    grain = ndimage.gaussian_filter(rng.normal(0, 1, (H, W)).astype(np.float32), 1.5)
    srgb = np.clip(srgb * (1 + 0.06 * grain[..., None]), 0, 1)
    return scenes.srgb_to_linear(srgb)


WALL_BASES = [(0.78, 0.76, 0.72), (0.62, 0.60, 0.58), (0.85, 0.80, 0.70), (0.55, 0.57, 0.62)]
POSTER_PAPERS = [(0.95, 0.94, 0.90), (0.92, 0.85, 0.55), (0.85, 0.30, 0.25), (0.35, 0.55, 0.80), (0.97, 0.97, 0.97),
                 (0.20, 0.20, 0.22)]
GRAFFITI = [(0.90, 0.15, 0.20), (0.10, 0.55, 0.90), (0.95, 0.80, 0.10), (0.20, 0.75, 0.30), (0.85, 0.35, 0.85),
            (0.95, 0.95, 0.95), (0.05, 0.05, 0.05), (0.95, 0.50, 0.10)]


def max_corner_speed(scene, frames):
    """The largest speed (px/s) of a picture corner at a frame's centre time, over the frames in
    which the picture is at least partly in view (numerical derivative of the exact corners)."""
    h = 1e-3
    best = 0.0
    for e in frames:
        if e["quad"] is None:
            continue
        t = e["frame"] / scene.fps
        best = max(best, float(np.max(np.hypot(*(scene.quad(t + h) - scene.quad(t - h)).T))) / (2 * h))
    return best


def sensor_noise(srgb, sigma, rng):
    """make_rectangle_scenes.add_noise's model (signal-dependent, slightly correlated by
    demosaicing) with a fixed sigma, so the noise level does not flicker from frame to frame."""
    if sigma <= 0:
        return srgb
    lum = srgb.mean(axis=-1, keepdims=True)
    noise = rng.normal(0, 1, srgb.shape).astype(np.float32) * sigma * np.sqrt(0.25 + lum)
    noise = ndimage.gaussian_filter(noise, (0.5, 0.5, 0))
    return np.clip(srgb + noise * 1.5, 0, 1)


def clipped_area(q, W, H):
    """Area of the quad inside the image [-0.5, W-0.5] x [-0.5, H-0.5]."""
    poly = scenes.clip_polygon_to_box([tuple(p) for p in q], -0.5, -0.5, W - 0.5, H - 0.5)
    return abs(scenes.polygon_area(np.array(poly))) if len(poly) >= 3 else 0.0


def truth_entry(i, q, W, H):
    if clipped_area(q, W, H) <= 0:
        return {"frame": i, "quad": None, "visible": False}
    inside = bool(np.all((q >= -0.5) & (q <= np.array([W - 0.5, H - 0.5]))))
    return {"frame": i, "quad": scenes.rounded(q), "visible": inside}


def phase_at(s, phases=PHASES):
    for name, a, b in phases:
        if a <= s < b:
            return name
    return phases[-1][0]


# --- output ---------------------------------------------------------------------------------------

def rgb_to_yuv420(u8):
    """BT.601 video-range Y, U, V planes (uint8); chroma = mean of each 2x2 block (C420jpeg)."""
    rgb = u8.astype(np.float32) / 255.0
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    y = 16 + 65.481 * r + 128.553 * g + 24.966 * b
    u = 128 - 37.797 * r - 74.203 * g + 112.0 * b
    v = 128 + 112.0 * r - 93.786 * g - 18.214 * b
    H, W = y.shape
    ch, cw = (H + 1) // 2, (W + 1) // 2

    def sub(p):
        p = np.pad(p, ((0, 2 * ch - H), (0, 2 * cw - W)), mode="edge")
        return p.reshape(ch, 2, cw, 2).mean(axis=(1, 3))

    to8 = lambda p: np.clip(np.round(p), 0, 255).astype(np.uint8)
    return to8(y), to8(sub(u)), to8(sub(v))


class Y4MWriter:
    def __init__(self, path, W, H, fps):
        self.f = open(path, "wb")
        self.f.write(f"YUV4MPEG2 W{W} H{H} F{fps}:1 Ip A1:1 C420jpeg XYSCSS=420JPEG XCOLORRANGE=LIMITED\n".encode())

    def write(self, u8):
        self.f.write(b"FRAME\n")
        for plane in rgb_to_yuv420(u8):
            self.f.write(plane.tobytes())

    def close(self):
        self.f.close()
        return 0


class FFmpegWriter:
    """H.264 .mp4 from raw RGB frames piped to ffmpeg."""

    def __init__(self, path, W, H, fps, crf):
        exe = shutil.which("ffmpeg")
        if not exe:
            sys.exit("error: --mp4 needs ffmpeg on the PATH")
        cmd = [exe, "-hide_banner", "-loglevel", "error", "-y",
               "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{W}x{H}", "-framerate", str(fps), "-i", "-",
               "-c:v", "libx264", "-preset", "slow", "-crf", str(crf), "-pix_fmt", "yuv420p",
               "-colorspace", "smpte170m", "-color_primaries", "smpte170m", "-color_trc", "smpte170m",
               "-color_range", "tv", "-movflags", "+faststart", "-fflags", "+bitexact", path]
        self.p = subprocess.Popen(cmd, stdin=subprocess.PIPE)

    def write(self, u8):
        self.p.stdin.write(np.ascontiguousarray(u8).tobytes())

    def close(self):
        self.p.stdin.close()
        return self.p.wait()


_SCENE = None  # set before the worker processes fork


def _render(i):
    return _SCENE.render_frame(i)


def phase_ranges(frames, fps):
    """[{"phase", "start", "end"}] in clip seconds from the per-frame phases."""
    out = []
    for e in frames:
        t = e["frame"] / fps
        if out and out[-1]["phase"] == e["phase"]:
            out[-1]["end"] = round(t + 1 / fps, 3)
        else:
            out.append({"phase": e["phase"], "start": round(t, 3), "end": round(t + 1 / fps, 3)})
    return out


def dump_truth(truth):
    """JSON text with one line per top-level key and per frame (readable, diff-friendly)."""
    items = [f"{json.dumps(k)}: {json.dumps(v)}" for k, v in truth.items() if k != "frames"]
    frames = ",\n  ".join(json.dumps(e) for e in truth["frames"])
    return "{\n " + ",\n ".join(items) + ',\n "frames": [\n  ' + frames + "\n ]\n}\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True, help="output folder")
    ap.add_argument("--script", default="default", choices=list(SCRIPTS),
                    help="motion script (default: the committed clip's; see the docstring)")
    ap.add_argument("--seconds", type=float,
                    help="length (default: the script's, 10 s for the default; the script is time-scaled)")
    ap.add_argument("--fps", type=int, default=30)
    ap.add_argument("--width", type=int, default=640)
    ap.add_argument("--height", type=int, default=480)
    ap.add_argument("--seed", type=int, default=1, help="photos, frame, shake, noise (default 1)")
    ap.add_argument("--mp4", action="store_true", help="write H.264 video.mp4 through ffmpeg instead of video.y4m")
    ap.add_argument("--crf", type=int, default=18, help="x264 quality for --mp4 (default 18)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="rendering processes (default: all cores)")
    ap.add_argument("--picture", choices=sorted(scenes.SOURCES), help="photo in the frame (default: from the seed)")
    ap.add_argument("--picture2", choices=sorted(scenes.SOURCES),
                    help="the second picture's photo (--script second; default: from the seed)")
    ap.add_argument("--background", choices=sorted(set(scenes.BACKGROUNDS) | set(BACKGROUND_CHOICES) | {"busy"}),
                    help="what is behind it (default: from the seed)")
    ap.add_argument("--shutter", type=float, default=0.5,
                    help="exposure as a fraction of the frame interval (default 0.5)")
    ap.add_argument("--noise", type=float, default=0.01, help="sensor noise sigma (default 0.01; 0 = none)")
    ap.add_argument("--background-depth", type=float,
                    help="distance (m) from the picture back to the background plane (default 1.2; 0.02 for "
                         "the pan, pan-short, edges and second scripts; 0 = on the wall)")
    ap.add_argument("--truth-only", action="store_true", help="write truth.json only, render no video (quick)")
    args = ap.parse_args(argv)
    if args.seconds is None:
        args.seconds = SCRIPTS[args.script]["seconds"]
    if args.seconds <= 0 or args.fps <= 0 or args.width < 16 or args.height < 16 or args.width % 2 or args.height % 2:
        ap.error("need positive --seconds/--fps and even --width/--height >= 16")

    global _SCENE
    t0 = time.time()
    _SCENE = scene = Scene(args)
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, "video.mp4" if args.mp4 else "video.y4m")
    if args.truth_only:
        path = os.devnull
        writer = None
    elif args.mp4:
        writer = FFmpegWriter(path, scene.W, scene.H, scene.fps, args.crf)
    else:
        writer = Y4MWriter(path, scene.W, scene.H, scene.fps)
    print(f"{scene.frames} frames {scene.W}x{scene.H} @ {scene.fps} fps: picture {scene.picture}, background "
          f"{scene.background}, {args.jobs} process(es)", file=sys.stderr)
    frames = []
    pool = multiprocessing.get_context("fork").Pool(args.jobs) if args.jobs > 1 else None
    try:
        if args.truth_only:
            results = ((None, scene.truth_frame(i)) for i in range(scene.frames))
        else:
            results = pool.imap(_render, range(scene.frames)) if pool else map(_render, range(scene.frames))
        for u8, entry in results:
            if writer:
                writer.write(u8)
            frames.append(entry)
            if entry["frame"] % 30 == 0:
                print(f"  frame {entry['frame']:4d}  {entry['phase']:11s} {time.time() - t0:6.1f} s", file=sys.stderr)
    finally:
        if pool:
            pool.close()
            pool.join()
    if writer and writer.close() != 0:
        sys.exit("error: ffmpeg failed")

    truth = {
        "width": scene.W, "height": scene.H, "fps": scene.fps, "seconds": args.seconds, "seed": args.seed,
        "frames": frames,
        "phases": phase_ranges(frames, scene.fps),
        "params": {"picture": scene.picture, "background": scene.background, "frame": scene.frame_info["frame"],
                   "picture_size_m": [round(scene.pic_w, 4), round(scene.pic_h, 4)],
                   "background_depth_m": scene.bg_depth, "background_gain": round(scene.bg_gain, 3),
                   "vfov_deg": VFOV_DEG, "focal_px": round(float(scene.K[0, 0]), 3),
                   "shutter": args.shutter, "noise_sigma": args.noise, "time_scale": scene.time_scale,
                   "video": "mp4 libx264 crf %d" % args.crf if args.mp4 else "y4m"},
        "sources": {n: BUSY_NOTE if n == "busy" else scenes.SOURCES[n.split(":")[-1] if n.startswith("plaster:") else n][1]
                    for n in (scene.picture, scene.background) + ((scene.picture2,) if scene.second is not None else ())},
        "conventions": "pixels, origin top-left, pixel centres at integers; corners TL, TR, BR, BL of the "
                       "frame's outer edge at the frame's centre time; visible = all four corners inside the "
                       "image; quad null = entirely outside; occluded = share of the quad hidden by the hand",
    }
    if args.script != "default":  # (the default's truth stays byte-identical to the committed one)
        # Acquisition's ground truth: the frames on which the picture comes fully into view (all
        # four corners inside the image) after a frame on which it was not.
        truth["in_view_from"] = [e["frame"] for k, e in enumerate(frames)
                                 if e["visible"] and (k == 0 or not frames[k - 1]["visible"])]
        extra = {"script": args.script,
                 "max_corner_speed_px_s": round(max_corner_speed(scene, frames), 1)}
        if scene.second is not None:
            extra.update(picture2=scene.picture2, frame2=scene.frame2_info["frame"],
                         picture2_size_m=[round(scene.pic2_w, 4), round(scene.pic2_h, 4)],
                         picture2_centre_m=[float(v) for v in scene.second])
        truth["params"] = {**extra, **truth["params"]}
    with open(os.path.join(args.out, "truth.json"), "w") as f:
        f.write(dump_truth(truth))
    n_vis = sum(e["visible"] for e in frames)
    gone = [e["frame"] for e in frames if e["quad"] is None]
    print(f"wrote {path} ({os.path.getsize(path) / 1e6:.2f} MB) and truth.json in {time.time() - t0:.0f} s: "
          f"{n_vis}/{len(frames)} frames fully visible, "
          f"{sum(e['occluded'] > 0 for e in frames)} occluded, picture gone from frame "
          f"{gone[0] if gone else '-'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
