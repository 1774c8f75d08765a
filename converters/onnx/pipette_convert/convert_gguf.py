"""`pipette_convert gguf`: a llama GGUF -> model.onnx (+ .data), tokenizer.json, pipette-model.json."""

import os
import time

import onnx

from . import versions
from .external_data import ExternalDataWriter, check_external_data
from .folder import file_hashes, output_folder, sha256_file, write_meta
from .gguf_model import GgufModel
from .llama_graph import OPSET, build_model, io_names
from .tokenizer import Vocab, build_tokenizer

MODEL_FILES = ("model.onnx", "model.onnx.data", "tokenizer.json")


def convert(gguf_path, out_dir, dtype, progress):
    """Writes out_dir; returns pipette-model.json's content."""
    t0 = time.monotonic()
    model = GgufModel(gguf_path)
    vocab = Vocab(model)
    progress(f"converting: {gguf_path} ({model.arch}, {model.n_layer} layers, {model.file_type})")
    source_sha = sha256_file(gguf_path)
    with output_folder(out_dir):
        writer = ExternalDataWriter(out_dir)
        try:
            proto = build_model(model, model.tensor, writer, dtype, progress)
        finally:
            writer.close()
        with open(os.path.join(out_dir, "model.onnx"), "xb") as f:
            f.write(proto.SerializeToString())
        onnx.checker.check_model(os.path.join(out_dir, "model.onnx"))
        check_external_data(os.path.join(out_dir, "model.onnx"))
        build_tokenizer(vocab).save(os.path.join(out_dir, "tokenizer.json"))
        inputs, outputs = io_names(model.n_layer)
        meta = {
            "format": "pipette-onnx/1",
            "converter": versions.converter_info(),
            "source": {"path": os.path.abspath(gguf_path), "sha256": source_sha,
                       "file_type": model.file_type, "general_name": model.general_name},
            "variant": {"name": "fp32" if dtype == "float32" else "fp16", "dtype": dtype,
                        "calibration": None},
            "arch": model.arch, "n_layer": model.n_layer, "n_head": model.n_head,
            "n_head_kv": model.n_head_kv, "head_dim": model.head_dim, "n_embd": model.n_embd,
            "n_ff": model.n_ff, "n_vocab": model.n_vocab, "n_ctx_train": model.n_ctx_train,
            "rope_freq_base": model.rope_freq_base, "rms_eps": model.rms_eps,
            "tied_embeddings": model.tied,
            "bos": vocab.bos, "eos": vocab.eos, "eog": vocab.eog,
            "add_bos": vocab.add_bos, "add_eos": vocab.add_eos,
            "chat_template": model.field("tokenizer.chat_template"),
            "chat_template_tool_use": model.field("tokenizer.chat_template.tool_use"),
            "bos_text": vocab.text(vocab.bos), "eos_text": vocab.text(vocab.eos),
            "tokenizer": {"model": "gpt2", "pre": vocab.pre},
            "graph": {"opset": OPSET, "dtype": dtype, "kv_dtype": dtype, "logits_dtype": "float32",
                      "inputs": inputs, "outputs": outputs},
            "files": file_hashes(out_dir, MODEL_FILES),
        }
        meta["seconds"] = round(time.monotonic() - t0, 3)
        write_meta(out_dir, meta)
    return meta
