"""A runtime worker on this module: pipette_worker's Worker with the ops of a converted model
folder (every op but quantize and imatrix), served by a backend (backend.py)."""

import platform

from pipette_worker import Worker
from pipette_worker.serve import take_protocol_output

from . import model_ops, quality_ops, speed_ops
from .state import State


def make_worker(backend, runtime_version, runtime_build, program):
    """The worker and its handlers; `runtime_build` gains the Python, numpy and tokenizers
    versions."""
    import numpy
    import tokenizers

    build = dict(runtime_build)
    build.update(python=platform.python_version(), numpy=numpy.__version__,
                 tokenizers=tokenizers.__version__)
    worker = Worker(runtime=backend.runtime, runtime_version=runtime_version,
                    runtime_build=build, program=program)
    state = State(backend)
    for op, fn in (("load_model", model_ops.load_model), ("init_context", model_ops.init_context),
                   ("tokenize", model_ops.tokenize), ("detokenize", model_ops.detokenize),
                   ("pp", speed_ops.pp), ("tg", speed_ops.tg), ("ttft", speed_ops.ttft),
                   ("e2e", speed_ops.e2e), ("chat", quality_ops.chat)):
        worker.handler(op)(lambda request, fn=fn: fn(state, request))
    worker.handler("score", frames=True)(
        lambda request, frames: quality_ops.score(state, request, frames))
    worker.state = state  # for the tests
    return worker


def serve_main(make):
    """A worker program's main: standard output kept for protocol lines (before the runtime is
    imported: some print on import), then the worker `make()` returns serves it."""
    out = take_protocol_output()
    return make().serve(out=out)
