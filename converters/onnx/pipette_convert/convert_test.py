"""Numerics of the converted graph: a synthetic 2-layer llama GGUF (n_head 4, n_head_kv 2),
converted by the CLI, run in ONNX Runtime, against a plain numpy forward pass (adjacent-pair rope,
GQA, causal attention) at 1e-5 - for a prefill, then for decode steps through the KV cache.
"""

import json
import os
import tempfile
import unittest

import numpy as np
import onnx

from .testing import OrtModel, TinyLlama, convert_ok

TOL = 1e-5
IDS = [5, 77, 200, 1, 31, 260, 9, 150]


class ConvertNumericsTest(unittest.TestCase):
    def convert(self, tiny, *extra):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        gguf_path = os.path.join(tmp.name, "tiny.gguf")
        tiny.write_gguf(gguf_path)
        out = os.path.join(tmp.name, "onnx")
        reply = convert_ok(self, "gguf", "--gguf", gguf_path, "--out", out, *extra)
        return out, reply

    def check_prefill_and_decode(self, tiny, out):
        want = tiny.forward(IDS)
        m = OrtModel(out)
        logits, _ = m.run(IDS)
        self.assertEqual(logits.shape, (len(IDS), tiny.n_vocab))
        self.assertEqual(logits.dtype, np.float32)
        np.testing.assert_allclose(logits, want, rtol=TOL, atol=TOL)
        # last_n = 1: only the last position's logits
        last, _ = m.run(IDS, last_n=1)
        self.assertEqual(last.shape, (1, tiny.n_vocab))
        np.testing.assert_allclose(last[0], want[-1], rtol=TOL, atol=TOL)
        # a 3-token prefill, then one-token decode steps through present -> past
        logits, past = m.run(IDS[:3], last_n=1)
        np.testing.assert_allclose(logits[0], want[2], rtol=TOL, atol=TOL)
        for p in range(3, len(IDS)):
            self.assertEqual(past["past_key_0"].shape, (1, tiny.n_head_kv, p, tiny.head_dim))
            logits, past = m.run([IDS[p]], past=past, past_len=p)
            np.testing.assert_allclose(logits[0], want[p], rtol=TOL, atol=TOL)
        # a 2-token chunk after a 4-token prefix (prefill in batches)
        _, past = m.run(IDS[:4], last_n=1)
        logits, _ = m.run(IDS[4:6], past=past, past_len=4)
        np.testing.assert_allclose(logits, want[4:6], rtol=TOL, atol=TOL)
        return m

    def test_tied_embeddings_prefill_and_decode(self):
        tiny = TinyLlama(seed=1, tied=True)
        out, reply = self.convert(tiny)
        m = self.check_prefill_and_decode(tiny, out)
        meta = m.meta
        self.assertEqual(reply["meta"], meta)
        self.assertTrue(meta["tied_embeddings"])
        self.assertEqual((meta["n_layer"], meta["n_head"], meta["n_head_kv"], meta["head_dim"]), (2, 4, 2, 8))
        self.assertEqual(meta["variant"], {"name": "fp32", "dtype": "float32", "calibration": None})
        model = onnx.load(os.path.join(out, "model.onnx"), load_external_data=False)
        self.assertEqual([(o.domain, o.version) for o in model.opset_import], [("", 18)])
        inits = {t.name: t for t in model.graph.initializer}
        # the linears are [in, out] MatMul weights named after their GGUF tensors, stored outside
        self.assertEqual(list(inits["blk.1.attn_k.weight"].dims), [32, 16])
        self.assertEqual(inits["blk.1.attn_k.weight"].data_location, onnx.TensorProto.EXTERNAL)
        self.assertEqual(list(inits["token_embd.weight"].dims), [tiny.n_vocab, 32])
        self.assertEqual(list(inits["token_embd.weight.transposed"].dims), [32, tiny.n_vocab])
        self.assertEqual(sorted(os.listdir(out)),
                         ["model.onnx", "model.onnx.data", "pipette-model.json", "tokenizer.json"])

    def test_separate_output_weight(self):
        tiny = TinyLlama(seed=2, tied=False)
        out, _ = self.convert(tiny)
        m = self.check_prefill_and_decode(tiny, out)
        self.assertFalse(m.meta["tied_embeddings"])

    def test_float16_graph(self):
        tiny = TinyLlama(seed=3)
        out, reply = self.convert(tiny, "--dtype", "float16")
        meta = reply["meta"]
        self.assertEqual(meta["variant"]["name"], "fp16")
        self.assertEqual((meta["graph"]["dtype"], meta["graph"]["kv_dtype"]), ("float16", "float16"))
        m = OrtModel(out)
        logits, past = m.run(IDS)
        self.assertEqual(logits.dtype, np.float32)  # a final Cast
        self.assertEqual(past["past_key_1"].dtype, np.float16)
        # fp16 weights and activations: a loose bound (measured max error about 3e-3 here)
        np.testing.assert_allclose(logits, tiny.forward(IDS), atol=2e-2)
        model = onnx.load(os.path.join(out, "model.onnx"), load_external_data=False)
        big = [t for t in model.graph.initializer if t.data_location == onnx.TensorProto.EXTERNAL]
        self.assertTrue(big)
        self.assertTrue(all(t.data_type == onnx.TensorProto.FLOAT16 for t in big))

    def test_meta_and_file_hashes(self):
        tiny = TinyLlama(seed=4)
        out, reply = self.convert(tiny)
        from .folder import sha256_file

        meta = reply["meta"]
        self.assertEqual(meta["format"], "pipette-onnx/1")
        for name, digest in meta["files"].items():
            self.assertEqual(sha256_file(os.path.join(out, name)), digest, name)
        self.assertEqual(reply["files"], meta["files"])
        self.assertEqual(meta["source"]["sha256"], sha256_file(meta["source"]["path"]))
        self.assertEqual(meta["source"]["file_type"], "ALL_F32")
        self.assertEqual((meta["bos"], meta["eos"], meta["eog"]), (1, 2, [0, 2]))
        self.assertEqual((meta["bos_text"], meta["eos_text"]), ("<|im_start|>", "<|im_end|>"))
        self.assertFalse(meta["add_bos"])
        self.assertIn("<|im_start|>", meta["chat_template"])
        self.assertEqual(meta["converter"]["name"], "pipette-convert")
        with open(os.path.join(out, "pipette-model.json"), encoding="utf-8") as f:
            self.assertEqual(json.load(f), meta)


if __name__ == "__main__":
    unittest.main()
