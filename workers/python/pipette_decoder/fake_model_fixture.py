"""TEST FIXTURE: a fake converted-model folder with known logits, for the worker's unit tests.

It has the graph interface of a converted model (the design of issue 11, "The graph"): inputs
input_ids, position_ids, last_n and past_key_<i>/past_value_<i>; outputs logits (float32) and
present_key_<i>/present_value_<i> (past and new, concatenated). It is NOT a language model: its
logits after token t at position p are

    TRANSITION[t] + p * POSITION_SLOPE

so greedy decoding walks t -> t + 1 (mod n_vocab), and a test can compute every logit in numpy
(`fake_logits`). The new key of a token is its id (value: minus its id) in every cell, so the KV
cache's contents say which tokens it holds. The tokenizer is byte-level BPE over the 256 byte
symbols with no merges, plus three special tokens.
"""

import io
import json
import os
import shutil
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

N_LAYER = 2
N_HEAD_KV = 1
HEAD_DIM = 2
BOS, EOS, EOT = 256, 257, 258  # <|im_start|>, <|im_end|>, <|endoftext|>
SPECIALS = ["<|im_start|>", "<|im_end|>", "<|endoftext|>"]
N_VOCAB = 259
STEP_LOGIT = 5.0  # the logit of t + 1 after t; every other logit is in [-1, 1)


def _byte_symbols():
    """GPT-2's byte-to-unicode table (what the ByteLevel pre-tokenizer writes)."""
    keep = list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1)) + list(
        range(0xAE, 0xFF + 1))
    chars = list(keep)
    n = 0
    for b in range(256):
        if b not in keep:
            keep.append(b)
            chars.append(256 + n)
            n += 1
    return {b: chr(c) for b, c in zip(keep, chars)}


def fake_tables():
    """(TRANSITION [n_vocab, n_vocab], POSITION_SLOPE [n_vocab]) in float32, fixed by a seed."""
    rng = np.random.default_rng(11)
    transition = rng.uniform(-1.0, 1.0, (N_VOCAB, N_VOCAB)).astype(np.float32)
    for t in range(N_VOCAB):
        transition[t, (t + 1) % N_VOCAB] = STEP_LOGIT
    slope = rng.uniform(-1e-3, 1e-3, N_VOCAB).astype(np.float32)
    return transition, slope


def fake_logits(tokens, dtype="float32"):
    """The logits the fake graph gives after each of `tokens` at positions 0, 1, ... (float64
    of what the graph computes in float32; fp16 graphs round the tables first)."""
    transition, slope = fake_tables()
    if dtype == "float16":
        transition = transition.astype(np.float16).astype(np.float32)
        slope = slope.astype(np.float16).astype(np.float32)
    positions = np.arange(len(tokens), dtype=np.float32)[:, None]
    return (transition[np.asarray(tokens)] + positions * slope[None, :]).astype(np.float64)


def _graph(dtype):
    elem = TensorProto.FLOAT16 if dtype == "float16" else TensorProto.FLOAT
    np_dtype = np.float16 if dtype == "float16" else np.float32
    transition, slope = fake_tables()
    inits = [
        # The "embedding" is the identity and the "lm_head" the transition table, so the graph
        # has the Gather and the MatMul of a real one.
        numpy_helper.from_array(np.eye(N_VOCAB, dtype=np_dtype), "token_embd.weight"),
        numpy_helper.from_array(transition.astype(np_dtype), "output.weight"),
        numpy_helper.from_array(slope.astype(np_dtype), "position_slope"),
        numpy_helper.from_array(np.array([1], np.int64), "one"),
        numpy_helper.from_array(np.array([N_HEAD_KV], np.int64), "n_head_kv"),
        numpy_helper.from_array(np.array([HEAD_DIM], np.int64), "head_dim"),
        numpy_helper.from_array(np.array([1, 1, -1, 1], np.int64), "kv_column"),
        numpy_helper.from_array(np.array(-1, np_dtype), "minus_one"),
    ]
    n = helper.make_node
    nodes = [
        n("Gather", ["token_embd.weight", "input_ids"], ["hidden"]),
        n("MatMul", ["hidden", "output.weight"], ["step_logits"]),
        n("Cast", ["position_ids"], ["positions"], to=elem),
        n("Unsqueeze", ["positions", "minus_one_axis"], ["positions_col"]),
        n("Mul", ["positions_col", "position_slope"], ["position_logits"]),
        n("Add", ["step_logits", "position_logits"], ["all_logits"]),
        n("Shape", ["input_ids"], ["ids_shape"]),
        n("Slice", ["ids_shape", "one", "two"], ["seq_len"]),
        n("Sub", ["seq_len", "last_n"], ["first_kept"]),
        n("Slice", ["all_logits", "first_kept", "seq_len", "one"], ["kept_logits"]),
        n("Cast", ["kept_logits"], ["logits"], to=TensorProto.FLOAT),
        n("Cast", ["input_ids"], ["ids_float"], to=elem),
        n("Reshape", ["ids_float", "kv_column"], ["ids_col"]),
        n("Concat", ["one", "n_head_kv", "seq_len", "head_dim"], ["kv_shape"], axis=0),
        n("Expand", ["ids_col", "kv_shape"], ["new_key"]),
        n("Mul", ["new_key", "minus_one"], ["new_value"]),
    ]
    inits.append(numpy_helper.from_array(np.array([-1], np.int64), "minus_one_axis"))
    inits.append(numpy_helper.from_array(np.array([2], np.int64), "two"))
    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, "S"]),
        helper.make_tensor_value_info("position_ids", TensorProto.INT64, [1, "S"]),
        helper.make_tensor_value_info("last_n", TensorProto.INT64, [1]),
    ]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, "L", N_VOCAB])]
    for i in range(N_LAYER):
        for kind, new in (("key", "new_key"), ("value", "new_value")):
            past, present = "past_%s_%d" % (kind, i), "present_%s_%d" % (kind, i)
            inputs.append(helper.make_tensor_value_info(past, elem,
                                                        [1, N_HEAD_KV, "P", HEAD_DIM]))
            outputs.append(helper.make_tensor_value_info(present, elem,
                                                         [1, N_HEAD_KV, "T", HEAD_DIM]))
            nodes.append(n("Concat", [past, new], [present], axis=2))
    graph = helper.make_graph(nodes, "fake_llama", inputs, outputs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = 9
    onnx.checker.check_model(model)
    return model


def _tokenizer():
    symbols = _byte_symbols()
    vocab = {symbols[b]: b for b in range(256)}
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[], ignore_merges=False))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([AddedToken(s, special=True, normalized=False) for s in SPECIALS])
    return tok


def write_fake_model(folder, dtype="float32", add_bos=False, chat_template="{{ messages }}",
                     tied_embeddings=False):
    """Writes a fake converted-model folder (model.onnx + model.onnx.data, tokenizer.json,
    pipette-model.json) into `folder`, which must not exist. Returns the folder.
    `tied_embeddings` is only what the meta says (for the parameter count)."""
    os.makedirs(folder)
    onnx.save_model(_graph(dtype), os.path.join(folder, "model.onnx"),
                    save_as_external_data=True, all_tensors_to_one_file=True,
                    location="model.onnx.data", size_threshold=1024)
    _tokenizer().save(os.path.join(folder, "tokenizer.json"))
    meta = {
        "format": "pipette-onnx/1",
        "converter": {"name": "fake-model-fixture", "version": "0", "packages": {}},
        "source": {"path": "(test fixture)", "sha256": "0" * 64, "file_type": "F32",
                   "general_name": "Fake Fixture"},
        "variant": {"name": "fp16" if dtype == "float16" else "fp32", "dtype": dtype,
                    "calibration": None},
        "arch": "llama", "n_layer": N_LAYER, "n_head": N_HEAD_KV, "n_head_kv": N_HEAD_KV,
        "head_dim": HEAD_DIM, "n_embd": N_VOCAB, "n_vocab": N_VOCAB, "n_ctx_train": 64,
        "rope_freq_base": 10000.0, "rms_eps": 1e-5, "tied_embeddings": tied_embeddings,
        "bos": BOS, "eos": EOS, "eog": [EOS, EOT], "add_bos": add_bos, "add_eos": False,
        "chat_template": chat_template, "bos_text": SPECIALS[0], "eos_text": SPECIALS[1],
        "graph": {"opset": 18, "dtype": dtype, "kv_dtype": dtype, "inputs": [], "outputs": []},
        "files": {}, "seconds": 0.0,
    }
    with open(os.path.join(folder, "pipette-model.json"), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=1)
    return folder


def fake_model_for(test, **options):
    """A fake model folder in a temporary folder that `test` (a unittest.TestCase) removes when
    it ends, pass or fail."""
    scratch = tempfile.mkdtemp(prefix="pipette-ortw-test-")
    test.addCleanup(shutil.rmtree, scratch, True)
    return write_fake_model(os.path.join(scratch, "model"), **options)


class WorkerCalls:
    """The worker's handlers called in-process through its dispatch (the protocol's lines)."""

    def __init__(self, worker):
        self.worker = worker
        self._id = 0

    def raw(self, request):
        self._id += 1
        out = io.BytesIO()
        data, _ = self.worker.dispatch(json.dumps({"id": self._id, **request}), out)
        return out.getvalue() if data is None else data

    def call(self, op, **fields):
        return json.loads(self.raw({"op": op, **fields}).split(b"\n", 1)[0])

    def ok(self, op, **fields):
        reply = self.call(op, **fields)
        if not reply.get("ok"):
            raise AssertionError("%s refused: %s" % (op, reply.get("error")))
        return reply

    def error(self, op, **fields):
        reply = self.call(op, **fields)
        if reply.get("ok"):
            raise AssertionError("%s accepted: %s" % (op, reply))
        return reply["error"]
