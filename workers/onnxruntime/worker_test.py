"""The worker as a program: its standard output carries protocol lines only, and it exits 0
at shutdown."""

import json
import os
import subprocess
import sys
import unittest

from pipette_decoder.fake_model_fixture import fake_model_for

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")


class WorkerProgramTest(unittest.TestCase):
    def test_a_session_over_the_pipes(self):
        folder = fake_model_for(self, dtype="float16")  # ONNX Runtime warns about these
        requests = [
            {"id": 1, "op": "hello"},
            {"id": 2, "op": "load_model", "path": folder},
            {"id": 3, "op": "init_context", "n_ctx": 16, "n_batch": 2},
            {"id": 4, "op": "pp", "tokens": [1, 2, 3]},
            {"id": 5, "op": "quantize"},
            {"id": 6, "op": "shutdown"},
        ]
        stdin = "".join(json.dumps(r) + "\n" for r in requests)
        env = dict(os.environ)
        env.pop("PIPETTE_WORKER_TEST_OPS", None)
        done = subprocess.run([sys.executable, "-B", WORKER], input=stdin.encode(),
                              capture_output=True, timeout=120, env=env, check=False)
        self.assertEqual(done.returncode, 0, done.stderr.decode(errors="replace"))
        replies = [json.loads(line) for line in done.stdout.splitlines()]
        self.assertEqual([r["id"] for r in replies], [1, 2, 3, 4, 5, 6])
        self.assertEqual([r["ok"] for r in replies], [True, True, True, True, False, True])
        self.assertEqual(replies[0]["runtime"], "onnxruntime")
        self.assertNotIn("quantize", replies[0]["ops"])
        self.assertNotIn("imatrix", replies[0]["ops"])
        self.assertEqual(replies[4]["error"], "unknown op 'quantize'")
        self.assertEqual(len(replies[3]["batch_end_ns"]), 2)


if __name__ == "__main__":
    unittest.main()
