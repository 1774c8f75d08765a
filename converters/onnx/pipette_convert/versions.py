"""The converter's name, version and the versions of the packages that shape its output."""

from importlib import metadata

NAME = "pipette-convert"
# Bump when the graph, the tokenizer or pipette-model.json changes: the controller's cache of
# converted models is keyed by it.
VERSION = "3"

# Distribution names of every package whose version can change what the converter writes.
_PACKAGES = ("gguf", "onnx", "numpy", "onnxruntime", "onnx-ir", "tokenizers", "protobuf")


def package_versions():
    """{distribution name: installed version} of the packages the converter uses."""
    out = {}
    for name in _PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def converter_info():
    return {"name": NAME, "version": VERSION, "packages": package_versions()}
