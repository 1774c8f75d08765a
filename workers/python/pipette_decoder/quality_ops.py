"""score and chat (docs/protocol.md): per-position facts of the model's distribution (or every
logit, as frames), and greedy generation, as the llama.cpp worker answers them."""

import array
import sys

import numpy as np

from pipette_worker import Fields, RequestError, now_ns
from pipette_worker.fields import INT32_MAX, json_kind

from .logit_facts import argmax, log_sum_exp, tail_log_prob, top_k as top_k_of
from .state import batch_spans

NO_TEMPLATES = ("chat request: this runtime does not render chat templates; the controller "
                "sends the rendered prompt ('prompt') or 'prompt_tokens'")


def _score_request(state, request):
    f = Fields(request, "score")
    tokens = f.tokens("tokens")
    start = f.int("from", 0, INT32_MAX, 0)
    n_batch = f.int("n_batch", 1, INT32_MAX, None)
    top_k = f.int("top_k", 0, 1000, 0)
    logits = f.bool("logits", False)
    f.check()
    if logits and (top_k > 0 or f.has("ids")):
        f.fail("'logits' sends every logit: it does not combine with 'top_k' or 'ids'")
    n = len(tokens)
    if not f.error and n < 2:
        f.fail("'tokens' needs at least 2 tokens: a context and a next token")
    if not f.error and start > n - 2:
        f.fail("'from' %d leaves no position to score in %d tokens" % (start, n))
    ids = None
    if not f.error and f.has("ids"):
        rows = f.array("ids")
        if not f.error and len(rows) != n - 1 - start:
            f.fail("'ids' must be an array with one list of token ids per scored position "
                   "(%d)" % (n - 1 - start))
        ids = []
        for row in rows if not f.error else []:
            reader = Fields({"ids": row}, "score")
            ids.append(reader.tokens("ids"))
            f.take(reader)
    f.check()
    state.check_ready(need_context=True)
    state.check_tokens(tokens, "tokens")
    state.check_fits(n, "%d tokens" % n)
    for row in ids or []:
        state.check_tokens(row, "ids")
    return tokens, start, state.resolve_batch(n_batch), top_k, logits, ids


def _frame_values(row):
    values = array.array("f")
    values.frombytes(np.ascontiguousarray(row, dtype="<f4").tobytes())
    if sys.byteorder != "little":
        values.byteswap()  # FrameWriter swaps native floats to little-endian
    return values


def score(state, request, frames):
    tokens, start, n_batch, top_k, with_frames, ids = _score_request(state, request)
    if with_frames and frames is None:
        raise RequestError("this channel cannot carry frames")
    n = len(tokens)
    n_vocab = state.n_vocab
    facts = {"logprob": [], "argmax": [], "logsumexp": []}
    if top_k > 0:
        facts.update(top_ids=[], top_logprobs=[], top_tail_logprob=[])
    if ids is not None:
        facts.update(ids_logprob=[], ids_tail_logprob=[])
    decoder = state.decoder
    decoder.clear()
    t_start = now_ns()
    if with_frames:
        frames.line({"n_tokens": n, "from": start, "frames": n - 1 - start, "n_vocab": n_vocab,
                     "t_start_ns": t_start})
    for begin, count in batch_spans(n, n_batch):
        end = begin + count  # one past the batch's last position
        first = max(start, begin)  # the batch's first scored position
        last_n = end - first if first < end else 1
        logits = decoder.run(tokens[begin:end], last_n)
        for pos in range(first, min(end, n - 1)):
            row = logits[pos - (end - last_n)]
            if not np.isfinite(row).all():
                raise RequestError("the logits at position %d are not finite (NaN or "
                                   "infinity): the model or runtime is broken" % pos)
            if with_frames:
                frames.logits(pos, now_ns(), _frame_values(row))
                continue
            lse = log_sum_exp(row)
            facts["logsumexp"].append(lse)
            facts["logprob"].append(float(np.float64(row[tokens[pos + 1]]) - lse))
            facts["argmax"].append(argmax(row))
            if top_k > 0:
                best = top_k_of(row, top_k, lse)
                facts["top_ids"].append([i for i, _ in best])
                facts["top_logprobs"].append([lp for _, lp in best])
                facts["top_tail_logprob"].append(tail_log_prob(row, [i for i, _ in best], lse))
            if ids is not None:
                wanted = ids[pos - start]
                facts["ids_logprob"].append([float(np.float64(row[i]) - lse) for i in wanted])
                facts["ids_tail_logprob"].append(tail_log_prob(row, wanted, lse))
        if with_frames:
            frames.flush()
    t_end = now_ns()
    if with_frames:
        return {}
    return {"n_tokens": n, "from": start, "t_start_ns": t_start, "t_end_ns": t_end, **facts}


MAX_STOPS, MAX_STOP_BYTES = 16, 256


def _stops(request):
    """The request's stop sequences (docs/protocol.md "chat"): at most 16, each 1 to 256
    bytes of UTF-8."""
    f = Fields(request, "chat")
    stops = f.array("stop", [])
    f.check()
    if len(stops) > MAX_STOPS:
        f.fail("field 'stop' holds %d sequences; at most %d" % (len(stops), MAX_STOPS))
    for s in stops:
        if not isinstance(s, str):
            f.fail("field 'stop' must hold only strings, not " + json_kind(s))
        elif not 1 <= len(s.encode("utf-8", "surrogatepass")) <= MAX_STOP_BYTES:
            f.fail("field 'stop' holds a sequence of %d bytes; each is 1 to %d"
                   % (len(s.encode("utf-8", "surrogatepass")), MAX_STOP_BYTES))
    f.check()
    return stops


def _chat_prompt(state, request):
    """(prompt tokens, prompt text, max_tokens, n_batch) of a chat request."""
    f = Fields(request, "chat")
    has = [name for name in ("messages", "prompt", "prompt_tokens") if f.has(name)]
    prompt_tokens = f.tokens("prompt_tokens", None)
    prompt = f.string("prompt", None)
    max_tokens = f.int("max_tokens", 1, INT32_MAX)
    n_batch = f.int("n_batch", 1, INT32_MAX, None)
    f.check()
    if len(has) != 1:
        f.fail("send exactly one of 'messages' (templated chat), 'prompt' (the rendered prompt "
               "text) and 'prompt_tokens'")
    elif has == ["messages"]:
        f.messages()
        f.check()
        raise RequestError(NO_TEMPLATES)
    elif f.has("template_options"):
        f.fail("'template_options' go with 'messages'; this runtime renders no template")
    elif prompt_tokens is not None and not prompt_tokens:
        f.fail("'prompt_tokens' is empty: nothing to continue")
    f.check()
    state.check_ready(need_context=True)
    n_batch = state.resolve_batch(n_batch)
    tokenizer = state.tokenizer
    if prompt_tokens is not None:
        state.check_tokens(prompt_tokens, "prompt_tokens")
        # No rendered text exists: the prompt's own text, special tokens written out.
        text = tokenizer.detokenize(prompt_tokens, remove_special=False, unparse_special=True)
        return prompt_tokens, text, max_tokens, n_batch
    # Tokenized as llama-server tokenizes a completion's prompt: BOS as the vocabulary adds
    # it, special tokens written as text parsed.
    tokens = tokenizer.tokenize(prompt, add_special=True, parse_special=True)
    if not tokens:
        raise RequestError("the prompt tokenizes to no tokens")
    return tokens, prompt, max_tokens, n_batch


def _holds_stop(text, stops):
    return any(s in text for s in stops)


def chat(state, request):
    prompt, text, max_tokens, n_batch = _chat_prompt(state, request)
    stops = _stops(request)
    n_prompt = len(prompt)
    if n_prompt + max_tokens > state.n_ctx:
        raise RequestError("the prompt (%d tokens) plus max_tokens (%d) = %d do not fit the "
                           "context (n_ctx %d)" % (n_prompt, max_tokens, n_prompt + max_tokens,
                                                   state.n_ctx))
    eog = state.model.eog
    decoder = state.decoder
    decoder.clear()
    t_start = now_ns()
    logits = state.decode_in_batches(prompt, n_batch)
    tokens = []
    stop = "max_tokens"
    t_first = None
    while True:
        next_token = argmax(logits)
        if t_first is None:
            t_first = now_ns()
        if next_token in eog:
            stop = "eog"
            break
        tokens.append(next_token)
        if stops and _holds_stop(state.tokenizer.detokenize(
                tokens, remove_special=False, unparse_special=False), stops):
            stop = "stop"
            break
        if len(tokens) == max_tokens:
            break
        logits = decoder.run([next_token], 1)[-1]  # only a token that is continued
    t_end = now_ns()
    return {"template": None, "prompt": text, "n_prompt_tokens": n_prompt, "tokens": tokens,
            "text": state.tokenizer.detokenize(tokens, remove_special=False,
                                               unparse_special=False),
            "stop": stop, "t_start_ns": t_start, "t_first_token_ns": t_first, "t_end_ns": t_end}
