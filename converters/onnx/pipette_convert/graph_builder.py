"""A small helper to emit ONNX nodes with unique names (onnx.helper underneath)."""

import numpy as np
from onnx import TensorProto, helper, numpy_helper


class GraphBuilder:
    def __init__(self):
        self.nodes = []
        self.initializers = []
        self._names = {}
        self._consts = {}

    def unique(self, hint):
        n = self._names.get(hint, 0)
        self._names[hint] = n + 1
        return hint if n == 0 else f"{hint}_{n}"

    def op(self, op_type, inputs, hint=None, outputs=None, n_out=1, **attrs):
        """Adds a node; returns its output name (or the list of names when n_out > 1)."""
        name = self.unique(hint or op_type)
        if outputs is None:
            outputs = [name] if n_out == 1 else [f"{name}_out{i}" for i in range(n_out)]
        self.nodes.append(helper.make_node(op_type, list(inputs), list(outputs), name=name, **attrs))
        return outputs[0] if len(outputs) == 1 else list(outputs)

    def const(self, value, dtype):
        """A small constant initializer (kept inside model.onnx), shared between uses."""
        a = np.asarray(value, dtype=dtype)
        key = (a.dtype.str, a.shape, a.tobytes())
        if key not in self._consts:
            name = self.unique("const")
            self.initializers.append(numpy_helper.from_array(a, name))
            self._consts[key] = name
        return self._consts[key]

    def i64(self, value):
        return self.const(value, np.int64)

    def add_initializer(self, tensor):
        self.initializers.append(tensor)
        return tensor.name


def value_info(name, elem_type, shape):
    return helper.make_tensor_value_info(name, elem_type, shape)


FLOAT = TensorProto.FLOAT
FLOAT16 = TensorProto.FLOAT16
INT64 = TensorProto.INT64
