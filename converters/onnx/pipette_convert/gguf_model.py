"""Reads a llama-architecture GGUF: its hyperparameters, its metadata and its tensors as float32.

Tensors are dequantized with the pinned `gguf` package (gguf.quants.dequantize), which matches
llama.cpp's own conversion to F32. numpy arrays come back in llama.cpp's row-major layout:
a weight of GGUF shape [n_in, n_out] is an array of shape (n_out, n_in).
"""

import os

import numpy as np

from .errors import BadInput

# Architectures this converter writes graphs for (general.architecture).
SUPPORTED_ARCHITECTURES = ("llama",)


def _field(reader, key, default=None):
    f = reader.fields.get(key)
    if f is None:
        return default
    return f.contents()


class GgufModel:
    """An opened GGUF with the llama hyperparameters checked.

    Attributes: path, reader, arch, n_layer, n_embd, n_ff, n_head, n_head_kv, head_dim, n_vocab,
    n_ctx_train, rope_freq_base, rms_eps, file_type, general_name, tied (no output.weight).
    """

    def __init__(self, path):
        import gguf  # the pinned package; imported here so `version` works without it

        self.path = path
        if not os.path.exists(path):
            raise BadInput(f"{path}: no such file")
        if not os.path.isfile(path):
            raise BadInput(f"{path}: not a regular file")
        with open(path, "rb") as f:
            magic = f.read(4)
        if magic != b"GGUF":
            raise BadInput(f"{path}: not a GGUF file (the first 4 bytes are {magic!r}, not b'GGUF')")
        try:
            self.reader = gguf.GGUFReader(path)
        except Exception as e:  # the package raises ValueError and friends on a damaged file
            raise BadInput(f"{path}: not a readable GGUF file: {e}") from e
        r = self.reader
        self.arch = _field(r, "general.architecture")
        if self.arch not in SUPPORTED_ARCHITECTURES:
            raise BadInput(
                f"{path}: architecture {self.arch!r} is not converted; pipette-convert converts "
                f"{', '.join(SUPPORTED_ARCHITECTURES)} (general.architecture)"
            )
        a = self.arch
        self.n_layer = self._required_int(f"{a}.block_count")
        self.n_embd = self._required_int(f"{a}.embedding_length")
        self.n_ff = self._required_int(f"{a}.feed_forward_length")
        self.n_head = self._required_int(f"{a}.attention.head_count")
        self.n_head_kv = int(_field(r, f"{a}.attention.head_count_kv", self.n_head))
        self.n_ctx_train = self._required_int(f"{a}.context_length")
        self.rope_freq_base = float(_field(r, f"{a}.rope.freq_base", 10000.0))
        self.rms_eps = float(self._required(f"{a}.attention.layer_norm_rms_epsilon"))
        if self.n_embd % self.n_head != 0 or self.n_head % self.n_head_kv != 0:
            raise BadInput(
                f"{path}: n_embd {self.n_embd}, n_head {self.n_head}, n_head_kv {self.n_head_kv} "
                "do not divide evenly"
            )
        self.head_dim = self.n_embd // self.n_head
        rope_dims = int(_field(r, f"{a}.rope.dimension_count", self.head_dim))
        if rope_dims != self.head_dim:
            raise BadInput(f"{path}: partial rotary embedding ({rope_dims} of {self.head_dim}) is not converted")
        scaling = _field(r, f"{a}.rope.scaling.type")
        if scaling not in (None, "none"):
            raise BadInput(f"{path}: rope scaling {scaling!r} is not converted")
        self.tensors = {t.name: t for t in r.tensors}
        if "token_embd.weight" not in self.tensors:
            raise BadInput(f"{path}: no token_embd.weight tensor")
        self.n_vocab = int(self.tensors["token_embd.weight"].shape[1])
        self.tied = "output.weight" not in self.tensors
        for i in range(self.n_layer):
            for name in ("attn_norm", "attn_q", "attn_k", "attn_v", "attn_output", "ffn_norm",
                         "ffn_gate", "ffn_up", "ffn_down"):
                if f"blk.{i}.{name}.weight" not in self.tensors:
                    raise BadInput(f"{path}: no blk.{i}.{name}.weight tensor")
            for name in ("attn_q", "attn_k", "attn_v", "attn_output"):
                if f"blk.{i}.{name}.bias" in self.tensors:
                    raise BadInput(f"{path}: attention biases (blk.{i}.{name}.bias) are not converted")
        if "output_norm.weight" not in self.tensors:
            raise BadInput(f"{path}: no output_norm.weight tensor")
        ft = _field(r, "general.file_type")
        self.file_type = _file_type_name(gguf, ft)
        self.general_name = _field(r, "general.name")

    def _required(self, key):
        v = _field(self.reader, key)
        if v is None:
            raise BadInput(f"{self.path}: metadata key {key} is missing")
        return v

    def _required_int(self, key):
        return int(self._required(key))

    def field(self, key, default=None):
        return _field(self.reader, key, default)

    def tensor(self, name):
        """The tensor `name` dequantized to a float32 array (llama.cpp's row-major shape)."""
        from gguf.quants import dequantize

        t = self.tensors[name]
        a = dequantize(t.data, t.tensor_type)
        return np.ascontiguousarray(a, dtype=np.float32)


def _file_type_name(gguf, ft):
    if ft is None:
        return None
    try:
        name = gguf.LlamaFileType(int(ft)).name
    except ValueError:
        return str(ft)
    return name[len("MOSTLY_"):] if name.startswith("MOSTLY_") else name
