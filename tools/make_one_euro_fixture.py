#!/usr/bin/env python3
"""The fixture of OneEuroFilterTests (Tests/GPUStyleTests/Fixtures/live-faces/one_euro.json): a
noisy signal that rests, moves and rests again, sampled at uneven times, and what the 1€ filter
makes of it, written here from the paper (Casiez, Roussel and Vogel, CHI 2012, Algorithm 1)
independently of the Swift code.

    python3 tools/make_one_euro_fixture.py [--out FILE]
"""
import argparse
import json
import math
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = [  # min cutoff (Hz), beta, derivative cutoff (Hz), scale
    (0.3, 40.0, 1.0, 120.0), (1.0, 0.0, 1.0, 1.0), (0.5, 4.0, 2.0, 50.0)]


def alpha(rate, cutoff):
    tau = 1.0 / (2 * math.pi * cutoff)
    return 1.0 / (1.0 + tau * rate)


def one_euro(times, values, min_cutoff, beta, d_cutoff, scale):
    out = []
    x_prev = dx_prev = t_prev = None
    for t, x in zip(times, values):
        if x_prev is None:
            x_prev, dx_prev, t_prev = x, 0.0, t
            out.append(x)
            continue
        rate = 1.0 / (t - t_prev)
        dx = (x - x_prev) * rate / scale
        edx = dx_prev + alpha(rate, d_cutoff) * (dx - dx_prev)
        cutoff = min_cutoff + beta * abs(edx)
        x_hat = x_prev + alpha(rate, cutoff) * (x - x_prev)
        out.append(x_hat)
        x_prev, dx_prev, t_prev = x_hat, edx, t
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=os.path.join(ROOT, "Tests/GPUStyleTests/Fixtures/live-faces/one_euro.json"))
    a = p.parse_args()
    rng = np.random.default_rng(7)
    times = np.cumsum(rng.uniform(1 / 40, 1 / 20, 90))  # 20-40 fps, uneven
    base = np.where(times < 1, 100.0, np.where(times < 2, 100 + 80 * (times - 1), 180.0))
    values = base + rng.normal(0, 0.8, len(times))
    cases = [{"minimumCutoff": m, "beta": b, "derivativeCutoff": d, "scale": s,
              "expected": one_euro(times.tolist(), values.tolist(), m, b, d, s)} for m, b, d, s in CASES]
    with open(a.out, "w") as f:
        json.dump({"times": times.tolist(), "values": values.tolist(), "cases": cases}, f)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
