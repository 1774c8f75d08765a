#include "frame_stream.h"

#include <gtest/gtest.h>

#include <cstdio>

#include "pipette/protocol/frames.h"

namespace pipette::worker_common {
namespace {

TEST(FrameStream, WritesTheLineThenFramesTheControllerCanParse) {
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  FrameStream s(out, 9);
  EXPECT_FALSE(s.started());
  ASSERT_TRUE(s.Line({{"frames", 1}, {"n_vocab", 3}}));
  EXPECT_TRUE(s.started());
  const float values[3] = {0.5f, -1.0f, 2.0f};
  ASSERT_TRUE(s.Logits(12, 345, values, 3));
  ASSERT_TRUE(s.Abort(13, 346, std::string(protocol::kMaxAbortMessageBytes + 10, 'x')));
  std::rewind(out);

  char line[128];
  ASSERT_NE(std::fgets(line, sizeof line, out), nullptr);
  EXPECT_STREQ(line, "{\"id\":9,\"ok\":true,\"frames\":1,\"n_vocab\":3}\n");
  unsigned char h[protocol::kFrameHeaderBytes];
  ASSERT_EQ(std::fread(h, 1, sizeof h, out), sizeof h);
  const protocol::FrameHeader logits = protocol::ParseFrameHeader(h);
  EXPECT_EQ(logits.kind, protocol::FrameKind::kLogits);
  EXPECT_EQ(logits.position, 12);
  EXPECT_EQ(logits.count, 3u);
  EXPECT_EQ(logits.t_ns, 345);
  float back[3];
  ASSERT_EQ(std::fread(back, sizeof(float), 3, out), 3u);
  EXPECT_EQ(back[2], 2.0f);
  ASSERT_EQ(std::fread(h, 1, sizeof h, out), sizeof h);
  const protocol::FrameHeader abort = protocol::ParseFrameHeader(h);
  EXPECT_EQ(abort.kind, protocol::FrameKind::kAbort);
  EXPECT_EQ(abort.count, protocol::kMaxAbortMessageBytes);  // cut to what a controller reads
  std::fclose(out);
}

}  // namespace
}  // namespace pipette::worker_common
