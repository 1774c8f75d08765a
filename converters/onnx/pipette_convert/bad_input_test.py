"""Bad input: exit 2, a message naming the file and the problem, no output folder left behind."""

import os
import tempfile
import unittest

from .testing import TinyLlama, run_cli


class BadInputTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.tmp = tmp.name
        self.out = os.path.join(self.tmp, "out")

    def refused(self, gguf_path, *words):
        rc, out, err = run_cli("gguf", "--gguf", gguf_path, "--out", self.out)
        self.assertEqual(rc, 2, err)
        self.assertEqual(out, "")
        for w in words:
            self.assertIn(w, err)
        self.assertFalse(os.path.exists(self.out), "the output folder was left behind")
        return err

    def test_missing_file(self):
        path = os.path.join(self.tmp, "absent.gguf")
        self.refused(path, path, "no such file")

    def test_not_a_gguf(self):
        path = os.path.join(self.tmp, "text.gguf")
        with open(path, "w", encoding="utf-8") as f:
            f.write("this is not a model\n")
        self.refused(path, path, "not a GGUF file")

    def test_truncated_gguf(self):
        whole = os.path.join(self.tmp, "whole.gguf")
        TinyLlama(n_layer=1).write_gguf(whole)
        path = os.path.join(self.tmp, "cut.gguf")
        with open(whole, "rb") as f, open(path, "wb") as g:
            g.write(f.read(300))
        self.refused(path, path)

    def test_unsupported_architecture(self):
        path = os.path.join(self.tmp, "qwen.gguf")
        TinyLlama(n_layer=1).write_gguf(path, arch="qwen2")
        self.refused(path, path, "'qwen2'", "converts llama")

    def test_existing_output_folder_is_left_alone(self):
        path = os.path.join(self.tmp, "tiny.gguf")
        TinyLlama(n_layer=1).write_gguf(path)
        os.mkdir(self.out)
        marker = os.path.join(self.out, "keep")
        open(marker, "w", encoding="utf-8").close()
        rc, _, err = run_cli("gguf", "--gguf", path, "--out", self.out)
        self.assertEqual(rc, 2)
        self.assertIn("already exists", err)
        self.assertTrue(os.path.exists(marker))

    def test_usage_error(self):
        rc, _, err = run_cli("gguf", "--out", self.out)
        self.assertEqual(rc, 2)
        self.assertIn("--gguf", err)
        self.assertFalse(os.path.exists(self.out))


if __name__ == "__main__":
    unittest.main()
