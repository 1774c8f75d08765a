"""The protocol's version and ops, as src/pipette/protocol (version.h, ops.cc) defines them."""

PROTOCOL_VERSION = 1

# Every op, in the order docs/protocol.md documents them.
OPS = (
    "hello",
    "load_model",
    "init_context",
    "reset_peak_memory",
    "memory",
    "tokenize",
    "detokenize",
    "pp",
    "tg",
    "ttft",
    "e2e",
    "score",
    "chat",
    "render_chat",
    "quantize",
    "imatrix",
    "shutdown",
)
