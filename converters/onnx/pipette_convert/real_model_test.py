"""The bundled SmolLM2 GGUF, converted once per run (in a temporary folder removed after): it
loads in ONNX Runtime with finite logits, pipette-model.json has the model's facts, and the
tokenizer round-trips text and maps control tokens to their single ids. (Token-for-token
agreement with llama.cpp is the C++ end-to-end test's.)
"""

import os
import tempfile
import unittest

import numpy as np
from tokenizers import Tokenizer

from .testing import REAL_MODEL, OrtModel, convert_ok, encode

TEXTS = [
    "The quick brown fox jumps over the lazy dog.",
    "<|im_start|>user\nhi<|im_end|>",
    "naïve café — 東京, Ελληνικά, 🙂🚀",
    "In 2024 there were 1,234,567 visitors (3.14%).",
    "  leading and   inner spaces\t\ttabs\n\n\nand trailing   ",
]


@unittest.skipUnless(os.path.exists(REAL_MODEL), f"{REAL_MODEL} is absent (scripts/fetch-models.sh)")
class RealModelTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.out = os.path.join(cls.tmp.name, "smollm2-onnx")
        cls.reply = convert_ok(unittest.TestCase(), "gguf", "--gguf", REAL_MODEL, "--out", cls.out)
        cls.meta = cls.reply["meta"]
        cls.tok = Tokenizer.from_file(os.path.join(cls.out, "tokenizer.json"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def encode(self, text, parse_special=True):
        return encode(self.tok, text, parse_special)

    def test_facts(self):
        m = self.meta
        facts = {k: m[k] for k in ("arch", "n_layer", "n_head", "n_head_kv", "head_dim", "n_embd", "n_vocab",
                                   "n_ctx_train", "rope_freq_base", "bos", "eos", "add_bos", "add_eos",
                                   "tied_embeddings", "bos_text", "eos_text")}
        self.assertEqual(facts, {"arch": "llama", "n_layer": 30, "n_head": 9, "n_head_kv": 3, "head_dim": 64,
                                 "n_embd": 576, "n_vocab": 49152, "n_ctx_train": 8192,
                                 "rope_freq_base": 100000.0, "bos": 1, "eos": 2, "add_bos": False,
                                 "add_eos": False, "tied_embeddings": True, "bos_text": "<|im_start|>",
                                 "eos_text": "<|im_end|>"})
        self.assertAlmostEqual(m["rms_eps"], 1e-5, places=9)
        self.assertEqual(m["eog"], [0, 2])  # <|endoftext|> and <|im_end|>, as llama.cpp lists them
        self.assertEqual(m["source"]["file_type"], "Q4_1")
        self.assertTrue(m["chat_template"].startswith("{% for message in messages %}"))
        self.assertEqual(m["tokenizer"], {"model": "gpt2", "pre": "smollm"})
        self.assertEqual(len(m["graph"]["inputs"]), 3 + 2 * 30)
        self.assertEqual(len(m["graph"]["outputs"]), 1 + 2 * 30)

    def test_runs_in_onnxruntime(self):
        m = OrtModel(self.out)
        ids = self.encode("<|im_start|>user\nWhat is the capital of France?<|im_end|>\n<|im_start|>assistant\n")
        logits, past = m.run(ids, last_n=1)
        self.assertEqual(logits.shape, (1, 49152))
        self.assertTrue(np.isfinite(logits).all())
        self.assertEqual(past["past_value_29"].shape, (1, 3, len(ids), 64))
        step, _ = m.run([int(np.argmax(logits[0]))], past=past, past_len=len(ids))
        self.assertTrue(np.isfinite(step).all())

    def test_round_trip(self):
        for text in TEXTS:
            ids = self.encode(text)
            self.assertTrue(ids, text)
            self.assertEqual(self.tok.decode(ids, skip_special_tokens=False), text)

    def test_control_tokens_are_single_ids(self):
        ids = self.encode("<|im_start|>user\nhi<|im_end|>")
        self.assertEqual(ids[0], 1)
        self.assertEqual(ids[-1], 2)
        self.assertEqual(ids.count(1) + ids.count(2), 2)
        for i, t in enumerate(["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<file_sep>"]):
            self.assertEqual(self.encode(t), [self.tok.token_to_id(t)], t)
        # parse_special off: the same text is ordinary text, no control id
        plain = self.encode("<|im_start|>user", parse_special=False)
        self.assertNotIn(1, plain)
        self.assertGreater(len(plain), 2)

    def test_digits_one_token_each(self):
        ids = self.encode("1234567890")
        self.assertEqual([self.tok.id_to_token(i) for i in ids], list("1234567890"))

    def test_spaces_merge_like_gpt2(self):
        # GPT-2's \s+(?!\S): a run of spaces keeps its last space for the next word
        pieces = [self.tok.id_to_token(i) for i in self.encode("a   b")]
        self.assertEqual("".join(pieces), "a" + "ĠĠĠ" + "b")
        self.assertEqual(pieces[-1], "Ġb")


if __name__ == "__main__":
    unittest.main()
