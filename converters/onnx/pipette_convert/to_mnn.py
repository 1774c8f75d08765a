"""`pipette_convert mnn`: an fp32 ONNX conversion -> model.mnn (MNN's converter), tokenizer.json,
pipette-model.json (format pipette-mnn/1).

MNN's converter is called through its extension module `_tools` (what MNN.tools.mnnconvert
calls), never through the MNN.tools package: importing that runs `pip install
aliyun-log-python-sdk` (MNN.tools.utils.log), which installs into whatever `pip` is on PATH,
downgrades protobuf below onnx's, and sends telemetry. MNN cannot convert MatMulNBits (the
int4 variants) nor opset-23 RotaryEmbedding/RMSNormalization, so the source is the fp32 graph.

--int8: the converter's weight quantization (--weightQuantBits 8: int8 weights, symmetric, one
scale per output channel, dequantized at run time; activations stay float). mnnquant, MNN's
full int8 (feature-map) quantizer, calibrates on image files through its preprocessing config
and does not take token-id inputs, so it is not used.
"""

import contextlib
import copy
import os
import sys
import time

from . import versions
from .folder import file_hashes, output_folder, write_meta
from .quantize import _source

FORMAT = "pipette-mnn/1"
MODEL_FILE = "model.mnn"
FILES = (MODEL_FILE, "tokenizer.json")
INT8_OPTIONS = {"weightQuantBits": 8, "weightQuantAsymmetric": False}


@contextlib.contextmanager
def _stdout_to_stderr():
    """MNN's converter prints on the process's standard output (file descriptor 1): it goes to
    standard error, so standard output stays the one JSON line."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def _mnn_modules():
    import MNN  # noqa: F401  (loads the engine that _tools links)
    import _tools

    return MNN, _tools


def _n_params(onnx_path, meta):
    """The parameter count of the source graph (floating-point initializers of more than one
    element, the tied lm_head once): the MNN folder records it, its graph is not ONNX."""
    import onnx

    total = 0
    graph = onnx.load_model(onnx_path, load_external_data=False).graph
    for init in graph.initializer:
        size = 1
        for d in init.dims:
            size *= d
        if init.data_type == onnx.TensorProto.FLOAT and size > 1:
            total += size
    if meta.get("tied_embeddings") is True:
        total -= meta["n_vocab"] * meta["n_embd"]
    return total


def convert_mnn(args, progress):
    """Writes the MNN folder args.out from the fp32 folder args.onnx; returns its meta."""
    t0 = time.monotonic()
    base = _source(args.onnx)
    with _stdout_to_stderr():  # MNN prints the CPU's features when it is imported
        mnn, tools = _mnn_modules()
    src = os.path.join(args.onnx, "model.onnx")
    progress(f"converting to MNN: {src}" + (" (int8 weights)" if args.int8 else ""))
    with output_folder(args.out):
        dst = os.path.join(args.out, MODEL_FILE)
        argv = ["mnnconvert", "-f", "ONNX", "--modelFile", src, "--MNNModel", dst,
                "--bizCode", "pipette"]
        options = dict(INT8_OPTIONS) if args.int8 else {}
        if args.int8:
            argv += ["--weightQuantBits", "8"]
        with _stdout_to_stderr():
            ok = tools.mnnconvert(argv)
        if not ok or not os.path.isfile(dst):
            raise RuntimeError(f"MNN's converter did not convert {src} (its messages above)")
        with open(os.path.join(args.onnx, "tokenizer.json"), "rb") as f_in, \
                open(os.path.join(args.out, "tokenizer.json"), "xb") as f_out:
            f_out.write(f_in.read())
        meta = copy.deepcopy(base)
        meta.pop("source_folder", None)
        meta["format"] = FORMAT
        meta["converter"] = versions.converter_info()
        meta["converter"]["packages"]["mnn"] = mnn.version()
        name = "int8" if args.int8 else "fp32"
        meta["variant"] = {"name": name, "dtype": "float32",
                           "weights": "int8" if args.int8 else "float32",
                           "quantizer": f"MNN {mnn.version()} converter" if args.int8 else None,
                           "options": options, "calibration": None}
        meta["graph"] = dict(base["graph"], file=MODEL_FILE, runtime_format="mnn",
                             weights=meta["variant"]["weights"])
        meta["n_params"] = _n_params(src, base)
        meta["source_folder"] = {"path": os.path.abspath(args.onnx), "meta": base}
        meta["files"] = file_hashes(args.out, FILES)
        meta["seconds"] = round(time.monotonic() - t0, 3)
        write_meta(args.out, meta)
    return meta
