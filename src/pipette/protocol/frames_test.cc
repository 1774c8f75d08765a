#include "pipette/protocol/frames.h"

#include <gtest/gtest.h>

#include <cstring>

namespace pipette::protocol {
namespace {

TEST(Frames, ALogitsHeaderIsLittleEndianAndReadsBack) {
  unsigned char h[kFrameHeaderBytes];
  WriteLogitsFrameHeader(258, 49152, 0x0102030405060708, h);
  const unsigned char expected[kFrameHeaderBytes] = {'P', 'L', 'G', 'T', 2, 1, 0, 0, 0, 0xC0, 0, 0,
                                                     0,   0,   0,   0,   8, 7, 6, 5, 4, 3,    2, 1};
  EXPECT_EQ(std::memcmp(h, expected, sizeof h), 0);
  const FrameHeader f = ParseFrameHeader(h);
  EXPECT_EQ(f.kind, FrameKind::kLogits);
  EXPECT_EQ(f.position, 258);
  EXPECT_EQ(f.count, 49152u);
  EXPECT_EQ(f.t_ns, 0x0102030405060708);
}

TEST(Frames, AnAbortHeaderCarriesANegativePosition) {
  unsigned char h[kFrameHeaderBytes];
  WriteAbortFrameHeader(-1, 4, 9, h);
  EXPECT_EQ(std::memcmp(h, "PLGX\xff\xff\xff\xff", 8), 0);
  const FrameHeader f = ParseFrameHeader(h);
  EXPECT_EQ(f.kind, FrameKind::kAbort);
  EXPECT_EQ(f.position, -1);
  EXPECT_EQ(f.count, 4u);
  EXPECT_EQ(f.t_ns, 9);
}

TEST(Frames, AnythingElseIsOutOfStep) {
  unsigned char h[kFrameHeaderBytes] = {'{', '"', 'i', 'd'};
  EXPECT_EQ(ParseFrameHeader(h).kind, FrameKind::kBad);
}

}  // namespace
}  // namespace pipette::protocol
