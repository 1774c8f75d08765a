"""Per-position facts of one row of logits (docs/protocol.md `score`), in double precision, as
the llama.cpp worker computes them (workers/llama/log_softmax.cc): the op's definition, not a
figure (the controller computes every figure from these)."""

import numpy as np

MIN_TAIL = 1e-300  # a tail probability is at least this, so its log stays finite in JSON


def argmax(row):
    """The most likely id, the first on ties."""
    return int(np.argmax(row))


def log_sum_exp(row):
    """log(sum(exp(row))) in float64, shifted by the maximum."""
    values = row.astype(np.float64)
    top = values.max()
    return float(top + np.log(np.exp(values - top).sum()))


def top_k(row, k, lse):
    """The k most likely (id, log-probability) pairs, most likely first (ties: smaller id)."""
    n = row.shape[0]
    k = max(0, min(k, n))
    if k == 0:
        return []
    values = row.astype(np.float64)
    # Every id at least as likely as the k-th most likely one (ties included), then sorted.
    kth = np.partition(values, n - k)[n - k]
    candidates = np.flatnonzero(values >= kth)
    order = candidates[np.lexsort((candidates, -values[candidates]))][:k]
    return [(int(i), float(values[i] - lse)) for i in order]


def tail_log_prob(row, ids, lse):
    """The log of the probability of every id not in `ids`, summed directly over the rest."""
    keep = np.ones(row.shape[0], dtype=bool)
    chosen = [i for i in ids if 0 <= i < row.shape[0]]
    keep[chosen] = False
    total = np.exp(row.astype(np.float64)[keep] - lse).sum()
    return float(np.log(max(total, MIN_TAIL)))
