"""load_model, init_context, tokenize and detokenize on the fake model."""

import os
import unittest

import worker as worker_main
from pipette_decoder.fake_model_fixture import (BOS, N_LAYER, N_VOCAB, WorkerCalls,
                                               fake_model_for)


class NoReportCalls(WorkerCalls):
    """load_model without the fall-back report (fallback_test.py tests it)."""

    def call(self, op, **fields):
        if op == "load_model":
            fields.setdefault("fallback_report", False)
        return super().call(op, **fields)


class ModelOpsTest(unittest.TestCase):
    def setUp(self):
        self.calls = NoReportCalls(worker_main.make_worker())
        self.state = self.calls.worker.state

    def test_load_model_answers_the_models_facts_from_the_folder_or_its_model_onnx(self):
        folder = fake_model_for(self)
        for path in (folder, os.path.join(folder, "model.onnx")):
            r = self.calls.ok("load_model", path=path)
            self.assertLessEqual(r["t_start_ns"], r["t_end_ns"])
            model = r["model"]
            self.assertEqual((model["n_vocab"], model["n_layer"], model["bos"], model["eos"]),
                             (N_VOCAB, N_LAYER, BOS, 257))
            self.assertEqual(model["desc"], "llama 0M fp32 (onnx)")
            self.assertEqual(model["n_params"], 2 * N_VOCAB * N_VOCAB + N_VOCAB)
            self.assertEqual(r["threads"], None)  # ONNX Runtime's default
            sizes = sum(os.path.getsize(os.path.join(folder, n)) for n in os.listdir(folder))
            self.assertEqual(model["size_bytes"], sizes)
            self.assertEqual(model["meta"]["variant.name"], "fp32")
            self.assertEqual(model["meta"]["eog"], "[257,258]")
            self.assertEqual((r["chat_template"], r["bos_text"], r["eos_text"]),
                             ("{{ messages }}", "<|im_start|>", "<|im_end|>"))
            self.assertFalse(r["add_eos"])
            self.assertEqual(r["execution_provider"], "CPUExecutionProvider")

    def test_tied_embeddings_count_once(self):
        folder = fake_model_for(self, tied_embeddings=True)  # the fake's two tables, one tied
        model = self.calls.ok("load_model", path=folder)["model"]
        self.assertEqual(model["n_params"], N_VOCAB * N_VOCAB + N_VOCAB)

    def test_a_path_that_is_no_model_is_refused_and_the_loaded_model_stays(self):
        folder = fake_model_for(self)
        self.calls.ok("load_model", path=folder)
        e = self.calls.error("load_model", path=folder + ".no-such-model")
        self.assertEqual(e, "model '%s.no-such-model' does not exist" % folder)
        e = self.calls.error("load_model", path=os.path.join(folder, "tokenizer.json"))
        self.assertIn("is neither a converted model folder nor its model.onnx", e)
        self.assertEqual(self.calls.error("load_model", path=folder, graph_optimization="max"),
                         "load_model request: field 'graph_optimization' must be one of "
                         "disable, basic, extended, all, got 'max'")
        self.calls.ok("tokenize", text="still loaded")
        os.remove(os.path.join(folder, "pipette-model.json"))
        self.assertIn("pipette-model.json", self.calls.error("load_model", path=folder))

    def test_init_context_clamps_the_batch_to_the_context_and_0_is_the_training_context(self):
        self.assertEqual(self.calls.error("init_context", n_ctx=8), "no model loaded")
        self.calls.ok("load_model", path=fake_model_for(self))
        r = self.calls.ok("init_context", n_ctx=16, n_batch=100)
        self.assertEqual((r["n_ctx"], r["n_batch"]), (16, 16))
        r = self.calls.ok("init_context", n_ctx=0)
        self.assertEqual((r["n_ctx"], r["n_batch"]), (64, 64))  # n_ctx_train; 512 clamped
        r = self.calls.ok("init_context", n_ctx=1000)
        self.assertEqual((r["n_ctx"], r["n_batch"]), (1000, 512))
        self.assertEqual(self.calls.error("init_context", n_ctx="big"),
                         "init_context request: field 'n_ctx' must be an integer, got a string")

    def test_other_threads_make_the_session_again_with_them(self):
        self.calls.ok("load_model", path=fake_model_for(self), threads=2)
        first = self.state.session
        self.assertEqual(first.get_session_options().intra_op_num_threads, 2)
        r = self.calls.ok("init_context", n_ctx=16, threads=2)
        self.assertEqual((r["threads"], r["session_recreated"]), (2, False))
        self.assertIs(self.state.session, first)
        r = self.calls.ok("init_context", n_ctx=16, threads=1)
        self.assertEqual((r["threads"], r["session_recreated"]), (1, True))
        self.assertIsNot(self.state.session, first)
        self.assertEqual(self.state.session.get_session_options().intra_op_num_threads, 1)
        self.assertEqual(self.calls.ok("tg", first_token=1, n_gen=2)["tokens"], [2, 3])

    def test_tokenize_adds_bos_where_the_model_says_and_parses_specials_when_asked(self):
        self.calls.ok("load_model", path=fake_model_for(self, add_bos=True))
        text = "a<|im_end|>"
        self.assertEqual(self.calls.ok("tokenize", text=text, parse_special=True)["tokens"],
                         [BOS, 97, 257])
        self.assertEqual(self.calls.ok("tokenize", text=text, add_special=False)["tokens"],
                         [97] + [ord(c) for c in "<|im_end|>"])
        detok = lambda **kw: self.calls.ok("detokenize", tokens=[BOS, 97, 257], **kw)["text"]
        self.assertEqual(detok(), "a")
        self.assertEqual(detok(unparse_special=True), "<|im_start|>a<|im_end|>")
        self.assertEqual(detok(unparse_special=True, remove_special=True), "a<|im_end|>")
        self.assertEqual(self.calls.ok("detokenize", tokens=[0xC3])["text"], "\ufffd")
        self.assertIn("outside the vocabulary", self.calls.error("detokenize", tokens=[N_VOCAB]))


if __name__ == "__main__":
    unittest.main()
