"""The per-position facts of one row of logits."""

import math
import unittest

import numpy as np

from .logit_facts import argmax, log_sum_exp, tail_log_prob, top_k


class LogitFactsTest(unittest.TestCase):
    def test_ties_go_to_the_first_id(self):
        row = np.array([1.0, 3.0, 3.0, 2.0], np.float32)
        self.assertEqual(argmax(row), 1)
        lse = log_sum_exp(row)
        self.assertAlmostEqual(lse, math.log(sum(math.exp(v) for v in row)), places=12)
        self.assertEqual([i for i, _ in top_k(row, 3, lse)], [1, 2, 3])
        self.assertEqual(len(top_k(row, 10, lse)), 4)
        self.assertAlmostEqual(top_k(row, 1, lse)[0][1], 3.0 - lse, places=12)

    def test_top_k_is_a_full_sort_cut_to_k(self):
        rng = np.random.default_rng(3)
        row = rng.integers(0, 20, 500).astype(np.float32)  # many ties
        lse = log_sum_exp(row)
        expected = sorted(range(500), key=lambda i: (-row[i], i))
        for k in (0, 1, 7, 100, 500):
            self.assertEqual([i for i, _ in top_k(row, k, lse)], expected[:k])

    def test_the_tail_is_summed_directly_and_stays_finite(self):
        row = np.array([0.0, 0.0, -2000.0], np.float32)
        lse = log_sum_exp(row)
        self.assertAlmostEqual(tail_log_prob(row, [0], lse), math.log(0.5), places=12)
        self.assertEqual(tail_log_prob(row, [0, 1], lse), math.log(1e-300))
        self.assertAlmostEqual(tail_log_prob(row, [], lse), 0.0, places=12)


if __name__ == "__main__":
    unittest.main()
