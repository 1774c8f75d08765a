"""tokenizer.json from a synthetic GGUF vocabulary: merges, the smollm digit split, specials."""

import os
import tempfile
import unittest

from tokenizers import Tokenizer

from .testing import SPECIAL, TinyLlama, convert_ok, encode


class TinyTokenizerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        tiny = TinyLlama(seed=5, n_layer=1)
        gguf_path = os.path.join(cls.tmp.name, "tiny.gguf")
        tiny.write_gguf(gguf_path)
        cls.out = os.path.join(cls.tmp.name, "onnx")
        cls.reply = convert_ok(unittest.TestCase(), "gguf", "--gguf", gguf_path, "--out", cls.out)
        cls.tok = Tokenizer.from_file(os.path.join(cls.out, "tokenizer.json"))
        cls.ids = {t: i for i, t in enumerate(tiny.tokens)}

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def encode(self, text, parse_special=True):
        return encode(self.tok, text, parse_special)

    def test_merges_apply_in_rank_order(self):
        self.assertEqual(self.encode(" the"), [self.ids["Ġthe"]])
        self.assertEqual(self.encode("in a"), [self.ids["in"], self.ids["Ġa"]])

    def test_digits_are_split_one_by_one(self):
        # smollm's pre-tokenizer: \p{N} first, so "2024" is four pieces
        self.assertEqual(self.encode("2024"), [self.ids[c] for c in "2024"])

    def test_control_tokens_are_single_ids_only_when_parsed(self):
        ids = self.encode("<|im_start|>the<|im_end|>")
        self.assertEqual(ids[0], 1)
        self.assertEqual(ids[-1], 2)
        self.assertEqual(len(ids), 4)  # <|im_start|> t he <|im_end|>
        as_text = self.encode("<|im_start|>", parse_special=False)
        self.assertNotIn(1, as_text)
        self.assertEqual(self.tok.decode(as_text), "<|im_start|>")

    def test_round_trip_bytes(self):
        for text in ["hello  world\n\n", "naïve — 東京 🙂", "\t a1b2 ", " the theine"]:
            self.assertEqual(self.tok.decode(self.encode(text)), text)

    def test_special_tokens_are_the_gguf_control_tokens(self):
        added = {t.content: t.special for t in self.tok.get_added_tokens_decoder().values()}
        self.assertEqual(added, {t: True for t in SPECIAL})

    def test_no_bos_added_when_the_gguf_says_so(self):
        self.assertEqual(self.tok.encode("the", add_special_tokens=True).ids, self.encode("the"))


if __name__ == "__main__":
    unittest.main()
