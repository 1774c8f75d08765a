"""The OpenVINO worker's backend (pipette_decoder/backend.py): the converted model.onnx read by
OpenVINO's ONNX frontend and compiled for its CPU plugin. The CPU plugin infers in bf16 or f16
by default where the CPU has them, so the precision is asked for (f32) and the load reply says
what the compiled model and its execution graph ran at."""

import openvino as ov

from pipette_decoder.backend import Graph
from pipette_decoder.model_folder import ONNX

DEVICE = "CPU"
PRECISION = "f32"


class OvSession:
    """A compiled model and its one infer request."""

    def __init__(self, compiled):
        self.compiled = compiled
        self.request = compiled.create_infer_request()


def compile_config(threads):
    config = {"INFERENCE_PRECISION_HINT": PRECISION}
    if threads is not None:
        config["INFERENCE_NUM_THREADS"] = threads
    return config


def runtime_precisions(compiled):
    """{precision: nodes} of the compiled model's execution graph (each node's
    runtimePrecision, as the CPU plugin chose it)."""
    counts = {}
    for op in compiled.get_runtime_model().get_ordered_ops():
        info = op.get_rt_info()
        if "runtimePrecision" in info:
            name = info["runtimePrecision"].astype(str)
            counts[name] = counts.get(name, 0) + 1
    return dict(sorted(counts.items()))


class OvBackend:
    runtime = "openvino"
    folder_kind = ONNX

    def __init__(self):
        self._core = ov.Core()

    def load_options(self, f):
        return None  # threads only

    def create_session(self, model_path, threads, options):
        model = self._core.read_model(model_path)
        return OvSession(self._core.compile_model(model, DEVICE, compile_config(threads)))

    def report(self, session, model_path, threads, options):
        compiled = session.compiled
        return {
            "device": DEVICE,
            "device_name": self._core.get_property(DEVICE, "FULL_DEVICE_NAME"),
            "device_capabilities": list(self._core.get_property(DEVICE,
                                                                 "OPTIMIZATION_CAPABILITIES")),
            "inference_precision_asked": PRECISION,
            "inference_precision": compiled.get_property("INFERENCE_PRECISION_HINT").get_type_name(),
            "inference_num_threads": compiled.get_property("INFERENCE_NUM_THREADS"),
            "runtime_precisions": runtime_precisions(compiled),
        }

    def graph(self, session):
        compiled = session.compiled
        request = session.request
        # A port may have several names (the ONNX value's and others): each is kept.
        inputs = {name: p.get_element_type().to_dtype().type
                  for p in compiled.inputs for name in p.get_names()}
        outputs = [name for p in compiled.outputs for name in sorted(p.get_names())]

        def run(feeds):
            # share_outputs=False: the results are copies, kept as the next run's cache while
            # the request's own tensors are written again.
            results = request.infer(feeds, share_inputs=False, share_outputs=False)
            return {name: value for port, value in results.items() for name in port.get_names()}

        return Graph(inputs, outputs, run)
