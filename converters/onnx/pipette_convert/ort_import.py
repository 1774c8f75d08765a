"""Imports onnxruntime without leaving its telemetry session file behind.

onnxruntime 1.32.0's telemetry SDK writes `$TMPDIR/.ses` (a first-launch time and an id) when the
module is imported, even with telemetry events disabled; a converter (or a test) must not leave
files in the caller's temporary folder. TMPDIR points at a private folder during the import, and
that folder is removed right after.
"""

import importlib
import os
import shutil
import sys
import tempfile


def import_onnxruntime():
    if "onnxruntime" in sys.modules:
        return sys.modules["onnxruntime"]
    private = tempfile.mkdtemp(prefix="pipette-ort-")
    saved = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = private
    try:
        return importlib.import_module("onnxruntime")
    finally:
        if saved is None:
            del os.environ["TMPDIR"]
        else:
            os.environ["TMPDIR"] = saved
        shutil.rmtree(private, ignore_errors=True)
