"""The fall-back report: nodes per provider, and the casts ONNX Runtime inserts (an fp16 graph
on the CPU provider), from the load reply."""

import glob
import os
import tempfile
import unittest

import worker as worker_main
from pipette_decoder.fake_model_fixture import WorkerCalls, fake_model_for
from fallback import nodes_by_provider, ops_on_other_providers
from ort_session import fallback_report_of


def optimized_scratch():
    return set(glob.glob(os.path.join(tempfile.gettempdir(), "pipette-ort-optimized-*")))


class FallbackTest(unittest.TestCase):
    def load(self, **options):
        calls = WorkerCalls(worker_main.make_worker())
        before = optimized_scratch()
        r = calls.ok("load_model", path=fake_model_for(self, **options))
        self.assertEqual(optimized_scratch() - before, set())  # the optimized copy is removed
        return calls, r

    def test_an_fp32_graph_runs_as_asked(self):
        _, r = self.load()
        self.assertEqual(r["execution_provider"], "CPUExecutionProvider")
        self.assertEqual(list(r["nodes_by_provider"]), ["CPUExecutionProvider"])
        self.assertGreater(r["nodes_by_provider"]["CPUExecutionProvider"], 0)
        self.assertEqual(r["fallback"], {"nodes_on_other_providers": 0, "other_provider_ops": {},
                                         "inserted_casts": 0, "inserted_cast_ops": {}})

    def test_an_fp16_graph_shows_the_casts_the_cpu_provider_inserts(self):
        calls, r = self.load(dtype="float16")
        fallback = r["fallback"]
        self.assertEqual(fallback["nodes_on_other_providers"], 0)
        self.assertGreater(fallback["inserted_casts"], 0)
        # The fake graph's fp16 MatMul has no CPU kernel: it runs in fp32 between casts.
        self.assertGreater(fallback["inserted_cast_ops"].get("MatMul", 0), 0)
        self.assertGreaterEqual(sum(fallback["inserted_cast_ops"].values()),
                                fallback["inserted_casts"])
        calls.ok("init_context", n_ctx=16)
        self.assertEqual(calls.ok("tg", first_token=5, n_gen=3)["tokens"], [6, 7, 8])

    def test_nodes_on_another_provider_are_counted_by_op_type(self):
        # A CPU-only build assigns every node to the CPU provider; an assignment as a build with
        # an accelerator gives it (ONNX Runtime's OrtEpAssignedSubgraph and OrtEpAssignedNode).
        class Node:
            def __init__(self, op_type):
                self.op_type = op_type

        class Subgraph:
            def __init__(self, ep_name, ops):
                self.ep_name, self._nodes = ep_name, [Node(op) for op in ops]

            def get_nodes(self):
                return self._nodes

        info = [Subgraph("XnnpackExecutionProvider", ["MatMul", "Add", "MatMul"]),
                Subgraph("CPUExecutionProvider", ["Gather", "Softmax"]),
                Subgraph("XnnpackExecutionProvider", ["MatMul"])]
        self.assertEqual(nodes_by_provider(info),
                         {"CPUExecutionProvider": 2, "XnnpackExecutionProvider": 4})
        self.assertEqual(ops_on_other_providers(info, "CPUExecutionProvider"),
                         {"Add": 1, "MatMul": 3})
        self.assertEqual(ops_on_other_providers(info, "XnnpackExecutionProvider"),
                         {"Gather": 1, "Softmax": 1})

    def test_a_report_that_cannot_be_made_says_why(self):
        report, why = fallback_report_of("/no/such/model.onnx", None, "all")
        self.assertIsNone(report)
        self.assertTrue(why.startswith("the fall-back report failed: "), why)
        self.assertIn("/no/such/model.onnx", why)

    def test_the_report_can_be_left_out(self):
        calls = WorkerCalls(worker_main.make_worker())
        r = calls.ok("load_model", path=fake_model_for(self), fallback_report=False)
        self.assertEqual(r["execution_provider"], "CPUExecutionProvider")
        self.assertNotIn("fallback", r)


if __name__ == "__main__":
    unittest.main()
