"""Running the converted graph with its KV cache (the design's "The graph"): each run feeds
input_ids, position_ids (past length + 0..S-1), last_n and the cache, and keeps the presents
as the next run's cache."""

import numpy as np

_NUMPY_TYPES = {"tensor(float)": np.float32, "tensor(float16)": np.float16}


class DecodeError(Exception):
    """The graph does not have the interface, or a run failed."""


class Decoder:
    """The graph's runs and the KV cache of one context."""

    def __init__(self, session, n_layer, n_head_kv, head_dim):
        inputs = {i.name: i for i in session.get_inputs()}
        self._outputs = [o.name for o in session.get_outputs()]
        want_in = ["input_ids", "position_ids", "last_n"]
        self._past = []
        for i in range(n_layer):
            self._past += ["past_key_%d" % i, "past_value_%d" % i]
        missing = [n for n in want_in + self._past if n not in inputs]
        if missing:
            raise DecodeError("the graph lacks the input(s) " + ", ".join(missing[:4]))
        self._present = ["present" + n[len("past"):] for n in self._past]
        missing = [n for n in ["logits"] + self._present if n not in self._outputs]
        if missing:
            raise DecodeError("the graph lacks the output(s) " + ", ".join(missing[:4]))
        kv_type = inputs[self._past[0]].type
        if kv_type not in _NUMPY_TYPES:
            raise DecodeError("the graph's KV cache type %s is not float or float16" % kv_type)
        self.kv_dtype = _NUMPY_TYPES[kv_type]
        self._session = session
        self._shape = (1, n_head_kv, 0, head_dim)
        self._cache = None
        self.n_past = 0
        self.clear()

    def clear(self):
        """Empties the KV cache (the next run starts at position 0)."""
        empty = np.zeros(self._shape, dtype=self.kv_dtype)
        self._cache = [empty] * len(self._past)
        self.n_past = 0

    def cache(self):
        """The cache's arrays, past_key_0, past_value_0, past_key_1, ... (for tests)."""
        return list(self._cache)

    def run(self, tokens, last_n):
        """Decodes `tokens` after the cache; returns the logits of the last `last_n` of them,
        float32 [last_n, n_vocab], and keeps the grown cache."""
        n = len(tokens)
        feeds = {
            "input_ids": np.asarray(tokens, dtype=np.int64).reshape(1, n),
            "position_ids": np.arange(self.n_past, self.n_past + n, dtype=np.int64).reshape(1, n),
            "last_n": np.array([last_n], dtype=np.int64),
        }
        feeds.update(zip(self._past, self._cache))
        outputs = dict(zip(self._outputs, self._session.run(None, feeds)))
        self._cache = [outputs[name] for name in self._present]
        self.n_past += n
        return outputs["logits"][0]
