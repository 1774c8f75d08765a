"""Frames: the bytes of src/pipette/protocol/frames_test.cc's headers, little-endian."""

import io
import json
import struct
import unittest

from pipette_worker.frames import FrameWriter, MAX_ABORT_MESSAGE_BYTES, header


class FramesTest(unittest.TestCase):
    def test_a_logits_header_is_the_protocols(self):
        expected = bytes([ord("P"), ord("L"), ord("G"), ord("T"), 2, 1, 0, 0, 0, 0xC0, 0, 0,
                          0, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1])
        self.assertEqual(header(b"PLGT", 258, 49152, 0x0102030405060708), expected)

    def test_a_line_then_frames_then_an_abort(self):
        out = io.BytesIO()
        w = FrameWriter(out, 9)
        self.assertFalse(w.started)
        w.line({"frames": 1, "n_vocab": 2})
        self.assertTrue(w.started)
        w.logits(4, 11, [1.5, -2.0])
        w.abort(-1, 12, "x" * (MAX_ABORT_MESSAGE_BYTES + 5))
        data = out.getvalue()
        line, rest = data.split(b"\n", 1)
        self.assertEqual(json.loads(line), {"id": 9, "ok": True, "frames": 1, "n_vocab": 2})
        self.assertEqual(line, b'{"id":9,"ok":true,"frames":1,"n_vocab":2}')
        magic, position, count, reserved, t_ns = struct.unpack("<4siIIq", rest[:24])
        self.assertEqual((magic, position, count, reserved, t_ns), (b"PLGT", 4, 2, 0, 11))
        self.assertEqual(struct.unpack("<2f", rest[24:32]), (1.5, -2.0))
        magic, position, count, _, _ = struct.unpack("<4siIIq", rest[32:56])
        self.assertEqual((magic, position, count), (b"PLGX", -1, MAX_ABORT_MESSAGE_BYTES))
        self.assertEqual(len(rest), 56 + MAX_ABORT_MESSAGE_BYTES)


if __name__ == "__main__":
    unittest.main()
