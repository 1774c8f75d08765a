"""Writes initializers into one external data file (model.onnx.data) as they are made.

Each tensor starts on a 4096-byte boundary so runtimes can mmap the file; the ModelProto holds
only references (location, offset, length), so the 2 GB protobuf limit never applies.
"""

import os

import numpy as np
from onnx import TensorProto, helper

_ALIGN = 4096


class ExternalDataWriter:
    def __init__(self, folder, location="model.onnx.data"):
        self.location = location
        self.path = os.path.join(folder, location)
        self._f = open(self.path, "xb")
        self._offset = 0

    def tensor(self, name, array):
        """A TensorProto named `name` whose bytes are appended to the data file."""
        a = np.ascontiguousarray(array)
        if a.dtype.byteorder == ">":
            a = a.byteswap().view(a.dtype.newbyteorder("<"))
        pad = (-self._offset) % _ALIGN
        if pad:
            self._f.write(b"\0" * pad)
            self._offset += pad
        data = a.tobytes()
        self._f.write(data)
        t = TensorProto()
        t.name = name
        t.data_type = helper.np_dtype_to_tensor_dtype(a.dtype)
        t.dims.extend(a.shape)
        t.data_location = TensorProto.EXTERNAL
        for key, value in (("location", self.location), ("offset", str(self._offset)),
                           ("length", str(len(data)))):
            entry = t.external_data.add()
            entry.key = key
            entry.value = value
        self._offset += len(data)
        return t

    def close(self):
        if self._f is not None:
            self._f.close()
            self._f = None


def check_external_data(model_path):
    """Raises RuntimeError unless every external tensor of the model lies inside its data file
    and no two overlap (a quantizer that keeps a stale reference would otherwise pass silently)."""
    import onnx

    folder = os.path.dirname(model_path)
    model = onnx.load(model_path, load_external_data=False)
    spans = {}
    for t in model.graph.initializer:
        if t.data_location != TensorProto.EXTERNAL:
            continue
        kv = {e.key: e.value for e in t.external_data}
        spans.setdefault(kv["location"], []).append((int(kv.get("offset", 0)), int(kv["length"]), t.name))
    for location, items in spans.items():
        size = os.path.getsize(os.path.join(folder, location))
        items.sort()
        end, last = 0, None
        for offset, length, name in items:
            if offset < end:
                raise RuntimeError(f"{location}: tensor {name} overlaps {last} (a stale external reference)")
            if offset + length > size:
                raise RuntimeError(f"{location}: tensor {name} ends at {offset + length}, past the file ({size})")
            end, last = offset + length, name
