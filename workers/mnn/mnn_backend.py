"""The MNN worker's backend (pipette_decoder/backend.py): a converted folder's model.mnn
(pipette_convert mnn) loaded as an MNN Module with dynamic, mutable shapes (S and the KV
cache's P change every run) on MNN's CPU backend at precision "high" (float32; "normal" and
"low" let MNN compute in fp16/bf16 where the CPU has them). The load reply says the backend,
precision and threads asked."""

import numpy as np

import MNN
import MNN.expr as F
import MNN.nn as nn

from pipette_decoder.backend import Graph
from pipette_decoder.model_folder import MNN as MNN_FOLDER

BACKEND = "CPU"
PRECISION = "high"
_NUMPY = {F.int: np.int32, F.float: np.float32, F.int64: np.int64}
_MNN = {np.dtype(np.int32): F.int, np.dtype(np.float32): F.float, np.dtype(np.int64): F.int64}


class MnnSession:
    """The runtime manager (threads, precision) and the module of the graph."""

    def __init__(self, model_path, threads):
        config = {"backend": BACKEND, "precision": PRECISION}
        if threads is not None:
            config["numThread"] = threads
        self.config = config
        self.runtime = nn.create_runtime_manager((config,))
        # Empty names: the inputs and outputs the file declares, in its order.
        self.module = nn.load_module_from_file(model_path, [], [], runtime_manager=self.runtime,
                                               dynamic=True, shape_mutable=True)
        info = self.module.get_info()
        self.input_names = list(info["inputNames"])
        self.output_names = list(info["outputNames"])
        self.input_types = {name: _NUMPY.get(var.dtype)
                            for name, var in zip(self.input_names, info["inputs"])}


def _var(array):
    array = np.ascontiguousarray(array)
    return F.const(array, list(array.shape), F.NCHW, _MNN[array.dtype])


class MnnBackend:
    runtime = "mnn"
    folder_kind = MNN_FOLDER

    def load_options(self, f):
        return None  # threads only

    def create_session(self, model_path, threads, options):
        return MnnSession(model_path, threads)

    def report(self, session, model_path, threads, options):
        return {"backend": BACKEND, "precision": PRECISION,
                "num_threads": session.config.get("numThread"),
                "mnn_version": MNN.version()}

    def graph(self, session):
        module = session.module
        names = session.input_names
        outputs = session.output_names

        def run(feeds):
            results = module.forward([_var(feeds[name]) for name in names])
            return {name: np.array(var.read()) for name, var in zip(outputs, results)}

        return Graph(session.input_types, outputs, run)
