"""The OpenVINO worker on the fake model: the checks every worker on pipette_decoder passes
(worker_checks.py) and the precision it ran at."""

import os
import unittest

import worker as worker_main
from pipette_decoder.fake_model_fixture import fake_model_for
from pipette_decoder.worker_checks import WorkerChecks

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "worker.py")


class OpenVinoWorkerTest(WorkerChecks, unittest.TestCase):
    RUNTIME = "openvino"
    PROGRAM = WORKER

    def make_worker(self):
        return worker_main.make_worker()

    def model_for(self):
        return fake_model_for(self)

    def test_the_load_says_it_ran_in_f32_on_the_cpu_plugin(self):
        _, load = self.ready()
        self.assertEqual((load["device"], load["inference_precision_asked"]), ("CPU", "f32"))
        self.assertEqual(load["inference_precision"], "f32")
        self.assertGreater(load["runtime_precisions"].get("f32", 0), 0)
        for low in ("bf16", "f16"):
            self.assertNotIn(low, load["runtime_precisions"])
        self.assertGreaterEqual(load["inference_num_threads"], 1)
        _, load = self.ready(threads=1)
        self.assertEqual(load["inference_num_threads"], 1)


if __name__ == "__main__":
    unittest.main()
