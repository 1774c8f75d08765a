"""pipette-worker-mnn: the MNN worker (docs/protocol.md), on the common Python worker module
(workers/python/pipette_worker) and the converted-model ops it shares with the ONNX Runtime and
OpenVINO workers (workers/python/pipette_decoder). It runs a folder of pipette_convert mnn
(model.mnn) on MNN's CPU backend (mnn_backend.py) and returns raw facts only.

Started by the launcher CMake writes (build/pipette-worker-mnn) as
`<venv python> -B workers/mnn/worker.py`; it serves every op but quantize and imatrix.
It never imports MNN.tools (which runs pip: converters/onnx/pipette_convert/to_mnn.py).
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_HERE, os.path.join(os.path.dirname(_HERE), "python")]

from pipette_decoder.worker import make_worker as make_decoder_worker, serve_main  # noqa: E402


def make_worker():
    """The worker and its handlers (imports MNN)."""
    import MNN

    from mnn_backend import BACKEND, MnnBackend

    return make_decoder_worker(MnnBackend(), MNN.version(),
                               {"mnn": MNN.version(), "backend": BACKEND},
                               "pipette-worker-mnn")


if __name__ == "__main__":
    sys.exit(serve_main(make_worker))
