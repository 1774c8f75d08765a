"""`pipette_convert quantize`: ONNX Runtime's quantizations of an fp32 conversion, as variants.

int8-dynamic: onnxruntime.quantization.quantize_dynamic (int8 weights of every MatMul with a
constant weight, activations quantized at run time: W8A8). int4-rtn: MatMulNBitsQuantizer with
RTNWeightOnlyQuantConfig (4-bit block-wise round-to-nearest weights in MatMulNBits: W4A16).
int4-gptq: the converter's numpy GPTQ (gptq.py) on calibration text, into the same MatMulNBits.
Every option passed is recorded in the variant's pipette-model.json.
"""

import contextlib
import copy
import io
import os
import shutil
import time

from . import versions
from .convert_gguf import MODEL_FILES
from .errors import BadInput
from .external_data import check_external_data
from .folder import file_hashes, output_folder, read_meta, sha256_file, write_meta
from .ort_import import import_onnxruntime

METHODS = ("int8-dynamic", "int4-rtn", "int4-gptq")


def _source(folder):
    if not os.path.isdir(folder):
        raise BadInput(f"{folder}: no such folder (quantize reads a folder written by `pipette_convert gguf`)")
    meta = read_meta(folder)
    if meta.get("variant", {}).get("name") != "fp32":
        raise BadInput(f"{folder}: variant {meta.get('variant', {}).get('name')!r}; quantize needs the fp32 "
                       "conversion")
    for name, digest in meta.get("files", {}).items():
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            raise BadInput(f"{path}: missing (named in pipette-model.json)")
        if sha256_file(path) != digest:
            raise BadInput(f"{path}: SHA-256 differs from pipette-model.json's (the folder was changed)")
    return meta


def _check_args(args):
    if args.method not in METHODS:
        raise BadInput(f"--method {args.method!r}: one of {', '.join(METHODS)}")
    calib = (args.calibration, args.calibration_tokens, args.calibration_samples)
    if args.method == "int4-gptq":
        if args.calibration is None:
            raise BadInput("--method int4-gptq needs --calibration FILE (UTF-8 text)")
        for flag, v in (("--calibration-tokens", args.calibration_tokens),
                        ("--calibration-samples", args.calibration_samples)):
            if v is not None and v < 1:
                raise BadInput(f"{flag} {v}: 1 or more")
        if not 0 <= args.damp < 1:
            raise BadInput(f"--damp {args.damp}: from 0 to 1")
    elif any(v is not None for v in calib):
        raise BadInput(f"--calibration*: {args.method} takes no calibration data (only int4-gptq does)")
    if args.method != "int8-dynamic":
        b = args.block_size
        if b < 16 or b & (b - 1):
            raise BadInput(f"--block-size {b}: a power of two, 16 or more (MatMulNBits)")


def _int8_dynamic(src, dst, args):
    from onnxruntime.quantization import QuantType, quantize_dynamic

    options = {"weight_type": "QInt8", "activation_type": "QUInt8", "op_types_to_quantize": ["MatMul"],
               "per_channel": False, "reduce_range": False, "nodes_to_exclude": [],
               "extra_options": {"MatMulConstBOnly": True, "WeightSymmetric": bool(args.symmetric)}}
    quantize_dynamic(src, dst, op_types_to_quantize=options["op_types_to_quantize"],
                     per_channel=options["per_channel"], reduce_range=options["reduce_range"],
                     weight_type=QuantType.QInt8, nodes_to_exclude=[], use_external_data_format=True,
                     extra_options=dict(options["extra_options"]))
    return "int8", options


def _int4_rtn(src, dst, args):
    from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer, RTNWeightOnlyQuantConfig

    options = {"algorithm": "RTN", "bits": 4, "block_size": args.block_size, "symmetric": bool(args.symmetric),
               "accuracy_level": None, "op_types_to_quantize": ["MatMul"], "ratios": {},
               "quant_format": "QOperator", "nodes_to_exclude": []}
    config = RTNWeightOnlyQuantConfig(ratios={}, op_types_to_quantize=("MatMul",))
    # The model goes in loaded (weights included): given a path, the RTN path reloads it without
    # its external data and saves stale references into the new data file.
    import onnx

    q = MatMulNBitsQuantizer(onnx.load(src), bits=4, block_size=args.block_size, is_symmetric=bool(args.symmetric),
                             accuracy_level=None, nodes_to_exclude=[], algo_config=config)
    q.process()
    q.model.save_model_to_file(dst, use_external_data_format=True)
    return "int4", options


def quantize(args, progress):
    """Writes the variant folder args.out; returns its pipette-model.json content."""
    t0 = time.monotonic()
    _check_args(args)
    base = _source(args.onnx)
    ort = import_onnxruntime()
    progress(f"quantizing: {args.onnx} -> {args.method}")
    with output_folder(args.out):
        src = os.path.join(args.onnx, "model.onnx")
        dst = os.path.join(args.out, "model.onnx")
        calibration = None
        chatter = io.StringIO()  # the quantizers print progress bars on stdout: keep stdout one line
        with contextlib.redirect_stdout(chatter):
            if args.method == "int4-gptq":
                from .gptq import quantize_gptq

                weights, options = "int4", quantize_gptq(args.onnx, dst, base, args, ort, progress)
                calibration = {"path": os.path.abspath(args.calibration),
                               "sha256": sha256_file(args.calibration),
                               "tokens": args.calibration_tokens or 128,
                               "samples": args.calibration_samples or 8,
                               "windows": "the text's last tokens x samples tokens"}
            else:
                make = _int8_dynamic if args.method == "int8-dynamic" else _int4_rtn
                weights, options = make(src, dst, args)
        check_external_data(dst)
        if not os.path.isfile(dst + ".data"):
            raise RuntimeError(f"the quantizer wrote no {dst}.data")
        shutil.copyfile(os.path.join(args.onnx, "tokenizer.json"), os.path.join(args.out, "tokenizer.json"))
        meta = copy.deepcopy(base)
        meta.pop("source_folder", None)
        meta["converter"] = versions.converter_info()
        meta["variant"] = {"name": args.method, "dtype": "float32", "weights": weights,
                           "quantizer": ("pipette-convert gptq.py" if args.method == "int4-gptq" else
                                         f"onnxruntime {ort.__version__}"), "options": options,
                           "calibration": calibration}
        meta["graph"] = dict(base["graph"], weights=weights)
        meta["source_folder"] = {"path": os.path.abspath(args.onnx), "meta": base}
        meta["files"] = file_hashes(args.out, MODEL_FILES)
        meta["seconds"] = round(time.monotonic() - t0, 3)
        write_meta(args.out, meta)
    return meta
