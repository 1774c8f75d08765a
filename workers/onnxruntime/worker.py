"""pipette-worker-onnxruntime: the ONNX Runtime worker (docs/protocol.md), on the common Python
worker module (workers/python/pipette_worker). It runs a converted model folder (issue 11's
design) on ONNX Runtime's CPU execution provider and returns raw facts only.

Started by the launcher CMake writes (build/pipette-worker-onnxruntime) as
`<venv python> -B workers/onnxruntime/worker.py`; it serves every op but quantize and imatrix.
"""

import os
import platform
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [_HERE, os.path.join(os.path.dirname(_HERE), "python")]

from pipette_worker import Worker  # noqa: E402
from pipette_worker.serve import take_protocol_output  # noqa: E402


def make_worker():
    """The worker and its handlers (imports ONNX Runtime)."""
    import numpy
    import onnxruntime
    import tokenizers

    import model_ops
    import quality_ops
    import speed_ops
    from ort_session import PROVIDER
    from state import State

    build = {
        "onnxruntime": onnxruntime.__version__,
        "execution_provider": PROVIDER,
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "tokenizers": tokenizers.__version__,
    }
    worker = Worker(runtime="onnxruntime", runtime_version=onnxruntime.__version__,
                    runtime_build=build, program="pipette-worker-onnxruntime")
    state = State()
    for op, fn in (("load_model", model_ops.load_model), ("init_context", model_ops.init_context),
                   ("tokenize", model_ops.tokenize), ("detokenize", model_ops.detokenize),
                   ("pp", speed_ops.pp), ("tg", speed_ops.tg), ("ttft", speed_ops.ttft),
                   ("chat", quality_ops.chat)):
        worker.handler(op)(lambda request, fn=fn: fn(state, request))
    worker.handler("score", frames=True)(
        lambda request, frames: quality_ops.score(state, request, frames))
    worker.state = state  # for the tests
    return worker


def main():
    out = take_protocol_output()  # before ONNX Runtime can print anything
    return make_worker().serve(out=out)


if __name__ == "__main__":
    sys.exit(main())
