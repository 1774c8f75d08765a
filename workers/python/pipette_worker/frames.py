"""Binary frames after a response line (docs/protocol.md "Frames").

Every frame is a 24-byte little-endian header (magic, int32 position, uint32 count, 4 reserved
bytes, int64 t_ns) and a payload: `count` float32 logits ("PLGT") or `count` bytes of a UTF-8
message ("PLGX", which ends the frames early).
"""

import array
import json
import struct
import sys

HEADER = struct.Struct("<4siIIq")
HEADER_BYTES = HEADER.size  # 24
MAX_ABORT_MESSAGE_BYTES = 64 * 1024


def header(magic, position, count, t_ns):
    """The 24 bytes of a frame header."""
    return HEADER.pack(magic, position, count, 0, t_ns)


def dump_line(body):
    """One JSON object as the protocol writes it: compact, UTF-8, newline-terminated."""
    text = json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    return text.encode("utf-8", errors="replace") + b"\n"


class FrameWriter:
    """Writes the response line of a request that answers with frames, then its frames."""

    def __init__(self, out, request_id):
        self._out = out
        self._id = request_id
        self.started = False  # the response line is out: later failures must be abort frames

    def line(self, body):
        """Writes the response line (`id` and `ok` first) and flushes it."""
        self.started = True
        self._out.write(dump_line({"id": self._id, "ok": True, **body}))
        self._out.flush()

    def logits(self, position, t_ns, values):
        """One logits frame: `values` (floats, or an array('f')) as little-endian float32."""
        data = values if isinstance(values, array.array) and values.typecode == "f" else None
        if data is None:
            data = array.array("f", values)
        if sys.byteorder != "little":
            data = array.array("f", data)
            data.byteswap()
        self._out.write(header(b"PLGT", position, len(data), t_ns))
        self._out.write(data.tobytes())

    def abort(self, position, t_ns, message):
        """Ends the frames early with a message for a person (cut to the protocol's limit)."""
        payload = message.encode("utf-8", errors="replace")[:MAX_ABORT_MESSAGE_BYTES]
        self._out.write(header(b"PLGX", position, len(payload), t_ns))
        self._out.write(payload)
        self._out.flush()

    def flush(self):
        self._out.flush()
