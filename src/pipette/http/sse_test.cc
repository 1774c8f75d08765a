#include "pipette/http/sse.h"

#include <gtest/gtest.h>

namespace pipette::http {
namespace {

std::vector<SseEvent> FeedAll(SseParser& p, const std::vector<std::string>& pieces) {
  std::vector<SseEvent> out;
  int64_t t = 100;
  for (const auto& s : pieces) EXPECT_TRUE(p.Feed(s, t++, &out).ok());
  return out;
}

TEST(SseParser, EventsEndAtABlankLineAndCarryTheArrivalOfTheirLastBytes) {
  SseParser p;
  auto ev = FeedAll(p, {"data: {\"a\":1}\n", "\n", "data: [DONE]\n\n"});
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].data, "{\"a\":1}");
  EXPECT_EQ(ev[0].t_ns, 101);  // completed by the second piece
  EXPECT_EQ(ev[1].data, "[DONE]");
  EXPECT_EQ(ev[1].t_ns, 102);
  EXPECT_FALSE(p.Finish());
}

TEST(SseParser, PiecesSplitAnywhereGiveTheSameEvents) {
  const std::string stream =
      "event: delta\r\ndata: one\r\ndata: two\r\n\r\n: keep-alive\r\n\r\n"
      "data:three\r\r";
  for (size_t cut = 0; cut <= stream.size(); ++cut) {
    SseParser p;
    auto ev = FeedAll(p, {stream.substr(0, cut), stream.substr(cut)});
    ASSERT_EQ(ev.size(), 2u) << "cut at " << cut;
    EXPECT_EQ(ev[0].event, "delta");
    EXPECT_EQ(ev[0].data, "one\ntwo");
    EXPECT_EQ(ev[1].event, "");
    EXPECT_EQ(ev[1].data, "three");
  }
}

TEST(SseParser, CommentsAndEventsWithoutDataDispatchNothing) {
  SseParser p;
  auto ev = FeedAll(p, {": ping\n\n", "event: x\n\n", "retry: 10\nid: 3\n\n"});
  EXPECT_TRUE(ev.empty());
}

TEST(SseParser, AStreamCutMidEventIsReportedAndTheEventDropped) {
  SseParser p;
  auto ev = FeedAll(p, {"data: {\"a\":1}\n\ndata: {\"b\""});
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_TRUE(p.Finish());
  SseParser q;
  ev = FeedAll(q, {"data: {\"a\":1}\n"});  // its blank line never came
  EXPECT_TRUE(ev.empty());
  EXPECT_TRUE(q.Finish());
}

// A line or an event past its bound is an error, not a buffer that grows: a server that sends a
// 10 MB line, or megabytes of one event's data lines, is stopped at the bound.
TEST(SseParser, ALineOrAnEventPastItsBoundIsAnError) {
  SseParser p;
  std::vector<SseEvent> out;
  const std::string mib(1 << 20, 'x');
  EXPECT_TRUE(p.Feed("data: " + mib.substr(0, (1 << 20) - 6), 1, &out).ok());
  auto r = p.Feed("y", 2, &out);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().message.find("longer than 1048576 bytes"), std::string::npos);
  EXPECT_TRUE(out.empty());

  SseParser q;
  const std::string line = "data: " + std::string(1000, 'z') + "\n";
  Result<void> st;
  int lines = 0;
  while (st.ok() && lines < 2000) {
    st = q.Feed(line, 3, &out);
    ++lines;
  }
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().message.find("more than 1048576 bytes"), std::string::npos);
  EXPECT_LT(lines, 1100);
  EXPECT_TRUE(out.empty());

  // Comments (keep-alives) take no memory however many come: each line is dropped.
  SseParser k;
  for (int i = 0; i < 1000; ++i)
    ASSERT_TRUE(k.Feed(": " + std::string(1000, 'k') + "\n", 4, &out).ok());
  EXPECT_TRUE(out.empty());
}

}  // namespace
}  // namespace pipette::http
