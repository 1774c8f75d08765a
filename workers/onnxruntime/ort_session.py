"""Creating the ONNX Runtime session of a converted model, and its fall-back report."""

import json
import os
import shutil
import subprocess
import sys
import tempfile



def _import_onnxruntime():
    """onnxruntime 1.32.0's telemetry writes `$TMPDIR/.ses` when the module is imported: TMPDIR
    points at a private folder during the import, removed right after, so a worker (or a test)
    leaves nothing in the caller's temporary folder."""
    import importlib

    if "onnxruntime" in sys.modules:
        return sys.modules["onnxruntime"]
    private = tempfile.mkdtemp(prefix="pipette-ort-")
    saved = os.environ.get("TMPDIR")
    os.environ["TMPDIR"] = private
    try:
        return importlib.import_module("onnxruntime")
    finally:
        if saved is None:
            del os.environ["TMPDIR"]
        else:
            os.environ["TMPDIR"] = saved
        shutil.rmtree(private, ignore_errors=True)


ort = _import_onnxruntime()

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


def create_session(onnx_path, threads, graph_optimization):
    """The CPU provider's session of the model at `onnx_path` (intra_op_num_threads =
    `threads`, or ONNX Runtime's default when None)."""
    return ort.InferenceSession(onnx_path, _options(threads, graph_optimization),
                                providers=[PROVIDER])


def _report_session(onnx_path, threads, graph_optimization):
    """The fall-back report of a session made as create_session makes it: ONNX Runtime records
    its node assignment and writes the optimized graph (and its weights) into a temporary folder,
    removed before this returns, where the inserted casts are counted (fallback.py)."""
    so = _options(threads, graph_optimization)
    so.add_session_config_entry(ASSIGNMENT_INFO_KEY, "1")
    scratch = tempfile.mkdtemp(prefix="pipette-ort-optimized-")
    try:
        optimized = os.path.join(scratch, "optimized.onnx")
        so.optimized_model_filepath = optimized
        so.add_session_config_entry("session.optimized_model_external_initializers_file_name",
                                    "optimized.onnx.data")
        session = ort.InferenceSession(onnx_path, so, providers=[PROVIDER])
        return fallback_report(PROVIDER, session.get_provider_graph_assignment_info(), optimized)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def fallback_report_of(onnx_path, threads, graph_optimization):
    """The fall-back report, made in a child process (this file run as a program): writing the
    optimized graph takes seconds and a second session's memory, which must not count as the
    worker's load time or memory. Returns (report, None) or (None, why it failed)."""
    command = [sys.executable, "-B", os.path.abspath(__file__), onnx_path,
               str(threads or 0), graph_optimization]
    try:
        done = subprocess.run(command, capture_output=True, timeout=1800, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, "the fall-back report could not be made: %s" % e
    if done.returncode != 0:
        tail = done.stderr.decode("utf-8", errors="replace").strip().splitlines()[-1:]
        return None, "the fall-back report failed: %s" % (tail[0] if tail else
                                                          "exit status %d" % done.returncode)
    return json.loads(done.stdout), None


def session_threads(session):
    """The intra-op threads the session runs with (0: ONNX Runtime's default)."""
    return session.get_session_options().intra_op_num_threads


if __name__ == "__main__":  # the child process of fallback_report_of: ONNX_PATH THREADS LEVEL
    sys.stdout.write(json.dumps(_report_session(sys.argv[1], int(sys.argv[2]) or None,
                                                sys.argv[3])))
