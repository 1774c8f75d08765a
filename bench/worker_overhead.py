"""A Python runtime worker's own per-call overhead: raw samples for bench/worker-overhead.sh
(which takes the medians). Prints one line per sample, "<what> <nanoseconds>":

- round_trip_ns: a `memory` request written to the worker program and its response read back
  (the protocol round trip of a trivial op, over the pipes, JSON both ways);
- worker_step_ns: one tg step as the worker times it (token_end_ns differences: feeds, the
  graph run, the presents kept, the argmax);
- bare_run_ns: one bare run of the same one-token step through the runtime's own backend
  (workers/<runtime>/*_backend.py: the session the worker makes, its Graph.run, which is the
  runtime's call and nothing of the worker loop), in this process, at the same cache lengths
  (feeds made before the clock starts).

Both are loaded before the first timed step and measured in turn, one request's steps each
(worker, bare, worker, bare, ...), so a change in the machine's load touches both alike.

Usage: worker_overhead.py RUNTIME WORKER_COMMAND MODEL_FOLDER THREADS REPS
(RUNTIME: onnxruntime, openvino or mnn; its worker folder and workers/python on PYTHONPATH)
"""

import json
import os
import shlex
import subprocess
import sys
import time

import numpy as np

PROMPT = 64  # tokens decoded before the timed steps
N_GEN = 32


class WorkerSide:
    """The worker program, loaded, with its context; `rep()` prints one tg request's steps."""

    def __init__(self, command, model, threads, reps):
        self.proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE)
        self.ids = iter(range(1, 1 << 30))
        self.call("hello")
        meta = self.call("load_model", path=model, threads=threads, fallback_report=False)["model"]
        self.call("init_context", n_ctx=PROMPT + N_GEN + 8, threads=threads)
        for _ in range(20):  # warm-up
            self.call("memory")
        for _ in range(reps * 20):
            t0 = time.monotonic_ns()
            self.call("memory")
            print("round_trip_ns", time.monotonic_ns() - t0)
        self.prompt = [i % meta["n_vocab"] for i in range(1, PROMPT + 1)]
        self.call("tg", prompt=self.prompt, first_token=1, n_gen=N_GEN)  # warm-up

    def call(self, op, **fields):
        self.proc.stdin.write((json.dumps({"id": next(self.ids), "op": op, **fields}) + "\n").encode())
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        if not reply.get("ok"):
            raise SystemExit("the worker refused %s: %s" % (op, reply.get("error")))
        return reply

    def rep(self):
        r = self.call("tg", prompt=self.prompt, first_token=1, n_gen=N_GEN)
        ends = [r["t_start_ns"]] + r["token_end_ns"]
        for a, b in zip(ends, ends[1:]):
            print("worker_step_ns", b - a)

    def close(self):
        self.call("shutdown")
        self.proc.wait(timeout=60)


def backend_of(runtime):
    """The runtime's backend and its load options, as its worker makes them."""
    if runtime == "onnxruntime":
        from ort_backend import OrtBackend, OrtOptions

        return OrtBackend(), OrtOptions("all", False), "model.onnx"
    if runtime == "openvino":
        from ov_backend import OvBackend

        return OvBackend(), None, "model.onnx"
    if runtime == "mnn":
        from mnn_backend import MnnBackend

        return MnnBackend(), None, "model.mnn"
    raise SystemExit("unknown runtime %r (onnxruntime, openvino, mnn)" % runtime)


class BareSide:
    """The same steps through the runtime's backend in this process; `rep()` prints them."""

    def __init__(self, runtime, model, threads, prompt):
        with open(os.path.join(model, "pipette-model.json"), encoding="utf-8") as f:
            meta = json.load(f)
        backend, options, graph_file = backend_of(runtime)
        session = backend.create_session(os.path.join(model, graph_file), threads, options)
        self.graph = backend.graph(session)
        self.past = sorted(name for name in self.graph.inputs if name.startswith("past_"))
        self.kv_dtype = self.graph.inputs[self.past[0]]
        self.shape = (1, meta["n_head_kv"], 0, meta["head_dim"])
        self.prompt = prompt
        self.rep(timed=False)  # warm-up

    def feeds(self, tokens, n_past, cache):
        n = len(tokens)
        out = {"input_ids": np.array([tokens], np.int64),
               "position_ids": np.arange(n_past, n_past + n, dtype=np.int64).reshape(1, n),
               "last_n": np.array([1], np.int64)}
        out.update(zip(self.past, cache))
        return out

    def rep(self, timed=True):
        past = self.past
        cache = [np.zeros(self.shape, self.kv_dtype)] * len(past)
        result = self.graph.run(self.feeds(self.prompt, 0, cache))
        cache = [result["present" + name[len("past"):]] for name in past]
        token = 1
        for step in range(N_GEN):
            f = self.feeds([token], PROMPT + step, cache)
            t0 = time.monotonic_ns()
            result = self.graph.run(f)
            elapsed = time.monotonic_ns() - t0
            cache = [result["present" + name[len("past"):]] for name in past]
            token = int(np.argmax(result["logits"][0, -1]))
            if timed:
                print("bare_run_ns", elapsed)


def main():
    runtime, command, model = sys.argv[1], sys.argv[2], sys.argv[3]
    threads, reps = int(sys.argv[4]), int(sys.argv[5])
    worker = WorkerSide(command, model, threads, reps)
    bare = BareSide(runtime, model, threads, worker.prompt)
    for _ in range(reps):  # side by side: a worker request, then the same steps bare
        worker.rep()
        bare.rep()
    worker.close()


if __name__ == "__main__":
    main()
