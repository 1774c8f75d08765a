"""Test helpers (used by the *_test.py files only): a tiny synthetic llama GGUF, a plain numpy
forward pass of it, the CLI run in a subprocess, and running a converted folder in ORT.
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

CONVERTER_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_ROOT = os.path.dirname(os.path.dirname(CONVERTER_ROOT))
REAL_MODEL = os.path.join(REPO_ROOT, "models", "SmolLM2-135M-Instruct.Q4_1.gguf")

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]


def byte_chars():
    """GPT-2's bytes_to_unicode: the 256 printable characters byte-level BPE uses for bytes."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + \
        list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for _, c in sorted(zip(bs, cs))]


def tiny_vocab():
    merges = ["Ġ t", "h e", "Ġt he", "i n", "Ġ a"]
    tokens = SPECIAL + byte_chars() + [m.replace(" ", "") for m in merges]
    types = [3] * len(SPECIAL) + [1] * (len(tokens) - len(SPECIAL))
    return tokens, types, merges


class TinyLlama:
    """Random weights of a 2-layer llama with n_head != n_head_kv, in llama.cpp's layout."""

    def __init__(self, seed=0, tied=True, n_layer=2, n_embd=32, n_head=4, n_head_kv=2, n_ff=48,
                 rope_base=10000.0, eps=1e-5):
        self.tokens, self.types, self.merges = tiny_vocab()
        self.n_vocab = len(self.tokens)
        self.n_layer, self.n_embd, self.n_head, self.n_head_kv = n_layer, n_embd, n_head, n_head_kv
        self.n_ff, self.rope_base, self.eps, self.tied = n_ff, rope_base, eps, tied
        self.head_dim = n_embd // n_head
        rng = np.random.default_rng(seed)
        kv = n_head_kv * self.head_dim

        def mat(out, inp, scale=0.3):
            return (rng.standard_normal((out, inp)) * scale / np.sqrt(inp)).astype(np.float32)

        def norm(n):
            return (1.0 + 0.1 * rng.standard_normal(n)).astype(np.float32)

        self.w = {"token_embd.weight": (rng.standard_normal((self.n_vocab, n_embd)) * 0.5).astype(np.float32),
                  "output_norm.weight": norm(n_embd)}
        if not tied:
            self.w["output.weight"] = mat(self.n_vocab, n_embd, 3.0)
        for i in range(n_layer):
            b = f"blk.{i}"
            self.w.update({f"{b}.attn_norm.weight": norm(n_embd), f"{b}.ffn_norm.weight": norm(n_embd),
                           f"{b}.attn_q.weight": mat(n_embd, n_embd, 2.0), f"{b}.attn_k.weight": mat(kv, n_embd, 2.0),
                           f"{b}.attn_v.weight": mat(kv, n_embd, 1.0), f"{b}.attn_output.weight": mat(n_embd, n_embd),
                           f"{b}.ffn_gate.weight": mat(n_ff, n_embd, 1.0), f"{b}.ffn_up.weight": mat(n_ff, n_embd, 1.0),
                           f"{b}.ffn_down.weight": mat(n_embd, n_ff)})

    def write_gguf(self, path, arch="llama"):
        import gguf

        w = gguf.GGUFWriter(path, arch)
        w.add_name("tiny llama")
        w.add_block_count(self.n_layer)
        w.add_context_length(128)
        w.add_embedding_length(self.n_embd)
        w.add_feed_forward_length(self.n_ff)
        w.add_head_count(self.n_head)
        w.add_head_count_kv(self.n_head_kv)
        w.add_rope_freq_base(self.rope_base)
        w.add_rope_dimension_count(self.head_dim)
        w.add_layer_norm_rms_eps(self.eps)
        w.add_file_type(gguf.LlamaFileType.ALL_F32)
        w.add_tokenizer_model("gpt2")
        w.add_tokenizer_pre("smollm")
        w.add_token_list(self.tokens)
        w.add_token_types(self.types)
        w.add_token_merges(self.merges)
        w.add_bos_token_id(1)
        w.add_eos_token_id(2)
        w.add_add_bos_token(False)
        w.add_chat_template("{% for m in messages %}<|im_start|>{{ m['content'] }}<|im_end|>{% endfor %}")
        for name, a in self.w.items():
            w.add_tensor(name, a)
        w.write_header_to_file()
        w.write_kv_data_to_file()
        w.write_tensors_to_file()
        w.close()

    def forward(self, ids):
        """Logits [S, n_vocab] of token ids at positions 0..S-1, in float64 numpy."""
        w = {k: v.astype(np.float64) for k, v in self.w.items()}
        s, d, h, hkv = len(ids), self.head_dim, self.n_head, self.n_head_kv
        pos = np.arange(s, dtype=np.float64)

        def rms(x, g):
            return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + self.eps) * g

        def rope(x):  # x [S, heads, D]; llama.cpp's normal rope: adjacent pairs (2i, 2i+1)
            i = np.arange(d // 2, dtype=np.float64)
            theta = pos[:, None] * self.rope_base ** (-2.0 * i / d)  # [S, D/2]
            c, sn = np.cos(theta)[:, None, :], np.sin(theta)[:, None, :]
            x0, x1 = x[..., 0::2], x[..., 1::2]
            out = np.empty_like(x)
            out[..., 0::2] = x0 * c - x1 * sn
            out[..., 1::2] = x0 * sn + x1 * c
            return out

        x = w["token_embd.weight"][np.asarray(ids)]
        causal = np.tril(np.ones((s, s), dtype=bool))
        for li in range(self.n_layer):
            b = f"blk.{li}"
            a = rms(x, w[f"{b}.attn_norm.weight"])
            q = rope((a @ w[f"{b}.attn_q.weight"].T).reshape(s, h, d))
            k = rope((a @ w[f"{b}.attn_k.weight"].T).reshape(s, hkv, d))
            v = (a @ w[f"{b}.attn_v.weight"].T).reshape(s, hkv, d)
            out = np.empty((s, h, d))
            for hh in range(h):
                kk, vv = k[:, hh // (h // hkv)], v[:, hh // (h // hkv)]
                sc = q[:, hh] @ kk.T / np.sqrt(d)
                sc = np.where(causal, sc, -np.inf)
                p = np.exp(sc - sc.max(axis=-1, keepdims=True))
                p /= p.sum(axis=-1, keepdims=True)
                out[:, hh] = p @ vv
            x = x + out.reshape(s, h * d) @ w[f"{b}.attn_output.weight"].T
            f = rms(x, w[f"{b}.ffn_norm.weight"])
            gate = f @ w[f"{b}.ffn_gate.weight"].T
            up = f @ w[f"{b}.ffn_up.weight"].T
            x = x + (gate / (1.0 + np.exp(-gate)) * up) @ w[f"{b}.ffn_down.weight"].T
        x = rms(x, w["output_norm.weight"])
        head = w["token_embd.weight"] if self.tied else w["output.weight"]
        return x @ head.T


def encode(tok, text, parse_special=True):
    """Token ids of `text` without BOS/EOS; parse_special=False reads control tokens as text."""
    tok.encode_special_tokens = not parse_special
    try:
        return tok.encode(text, add_special_tokens=False).ids
    finally:
        tok.encode_special_tokens = False


def run_cli(*args):
    """Runs `python -B -m pipette_convert ARGS`; returns (exit code, stdout, stderr)."""
    env = dict(os.environ, PYTHONPATH=CONVERTER_ROOT)
    p = subprocess.run([sys.executable, "-B", "-m", "pipette_convert", *args], capture_output=True,
                       text=True, env=env, check=False)
    return p.returncode, p.stdout, p.stderr


def convert_ok(test, *args):
    """Runs the CLI, asserts exit 0 and one JSON line with ok: true; returns that object."""
    rc, out, err = run_cli(*args)
    test.assertEqual(rc, 0, err)
    lines = out.strip().splitlines()
    test.assertEqual(len(lines), 1, out)
    reply = json.loads(lines[0])
    test.assertTrue(reply["ok"])
    return reply


def tiny_fp32(folder, ids):
    """The fp32 conversion of a 64-wide synthetic llama in folder/fp32, and its logits for ids
    (the reference of the quantized variants' tests)."""
    gguf_path = os.path.join(folder, "tiny.gguf")
    TinyLlama(seed=7, n_embd=64, n_head=4, n_head_kv=2, n_ff=96).write_gguf(gguf_path)
    out = os.path.join(folder, "fp32")
    convert_ok(unittest.TestCase(), "gguf", "--gguf", gguf_path, "--out", out)
    logits, _ = OrtModel(out).run(ids)
    return out, logits


class TinyFp32Case(unittest.TestCase):
    """Tests on one fp32 conversion of the synthetic llama for the class: `fp32` (the folder),
    `want` (its logits for the class's IDS), `tmp` (a temporary folder removed after)."""

    IDS = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        try:
            cls.fp32, cls.want = tiny_fp32(cls.tmp.name, cls.IDS)
        except BaseException:
            cls.tmp.cleanup()
            raise

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()


class OrtModel:
    """A converted folder in an ORT InferenceSession, fed through the graph's KV interface."""

    def __init__(self, folder):
        from .ort_import import import_onnxruntime

        ort = import_onnxruntime()

        with open(os.path.join(folder, "pipette-model.json"), encoding="utf-8") as f:
            self.meta = json.load(f)
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        self.session = ort.InferenceSession(os.path.join(folder, "model.onnx"), so,
                                            providers=["CPUExecutionProvider"])
        self.names = [o.name for o in self.session.get_outputs()]
        kv_dtype = np.float16 if self.meta["graph"]["kv_dtype"] == "float16" else np.float32
        m = self.meta
        empty = np.zeros((1, m["n_head_kv"], 0, m["head_dim"]), dtype=kv_dtype)
        self.empty = {f"past_{kind}_{i}": empty for i in range(m["n_layer"]) for kind in ("key", "value")}

    def run(self, ids, past=None, past_len=0, last_n=None):
        """(logits [last_n, n_vocab], present KV as the next call's past)."""
        feed = {"input_ids": np.asarray([ids], dtype=np.int64),
                "position_ids": (past_len + np.arange(len(ids), dtype=np.int64))[None, :],
                "last_n": np.asarray([len(ids) if last_n is None else last_n], dtype=np.int64)}
        feed.update(past if past is not None else self.empty)
        out = dict(zip(self.names, self.session.run(None, feed)))
        present = {k.replace("present_", "past_"): v for k, v in out.items() if k.startswith("present_")}
        return out["logits"][0], present
