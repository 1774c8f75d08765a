"""pp, tg, ttft and e2e (docs/protocol.md): raw timestamps and token ids, as the llama.cpp worker
(workers/llama/llama_session.cc) reports them."""

from pipette_worker import Fields, RequestError, now_ns
from pipette_worker.fields import INT32_MAX, INT32_MIN

from .logit_facts import argmax


def pp(state, request):
    f = Fields(request, "pp")
    prefix = f.tokens("prefix", [])
    tokens = f.tokens("tokens")
    n_batch = f.int("n_batch", 1, INT32_MAX, None)
    f.check()
    if not tokens:
        raise RequestError("pp request: 'tokens' is empty: nothing to process")
    state.check_ready(need_context=True)
    state.check_tokens(prefix, "prefix")
    state.check_tokens(tokens, "tokens")
    state.check_fits(len(prefix) + len(tokens),
                     "%d prefix tokens and %d tokens" % (len(prefix), len(tokens)) if prefix
                     else "%d tokens" % len(tokens))
    n_batch = state.resolve_batch(n_batch)

    state.decoder.clear()
    if prefix:
        state.decode_in_batches(prefix, n_batch)  # untimed: pp at a depth
    batch_end_ns = []
    t_start = now_ns()
    logits = state.decode_in_batches(tokens, n_batch, batch_end_ns)
    _ = float(logits[0])  # the last logits have been read
    t_end = now_ns()
    return {"n_tokens": len(tokens), "t_start_ns": t_start, "t_end_ns": t_end,
            "batch_end_ns": batch_end_ns}


def tg(state, request):
    f = Fields(request, "tg")
    prompt = f.tokens("prompt", [])
    first_token = f.int("first_token", INT32_MIN, INT32_MAX)
    n_gen = f.int("n_gen", 1, INT32_MAX)
    n_batch = f.int("n_batch", 1, INT32_MAX, None)
    f.check()
    state.check_ready(need_context=True)
    state.check_tokens(prompt, "prompt")
    state.check_tokens([first_token], "first_token")
    state.check_fits(len(prompt) + n_gen, "prompt (%d tokens) plus n_gen (%d)"
                     % (len(prompt), n_gen))
    n_batch = state.resolve_batch(n_batch)

    state.decoder.clear()
    if prompt:
        state.decode_in_batches(prompt, n_batch)  # untimed
    decoder = state.decoder
    token_end_ns = []
    tokens = []
    next_token = first_token
    t_start = now_ns()
    for _ in range(n_gen):
        next_token = argmax(decoder.run([next_token], 1)[-1])
        token_end_ns.append(now_ns())
        tokens.append(next_token)
    return {"n_gen": n_gen, "t_start_ns": t_start, "token_end_ns": token_end_ns,
            "tokens": tokens}


def ttft(state, request):
    f = Fields(request, "ttft")
    text = f.string("text")
    n_batch = f.int("n_batch", 1, INT32_MAX, None)
    add_special = f.bool("add_special", True)
    parse_special = f.bool("parse_special", False)
    f.check()
    state.check_ready(need_context=True)
    n_batch = state.resolve_batch(n_batch)

    state.decoder.clear()
    t_start = now_ns()
    tokens = state.tokenizer.tokenize(text, add_special, parse_special)
    t_tokenized = now_ns()
    if not tokens:
        raise RequestError("the text tokenizes to no tokens")
    state.check_fits(len(tokens), "the text tokenizes to %d tokens, which" % len(tokens))
    token = argmax(state.decode_in_batches(tokens, n_batch))
    t_first_token = now_ns()
    return {"n_prompt_tokens": len(tokens), "t_start_ns": t_start,
            "t_tokenized_ns": t_tokenized, "t_first_token_ns": t_first_token, "token": token}


def e2e(state, request):
    f = Fields(request, "e2e")
    prompt = f.tokens("prompt")
    n_gen = f.int("n_gen", 1, INT32_MAX)
    n_batch = f.int("n_batch", 1, INT32_MAX, None)
    f.check()
    if not prompt:
        raise RequestError("e2e request: 'prompt' is empty: e2e needs at least one token")
    state.check_ready(need_context=True)
    state.check_tokens(prompt, "prompt")
    # The last generated token is chosen, not decoded.
    state.check_fits(len(prompt) + n_gen - 1, "prompt (%d tokens) plus n_gen (%d)"
                     % (len(prompt), n_gen))
    n_batch = state.resolve_batch(n_batch)

    state.decoder.clear()
    decoder = state.decoder
    t_start = now_ns()
    next_token = argmax(state.decode_in_batches(prompt, n_batch))
    token_end_ns = [now_ns()]
    tokens = [next_token]
    for _ in range(n_gen - 1):
        next_token = argmax(decoder.run([next_token], 1)[-1])
        token_end_ns.append(now_ns())
        tokens.append(next_token)
    return {"n_prompt": len(prompt), "n_gen": n_gen, "t_start_ns": t_start,
            "token_end_ns": token_end_ns, "tokens": tokens}
