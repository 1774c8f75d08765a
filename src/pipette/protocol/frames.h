// The binary frames that follow a response line announcing `frames` (docs/protocol.md
// "Frames"): a fixed 24-byte little-endian header, then the payload. Pure functions shared by
// the controller (which reads them) and the C++ workers (which write them), so any byte channel
// (a pipe now; ssh or adb later) can carry them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pipette::protocol {

inline constexpr size_t kFrameHeaderBytes = 24;
inline constexpr char kLogitsMagic[4] = {'P', 'L', 'G', 'T'};
inline constexpr char kAbortMagic[4] = {'P', 'L', 'G', 'X'};
// The longest message an abort frame may carry; a longer one means the stream is corrupt.
inline constexpr uint32_t kMaxAbortMessageBytes = 64 * 1024;

enum class FrameKind {
  kLogits,  // magic "PLGT": `count` float32 values follow
  kAbort,   // magic "PLGX": `count` bytes of a UTF-8 message follow; no more frames
  kBad,     // anything else: the stream is out of step
};

struct FrameHeader {
  FrameKind kind = FrameKind::kBad;
  int32_t position = 0;  // bytes 4-7
  uint32_t count = 0;    // bytes 8-11 (bytes 12-15 are reserved, 0)
  int64_t t_ns = 0;      // bytes 16-23
};

FrameHeader ParseFrameHeader(const unsigned char* bytes);
// The header of a logits frame (`count` float32 values follow) or of an abort frame (`count`
// message bytes follow), as a worker writes it, into `out` (kFrameHeaderBytes bytes).
void WriteLogitsFrameHeader(int32_t position, uint32_t count, int64_t t_ns, unsigned char* out);
void WriteAbortFrameHeader(int32_t position, uint32_t count, int64_t t_ns, unsigned char* out);

}  // namespace pipette::protocol
