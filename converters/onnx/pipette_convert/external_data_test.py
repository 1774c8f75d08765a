"""The external data writer and its checker (a stale reference must not pass silently)."""

import os
import tempfile
import unittest

import numpy as np
import onnx
from onnx import helper

from .external_data import ExternalDataWriter, check_external_data
from .graph_builder import FLOAT


def save(folder, tensors):
    graph = helper.make_graph([helper.make_node("Add", ["a", "b"], ["y"])], "g", [],
                              [helper.make_tensor_value_info("y", FLOAT, [4])], initializer=tensors)
    path = os.path.join(folder, "model.onnx")
    with open(path, "wb") as f:
        f.write(helper.make_model(graph).SerializeToString())
    return path


class ExternalDataTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.dir = tmp.name
        w = ExternalDataWriter(self.dir)
        self.a = w.tensor("a", np.arange(4, dtype=np.float32))
        self.b = w.tensor("b", np.full(4, 2.0, dtype=np.float32))
        w.close()

    def test_aligned_and_loadable(self):
        path = save(self.dir, [self.a, self.b])
        check_external_data(path)
        offsets = [int({e.key: e.value for e in t.external_data}["offset"]) for t in (self.a, self.b)]
        self.assertEqual(offsets, [0, 4096])
        model = onnx.load(path)
        b = onnx.numpy_helper.to_array(model.graph.initializer[1])
        np.testing.assert_array_equal(b, np.full(4, 2.0, dtype=np.float32))

    def test_overlap_is_an_error(self):
        for e in self.b.external_data:
            if e.key == "offset":
                e.value = "8"
        with self.assertRaisesRegex(RuntimeError, "overlaps"):
            check_external_data(save(self.dir, [self.a, self.b]))

    def test_past_the_end_is_an_error(self):
        for e in self.b.external_data:
            if e.key == "length":
                e.value = "100000"
        with self.assertRaisesRegex(RuntimeError, "past the file"):
            check_external_data(save(self.dir, [self.a, self.b]))


if __name__ == "__main__":
    unittest.main()
