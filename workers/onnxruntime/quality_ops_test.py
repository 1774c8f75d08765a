"""score and chat on the fake model: the facts against a numpy log-softmax of its known
logits, the frames, the chat stops."""

import json
import struct
import unittest

import numpy as np

from pipette_decoder.fake_model_fixture import EOS, N_VOCAB, fake_logits
from testing_support import ready_worker

TOKENS = [10, 200, 3, 3, 77, 150, 9, 31, 250, 4, 18]


def reference(tokens):
    """Per position: log-softmax rows of the fake's logits (float64), straight from numpy."""
    logits = fake_logits(tokens)
    return logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))


class QualityOpsTest(unittest.TestCase):
    def setUp(self):
        self.calls, _ = ready_worker(self, n_ctx=32, n_batch=4)

    def test_score_facts_are_the_log_softmax_of_the_logits_at_any_batch(self):
        ref = reference(TOKENS)
        start = 3
        ids = [[0, TOKENS[p + 1], 258] for p in range(start, len(TOKENS) - 1)]
        for n_batch in (1, 3, 4):
            r = self.calls.ok("score", tokens=TOKENS, n_batch=n_batch, top_k=3, ids=ids,
                              **{"from": start})
            self.assertEqual((r["n_tokens"], r["from"]), (len(TOKENS), start))
            self.assertLessEqual(r["t_start_ns"], r["t_end_ns"])
            n = len(TOKENS) - 1 - start
            self.assertEqual(len(r["logprob"]), n)
            for k, p in enumerate(range(start, len(TOKENS) - 1)):
                row = ref[p]
                self.assertAlmostEqual(r["logprob"][k], row[TOKENS[p + 1]], places=5)
                self.assertEqual(r["argmax"][k], (TOKENS[p] + 1) % N_VOCAB)
                lse = np.log(np.exp(fake_logits(TOKENS)[p]).sum())
                self.assertAlmostEqual(r["logsumexp"][k], lse, places=5)
                best = np.argsort(-row, kind="stable")[:3]
                self.assertEqual(r["top_ids"][k], [int(i) for i in best])
                np.testing.assert_allclose(r["top_logprobs"][k], row[best], atol=1e-5)
                tail = np.log(np.exp(np.delete(row, best)).sum())
                self.assertAlmostEqual(r["top_tail_logprob"][k], tail, places=5)
                np.testing.assert_allclose(r["ids_logprob"][k], row[ids[k]], atol=1e-5)
                tail = np.log(np.exp(np.delete(row, ids[k])).sum())
                self.assertAlmostEqual(r["ids_tail_logprob"][k], tail, places=5)

    def test_score_with_logits_sends_one_frame_per_position_after_its_line(self):
        start = 2
        data = self.calls.raw({"op": "score", "tokens": TOKENS, "from": start, "logits": True})
        line, rest = data.split(b"\n", 1)
        head = json.loads(line)
        n = len(TOKENS) - 1 - start
        self.assertEqual((head["ok"], head["frames"], head["n_vocab"]), (True, n, N_VOCAB))
        logits = fake_logits(TOKENS)
        size = 24 + 4 * N_VOCAB
        self.assertEqual(len(rest), n * size)
        for k in range(n):
            frame = rest[k * size:(k + 1) * size]
            magic, position, count, reserved, _ = struct.unpack("<4siIIq", frame[:24])
            self.assertEqual((magic, position, count, reserved), (b"PLGT", start + k, N_VOCAB, 0))
            values = np.frombuffer(frame[24:], dtype="<f4")
            np.testing.assert_allclose(values, logits[start + k], atol=1e-5)
        self.assertIn("does not combine", self.calls.error("score", tokens=TOKENS, logits=True,
                                                           top_k=2))

    def test_chat_stops_at_an_end_of_generation_token_or_at_max_tokens(self):
        r = self.calls.ok("chat", prompt_tokens=[250, 251], max_tokens=10)
        # 252..255, then 256 (a special token, not end-of-generation), then 257 (eos) stops.
        self.assertEqual((r["tokens"], r["stop"]), ([252, 253, 254, 255, 256], "eog"))
        self.assertIsNone(r["template"])
        self.assertEqual(r["n_prompt_tokens"], 2)
        self.assertLessEqual(r["t_start_ns"], r["t_first_token_ns"])
        self.assertLessEqual(r["t_first_token_ns"], r["t_end_ns"])
        r = self.calls.ok("chat", prompt_tokens=[ord("a")], max_tokens=3)
        self.assertEqual((r["tokens"], r["text"], r["stop"]), ([98, 99, 100], "bcd", "max_tokens"))
        r = self.calls.ok("chat", prompt_tokens=[EOS - 1], max_tokens=3)  # eog at once
        self.assertEqual((r["tokens"], r["text"], r["stop"]), ([], "", "eog"))

    def test_chat_stops_once_the_text_holds_a_stop_sequence(self):
        r = self.calls.ok("chat", prompt_tokens=[ord("a")], max_tokens=10, stop=["x", "cd"])
        self.assertEqual((r["tokens"], r["text"], r["stop"]), ([98, 99, 100], "bcd", "stop"))
        r = self.calls.ok("chat", prompt_tokens=[ord("a")], max_tokens=2, stop=["cd"])
        self.assertEqual((r["text"], r["stop"]), ("bc", "max_tokens"))
        e = self.calls.error("chat", prompt_tokens=[ord("a")], max_tokens=2, stop=[""])
        self.assertIn("field 'stop' holds a sequence of 0 bytes; each is 1 to 256", e)
        e = self.calls.error("chat", prompt_tokens=[ord("a")], max_tokens=2, stop=[1])
        self.assertIn("field 'stop' must hold only strings, not an integer", e)
        e = self.calls.error("chat", prompt_tokens=[ord("a")], max_tokens=2, stop=["a"] * 17)
        self.assertIn("at most 16", e)

    def test_chat_takes_the_rendered_prompt_and_refuses_to_render_messages(self):
        r = self.calls.ok("chat", prompt="<|im_start|>hi", max_tokens=2)
        self.assertEqual((r["prompt"], r["n_prompt_tokens"]), ("<|im_start|>hi", 3))
        self.assertEqual(r["text"], "jk")
        e = self.calls.error("chat", messages=[{"role": "user", "content": "hi"}], max_tokens=2)
        self.assertIn("does not render chat templates", e)
        e = self.calls.error("chat", messages=[{"role": "user"}], max_tokens=2)
        self.assertEqual(e, "chat request: missing required field 'messages[0].content'")
        e = self.calls.error("chat", prompt="x", prompt_tokens=[1], max_tokens=2)
        self.assertIn("exactly one of", e)
        e = self.calls.error("chat", prompt_tokens=[1] * 30, max_tokens=3)
        self.assertIn("= 33 do not fit the context (n_ctx 32)", e)


if __name__ == "__main__":
    unittest.main()
