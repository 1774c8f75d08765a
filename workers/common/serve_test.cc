#include "serve.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <sstream>

namespace pipette::worker_common {
namespace {

using nlohmann::json;

// Everything written to `out` since the start, as lines.
std::vector<json> Lines(std::FILE* out) {
  std::rewind(out);
  std::vector<json> lines;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, out) != nullptr) lines.push_back(json::parse(buf));
  return lines;
}

TEST(Serve, AnswersEveryLineUntilTheInputEnds) {
  Dispatcher d({"test-worker", "test-runtime", "1.0", nullptr});
  std::istringstream in("{\"id\":1,\"op\":\"memory\"}\r\n\n{\"id\":2,\"op\":\"nope\"}\n");
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(Serve(d, in, out), 0);
  const auto lines = Lines(out);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0]["id"], 1);  // a trailing \r is not part of the request
  EXPECT_TRUE(lines[0]["ok"]);
  EXPECT_EQ(lines[1]["error"], "request is not valid JSON");  // the empty line
  EXPECT_EQ(lines[2]["error"], "unknown op 'nope'");
  std::fclose(out);
}

TEST(Serve, StopsAfterShutdown) {
  Dispatcher d({"test-worker", "test-runtime", "1.0", nullptr});
  std::istringstream in("{\"id\":1,\"op\":\"shutdown\"}\n{\"id\":2,\"op\":\"memory\"}\n");
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  EXPECT_EQ(Serve(d, in, out), 0);
  const auto lines = Lines(out);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0], json({{"id", 1}, {"ok", true}}));
  std::fclose(out);
}

}  // namespace
}  // namespace pipette::worker_common
