"""The worker's clock for every timestamp it reports: CLOCK_MONOTONIC in nanoseconds."""

import time


def now_ns():
    """Nanoseconds of the monotonic clock (only differences within one worker mean anything)."""
    return time.monotonic_ns()
