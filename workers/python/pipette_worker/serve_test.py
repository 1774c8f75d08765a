"""The loop: envelope errors, handlers, frames, shutdown; the same answers as the C++ side."""

import io
import json
import os
import unittest
from unittest import mock

from pipette_worker import RequestError, Worker


def make():
    w = Worker(runtime="test-runtime", runtime_version="1.0", runtime_build={"built": "today"})

    @w.handler("tokenize")
    def tokenize(request):
        if "text" not in request:
            raise RequestError("tokenize request: missing required field 'text'")
        return {"tokens": [1, 2]}

    @w.handler("pp")
    def pp(request):
        raise ValueError("a bug")

    @w.handler("score", frames=True)
    def score(request, frames):
        if frames is None:
            raise RequestError("this channel cannot carry frames")
        frames.line({"frames": 2, "n_vocab": 1})
        frames.logits(0, 5, [1.0])
        raise RequestError("llama_decode returned 1")

    return w


def answer(w, line):
    data, _ = w.dispatch(line)
    return json.loads(data)


class ServeTest(unittest.TestCase):
    def test_hello_names_the_runtime_and_the_ops(self):
        hello = answer(make(), '{"id":1,"op":"hello"}')
        self.assertEqual(hello["protocol"], 1)
        self.assertEqual(hello["runtime"], "test-runtime")
        self.assertEqual(hello["runtime_build"], {"built": "today"})
        self.assertEqual(hello["ops"],
                         ["hello", "reset_peak_memory", "memory", "tokenize", "pp", "score",
                          "shutdown"])

    def test_envelope_problems(self):
        w = make()
        self.assertEqual(answer(w, "not json"),
                         {"id": None, "ok": False, "error": "request is not valid JSON"})
        self.assertEqual(answer(w, "[1]")["error"], "request is not a JSON object")
        self.assertEqual(answer(w, '{"id":true,"op":"memory"}')["error"],
                         "request has no integer 'id'")
        self.assertEqual(answer(w, '{"id":4}'),
                         {"id": 4, "ok": False, "error": "request has no string 'op'"})
        self.assertEqual(answer(w, '{"id":5,"op":"frobnicate"}')["error"],
                         "unknown op 'frobnicate'")

    def test_handlers_errors_and_bugs_are_ok_false(self):
        w = make()
        self.assertEqual(answer(w, '{"id":7,"op":"tokenize","text":"a"}'),
                         {"id": 7, "ok": True, "tokens": [1, 2]})
        self.assertEqual(answer(w, '{"id":8,"op":"tokenize"}')["error"],
                         "tokenize request: missing required field 'text'")
        self.assertEqual(answer(w, '{"id":9,"op":"pp"}')["error"],
                         "the handler threw ValueError: a bug")
        memory = answer(w, '{"id":10,"op":"memory"}')
        self.assertGreater(memory["rss"], 0)

    def test_the_test_op_is_served_only_with_its_variable_and_never_listed(self):
        with mock.patch.dict(os.environ, {"PIPETTE_WORKER_TEST_OPS": ""}):
            plain = make()
        self.assertEqual(answer(plain, '{"id":1,"op":"test_throw"}')["error"],
                         "unknown op 'test_throw'")
        with mock.patch.dict(os.environ, {"PIPETTE_WORKER_TEST_OPS": "1"}):
            testing = make()
        thrown = answer(testing, '{"id":2,"op":"test_throw"}')
        self.assertFalse(thrown["ok"])
        self.assertEqual(thrown["error"],
                         "the handler threw RuntimeError: thrown on purpose by the test op "
                         "test_throw")
        self.assertEqual(answer(testing, '{"id":3,"op":"hello"}')["ops"],
                         answer(plain, '{"id":3,"op":"hello"}')["ops"])

    def test_a_failure_after_the_frames_began_is_an_abort_frame(self):
        w = make()
        self.assertEqual(answer(w, '{"id":1,"op":"score"}')["error"],
                         "this channel cannot carry frames")
        out = io.BytesIO()
        data, shutdown = w.dispatch('{"id":2,"op":"score"}', out)
        self.assertIsNone(data)
        self.assertFalse(shutdown)
        written = out.getvalue()
        line, rest = written.split(b"\n", 1)
        self.assertEqual(json.loads(line)["frames"], 2)
        self.assertEqual(rest[:4], b"PLGT")
        self.assertEqual(rest[28:32], b"PLGX")
        self.assertTrue(rest.endswith(b"llama_decode returned 1"))

    def test_serve_answers_until_shutdown(self):
        w = make()
        stdin = io.BytesIO(b'{"id":1,"op":"memory"}\r\n{"id":2,"op":"shutdown"}\n'
                           b'{"id":3,"op":"memory"}\n')
        out = io.BytesIO()
        self.assertEqual(w.serve(stdin, out), 0)
        lines = [json.loads(x) for x in out.getvalue().splitlines()]
        self.assertEqual([x["id"] for x in lines], [1, 2])
        self.assertEqual(lines[1], {"id": 2, "ok": True})


if __name__ == "__main__":
    unittest.main()
