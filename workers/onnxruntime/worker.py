"""pipette-worker-onnxruntime: the ONNX Runtime worker (docs/protocol.md), on the common Python
worker module (workers/python/pipette_worker). It runs a converted model folder (issue 11's
design) on ONNX Runtime's CPU execution provider and returns raw facts only.

Started by the launcher CMake writes (build/pipette-worker-onnxruntime) as
`<venv python> -B workers/onnxruntime/worker.py`; it serves every op but quantize and imatrix.
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_HERE, os.path.join(os.path.dirname(_HERE), "python")]

from pipette_decoder.worker import make_worker as make_decoder_worker, serve_main  # noqa: E402


def make_worker():
    """The worker and its handlers (imports ONNX Runtime)."""
    from ort_backend import OrtBackend
    from ort_session import PROVIDER
    from ort_session import ort as onnxruntime

    return make_decoder_worker(OrtBackend(), onnxruntime.__version__,
                               {"onnxruntime": onnxruntime.__version__,
                                "execution_provider": PROVIDER},
                               "pipette-worker-onnxruntime")


if __name__ == "__main__":
    sys.exit(serve_main(make_worker))
