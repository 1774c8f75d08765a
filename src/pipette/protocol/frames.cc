#include "pipette/protocol/frames.h"

#include <cstring>

namespace pipette::protocol {
namespace {

// Little-endian reads and writes, whatever the machine's own byte order.
uint64_t Get(const unsigned char* p, int n) {
  uint64_t v = 0;
  for (int i = n - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

void Put(unsigned char* p, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) p[i] = static_cast<unsigned char>(v >> (8 * i));
}

void WriteHeader(const char magic[4], int32_t position, uint32_t count, int64_t t_ns,
                 unsigned char* out) {
  std::memcpy(out, magic, 4);
  Put(out + 4, static_cast<uint32_t>(position), 4);
  Put(out + 8, count, 4);
  Put(out + 12, 0, 4);  // reserved
  Put(out + 16, static_cast<uint64_t>(t_ns), 8);
}

}  // namespace

FrameHeader ParseFrameHeader(const unsigned char* bytes) {
  FrameHeader h;
  if (std::memcmp(bytes, kLogitsMagic, 4) == 0) {
    h.kind = FrameKind::kLogits;
  } else if (std::memcmp(bytes, kAbortMagic, 4) == 0) {
    h.kind = FrameKind::kAbort;
  } else {
    return h;
  }
  h.position = static_cast<int32_t>(static_cast<uint32_t>(Get(bytes + 4, 4)));
  h.count = static_cast<uint32_t>(Get(bytes + 8, 4));
  h.t_ns = static_cast<int64_t>(Get(bytes + 16, 8));
  return h;
}

void WriteLogitsFrameHeader(int32_t position, uint32_t count, int64_t t_ns, unsigned char* out) {
  WriteHeader(kLogitsMagic, position, count, t_ns, out);
}

void WriteAbortFrameHeader(int32_t position, uint32_t count, int64_t t_ns, unsigned char* out) {
  WriteHeader(kAbortMagic, position, count, t_ns, out);
}

}  // namespace pipette::protocol
