"""pipette_convert {version,gguf,quantize,mnn}: one JSON line on stdout; progress and errors on stderr.

Exit 0 on success, 2 for bad input (the message names the file and the problem), 1 for any other
failure; the output folder is removed whole when anything fails.
"""

import argparse
import json
import sys
import traceback

from . import versions
from .errors import BadInput


def _progress(line):
    print(line, file=sys.stderr, flush=True)


def _parser():
    p = argparse.ArgumentParser(prog="pipette_convert", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("version", help="the converter's name, version and package versions")
    g = sub.add_parser("gguf", help="convert a llama GGUF into an ONNX model folder")
    g.add_argument("--gguf", required=True, help="input .gguf file")
    g.add_argument("--out", required=True, help="output folder (must not exist)")
    g.add_argument("--dtype", default="float32", choices=["float32", "float16"])
    q = sub.add_parser("quantize", help="a quantized variant of an fp32 model folder")
    q.add_argument("--onnx", required=True, help="source folder (an fp32 conversion)")
    q.add_argument("--out", required=True, help="output folder (must not exist)")
    q.add_argument("--method", required=True, choices=["int8-dynamic", "int4-rtn", "int4-gptq"])
    q.add_argument("--block-size", type=int, default=32)
    sym = q.add_mutually_exclusive_group()
    sym.add_argument("--symmetric", dest="symmetric", action="store_true", default=True)
    sym.add_argument("--asymmetric", dest="symmetric", action="store_false")
    q.add_argument("--calibration")
    q.add_argument("--calibration-tokens", type=int)
    q.add_argument("--calibration-samples", type=int)
    q.add_argument("--damp", type=float, default=0.01)
    m = sub.add_parser("mnn", help="an fp32 model folder converted for MNN (model.mnn)")
    m.add_argument("--onnx", required=True, help="source folder (an fp32 conversion)")
    m.add_argument("--out", required=True, help="output folder (must not exist)")
    m.add_argument("--int8", action="store_true", help="int8 weights (MNN's weight quantization)")
    return p


def _run(args):
    if args.command == "version":
        return versions.converter_info()
    if args.command == "gguf":
        from .convert_gguf import convert

        meta = convert(args.gguf, args.out, args.dtype, _progress)
    elif args.command == "mnn":
        from .to_mnn import convert_mnn

        meta = convert_mnn(args, _progress)
    else:
        from .quantize import quantize

        meta = quantize(args, _progress)
    return {"ok": True, "seconds": meta["seconds"], "files": meta["files"], "meta": meta}


def main(argv=None):
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:  # argparse prints its usage error; bad input is exit 2 (as argparse)
        return int(e.code) if e.code is not None else 2
    try:
        out = _run(args)
    except BadInput as e:
        print(f"pipette-convert: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("pipette-convert: interrupted", file=sys.stderr)
        return 1
    except Exception as e:  # a failure of the converter or a package: exit 1 with the trace
        traceback.print_exc(file=sys.stderr)
        print(f"pipette-convert: failed: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    print(json.dumps(out, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
