"""pipette-worker-openvino: the OpenVINO worker (docs/protocol.md), on the common Python worker
module (workers/python/pipette_worker) and the converted-model ops it shares with the ONNX
Runtime worker (workers/python/pipette_decoder). It runs a converted model folder's model.onnx
on OpenVINO's CPU plugin (ov_backend.py) and returns raw facts only.

Started by the launcher CMake writes (build/pipette-worker-openvino) as
`<venv python> -B workers/openvino/worker.py`; it serves every op but quantize and imatrix.
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_HERE, os.path.join(os.path.dirname(_HERE), "python")]

from pipette_decoder.worker import make_worker as make_decoder_worker, serve_main  # noqa: E402


def make_worker():
    """The worker and its handlers (imports OpenVINO)."""
    import openvino

    from ov_backend import DEVICE, OvBackend

    return make_decoder_worker(OvBackend(), openvino.__version__,
                               {"openvino": openvino.__version__,
                                "openvino_build": openvino.get_version(), "device": DEVICE},
                               "pipette-worker-openvino")


if __name__ == "__main__":
    sys.exit(serve_main(make_worker))
