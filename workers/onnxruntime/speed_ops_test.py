"""pp, tg and ttft on the fake model: timestamps in order, counts, the KV cache."""

import unittest

import numpy as np

from pipette_decoder.fake_model_fixture import N_VOCAB
from testing_support import ready_worker


class SpeedOpsTest(unittest.TestCase):
    def setUp(self):
        self.calls, _ = ready_worker(self, n_ctx=32, n_batch=4)
        self.decoder = self.calls.worker.state.decoder

    def cached_ids(self):
        """The token ids the KV cache holds (the fake graph's keys are the ids)."""
        cache = self.decoder.cache()
        keys, values = cache[0], cache[1]
        for layer in cache:
            self.assertEqual(layer.shape[:2], (1, 1))
        np.testing.assert_array_equal(keys, -values)
        return [int(x) for x in keys[0, 0, :, 0]]

    def test_pp_decodes_in_batches_into_an_empty_cache(self):
        tokens = [5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
        r = self.calls.ok("pp", tokens=tokens)
        self.assertEqual(r["n_tokens"], 10)
        ends = r["batch_end_ns"]
        self.assertEqual(len(ends), 3)  # 4 + 4 + 2
        self.assertEqual(ends, sorted(ends))
        self.assertLessEqual(r["t_start_ns"], ends[0])
        self.assertLessEqual(ends[-1], r["t_end_ns"])
        self.assertEqual(self.cached_ids(), tokens)
        r = self.calls.ok("pp", tokens=[1, 2, 3], n_batch=2)  # the cache starts empty again
        self.assertEqual(len(r["batch_end_ns"]), 2)
        self.assertEqual(self.cached_ids(), [1, 2, 3])

    def test_tg_steps_one_token_at_a_time_growing_the_cache(self):
        r = self.calls.ok("tg", prompt=[1, 2, 3, 4, 5], first_token=40, n_gen=6)
        self.assertEqual(r["n_gen"], 6)
        self.assertEqual(r["tokens"], [41, 42, 43, 44, 45, 46])  # the fake's greedy walk
        ends = r["token_end_ns"]
        self.assertEqual(len(ends), 6)
        self.assertEqual(ends, sorted(ends))
        self.assertLessEqual(r["t_start_ns"], ends[0])
        # The prompt, then each decoded step: first_token and every sampled token but the last.
        self.assertEqual(self.cached_ids(), [1, 2, 3, 4, 5, 40, 41, 42, 43, 44, 45])
        r = self.calls.ok("tg", first_token=N_VOCAB - 1, n_gen=2)  # no prompt; ids wrap
        self.assertEqual(r["tokens"], [0, 1])
        self.assertEqual(self.cached_ids(), [N_VOCAB - 1, 0])

    def test_ttft_tokenizes_then_answers_the_first_token(self):
        r = self.calls.ok("ttft", text="abc")
        self.assertEqual(r["n_prompt_tokens"], 3)
        self.assertEqual(r["token"], ord("c") + 1)
        self.assertLessEqual(r["t_start_ns"], r["t_tokenized_ns"])
        self.assertLessEqual(r["t_tokenized_ns"], r["t_first_token_ns"])
        self.assertEqual(self.calls.ok("ttft", text="<|im_end|>", parse_special=True)["token"],
                         258)

    def test_requests_the_context_cannot_take_are_refused(self):
        e = self.calls.error("pp", tokens=[N_VOCAB])
        self.assertEqual(e, "'tokens' holds token id 259 at index 0, outside the vocabulary "
                            "[0, 259)")
        self.assertIn("exceeds the context's n_batch 4", self.calls.error("pp", tokens=[1],
                                                                          n_batch=5))
        self.assertEqual(self.calls.error("pp", tokens=[1] * 33),
                         "33 tokens do not fit the context (n_ctx 32)")
        # pp at a depth: the prefix takes its room in the context first.
        self.assertEqual(self.calls.error("pp", prefix=[1] * 30, tokens=[1] * 3),
                         "30 prefix tokens and 3 tokens do not fit the context (n_ctx 32)")
        self.assertIn("'prefix' holds token id 259", self.calls.error("pp", prefix=[N_VOCAB],
                                                                     tokens=[1]))
        self.assertEqual(self.calls.ok("pp", prefix=[1] * 20, tokens=[1] * 3)["n_tokens"], 3)
        self.assertIn("plus n_gen (30) do not fit", self.calls.error("tg", prompt=[1, 2, 3],
                                                                    first_token=1, n_gen=30))
        self.assertEqual(self.calls.error("pp", tokens=[]),
                         "pp request: 'tokens' is empty: nothing to process")
        self.assertEqual(self.calls.error("tg", first_token=1),
                         "tg request: missing required field 'n_gen'")
        self.assertIn("no position to score",
                      self.calls.error("score", tokens=[1, 2], **{"from": 1}))
        self.assertEqual(self.calls.error("ttft", text=""), "the text tokenizes to no tokens")


if __name__ == "__main__":
    unittest.main()
