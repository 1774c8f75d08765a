"""pipette_convert mnn on the synthetic llama's fp32 conversion: MNN runs the converted graph
(its logits against ONNX Runtime's of the source), --int8's weights, pipette-model.json, one
JSON line on stdout, and bad input (exit 2, nothing written)."""

import json
import os
import unittest

import numpy as np

from .folder import sha256_file
from .testing import TinyFp32Case, convert_ok, run_cli

IDS = [5, 77, 200, 1, 31, 260, 9, 150]
# max |MNN logits - ORT logits| / max |ORT logits| on this model (logits up to ~28), measured:
# fp32 2.2e-7, int8 weights 5.2e-3 (argmax 8/8 in both). The bounds leave room for other CPUs'
# kernels.
FP32_BOUND = 1e-4
INT8_BOUND = 0.05


def mnn_logits(folder, ids):
    """The logits of `ids` from the folder's model.mnn in MNN (P = 0, last_n = all)."""
    import MNN.expr as F
    import MNN.nn as nn

    with open(os.path.join(folder, "pipette-model.json"), encoding="utf-8") as f:
        m = json.load(f)
    rt = nn.create_runtime_manager(({"backend": "CPU", "precision": "high", "numThread": 1},))
    module = nn.load_module_from_file(os.path.join(folder, "model.mnn"), [], [],
                                      runtime_manager=rt, dynamic=True, shape_mutable=True)
    n = len(ids)
    feeds = [np.asarray([ids], np.int32), np.arange(n, dtype=np.int32)[None, :],
             np.asarray([n], np.int32)]
    feeds += [np.zeros((1, m["n_head_kv"], 0, m["head_dim"]), np.float32)] * (2 * m["n_layer"])
    inputs = [F.const(a, list(a.shape), F.NCHW, F.float if a.dtype == np.float32 else F.int)
              for a in feeds]
    return np.array(module.forward(inputs)[0].read())[0]


class ToMnnTest(TinyFp32Case):
    IDS = IDS

    def convert(self, name, *extra):
        out = os.path.join(self.tmp.name, name)
        reply = convert_ok(self, "mnn", "--onnx", self.fp32, "--out", out, *extra)
        return out, reply["meta"]

    def relative_error(self, folder):
        got = mnn_logits(folder, IDS)
        return float(np.abs(got - self.want).max() / np.abs(self.want).max())

    def test_fp32_runs_in_mnn_as_the_onnx_graph_does(self):
        out, meta = self.convert("mnn-fp32")
        self.assertEqual(sorted(os.listdir(out)), ["model.mnn", "pipette-model.json",
                                                   "tokenizer.json"])
        self.assertEqual(meta["format"], "pipette-mnn/1")
        self.assertEqual((meta["variant"]["name"], meta["variant"]["weights"]),
                         ("fp32", "float32"))
        self.assertEqual(meta["files"]["model.mnn"], sha256_file(os.path.join(out, "model.mnn")))
        self.assertEqual(meta["source_folder"]["path"], os.path.abspath(self.fp32))
        self.assertTrue(meta["converter"]["packages"]["mnn"])
        self.assertGreater(meta["n_params"], 0)
        self.assertLess(self.relative_error(out), FP32_BOUND)

    def test_int8_weights_are_smaller_and_near(self):
        out, meta = self.convert("mnn-int8", "--int8")
        fp32, _ = self.convert("mnn-fp32-b")
        self.assertEqual((meta["variant"]["name"], meta["variant"]["weights"]), ("int8", "int8"))
        self.assertEqual(meta["variant"]["options"]["weightQuantBits"], 8)
        self.assertLess(os.path.getsize(os.path.join(out, "model.mnn")),
                        0.5 * os.path.getsize(os.path.join(fp32, "model.mnn")))
        self.assertLess(self.relative_error(out), INT8_BOUND)

    def test_a_source_that_is_not_an_fp32_conversion_is_exit_2_writing_nothing(self):
        out = os.path.join(self.tmp.name, "never")
        rc, _, err = run_cli("mnn", "--onnx", os.path.join(self.tmp.name, "nothing"),
                             "--out", out)
        self.assertEqual(rc, 2, err)
        self.assertIn("no such folder", err)
        self.assertFalse(os.path.exists(out))


if __name__ == "__main__":
    unittest.main()
