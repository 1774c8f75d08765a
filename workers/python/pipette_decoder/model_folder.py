"""A converted model folder (issue 11's design, "The converted model: a folder"): where its
files are, and what its pipette-model.json says. The folder's graph is model.onnx (format
pipette-onnx/1) or, converted from it for MNN, model.mnn (format pipette-mnn/1)."""

import json
import os

META_FILE = "pipette-model.json"
TOKENIZER_FILE = "tokenizer.json"
# The folder kinds: the meta's format and the graph's file.
ONNX = ("pipette-onnx/1", "model.onnx")
MNN = ("pipette-mnn/1", "model.mnn")
_MAX_META_VALUE_BYTES = 1024  # as the llama.cpp worker: longer values are left out of `meta`
_REQUIRED_INTS = ("n_layer", "n_head_kv", "head_dim", "n_embd", "n_vocab", "n_ctx_train", "bos",
                  "eos")


class ModelFolderError(Exception):
    """The path is not a converted model folder (the message names the file and the problem)."""


class ModelFolder:
    """The files and facts of one converted model: `folder`, `model_path` (its graph),
    `meta` (the parsed pipette-model.json), `tokenizer_path`."""

    def __init__(self, folder, meta, model_file=ONNX[1]):
        self.folder = folder
        self.model_path = os.path.join(folder, model_file)
        self.tokenizer_path = os.path.join(folder, TOKENIZER_FILE)
        self.meta = meta
        self.kind = os.path.splitext(model_file)[1][1:]  # "onnx", "mnn"

    @property
    def eog(self):
        """The end-of-generation ids (the GGUF's eog list; the eos id where it has none)."""
        ids = self.meta.get("eog")
        return set(ids) if isinstance(ids, list) and ids else {self.meta["eos"]}

    def size_bytes(self):
        """The sizes of the folder's files (the graph, its external data, the tokenizer)."""
        total = 0
        for name in sorted(os.listdir(self.folder)):
            path = os.path.join(self.folder, name)
            if os.path.isfile(path):
                total += os.path.getsize(path)
        return total

    def n_params(self):
        """The model's parameter count: the converter's `n_params` where it records one, else
        the graph's weights counted: floating-point and 8-bit initializers of more than one
        element (not shapes and indices), MatMulNBits weights as K x N (not their scales and
        zero points), less the lm_head where the meta says the embeddings are tied (the graph
        holds the embedding twice: a Gather table and its transposed copy)."""
        if isinstance(self.meta.get("n_params"), int):
            return self.meta["n_params"]
        import onnx  # an MNN folder's meta carries n_params

        weight_types = {onnx.TensorProto.FLOAT, onnx.TensorProto.FLOAT16,
                        onnx.TensorProto.BFLOAT16, onnx.TensorProto.INT8, onnx.TensorProto.UINT8}
        graph = onnx.load_model(self.model_path, load_external_data=False).graph
        skipped = set()
        counted = {}
        for node in graph.node:
            if node.op_type == "MatMulNBits":
                attrs = {a.name: a.i for a in node.attribute}
                counted[node.input[1]] = attrs.get("K", 0) * attrs.get("N", 0)
                skipped.update(node.input[2:])
        total = 0
        for init in graph.initializer:
            if init.name in skipped or init.data_type not in weight_types:
                continue
            if init.name in counted:
                total += counted[init.name]
                continue
            elements = 1
            for d in init.dims:
                elements *= d
            if elements > 1:
                total += elements
        if self.meta.get("tied_embeddings") is True:
            total -= self.meta["n_vocab"] * self.meta["n_embd"]
        return total

    def desc(self):
        """"llama 135M fp32 (onnx)", as llama.cpp's model description reads ("(mnn)" for an
        MNN folder)."""
        n = self.n_params()
        size = "%dM" % round(n / 1e6) if n < 1e9 else "%.1fB" % (n / 1e9)
        variant = self.meta.get("variant", {}).get("name", "?")
        return "%s %s %s (%s)" % (self.meta.get("arch", "?"), size, variant, self.kind)

    def meta_strings(self):
        """pipette-model.json flattened to strings (nested keys joined by '.'), sorted; values
        over 1 KiB left out, as the llama.cpp worker leaves out long metadata values; and the
        chat template and add_eos under the GGUF's key names."""
        out = {}

        def walk(prefix, value):
            if isinstance(value, dict):
                for key in value:
                    walk(prefix + "." + key if prefix else key, value[key])
                return
            text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
            if len(text.encode("utf-8")) <= _MAX_META_VALUE_BYTES:
                out[prefix] = text

        walk("", self.meta)
        # Under the GGUF's own names, whatever their length: the controller renders the chat
        # prompts of this runtime (it has no template engine) from these.
        template = self.meta.get("chat_template")
        if isinstance(template, str) and template:
            out["tokenizer.chat_template"] = template
        tool_use = self.meta.get("chat_template_tool_use")
        if isinstance(tool_use, str) and tool_use:
            out["tokenizer.chat_template.tool_use"] = tool_use
        out["tokenizer.ggml.add_eos_token"] = "true" if self.meta.get("add_eos") else "false"
        return dict(sorted(out.items()))


def open_model_folder(path, kind=ONNX):
    """The model folder of `kind` (ONNX or MNN) at `path` (the folder or its graph file).
    Raises ModelFolderError naming the file and what is wrong with it."""
    fmt, model_file = kind
    if os.path.isdir(path):
        folder = path
    elif os.path.isfile(path):
        if os.path.basename(path) != model_file:
            raise ModelFolderError("'%s' is neither a converted model folder nor its %s"
                                   % (path, model_file))
        folder = os.path.dirname(os.path.abspath(path))
    else:
        raise ModelFolderError("model '%s' does not exist" % path)
    meta_path = os.path.join(folder, META_FILE)
    try:
        with open(meta_path, encoding="utf-8") as f:
            meta = json.load(f)
    except OSError as e:
        raise ModelFolderError("cannot read %s: %s" % (meta_path, e.strerror)) from e
    except ValueError as e:
        raise ModelFolderError("%s is not valid JSON: %s" % (meta_path, e)) from e
    if not isinstance(meta, dict) or meta.get("format") != fmt:
        raise ModelFolderError("%s: 'format' must be \"%s\"" % (meta_path, fmt))
    for key in _REQUIRED_INTS:
        value = meta.get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            raise ModelFolderError("%s: '%s' must be an integer" % (meta_path, key))
    model = ModelFolder(folder, meta, model_file)
    for needed in (model.model_path, model.tokenizer_path):
        if not os.path.isfile(needed):
            raise ModelFolderError("%s is missing (the folder is not a complete converted model)"
                                   % needed)
    return model
