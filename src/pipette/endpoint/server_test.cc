// ServerProcess with stand-in programs (sh); the real llama-server is started in tests/e2e.
#include "pipette/endpoint/server.h"

#include <gtest/gtest.h>

#include "pipette/util/temp_dir.h"

namespace pipette::endpoint {
namespace {

TEST(FreeLocalPort, GivesAUsablePort) {
  auto p = FreeLocalPort();
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_GT(*p, 0);
  EXPECT_LE(*p, 65535);
}

TEST(ServerProcess, AServerThatExitsBeforeReadyIsAnErrorQuotingItsLog) {
  TempDir dir("pipette-server-test");
  http::HttpLibClient client;
  auto s =
      ServerProcess::Start({"sh", "-c", "echo listening on {port}; echo bad model >&2; exit 3"},
                           dir.path() / "server.log", client, std::chrono::seconds(30));
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("exited before it was ready"), std::string::npos);
  EXPECT_NE(s.error().message.find("bad model"), std::string::npos) << s.error().message;
  EXPECT_NE(s.error().message.find("listening on "), std::string::npos);
  EXPECT_EQ(s.error().message.find("{port}"), std::string::npos);  // the port was filled in
}

TEST(ServerProcess, AServerNeverReadyIsStoppedAtTheDeadline) {
  TempDir dir("pipette-server-test");
  http::HttpLibClient client;
  auto s = ServerProcess::Start({"sleep", "30"}, dir.path() / "server.log", client,
                                std::chrono::milliseconds(300));
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("was not ready within"), std::string::npos) << s.error().message;
}

TEST(ServerProcess, CtrlCWhileTheServerStartsStopsIt) {
  TempDir dir("pipette-server-test");
  http::HttpLibClient client;
  std::atomic<bool> cancel{true};  // already pressed: the first probe's failure ends the wait
  auto s = ServerProcess::Start({"sleep", "30"}, dir.path() / "server.log", client,
                                std::chrono::seconds(60), &cancel);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message.find("interrupted while the server sleep was starting"),
            std::string::npos)
      << s.error().message;
}

}  // namespace
}  // namespace pipette::endpoint
