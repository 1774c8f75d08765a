"""The output folder: created empty, removed whole on any failure; file SHA-256s."""

import contextlib
import hashlib
import json
import os
import shutil

from .errors import BadInput

META_FILE = "pipette-model.json"


@contextlib.contextmanager
def output_folder(path):
    """Creates `path` (which must not exist) and removes it if the block raises."""
    if os.path.lexists(path):
        raise BadInput(f"{path}: the output folder already exists")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise BadInput(f"{path}: the parent folder {parent} does not exist")
    os.mkdir(path)
    try:
        yield path
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        raise


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def file_hashes(folder, names):
    return {n: sha256_file(os.path.join(folder, n)) for n in names}


def write_meta(folder, meta):
    with open(os.path.join(folder, META_FILE), "x", encoding="utf-8") as f:
        json.dump(meta, f, indent=1, ensure_ascii=False)
        f.write("\n")


def read_meta(folder):
    path = os.path.join(folder, META_FILE)
    if not os.path.isfile(path):
        raise BadInput(f"{folder}: no {META_FILE} (not a folder written by pipette-convert)")
    try:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
    except (OSError, ValueError) as e:
        raise BadInput(f"{path}: not readable JSON: {e}") from e
    if meta.get("format") != "pipette-onnx/1":
        raise BadInput(f"{path}: format {meta.get('format')!r}, expected 'pipette-onnx/1'")
    return meta
