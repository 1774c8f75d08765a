"""TEST SUPPORT: the checks every runtime worker on this module passes on the fake model
(fake_model_fixture.py), as a mixin: a worker's test class is

    class MyWorkerTest(WorkerChecks, unittest.TestCase):
        RUNTIME = "openvino"
        PROGRAM = ".../worker.py"         # the worker's program
        def make_worker(self): ...        # the worker (its make_worker())
        def model_for(self): ...          # a fake model folder it loads, removed after the test

The facts are checked against numpy's log-softmax of the fake's known logits, with the KV
cache grown over several runs (dynamic S and P, P = 0 first)."""

import json
import subprocess
import sys

import numpy as np

from .fake_model_fixture import N_VOCAB, WorkerCalls, fake_logits

TOKENS = [10, 200, 3, 3, 77, 150, 9, 31, 250, 4, 18]


class WorkerChecks:
    RUNTIME = None
    PROGRAM = None
    LOGPROB_PLACES = 4

    def ready(self, n_ctx=32, n_batch=4, **load):
        calls = WorkerCalls(self.make_worker())
        folder = self.model_for()
        load_reply = calls.ok("load_model", path=folder, **load)
        calls.ok("init_context", n_ctx=n_ctx, n_batch=n_batch)
        return calls, load_reply

    def test_hello_names_the_runtime_and_leaves_out_quantize(self):
        hello = WorkerCalls(self.make_worker()).ok("hello")
        self.assertEqual(hello["runtime"], self.RUNTIME)
        self.assertNotIn("quantize", hello["ops"])
        self.assertIn("score", hello["ops"])

    def test_score_is_the_log_softmax_of_the_logits_at_any_batch(self):
        calls, _ = self.ready()
        logits = fake_logits(TOKENS)
        ref = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
        for n_batch in (1, 3, 4):
            r = calls.ok("score", tokens=TOKENS, n_batch=n_batch, **{"from": 2})
            for k, p in enumerate(range(2, len(TOKENS) - 1)):
                self.assertAlmostEqual(r["logprob"][k], ref[p][TOKENS[p + 1]],
                                       places=self.LOGPROB_PLACES)
                self.assertEqual(r["argmax"][k], (TOKENS[p] + 1) % N_VOCAB)

    def test_tg_walks_the_fake_after_a_prompt_in_batches(self):
        calls, _ = self.ready(n_batch=2)
        r = calls.ok("tg", prompt=[5, 6, 7], first_token=100, n_gen=4)
        self.assertEqual(r["tokens"], [101, 102, 103, 104])
        self.assertEqual(len(r["token_end_ns"]), 4)
        r = calls.ok("pp", tokens=TOKENS)
        self.assertEqual(len(r["batch_end_ns"]), 6)

    def test_e2e_chooses_the_first_token_from_the_prompt_then_walks_the_fake(self):
        calls, _ = self.ready(n_batch=2)
        r = calls.ok("e2e", prompt=[5, 6, 7], n_gen=4)
        # The fake's next token is the last one plus one: 7 -> 8, then 9, 10, 11.
        self.assertEqual(r["tokens"], [8, 9, 10, 11])
        self.assertEqual((r["n_prompt"], r["n_gen"]), (3, 4))
        self.assertLessEqual(r["t_start_ns"], r["token_end_ns"][0])
        self.assertEqual(r["token_end_ns"], sorted(r["token_end_ns"]))
        calls.error("e2e", prompt=[], n_gen=2)

    def test_init_context_with_other_threads_makes_the_session_again(self):
        calls, load = self.ready()
        self.assertIsNone(load["threads"])
        r = calls.ok("init_context", n_ctx=16, threads=1)
        self.assertEqual((r["threads"], r["session_recreated"]), (1, True))
        r = calls.ok("score", tokens=TOKENS[:4])
        self.assertEqual(r["argmax"], [(t + 1) % N_VOCAB for t in TOKENS[:3]])

    def test_a_folder_of_another_format_is_refused_naming_the_file(self):
        calls = WorkerCalls(self.make_worker())
        error = calls.error("load_model", path="/nonexistent/model")
        self.assertEqual(error, "model '/nonexistent/model' does not exist")

    def test_a_session_over_the_pipes(self):
        requests = [
            {"id": 1, "op": "hello"},
            {"id": 2, "op": "load_model", "path": self.model_for()},
            {"id": 3, "op": "init_context", "n_ctx": 16, "n_batch": 2},
            {"id": 4, "op": "pp", "tokens": [1, 2, 3]},
            {"id": 5, "op": "shutdown"},
        ]
        stdin = "".join(json.dumps(r) + "\n" for r in requests)
        done = subprocess.run([sys.executable, "-B", self.PROGRAM], input=stdin.encode(),
                              capture_output=True, timeout=120, check=False)
        self.assertEqual(done.returncode, 0, done.stderr.decode(errors="replace"))
        replies = [json.loads(line) for line in done.stdout.splitlines()]  # protocol lines only
        self.assertEqual([r["ok"] for r in replies], [True] * 5)
        self.assertEqual(replies[0]["runtime"], self.RUNTIME)
        self.assertEqual(len(replies[3]["batch_end_ns"]), 2)
