#include "pipette/http/sse.h"

#include <gtest/gtest.h>

namespace pipette::http {
namespace {

std::vector<SseEvent> FeedAll(SseParser& p, const std::vector<std::string>& pieces) {
  std::vector<SseEvent> out;
  int64_t t = 100;
  for (const auto& s : pieces) p.Feed(s, t++, &out);
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

}  // namespace
}  // namespace pipette::http
