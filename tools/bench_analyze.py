#!/usr/bin/env python3
"""Time `gpustyle analyze` against the same requests run as separate commands, in one run.

    python3 tools/bench_analyze.py PHOTO [--requests rectangles,faces,classify,digits]
        [--binary .build/release/gpustyle] [--device cpu] [--runs 5]

Each round runs `gpustyle analyze --json --requests R PHOTO` and then the commands one after
another (`detect --json`, `faces --json`, `classify --json`, `digits --json` for the requests
asked), alternating so that both see the same machine; prints the medians and their ratio.
Whole processes are timed (start-up, decoding, model loading and all), as a user runs them.
"""
import argparse
import statistics
import subprocess
import time

COMMANDS = {"rectangles": ["detect", "--json"], "faces": ["faces", "--json"], "classify": ["classify", "--json"],
            "digits": ["digits", "--json"]}


def timed(args):
    start = time.perf_counter()
    r = subprocess.run(args, capture_output=True)
    if r.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(args)}: {r.stderr.decode()}")
    return time.perf_counter() - start


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("photo")
    p.add_argument("--requests", default="rectangles,faces,classify,digits")
    p.add_argument("--binary", default=".build/release/gpustyle")
    p.add_argument("--device", default="cpu")
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args()
    requests = a.requests.split(",")
    together, apart = [], []
    timed([a.binary, "analyze", "--device", a.device, "--requests", a.requests, a.photo])  # warm the file cache
    for _ in range(a.runs):
        together.append(timed([a.binary, "analyze", "--json", "--device", a.device, "--requests", a.requests, a.photo]))
        apart.append(sum(timed([a.binary, *COMMANDS[r], "--device", a.device, a.photo]) for r in requests))
    t, s = statistics.median(together), statistics.median(apart)
    print(f"{a.photo}, requests {a.requests}, --device {a.device}, {a.runs} runs each:")
    print(f"  analyze (one process)      {t * 1000:8.1f} ms median")
    print(f"  the commands one by one    {s * 1000:8.1f} ms median")
    print(f"  analyze / commands         {t / s:8.2f}")


if __name__ == "__main__":
    main()
