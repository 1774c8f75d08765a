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
