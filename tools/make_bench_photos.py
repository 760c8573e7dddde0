#!/usr/bin/env python3
"""Photos for whole-command benchmarks (`farm-bench`, docs/speed.md): the classify fixtures'
crops (Tests/GPUStyleTests/Fixtures/classify/crops, 224x224 real photos) resized bicubically to
SIZE x SIZE, written as OUT/00.png ... and OUT/../one.png (the first of them).

    python3 tools/make_bench_photos.py OUT [--count 16] [--size 512]

Needs Pillow.
"""
import argparse
import pathlib

from PIL import Image


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=pathlib.Path)
    parser.add_argument("--count", type=int, default=16)
    parser.add_argument("--size", type=int, default=512)
    args = parser.parse_args()
    crops = sorted((pathlib.Path(__file__).resolve().parent.parent
                    / "Tests/GPUStyleTests/Fixtures/classify/crops").glob("*.png"))
    if len(crops) < args.count:
        raise SystemExit(f"only {len(crops)} crops, asked for {args.count}")
    args.out.mkdir(parents=True, exist_ok=True)
    for index, path in enumerate(crops[:args.count]):
        image = Image.open(path).convert("RGB").resize((args.size, args.size), Image.BICUBIC)
        image.save(args.out / f"{index:02d}.png")
        if index == 0:
            image.save(args.out.parent / "one.png")


if __name__ == "__main__":
    main()
