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


def worker_samples(command, model, threads, reps):
    proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    ids = iter(range(1, 1 << 30))

    def call(op, **fields):
        proc.stdin.write((json.dumps({"id": next(ids), "op": op, **fields}) + "\n").encode())
        proc.stdin.flush()
        reply = json.loads(proc.stdout.readline())
        if not reply.get("ok"):
            raise SystemExit("the worker refused %s: %s" % (op, reply.get("error")))
        return reply

    call("hello")
    meta = call("load_model", path=model, threads=threads, fallback_report=False)["model"]
    call("init_context", n_ctx=PROMPT + N_GEN + 8, threads=threads)
    for _ in range(20):  # warm-up
        call("memory")
    for _ in range(reps * 20):
        t0 = time.monotonic_ns()
        call("memory")
        print("round_trip_ns", time.monotonic_ns() - t0)
    prompt = [i % meta["n_vocab"] for i in range(1, PROMPT + 1)]
    call("tg", prompt=prompt, first_token=1, n_gen=N_GEN)  # warm-up
    for _ in range(reps):
        r = call("tg", prompt=prompt, first_token=1, n_gen=N_GEN)
        ends = [r["t_start_ns"]] + r["token_end_ns"]
        for a, b in zip(ends, ends[1:]):
            print("worker_step_ns", b - a)
    call("shutdown")
    proc.wait(timeout=60)
    return prompt


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


def bare_samples(runtime, model, threads, reps, prompt):
    with open(os.path.join(model, "pipette-model.json"), encoding="utf-8") as f:
        meta = json.load(f)
    backend, options, graph_file = backend_of(runtime)
    session = backend.create_session(os.path.join(model, graph_file), threads, options)
    graph = backend.graph(session)
    past = sorted(name for name in graph.inputs if name.startswith("past_"))
    kv_dtype = graph.inputs[past[0]]
    shape = (1, meta["n_head_kv"], 0, meta["head_dim"])

    def feeds(tokens, n_past, cache):
        n = len(tokens)
        out = {"input_ids": np.array([tokens], np.int64),
               "position_ids": np.arange(n_past, n_past + n, dtype=np.int64).reshape(1, n),
               "last_n": np.array([1], np.int64)}
        out.update(zip(past, cache))
        return out

    for rep in range(reps + 1):  # the first is a warm-up
        cache = [np.zeros(shape, kv_dtype)] * len(past)
        result = graph.run(feeds(prompt, 0, cache))
        cache = [result["present" + name[len("past"):]] for name in past]
        token = 1
        for step in range(N_GEN):
            f = feeds([token], PROMPT + step, cache)
            t0 = time.monotonic_ns()
            result = graph.run(f)
            elapsed = time.monotonic_ns() - t0
            cache = [result["present" + name[len("past"):]] for name in past]
            token = int(np.argmax(result["logits"][0, -1]))
            if rep > 0:
                print("bare_run_ns", elapsed)


def main():
    runtime, command, model = sys.argv[1], sys.argv[2], sys.argv[3]
    threads, reps = int(sys.argv[4]), int(sys.argv[5])
    prompt = worker_samples(command, model, threads, reps)
    bare_samples(runtime, model, threads, reps, prompt)


if __name__ == "__main__":
    main()
