#!/usr/bin/env python3
"""TEST FIXTURE, not a runtime: a minimal worker on the Python worker module
(workers/python/pipette_worker) that answers the protocol's ops with FIXED DATA, so that the
worker conformance suite (tests/conformance) checks the module's loop the same way it checks
the C++ llama.cpp worker. Nothing it answers is a measurement.

Its "model" has a vocabulary of 16 ids; a text's tokens are its UTF-8 bytes mod 13, plus 3
(BOS, id 1, first when asked); every position's logits are the same fixed vector. It serves
every op but quantize and imatrix, which its hello leaves out.
"""

import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "workers", "python"))

from pipette_worker import Fields, RequestError, Worker, now_ns, read_memory  # noqa: E402

N_VOCAB = 16
BOS, EOS = 1, 2
INT32_MAX = 2**31 - 1
# The fixed logits of every position, and their log-sum-exp.
LOGITS = [float((v * 7) % 5) - 2.0 for v in range(N_VOCAB)]
LSE = max(LOGITS) + math.log(sum(math.exp(x - max(LOGITS)) for x in LOGITS))

worker = Worker(runtime="fixture", runtime_version="0",
                runtime_build={"fixture": "answers with fixed data"},
                program="fixture_worker.py")
state = {"model": None, "n_ctx": 0, "n_batch": 0}


def need(context):
    if state["model"] is None:
        raise RequestError("no model loaded")
    if context and state["n_ctx"] == 0:
        raise RequestError("no context (send init_context first)")


def check_ids(tokens, field):
    for i, t in enumerate(tokens):
        if t < 0 or t >= N_VOCAB:
            raise RequestError("'%s' holds token id %d at index %d, outside the vocabulary "
                               "[0, %d)" % (field, t, i, N_VOCAB))


def batch(f):
    n_batch = f.int("n_batch", 1, INT32_MAX, None)
    f.check()
    if n_batch is None:
        return state["n_batch"]
    if n_batch > state["n_batch"]:
        raise RequestError("n_batch %d exceeds the context's n_batch %d" %
                           (n_batch, state["n_batch"]))
    return n_batch


def tokenize(text, add_special):
    return ([BOS] if add_special else []) + [3 + b % 13 for b in text.encode("utf-8")]


def text_request(request, op):
    """The fields of tokenize and ttft: (reader, text, add_special), checked."""
    f = Fields(request, op)
    text = f.string("text")
    add_special = f.bool("add_special", True)
    f.bool("parse_special", False)
    f.check()
    return f, text, add_special


@worker.handler("load_model")
def load_model(request):
    f = Fields(request, "load_model")
    path = f.string("path")
    f.check()
    if not os.path.isfile(path):
        raise RequestError("model file '%s' does not exist or is not a regular file" % path)
    before = read_memory()[0]
    t_start = now_ns()
    state.update(model=path, n_ctx=0, n_batch=0)
    t_end = now_ns()
    return {"t_start_ns": t_start, "t_end_ns": t_end, "rss_before": before,
            "rss_after": read_memory()[0],
            "model": {"desc": "fixture", "n_vocab": N_VOCAB, "bos": BOS, "add_bos": True,
                      "eos": EOS, "meta": {}}}


@worker.handler("init_context")
def init_context(request):
    need(context=False)
    f = Fields(request, "init_context")
    n_ctx = f.int("n_ctx", 0, INT32_MAX)
    n_batch = f.int("n_batch", 1, INT32_MAX, 512)
    f.check()
    t_start = now_ns()
    state.update(n_ctx=max(n_ctx, 1), n_batch=min(n_batch, max(n_ctx, 1)))
    return {"t_start_ns": t_start, "t_end_ns": now_ns(), "n_ctx": state["n_ctx"],
            "n_batch": state["n_batch"]}


@worker.handler("tokenize")
def tokenize_op(request):
    _, text, add_special = text_request(request, "tokenize")
    need(context=False)
    return {"tokens": tokenize(text, add_special)}


@worker.handler("detokenize")
def detokenize(request):
    f = Fields(request, "detokenize")
    tokens = f.tokens("tokens")
    f.bool("remove_special", False)
    f.bool("unparse_special", False)
    f.check()
    need(context=False)
    check_ids(tokens, "tokens")
    return {"text": "".join(chr(ord("a") + t) for t in tokens)}


@worker.handler("pp")
def pp(request):
    f = Fields(request, "pp")
    prefix = f.tokens("prefix", [])
    tokens = f.tokens("tokens")
    if f.has("tokens") and not f.error and not tokens:
        f.fail("'tokens' is empty: nothing to process")
    f.check()
    need(context=True)
    check_ids(prefix, "prefix")
    check_ids(tokens, "tokens")
    n_batch = batch(f)
    t_start = now_ns()
    ends = [now_ns() for _ in range(0, len(tokens), n_batch)]
    return {"n_tokens": len(tokens), "t_start_ns": t_start, "t_end_ns": now_ns(),
            "batch_end_ns": ends, "runtime_perf": {}}


@worker.handler("tg")
def tg(request):
    f = Fields(request, "tg")
    prompt = f.tokens("prompt", [])
    first = f.int("first_token", -(2**31), INT32_MAX)
    n_gen = f.int("n_gen", 1, INT32_MAX)
    f.check()
    need(context=True)
    check_ids(prompt, "prompt")
    check_ids([first], "first_token")
    batch(f)
    t_start = now_ns()
    tokens = [(first + 1 + i) % N_VOCAB for i in range(n_gen)]
    ends = [now_ns() for _ in tokens]
    return {"n_gen": n_gen, "t_start_ns": t_start, "token_end_ns": ends, "tokens": tokens,
            "runtime_perf": {}}


@worker.handler("e2e")
def e2e(request):
    f = Fields(request, "e2e")
    prompt = f.tokens("prompt")
    n_gen = f.int("n_gen", 1, INT32_MAX)
    f.check()
    if not prompt:
        raise RequestError("e2e request: 'prompt' is empty: e2e needs at least one token")
    need(context=True)
    check_ids(prompt, "prompt")
    batch(f)
    t_start = now_ns()
    tokens = [(prompt[-1] + 1 + i) % N_VOCAB for i in range(n_gen)]
    ends = [now_ns() for _ in tokens]
    return {"n_prompt": len(prompt), "n_gen": n_gen, "t_start_ns": t_start, "token_end_ns": ends,
            "tokens": tokens, "runtime_perf": {}}


@worker.handler("ttft")
def ttft(request):
    f, text, add_special = text_request(request, "ttft")
    need(context=True)
    batch(f)
    t_start = now_ns()
    tokens = tokenize(text, add_special)
    t_tokenized = now_ns()
    if not tokens:
        raise RequestError("the text tokenizes to no tokens")
    return {"n_prompt_tokens": len(tokens), "t_start_ns": t_start, "t_tokenized_ns": t_tokenized,
            "t_first_token_ns": now_ns(), "token": LOGITS.index(max(LOGITS)), "runtime_perf": {}}


@worker.handler("score", frames=True)
def score(request, frames):
    f = Fields(request, "score")
    tokens = f.tokens("tokens")
    start = f.int("from", 0, INT32_MAX, 0)
    top_k = f.int("top_k", 0, 1000, 0)
    logits = f.bool("logits", False)
    f.check()
    if logits and (top_k > 0 or f.has("ids")):
        f.fail("'logits' sends every logit: it does not combine with 'top_k' or 'ids'")
    if len(tokens) < 2:
        f.fail("'tokens' needs at least 2 tokens: a context and a next token")
    elif start > len(tokens) - 2:
        f.fail("'from' %d leaves no position to score in %d tokens" % (start, len(tokens)))
    f.check()
    need(context=True)
    check_ids(tokens, "tokens")
    batch(f)
    positions = range(start, len(tokens) - 1)
    t_start = now_ns()
    if logits:
        if frames is None:
            raise RequestError("this channel cannot carry frames")
        frames.line({"n_tokens": len(tokens), "from": start, "frames": len(positions),
                     "n_vocab": N_VOCAB, "t_start_ns": t_start})
        for p in positions:
            frames.logits(p, now_ns(), LOGITS)
        frames.flush()
        return {}
    argmax = LOGITS.index(max(LOGITS))
    out = {"n_tokens": len(tokens), "from": start, "t_start_ns": t_start, "t_end_ns": now_ns(),
           "logprob": [LOGITS[tokens[p + 1]] - LSE for p in positions],
           "argmax": [argmax for _ in positions], "logsumexp": [LSE for _ in positions]}
    if top_k > 0:
        order = sorted(range(N_VOCAB), key=lambda v: (-LOGITS[v], v))[:top_k]
        rest = sum(math.exp(LOGITS[v] - LSE) for v in range(N_VOCAB) if v not in order)
        out["top_ids"] = [order for _ in positions]
        out["top_logprobs"] = [[LOGITS[v] - LSE for v in order] for _ in positions]
        out["top_tail_logprob"] = [math.log(max(rest, 1e-300)) for _ in positions]
    return out


@worker.handler("chat")
def chat(request):
    f = Fields(request, "chat")
    has_messages, has_tokens = f.has("messages"), f.has("prompt_tokens")
    has_prompt = f.has("prompt")
    prompt_tokens = f.tokens("prompt_tokens") if has_tokens else []
    rendered = f.string("prompt") if has_prompt else ""
    max_tokens = f.int("max_tokens", 1, INT32_MAX)
    f.check()
    if int(has_messages) + int(has_tokens) + int(has_prompt) != 1:
        f.fail("send exactly one of 'messages' (templated chat), 'prompt' (a rendered prompt) "
               "and 'prompt_tokens'")
    messages = f.array("messages") if has_messages else []
    for i, message in enumerate(messages):
        m = f.nested(message, "messages[%d]" % i)
        m.string("role")
        m.string("content")
        f.take(m)
    f.check()
    need(context=True)
    batch(f)
    if has_messages:
        prompt = "".join("<%s>%s" % (m["role"], m["content"]) for m in messages) + "<assistant>"
        prompt_tokens = tokenize(prompt, True)
    elif has_prompt:
        prompt = rendered
        prompt_tokens = tokenize(prompt, True)
    else:
        check_ids(prompt_tokens, "prompt_tokens")
        prompt = "".join(chr(ord("a") + t) for t in prompt_tokens)
    t_start = now_ns()
    tokens = [3 + i % 13 for i in range(min(max_tokens, 4))]
    out = {"template": None, "prompt": prompt, "n_prompt_tokens": len(prompt_tokens),
           "tokens": tokens, "text": "fixed answer"[:len(tokens) * 3],
           "stop": "max_tokens" if len(tokens) == max_tokens else "eog", "t_start_ns": t_start,
           "t_first_token_ns": now_ns(), "t_end_ns": now_ns()}
    if has_messages:
        out.update({"template": "<{role}>{content}", "template_origin": "chatml",
                    "template_options": f.object("template_options", {}),
                    "enable_thinking": False})
    return out


if __name__ == "__main__":
    sys.exit(worker.serve())
