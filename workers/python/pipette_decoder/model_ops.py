"""load_model, init_context, tokenize and detokenize (docs/protocol.md), on the worker's
backend (backend.py): the runtime's session of the model and what it reports."""

from pipette_worker import Fields, RequestError, now_ns, read_memory
from pipette_worker.fields import INT32_MAX
from pipette_worker.memory import MemoryReadError

from .decoder import Decoder, DecodeError
from .model_folder import ModelFolderError, open_model_folder
from .state import DEFAULT_N_BATCH
from .text_tokenizer import TextTokenizer


def _rss():
    try:
        return read_memory()[0]
    except MemoryReadError:
        return None


def _threads(f):
    """The request's `threads` (the experiment's parameter), or llama.cpp's name n_threads."""
    if f.has("threads"):
        return f.int("threads", 1, INT32_MAX, None)
    return f.int("n_threads", 1, INT32_MAX, None)


def _model_info(model):
    meta = model.meta
    return {
        "desc": model.desc(),
        "n_params": model.n_params(),
        "size_bytes": model.size_bytes(),
        "n_vocab": meta["n_vocab"],
        "n_ctx_train": meta["n_ctx_train"],
        "n_layer": meta["n_layer"],
        "n_embd": meta["n_embd"],
        "bos": meta["bos"],
        "add_bos": bool(meta.get("add_bos", False)),
        "eos": meta["eos"],
        "meta": model.meta_strings(),
    }


def load_model(state, request):
    backend = state.backend
    f = Fields(request, "load_model")
    path = f.string("path")
    threads = _threads(f)
    options = backend.load_options(f)
    f.check()
    try:
        model = open_model_folder(path, backend.folder_kind)  # refused before the unload
    except ModelFolderError as e:
        raise RequestError(str(e)) from e
    # The old model and its context go first, so the new one is measured on its own.
    state.unload()
    rss_before = _rss()
    t_start = now_ns()
    try:
        meta = model.meta
        tokenizer = TextTokenizer(model.tokenizer_path, meta["bos"], meta["eos"],
                                  bool(meta.get("add_bos", False)),
                                  bool(meta.get("add_eos", False)))
        session = backend.create_session(model.model_path, threads, options)
    except Exception as e:  # the runtimes' and tokenizers' errors have no common type
        raise RequestError("%s could not load '%s': %s; no model is loaded now"
                           % (backend.runtime, path, e)) from e
    t_end = now_ns()
    rss_after = _rss()
    report = backend.report(session, model.model_path, threads, options)  # after the span
    state.model, state.tokenizer, state.session = model, tokenizer, session
    state.threads, state.options = threads, options
    out = {"t_start_ns": t_start, "t_end_ns": t_end, "rss_before": rss_before,
           "rss_after": rss_after, "model": _model_info(model)}
    out["threads"] = threads
    out.update(report)
    out["chat_template"] = model.meta.get("chat_template")
    out["bos_text"] = model.meta.get("bos_text")
    out["eos_text"] = model.meta.get("eos_text")
    out["add_eos"] = bool(model.meta.get("add_eos", False))  # for the controller's renderer
    return out


def init_context(state, request):
    f = Fields(request, "init_context")
    n_ctx = f.int("n_ctx", 0, INT32_MAX)
    n_batch = f.int("n_batch", 1, INT32_MAX, DEFAULT_N_BATCH)
    threads = _threads(f)
    f.check()
    state.check_ready(need_context=False)
    backend = state.backend
    meta = state.model.meta
    state.decoder = None
    t_start = now_ns()
    recreated = threads is not None and threads != state.threads
    if recreated:
        # The threads are the session's: a session is made again with them (the load's
        # fall-back report holds: the same graph and options).
        try:
            state.session = backend.create_session(state.model.model_path, threads,
                                                   state.options)
        except Exception as e:
            state.unload()
            raise RequestError("%s could not create the session again with %d threads: %s; "
                               "no model is loaded now" % (backend.runtime, threads, e)) from e
        state.threads = threads
    try:
        state.decoder = Decoder(backend.graph(state.session), meta["n_layer"],
                                meta["n_head_kv"], meta["head_dim"])
    except DecodeError as e:
        raise RequestError("the model's graph cannot be run: %s" % e) from e
    t_end = now_ns()
    # n_ctx 0 is the model's training context, as in llama.cpp; the batch is clamped to it.
    state.n_ctx = n_ctx if n_ctx > 0 else meta["n_ctx_train"]
    state.n_batch = min(n_batch, state.n_ctx)
    return {"t_start_ns": t_start, "t_end_ns": t_end, "n_ctx": state.n_ctx,
            "n_batch": state.n_batch, "threads": state.threads,
            "session_recreated": recreated}


def tokenize(state, request):
    f = Fields(request, "tokenize")
    text = f.string("text")
    add_special = f.bool("add_special", True)
    parse_special = f.bool("parse_special", False)
    f.check()
    state.check_ready(need_context=False)
    return {"tokens": state.tokenizer.tokenize(text, add_special, parse_special)}


def detokenize(state, request):
    f = Fields(request, "detokenize")
    tokens = f.tokens("tokens")
    remove_special = f.bool("remove_special", False)
    unparse_special = f.bool("unparse_special", False)
    f.check()
    state.check_ready(need_context=False)
    state.check_tokens(tokens, "tokens")
    return {"text": state.tokenizer.detokenize(tokens, remove_special, unparse_special)}
