#!/usr/bin/env python3
"""The shard of a file as `gpustyle --shard` chooses it, written independently of the Swift code
(Sources/GPUStyle/Batch/Shard.swift): FNV-1a 64 over the key's UTF-8 bytes, then SplitMix64's
finaliser; the shard is the hash mod N.

    tools/shard_reference.py KEY...        prints "hash KEY" per key (hex)
    tools/shard_reference.py --of N KEY... prints "shard KEY" per key
"""
import sys

M = (1 << 64) - 1


def stable_hash(key: str) -> int:
    h = 0xCBF29CE484222325
    for b in key.encode("utf-8"):
        h = ((h ^ b) * 0x100000001B3) & M
    h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & M
    h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & M
    return h ^ (h >> 31)


def main(argv):
    if argv[:1] == ["--of"]:
        n = int(argv[1])
        for key in argv[2:]:
            print(stable_hash(key) % n, key)
    else:
        for key in argv:
            print(f"{stable_hash(key):016x}", key)


if __name__ == "__main__":
    main(sys.argv[1:])
