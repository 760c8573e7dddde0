"""Reader and writer for gpustyle's tensor file format (.gpsw).

Layout, all integers little-endian uint32:
    magic  b"GPSW"
    version (1)
    tensor count
    per tensor: name length, name (UTF-8), rank, dims[rank], float32 data (C order)
"""
import struct

import numpy as np

MAGIC = b"GPSW"
VERSION = 1


def write(path, tensors):
    """tensors: an ordered mapping name -> numpy array (stored as float32)."""
    with open(path, "wb") as f:
        f.write(MAGIC + struct.pack("<II", VERSION, len(tensors)))
        for name, array in tensors.items():
            array = np.ascontiguousarray(array, dtype="<f4")
            encoded = name.encode("utf-8")
            f.write(struct.pack("<I", len(encoded)) + encoded)
            f.write(struct.pack("<I", array.ndim))
            f.write(struct.pack("<%dI" % array.ndim, *array.shape))
            f.write(array.tobytes())


def read(path):
    with open(path, "rb") as f:
        data = f.read()
    assert data[:4] == MAGIC, "not a GPSW file"
    version, count = struct.unpack_from("<II", data, 4)
    assert version == VERSION
    offset = 12
    tensors = {}
    for _ in range(count):
        (length,) = struct.unpack_from("<I", data, offset)
        offset += 4
        name = data[offset:offset + length].decode("utf-8")
        offset += length
        (rank,) = struct.unpack_from("<I", data, offset)
        offset += 4
        shape = struct.unpack_from("<%dI" % rank, data, offset)
        offset += 4 * rank
        n = int(np.prod(shape)) if rank else 1
        tensors[name] = np.frombuffer(data, "<f4", n, offset).reshape(shape).copy()
        offset += 4 * n
    return tensors
