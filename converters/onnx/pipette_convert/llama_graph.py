"""The llama decoder as a standard ONNX graph (opset 18, batch 1, KV cache as inputs/outputs).

Inputs: input_ids int64 [1,S], position_ids int64 [1,S], last_n int64 [1], past_key_<i> and
past_value_<i> [1, n_head_kv, P, head_dim]. Outputs: logits float32 [1, last_n, n_vocab] and
present_key_<i>, present_value_<i> [1, n_head_kv, P+S, head_dim].

The GGUF's Q/K rows are laid out for llama.cpp's "normal" rope, which rotates ADJACENT pairs
(x[2i], x[2i+1]) by theta_i = p * base^(-2i/head_dim); this graph does the same (rotating the
two halves instead would be silently wrong on these weights). Query head h reads KV head
h // (n_head / n_head_kv), as llama.cpp's broadcast does.
"""

import time

import numpy as np

from .graph_builder import FLOAT, FLOAT16, INT64, GraphBuilder, value_info

OPSET = 18
# IR version 8 is the lowest that carries opset 18; older readers (OpenVINO, MNN) accept it.
IR_VERSION = 8

_DTYPES = {"float32": (np.float32, FLOAT), "float16": (np.float16, FLOAT16)}


def rope_inv_freq(head_dim, base):
    """theta_scale^i for i < head_dim/2, as llama.cpp's rope cache makes it (float32 products)."""
    scale = np.float32(base) ** np.float32(-2.0 / head_dim)
    out = np.empty(head_dim // 2, dtype=np.float32)
    t = np.float32(1.0)
    for i in range(head_dim // 2):
        out[i] = t
        t = np.float32(t * scale)
    return out


def io_names(n_layer):
    inputs = ["input_ids", "position_ids", "last_n"]
    outputs = ["logits"]
    for i in range(n_layer):
        inputs += [f"past_key_{i}", f"past_value_{i}"]
        outputs += [f"present_key_{i}", f"present_value_{i}"]
    return inputs, outputs


class _Llama:
    def __init__(self, spec, weight, writer, dtype, progress):
        self.s = spec
        self.weight = weight
        self.writer = writer
        self.np_dtype, self.onnx_dtype = _DTYPES[dtype]
        self.g = GraphBuilder()
        self.progress = progress

    def w(self, gguf_name, transpose=False, onnx_name=None):
        """An initializer from the GGUF tensor (a linear's [out,in] transposed to [in,out])."""
        a = self.weight(gguf_name)
        if transpose:
            a = a.T
        return self.g.add_initializer(self.writer.tensor(onnx_name or gguf_name, a.astype(self.np_dtype)))

    def c(self, value):
        return self.g.const(value, self.np_dtype)

    def rms_norm(self, x, weight_name, hint):
        g = self.g
        sq = g.op("Mul", [x, x], f"{hint}.sq")
        mean = g.op("ReduceMean", [sq, g.i64([-1])], f"{hint}.mean", keepdims=1)
        var = g.op("Add", [mean, self.c(self.s.rms_eps)], f"{hint}.add_eps")
        inv = g.op("Reciprocal", [g.op("Sqrt", [var], f"{hint}.sqrt")], f"{hint}.inv")
        y = g.op("Mul", [x, inv], f"{hint}.scale")
        return g.op("Mul", [y, self.w(weight_name)], f"{hint}.mul_w")

    def rope(self, x, cos, sin, hint):
        """Adjacent-pair rotation of x [1, heads, S, head_dim]."""
        g = self.g
        d = self.s.head_dim
        pairs = g.op("Reshape", [x, g.i64([0, 0, 0, d // 2, 2])], f"{hint}.pairs")
        x0, x1 = g.op("Split", [pairs], f"{hint}.split", n_out=2, axis=-1, num_outputs=2)
        r0 = g.op("Sub", [g.op("Mul", [x0, cos], f"{hint}.x0c"), g.op("Mul", [x1, sin], f"{hint}.x1s")],
                  f"{hint}.r0")
        r1 = g.op("Add", [g.op("Mul", [x0, sin], f"{hint}.x0s"), g.op("Mul", [x1, cos], f"{hint}.x1c")],
                  f"{hint}.r1")
        both = g.op("Concat", [r0, r1], f"{hint}.concat", axis=-1)
        return g.op("Reshape", [both, g.i64([0, 0, 0, d])], f"{hint}.out")

    def heads(self, x, n, hint):
        """[1,S,n*head_dim] -> [1,n,S,head_dim]."""
        g = self.g
        r = g.op("Reshape", [x, g.i64([0, 0, n, self.s.head_dim])], f"{hint}.heads")
        return g.op("Transpose", [r], f"{hint}.bhsd", perm=[0, 2, 1, 3])

    def layer(self, i, x, cos, sin, mask):
        g, s = self.g, self.s
        b = f"blk.{i}"
        h = self.rms_norm(x, f"{b}.attn_norm.weight", f"{b}.attn_norm")
        q = g.op("MatMul", [h, self.w(f"{b}.attn_q.weight", True)], f"{b}.attn_q")
        k = g.op("MatMul", [h, self.w(f"{b}.attn_k.weight", True)], f"{b}.attn_k")
        v = g.op("MatMul", [h, self.w(f"{b}.attn_v.weight", True)], f"{b}.attn_v")
        q = self.rope(self.heads(q, s.n_head, f"{b}.q"), cos, sin, f"{b}.q_rope")
        k = self.rope(self.heads(k, s.n_head_kv, f"{b}.k"), cos, sin, f"{b}.k_rope")
        v = self.heads(v, s.n_head_kv, f"{b}.v")
        kc = g.op("Concat", [f"past_key_{i}", k], f"{b}.k_cache", outputs=[f"present_key_{i}"], axis=2)
        vc = g.op("Concat", [f"past_value_{i}", v], f"{b}.v_cache", outputs=[f"present_value_{i}"], axis=2)
        # Grouped-query attention without copying the cache: the query heads of one KV head are
        # contiguous (h = j*group + r), so [1,H,S,D] reshapes to [1,Hkv,group*S,D].
        d = s.head_dim
        qg = g.op("Reshape", [q, g.i64([1, s.n_head_kv, -1, d])], f"{b}.q_group")
        kt = g.op("Transpose", [kc], f"{b}.k_t", perm=[0, 1, 3, 2])
        scores = g.op("MatMul", [qg, kt], f"{b}.kq")
        scores = g.op("Reshape", [scores, g.i64([1, s.n_head, -1, 0])], f"{b}.kq_heads")
        scores = g.op("Mul", [scores, self.c(1.0 / np.sqrt(d))], f"{b}.kq_scale")
        scores = g.op("Add", [scores, mask], f"{b}.kq_mask")
        probs = g.op("Softmax", [scores], f"{b}.softmax", axis=-1)
        probs = g.op("Reshape", [probs, g.i64([1, s.n_head_kv, -1, 0])], f"{b}.p_group")
        att = g.op("MatMul", [probs, vc], f"{b}.kqv")
        att = g.op("Reshape", [att, g.i64([1, s.n_head, -1, d])], f"{b}.kqv_heads")
        att = g.op("Transpose", [att], f"{b}.kqv_bshd", perm=[0, 2, 1, 3])
        att = g.op("Reshape", [att, g.i64([0, 0, s.n_embd])], f"{b}.kqv_merged")
        att = g.op("MatMul", [att, self.w(f"{b}.attn_output.weight", True)], f"{b}.attn_output")
        x = g.op("Add", [x, att], f"{b}.attn_residual")
        h = self.rms_norm(x, f"{b}.ffn_norm.weight", f"{b}.ffn_norm")
        gate = g.op("MatMul", [h, self.w(f"{b}.ffn_gate.weight", True)], f"{b}.ffn_gate")
        up = g.op("MatMul", [h, self.w(f"{b}.ffn_up.weight", True)], f"{b}.ffn_up")
        act = g.op("Mul", [gate, g.op("Sigmoid", [gate], f"{b}.ffn_sigmoid")], f"{b}.ffn_silu")
        ff = g.op("Mul", [act, up], f"{b}.ffn_gate_up")
        down = g.op("MatMul", [ff, self.w(f"{b}.ffn_down.weight", True)], f"{b}.ffn_down")
        return g.op("Add", [x, down], f"{b}.ffn_residual")

    def rope_tables(self):
        """cos, sin [1,1,S,head_dim/2,1] from position_ids, computed in float32 (then cast)."""
        g = self.g
        pos = g.op("Cast", ["position_ids"], "rope.pos_f32", to=FLOAT)
        pos = g.op("Unsqueeze", [pos, g.i64([1, 3, 4])], "rope.pos")
        inv = g.const(rope_inv_freq(self.s.head_dim, self.s.rope_freq_base).reshape(-1, 1), np.float32)
        theta = g.op("Mul", [pos, inv], "rope.theta")
        cos = g.op("Cos", [theta], "rope.cos_f32")
        sin = g.op("Sin", [theta], "rope.sin_f32")
        if self.onnx_dtype != FLOAT:
            cos = g.op("Cast", [cos], "rope.cos", to=self.onnx_dtype)
            sin = g.op("Cast", [sin], "rope.sin", to=self.onnx_dtype)
        return cos, sin

    def causal_mask(self):
        """[1,1,S,T] (T = P + S): 0 where key index k <= position_ids[q], -inf elsewhere."""
        g = self.g
        past = g.op("Shape", ["past_key_0"], "mask.past_len", start=2, end=3)
        new = g.op("Shape", ["input_ids"], "mask.new_len", start=1, end=2)
        total = g.op("Add", [past, new], "mask.total")
        total = g.op("Squeeze", [total, g.i64([0])], "mask.total_scalar")
        kpos = g.op("Range", [g.i64(0), total, g.i64(1)], "mask.key_pos")
        qpos = g.op("Unsqueeze", ["position_ids", g.i64([1, 3])], "mask.query_pos")
        future = g.op("Greater", [kpos, qpos], "mask.future")
        return g.op("Where", [future, self.c(-np.inf), self.c(0.0)], "mask")

    def build(self):
        g, s = self.g, self.s
        t0 = time.monotonic()
        x = g.op("Gather", [self.w("token_embd.weight"), "input_ids"], "token_embd", axis=0)
        cos, sin = self.rope_tables()
        mask = self.causal_mask()
        for i in range(s.n_layer):
            x = self.layer(i, x, cos, sin, mask)
            done = i + 1
            left = (time.monotonic() - t0) / done * (s.n_layer - done)
            self.progress(f"converting: layer {done}/{s.n_layer}, about {left:.0f} s left")
        start = g.op("Neg", ["last_n"], "last_n.neg")
        x = g.op("Slice", [x, start, g.i64([np.iinfo(np.int64).max]), g.i64([1])], "last_positions")
        x = self.rms_norm(x, "output_norm.weight", "output_norm")
        if s.tied:
            head = self.w("token_embd.weight", True, onnx_name="token_embd.weight.transposed")
        else:
            head = self.w("output.weight", True)
        if self.onnx_dtype == FLOAT:
            g.op("MatMul", [x, head], "output", outputs=["logits"])
        else:
            lg = g.op("MatMul", [x, head], "output")
            g.op("Cast", [lg], "logits_f32", outputs=["logits"], to=FLOAT)
        return self.graph_io()

    def graph_io(self):
        s = self.s
        kv = [1, s.n_head_kv, "past_seq", s.head_dim]
        inputs = [value_info("input_ids", INT64, [1, "seq"]), value_info("position_ids", INT64, [1, "seq"]),
                  value_info("last_n", INT64, [1])]
        outputs = [value_info("logits", FLOAT, [1, "last_n", s.n_vocab])]
        for i in range(s.n_layer):
            inputs += [value_info(f"past_key_{i}", self.onnx_dtype, kv),
                       value_info(f"past_value_{i}", self.onnx_dtype, kv)]
            pkv = [1, s.n_head_kv, "total_seq", s.head_dim]
            outputs += [value_info(f"present_key_{i}", self.onnx_dtype, pkv),
                        value_info(f"present_value_{i}", self.onnx_dtype, pkv)]
        return inputs, outputs


def build_model(spec, weight, writer, dtype="float32", progress=lambda line: None):
    """The ModelProto of the llama decoder; weights go to `writer` (ExternalDataWriter).

    spec: n_layer, n_embd, n_head, n_head_kv, head_dim, n_vocab, rope_freq_base, rms_eps, tied.
    weight(name): the GGUF tensor `name` as float32 in llama.cpp's layout ([out, in]).
    """
    from onnx import helper

    from . import versions

    if dtype not in _DTYPES:
        raise ValueError(f"dtype {dtype!r}: float32 or float16")
    m = _Llama(spec, weight, writer, dtype, progress)
    inputs, outputs = m.build()
    graph = helper.make_graph(m.g.nodes, "pipette_llama", inputs, outputs, initializer=m.g.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)],
                              producer_name=versions.NAME, producer_version=versions.VERSION)
    model.ir_version = IR_VERSION
    return model
