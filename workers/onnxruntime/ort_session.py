"""Creating the ONNX Runtime session of a converted model, with the fall-back report."""

import os
import shutil
import tempfile

import onnxruntime as ort

from fallback import ASSIGNMENT_INFO_KEY, fallback_report

PROVIDER = "CPUExecutionProvider"
GRAPH_OPTIMIZATION = {
    "disable": ort.GraphOptimizationLevel.ORT_DISABLE_ALL,
    "basic": ort.GraphOptimizationLevel.ORT_ENABLE_BASIC,
    "extended": ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
    "all": ort.GraphOptimizationLevel.ORT_ENABLE_ALL,
}
DEFAULT_GRAPH_OPTIMIZATION = "all"


def _options(threads, graph_optimization):
    so = ort.SessionOptions()
    if threads is not None:
        so.intra_op_num_threads = threads
    so.graph_optimization_level = GRAPH_OPTIMIZATION[graph_optimization]
    so.log_severity_level = 3  # errors only on standard error
    return so


def create_session(onnx_path, threads, graph_optimization, with_report):
    """(session, report): the CPU provider's session of the model at `onnx_path`
    (intra_op_num_threads = `threads`, or ONNX Runtime's default when None). With `with_report`,
    ONNX Runtime also records its node assignment and writes the optimized graph (and its
    weights) into a temporary folder, removed before this returns, to count the inserted casts
    (fallback.py); the report is None without it."""
    so = _options(threads, graph_optimization)
    if not with_report:
        return ort.InferenceSession(onnx_path, so, providers=[PROVIDER]), None
    so.add_session_config_entry(ASSIGNMENT_INFO_KEY, "1")
    scratch = tempfile.mkdtemp(prefix="pipette-ort-optimized-")
    try:
        optimized = os.path.join(scratch, "optimized.onnx")
        so.optimized_model_filepath = optimized
        so.add_session_config_entry("session.optimized_model_external_initializers_file_name",
                                    "optimized.onnx.data")
        session = ort.InferenceSession(onnx_path, so, providers=[PROVIDER])
        report = fallback_report(PROVIDER, session.get_provider_graph_assignment_info(),
                                 optimized)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return session, report


def session_threads(session):
    """The intra-op threads the session runs with (0: ONNX Runtime's default)."""
    return session.get_session_options().intra_op_num_threads
