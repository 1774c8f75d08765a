"""The ONNX Runtime worker's backend (pipette_decoder/backend.py): sessions on the CPU
execution provider, graph_optimization as its own load option, the fall-back report."""

import numpy as np

from pipette_decoder.backend import Graph
from pipette_decoder.model_folder import ONNX
from pipette_worker import RequestError

from ort_session import (DEFAULT_GRAPH_OPTIMIZATION, GRAPH_OPTIMIZATION, PROVIDER,
                         create_session, fallback_report_of)

_NUMPY_TYPES = {"tensor(float)": np.float32, "tensor(float16)": np.float16,
                "tensor(int64)": np.int64, "tensor(int32)": np.int32}


class OrtOptions:
    def __init__(self, graph_optimization, fallback_report):
        self.graph_optimization = graph_optimization
        self.fallback_report = fallback_report


class OrtBackend:
    runtime = "onnxruntime"
    folder_kind = ONNX

    def load_options(self, f):
        graph_optimization = f.string("graph_optimization", DEFAULT_GRAPH_OPTIMIZATION)
        with_report = f.bool("fallback_report", True)
        f.check()
        if graph_optimization not in GRAPH_OPTIMIZATION:
            raise RequestError("load_model request: field 'graph_optimization' must be one of "
                               "%s, got '%s'" % (", ".join(GRAPH_OPTIMIZATION),
                                                 graph_optimization))
        return OrtOptions(graph_optimization, with_report)

    def create_session(self, model_path, threads, options):
        return create_session(model_path, threads, options.graph_optimization)

    def report(self, session, model_path, threads, options):
        out = {"graph_optimization": options.graph_optimization,
               "execution_provider": PROVIDER}
        if options.fallback_report:  # in another process
            made, why = fallback_report_of(model_path, threads, options.graph_optimization)
            out.update(made if made is not None else {"fallback": None, "fallback_error": why})
        return out

    def graph(self, session):
        inputs = {i.name: _NUMPY_TYPES.get(i.type) for i in session.get_inputs()}
        outputs = [o.name for o in session.get_outputs()]

        def run(feeds):
            return dict(zip(outputs, session.run(None, feeds)))

        return Graph(inputs, outputs, run)
