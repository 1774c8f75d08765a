"""The worker side of Pipette's worker protocol (docs/protocol.md), for workers written in Python.

A worker for a runtime packaged as a Python wheel is its handlers only: this module reads the
requests, checks their envelope, answers hello, memory, reset_peak_memory and shutdown itself,
hands every other op to the handler registered for it, and writes the responses and any binary
frames. Standard library only. Workers return raw facts (timestamps, token ids, counts); they
compute no figure: the controller does (docs/metrics.md).

    from pipette_worker import Worker, Fields, RequestError, now_ns

    worker = Worker(runtime="onnxruntime", runtime_version="1.20.0", program="my-worker")

    @worker.handler("tokenize")
    def tokenize(request):
        f = Fields(request, "tokenize")
        text = f.string("text")
        add_special = f.bool("add_special", True)
        f.check()
        return {"tokens": [...]}

    worker.serve()
"""

from .clock import now_ns
from .fields import Fields, RequestError
from .frames import FrameWriter, HEADER_BYTES, MAX_ABORT_MESSAGE_BYTES
from .memory import read_memory, reset_peak_memory
from .protocol import OPS, PROTOCOL_VERSION
from .serve import Worker

__all__ = [
    "Fields",
    "FrameWriter",
    "HEADER_BYTES",
    "MAX_ABORT_MESSAGE_BYTES",
    "OPS",
    "PROTOCOL_VERSION",
    "RequestError",
    "Worker",
    "now_ns",
    "read_memory",
    "reset_peak_memory",
]
