"""pipette-convert: GGUF -> ONNX conversion and ONNX Runtime quantized variants (issue 11).

Run as `python -B -m pipette_convert {version,gguf,quantize} ...` with converters/onnx on
PYTHONPATH. Conversion only: no metric, statistic or benchmark decision lives here.
"""
