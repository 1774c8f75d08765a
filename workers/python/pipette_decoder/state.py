"""The worker's state: the loaded model (its folder, tokenizer and the runtime's session) and
the context (the KV cache and its sizes), with the checks every op shares."""

from pipette_worker import RequestError, now_ns

DEFAULT_N_BATCH = 512  # prompt tokens per graph run when init_context does not say


def batch_spans(n, n_batch):
    """(start, count) of each batch of at most n_batch of n tokens, in order."""
    return [(start, min(n_batch, n - start)) for start in range(0, n, n_batch)]


class State:
    """What is loaded, by the worker's `backend` (backend.py). `model` (a ModelFolder),
    `tokenizer` and `session` exist after load_model; `decoder`, `n_ctx` and `n_batch` after
    init_context."""

    def __init__(self, backend):
        self.backend = backend
        self.model = None
        self.tokenizer = None
        self.session = None
        self.options = None  # the backend's own load options
        self.threads = None  # the session's threads as asked (None: the runtime's default)
        self.decoder = None
        self.n_ctx = 0
        self.n_batch = 0

    def unload(self):
        self.decoder = None
        self.session = None
        self.tokenizer = None
        self.model = None

    @property
    def n_vocab(self):
        return self.model.meta["n_vocab"]

    def check_ready(self, need_context):
        if self.model is None:
            raise RequestError("no model loaded")
        if need_context and self.decoder is None:
            raise RequestError("no context (send init_context first)")

    def check_tokens(self, tokens, field):
        n_vocab = self.n_vocab
        for i, t in enumerate(tokens):
            if t < 0 or t >= n_vocab:
                raise RequestError("'%s' holds token id %d at index %d, outside the vocabulary "
                                   "[0, %d)" % (field, t, i, n_vocab))

    def check_fits(self, n_tokens, what):
        if n_tokens > self.n_ctx:
            raise RequestError("%s do not fit the context (n_ctx %d)" % (what, self.n_ctx))

    def resolve_batch(self, requested):
        if requested is None:
            return self.n_batch
        if requested > self.n_batch:
            raise RequestError("n_batch %d exceeds the context's n_batch %d (set a larger "
                               "n_batch in init_context)" % (requested, self.n_batch))
        return requested

    def decode_in_batches(self, tokens, n_batch, batch_end_ns=None):
        """Decodes `tokens` after the cache in batches of n_batch; the logits of the last one
        (float32 [n_vocab]). With `batch_end_ns`, appends the clock after each batch."""
        logits = None
        for start, count in batch_spans(len(tokens), n_batch):
            logits = self.decoder.run(tokens[start:start + count], 1)
            if batch_end_ns is not None:
                batch_end_ns.append(now_ns())
        return logits[-1]
