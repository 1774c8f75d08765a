#include "pipette/runtime/ops.h"

#include <gtest/gtest.h>

#include "pipette/protocol/ops.h"

namespace pipette::runtime {
namespace {

TEST(SupportedOps, AreTheOpsHelloNames) {
  protocol::HelloResponse hello;
  hello.ops = {"hello", "load_model", "pp", "shutdown"};
  const SupportedOps ops = SupportedOps::FromHello(hello);
  EXPECT_TRUE(ops.Has("pp"));
  EXPECT_TRUE(ops.Has(protocol::op::kLoadModel));
  EXPECT_FALSE(ops.Has("tg"));
  EXPECT_FALSE(ops.Has(protocol::op::kScore));
  for (const char* named : {"hello", "load_model", "pp", "shutdown"}) EXPECT_TRUE(ops.Has(named));
}

TEST(SupportedOps, AHelloWithoutOpsClaimsEveryOpOfTheProtocol) {
  const SupportedOps ops = SupportedOps::FromHello(protocol::HelloResponse{});
  for (std::string_view op : protocol::Ops()) EXPECT_TRUE(ops.Has(op)) << op;
  EXPECT_FALSE(ops.Has("frobnicate"));
}

TEST(SupportedOps, ReadFromTheWireForm) {
  auto hello = protocol::HelloResponse::FromJson(
      {{"protocol", 1}, {"runtime", "x"}, {"runtime_version", "1"}, {"ops", {"hello", "score"}}});
  ASSERT_TRUE(hello.ok()) << hello.error().message;
  const SupportedOps ops = SupportedOps::FromHello(*hello);
  EXPECT_TRUE(ops.Has("score"));
  EXPECT_FALSE(ops.Has("chat"));
}

}  // namespace
}  // namespace pipette::runtime
