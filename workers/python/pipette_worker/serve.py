"""The worker's read-dispatch-reply loop (docs/protocol.md "Framing")."""

import json
import os
import sys
import traceback

from . import frames as frames_mod
from .clock import now_ns
from .fields import RequestError
from .memory import MemoryReadError, read_memory, reset_peak_memory
from .protocol import OPS, PROTOCOL_VERSION

_BUILTIN = ("hello", "reset_peak_memory", "memory", "shutdown")

# With PIPETTE_WORKER_TEST_OPS=1 in its environment, a worker also answers the test op
# `test_throw`, whose handler raises: the conformance suite checks with it that a handler's
# exception is answered ok:false saying what raised (the controller names the op), and the
# worker stays usable (as the C++ loop, workers/common/dispatcher.h). It is not a protocol op:
# hello does not list it.
TEST_OPS_ENV = "PIPETTE_WORKER_TEST_OPS"
TEST_THROW_OP = "test_throw"


def _test_throw(request):
    raise RuntimeError("thrown on purpose by the test op " + TEST_THROW_OP)


def _error_line(request_id, message):
    return frames_mod.dump_line({"id": request_id, "ok": False, "error": message})


def take_protocol_output():
    """Keeps standard output for protocol lines only: returns a private binary copy of it and
    points file descriptor 1 at standard error, so that a stray print from a library cannot
    corrupt the stream. Call before the runtime is imported or started."""
    sys.stdout.flush()
    fd = os.dup(1)
    os.set_inheritable(fd, False)
    os.dup2(2, 1)
    return os.fdopen(fd, "wb")


class Worker:
    """A worker: its runtime's identity and its handlers, one per op it serves.

    A handler takes the request (a dict) and returns the response fields (a dict); it raises
    RequestError to refuse the request (ok:false with its message; the worker stays usable). A
    frames handler also gets a FrameWriter (None where the channel carries no frames) and, when
    it answers with frames, writes its response line itself with `frames.line(...)`.
    """

    def __init__(self, runtime, runtime_version, runtime_build=None, program="worker"):
        self.runtime = runtime
        self.runtime_version = runtime_version
        self._runtime_build = runtime_build or {}
        self.program = program
        self._handlers = {}
        if os.environ.get(TEST_OPS_ENV) == "1":
            self._handlers[TEST_THROW_OP] = (_test_throw, False)

    def handler(self, op, frames=False):
        """Decorator: registers a handler for `op` (with `frames=True`, a frames handler)."""

        def register(fn):
            self._handlers[op] = (fn, frames)
            return fn

        return register

    def ops(self):
        """The ops this worker answers, in the protocol's order (hello's `ops`)."""
        return [op for op in OPS if op in _BUILTIN or op in self._handlers]

    def _hello(self):
        build = self._runtime_build() if callable(self._runtime_build) else self._runtime_build
        return {
            "protocol": PROTOCOL_VERSION,
            "runtime": self.runtime,
            "runtime_version": self.runtime_version,
            "runtime_build": build,
            "pid": os.getpid(),
            "ops": self.ops(),
        }

    def _reset_peak(self):
        supported, why = reset_peak_memory()
        if not supported:
            sys.stderr.write("%s: %s\n" % (self.program, why))
        rss, hwm = read_memory()
        return {"supported": supported, "rss": rss, "hwm": hwm}

    def _answer(self, op, request, frames):
        if op == "hello":
            return self._hello()
        if op == "memory":
            rss, hwm = read_memory()
            return {"rss": rss, "hwm": hwm}
        if op == "reset_peak_memory":
            return self._reset_peak()
        if op == "shutdown":
            return {}
        entry = self._handlers.get(op)
        if entry is None:
            raise RequestError("unknown op '%s'" % op)
        fn, with_frames = entry
        return fn(request, frames) if with_frames else fn(request)

    def dispatch(self, line, out=None):
        """Answers one request line. Returns (bytes to write, shutdown): bytes is None when the
        response (line and frames) is already written to `out`."""
        try:
            request = json.loads(line)
        except ValueError:
            return _error_line(None, "request is not valid JSON"), False
        if not isinstance(request, dict):
            return _error_line(None, "request is not a JSON object"), False
        request_id = request.get("id")
        if not isinstance(request_id, int) or isinstance(request_id, bool):
            return _error_line(None, "request has no integer 'id'"), False
        op = request.get("op")
        if not isinstance(op, str):
            return _error_line(request_id, "request has no string 'op'"), False

        writer = frames_mod.FrameWriter(out, request_id) if out is not None else None
        try:
            body = self._answer(op, request, writer)
            error = None
        except (RequestError, MemoryReadError) as e:
            body, error = None, str(e)
        except Exception as e:  # a handler's bug: said so, and the worker stays usable
            traceback.print_exc(file=sys.stderr)
            # What threw; the controller adds the op ("'pp' failed in the worker: ...").
            body, error = None, "the handler threw %s: %s" % (type(e).__name__, e)
        if writer is not None and writer.started:
            # The response line went out before the frames: a failure now is an abort frame.
            if error is not None:
                writer.abort(-1, now_ns(), error)
            return None, False
        if error is not None:
            return _error_line(request_id, error), False
        return frames_mod.dump_line({"id": request_id, "ok": True, **(body or {})}), op == "shutdown"

    def serve(self, stdin=None, out=None):
        """Answers every request line of `stdin` (default: standard input) on `out` (default:
        the protocol's copy of standard output) until the input ends or `shutdown`. Returns the
        exit status: 0, or 1 when the controller is gone."""
        if out is None:
            out = take_protocol_output()
        if stdin is None:
            stdin = sys.stdin.buffer
        for raw in stdin:
            line = raw.decode("utf-8", errors="replace").rstrip("\n")
            if line.endswith("\r"):
                line = line[:-1]
            data, shutdown = self.dispatch(line, out)
            try:
                if data is not None:
                    out.write(data)
                out.flush()
            except (BrokenPipeError, OSError):
                return 1  # the controller is gone
            if shutdown:
                break
        return 0
