"""The MNN worker on the fake model converted for MNN (pipette_convert mnn, the source tree's
converter, once for the class): the checks every worker on pipette_decoder passes
(worker_checks.py) and what the load says."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import worker as worker_main
from pipette_decoder.fake_model_fixture import WorkerCalls, write_fake_model
from pipette_decoder.worker_checks import WorkerChecks

_HERE = os.path.dirname(os.path.abspath(__file__))
WORKER = os.path.join(_HERE, "worker.py")
CONVERTER = os.path.join(os.path.dirname(os.path.dirname(_HERE)), "converters", "onnx")


class MnnWorkerTest(WorkerChecks, unittest.TestCase):
    RUNTIME = "mnn"
    PROGRAM = WORKER

    @classmethod
    def setUpClass(cls):
        cls.scratch = tempfile.mkdtemp(prefix="pipette-mnn-test-")
        try:
            onnx_folder = write_fake_model(os.path.join(cls.scratch, "onnx"))
            cls.folder = os.path.join(cls.scratch, "mnn")
            done = subprocess.run([sys.executable, "-B", "-m", "pipette_convert", "mnn",
                                   "--onnx", onnx_folder, "--out", cls.folder],
                                  env=dict(os.environ, PYTHONPATH=CONVERTER),
                                  capture_output=True, timeout=300, check=False)
            if done.returncode != 0:
                raise AssertionError("pipette_convert mnn failed: "
                                     + done.stderr.decode(errors="replace")[-2000:])
        except BaseException:
            shutil.rmtree(cls.scratch, ignore_errors=True)
            raise

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.scratch, ignore_errors=True)

    def make_worker(self):
        return worker_main.make_worker()

    def model_for(self):
        return self.folder

    def test_the_load_says_mnn_cpu_at_high_precision_and_counts_the_params(self):
        _, load = self.ready()
        self.assertEqual((load["backend"], load["precision"]), ("CPU", "high"))
        self.assertEqual(load["model"]["desc"], "llama 0M fp32 (mnn)")
        self.assertEqual(load["model"]["n_params"], 2 * 259 * 259 + 259)
        _, load = self.ready(threads=1)
        self.assertEqual(load["num_threads"], 1)

    def test_an_onnx_folder_is_refused_naming_the_format(self):
        calls = WorkerCalls(worker_main.make_worker())
        onnx_meta = os.path.join(self.scratch, "onnx", "pipette-model.json")
        error = calls.error("load_model", path=os.path.join(self.scratch, "onnx"))
        self.assertEqual(error, "%s: 'format' must be \"pipette-mnn/1\"" % onnx_meta)


if __name__ == "__main__":
    unittest.main()
