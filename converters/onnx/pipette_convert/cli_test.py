"""The CLI's `version` line and the output folder's all-or-nothing rule."""

import json
import os
import tempfile
import unittest

from . import versions
from .errors import BadInput
from .folder import output_folder
from .testing import run_cli


class VersionTest(unittest.TestCase):
    def test_one_json_line(self):
        rc, out, err = run_cli("version")
        self.assertEqual(rc, 0, err)
        reply = json.loads(out)
        self.assertEqual(out.count("\n"), 1)
        self.assertEqual((reply["name"], reply["version"]), ("pipette-convert", versions.VERSION))
        for name in ("gguf", "onnx", "numpy", "onnxruntime", "onnx-ir", "tokenizers", "protobuf"):
            self.assertTrue(reply["packages"][name], name)


class OutputFolderTest(unittest.TestCase):
    def setUp(self):
        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        self.out = os.path.join(tmp.name, "out")

    def test_removed_whole_when_the_block_fails(self):
        with self.assertRaises(RuntimeError):
            with output_folder(self.out):
                with open(os.path.join(self.out, "model.onnx"), "w", encoding="utf-8") as f:
                    f.write("half")
                raise RuntimeError("boom")
        self.assertFalse(os.path.exists(self.out))

    def test_kept_when_the_block_succeeds(self):
        with output_folder(self.out):
            pass
        self.assertTrue(os.path.isdir(self.out))

    def test_parent_must_exist(self):
        with self.assertRaisesRegex(BadInput, "parent folder"):
            with output_folder(os.path.join(self.out, "deeper")):
                pass


if __name__ == "__main__":
    unittest.main()
