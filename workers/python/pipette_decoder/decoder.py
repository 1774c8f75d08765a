"""Running the converted graph with its KV cache (the design's "The graph"): each run feeds
input_ids, position_ids (past length + 0..S-1), last_n and the cache, and keeps the presents
as the next run's cache.

The runtime is behind a graph: `inputs` ({name: numpy dtype the runtime takes}), `outputs`
(names) and `run(feeds)` ({name: array} -> {name: array}), which each worker's backend makes
from its session."""

import numpy as np

_KV_TYPES = (np.float32, np.float16)
_INDEX_TYPES = (np.int64, np.int32)


class DecodeError(Exception):
    """The graph does not have the interface, or a run failed."""


class Decoder:
    """The graph's runs and the KV cache of one context."""

    def __init__(self, graph, n_layer, n_head_kv, head_dim):
        inputs = graph.inputs
        outputs = set(graph.outputs)
        want_in = ["input_ids", "position_ids", "last_n"]
        self._past = []
        for i in range(n_layer):
            self._past += ["past_key_%d" % i, "past_value_%d" % i]
        missing = [n for n in want_in + self._past if n not in inputs]
        if missing:
            raise DecodeError("the graph lacks the input(s) " + ", ".join(missing[:4]))
        self._present = ["present" + n[len("past"):] for n in self._past]
        missing = [n for n in ["logits"] + self._present if n not in outputs]
        if missing:
            raise DecodeError("the graph lacks the output(s) " + ", ".join(missing[:4]))
        self.kv_dtype = inputs[self._past[0]]
        if self.kv_dtype not in _KV_TYPES:
            raise DecodeError("the graph's KV cache type %s is not float or float16"
                              % np.dtype(self.kv_dtype).name)
        self._index = {}
        for name in want_in:
            if inputs[name] not in _INDEX_TYPES:
                raise DecodeError("the graph's input %s has type %s, not int64 or int32"
                                  % (name, np.dtype(inputs[name]).name))
            self._index[name] = inputs[name]
        self._graph = graph
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
        index = self._index
        feeds = {
            "input_ids": np.asarray(tokens, dtype=index["input_ids"]).reshape(1, n),
            "position_ids": np.arange(self.n_past, self.n_past + n,
                                      dtype=index["position_ids"]).reshape(1, n),
            "last_n": np.array([last_n], dtype=index["last_n"]),
        }
        feeds.update(zip(self._past, self._cache))
        outputs = self._graph.run(feeds)
        self._cache = [outputs[name] for name in self._present]
        self.n_past += n
        return outputs["logits"][0]
