#include "dispatcher.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <vector>

#include "pipette/protocol/check.h"
#include "pipette/protocol/frames.h"
#include "pipette/protocol/ops.h"
#include "pipette/protocol/test_ops.h"

namespace pipette::worker_common {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

Dispatcher Make() {
  Dispatcher d({"test-worker", "test-runtime", "1.0", [] { return json{{"built", "today"}}; }});
  d.Handle("tokenize", [](const json& r) -> Reply {
    if (!r.contains("text")) return Fail("tokenize request: missing required field 'text'");
    return ordered_json{{"tokens", {1, 2}}};
  });
  return d;
}

json Answer(Dispatcher& d, const std::string& line) {
  const Dispatcher::Outcome o = d.Dispatch(line);
  EXPECT_FALSE(o.written);
  return json::parse(o.response);
}

TEST(Dispatcher, HelloNamesTheRuntimeTheVersionAndTheOps) {
  Dispatcher d = Make();
  const json hello = Answer(d, R"({"id":1,"op":"hello"})");
  EXPECT_EQ(hello["id"], 1);
  EXPECT_EQ(hello["ok"], true);
  EXPECT_EQ(hello["protocol"], 1);
  EXPECT_EQ(hello["runtime"], "test-runtime");
  EXPECT_EQ(hello["runtime_version"], "1.0");
  EXPECT_EQ(hello["runtime_build"], json({{"built", "today"}}));
  EXPECT_EQ(hello["pid"], getpid());
  EXPECT_EQ(hello["ops"], json({"hello", "reset_peak_memory", "memory", "tokenize", "shutdown"}));
  EXPECT_TRUE(protocol::CheckResponse("hello", hello).ok());
}

TEST(Dispatcher, EnvelopeProblemsAreAnsweredAndNamed) {
  Dispatcher d = Make();
  EXPECT_EQ(Answer(d, "not json"),
            json({{"id", nullptr}, {"ok", false}, {"error", "request is not valid JSON"}}));
  EXPECT_EQ(Answer(d, "[1]")["error"], "request is not a JSON object");
  EXPECT_EQ(Answer(d, R"({"op":"hello"})")["error"], "request has no integer 'id'");
  const json no_op = Answer(d, R"({"id":4})");
  EXPECT_EQ(no_op["id"], 4);
  EXPECT_EQ(no_op["error"], "request has no string 'op'");
  const json unknown = Answer(d, R"({"id":5,"op":"frobnicate"})");
  EXPECT_EQ(unknown, json({{"id", 5}, {"ok", false}, {"error", "unknown op 'frobnicate'"}}));
}

TEST(Dispatcher, HandlersAnswerAndTheirErrorsBecomeOkFalse) {
  Dispatcher d = Make();
  EXPECT_EQ(Answer(d, R"({"id":7,"op":"tokenize","text":"a"})"),
            json({{"id", 7}, {"ok", true}, {"tokens", {1, 2}}}));
  EXPECT_EQ(Answer(d, R"({"id":8,"op":"tokenize"})")["error"],
            "tokenize request: missing required field 'text'");
}

TEST(Dispatcher, AHandlerThatThrowsIsRefusedSayingWhatThrewAndTheWorkerStaysUsable) {
  Dispatcher d = Make();
  d.Handle("detokenize", [](const json&) -> Reply { throw std::runtime_error("a bug"); });
  d.Handle("reset", [](const json&) -> Reply { throw 7; });
  const json thrown = Answer(d, R"({"id":9,"op":"detokenize"})");
  EXPECT_EQ(thrown["id"], 9);
  EXPECT_EQ(thrown["ok"], false);
  // The op is the controller's to add ("'detokenize' failed in the worker: ..."), once.
  EXPECT_EQ(thrown["error"], "the handler threw: a bug");
  EXPECT_EQ(Answer(d, R"({"id":11,"op":"reset"})")["error"],
            "the handler threw an exception that is not a std::exception");
  EXPECT_EQ(Answer(d, R"({"id":10,"op":"tokenize","text":"a"})")["ok"], true);
}

TEST(Dispatcher, TheTestOpIsServedOnlyWithItsVariableAndHelloNeverListsIt) {
  ASSERT_EQ(unsetenv(protocol::kTestOpsEnv), 0);
  Dispatcher plain = Make();
  EXPECT_EQ(Answer(plain, R"({"id":1,"op":"test_throw"})")["error"], "unknown op 'test_throw'");
  ASSERT_EQ(setenv(protocol::kTestOpsEnv, "1", 1), 0);
  Dispatcher testing = Make();
  ASSERT_EQ(unsetenv(protocol::kTestOpsEnv), 0);
  const std::string message = Answer(testing, R"({"id":2,"op":"test_throw"})")["error"];
  EXPECT_EQ(message, "the handler threw: thrown on purpose by the test op test_throw");
  EXPECT_EQ(Answer(testing, R"({"id":3,"op":"hello"})")["ops"],
            Answer(plain, R"({"id":3,"op":"hello"})")["ops"]);
}

TEST(Dispatcher, MemoryAndShutdownAreEveryWorkersOwn) {
  Dispatcher d = Make();
  const json memory = Answer(d, R"({"id":1,"op":"memory"})");
  EXPECT_TRUE(protocol::CheckResponse("memory", memory).ok()) << memory.dump();
  EXPECT_GT(memory["rss"].get<int64_t>(), 0);
  const json reset = Answer(d, R"({"id":2,"op":"reset_peak_memory"})");
  EXPECT_TRUE(protocol::CheckResponse("reset_peak_memory", reset).ok()) << reset.dump();
  const Dispatcher::Outcome bye = d.Dispatch(R"({"id":3,"op":"shutdown"})");
  EXPECT_TRUE(bye.shutdown);
  EXPECT_EQ(json::parse(bye.response), json({{"id", 3}, {"ok", true}}));
}

// A phone under memory pressure swaps to zram: the pages swapped out leave VmRSS and never reach
// VmHWM, so `memory` also answers the largest VmRSS + VmSwap sampled since the reset. The readings
// here are a fake (this machine does not swap on demand).
TEST(Dispatcher, MemoryCountsSwappedPagesSampledSinceTheReset) {
  Dispatcher d = Make();
  std::vector<MemoryReading> readings = {
      {100, 150, 0},   // at the reset
      {120, 160, 50},  // sampled after a request: 170 resident + swapped
      {90, 160, 60},   // 150: below the peak
      {80, 160, 60},   // at `memory`: 140
      {200, 200, 0},   // at the next reset
      {210, 210, 0},   // at `memory`
  };
  size_t next = 0;
  d.SetMemoryReader([&]() -> Result<MemoryReading> { return readings.at(next++); });
  Answer(d, R"({"id":1,"op":"reset_peak_memory"})");
  d.SampleFootprint();
  d.SampleFootprint();
  const json memory = Answer(d, R"({"id":2,"op":"memory"})");
  EXPECT_TRUE(protocol::CheckResponse("memory", memory).ok()) << memory.dump();
  EXPECT_EQ(memory["hwm"], 160);
  EXPECT_EQ(memory["swap"], 60);
  EXPECT_EQ(memory["footprint_peak"], 170);
  Answer(d, R"({"id":3,"op":"reset_peak_memory"})");  // the peak starts again
  EXPECT_EQ(Answer(d, R"({"id":4,"op":"memory"})")["footprint_peak"], 210);

  // A kernel that writes no VmSwap line: neither field is answered.
  d.SetMemoryReader([]() -> Result<MemoryReading> { return MemoryReading{10, 20, std::nullopt}; });
  Answer(d, R"({"id":5,"op":"reset_peak_memory"})");
  d.SampleFootprint();
  const json bare = Answer(d, R"({"id":6,"op":"memory"})");
  EXPECT_FALSE(bare.contains("swap"));
  EXPECT_FALSE(bare.contains("footprint_peak"));
}

TEST(Dispatcher, AFailureAfterTheFramesBeganEndsThemWithAnAbortFrame) {
  Dispatcher d = Make();
  d.HandleWithFrames("score", [](const json&, FrameStream* frames) -> Reply {
    if (frames == nullptr) return Fail("this channel cannot carry frames");
    frames->Line(ordered_json{{"frames", 2}, {"n_vocab", 1}});
    const float one = 1.0f;
    frames->Logits(0, 5, &one, 1);
    return Fail("llama_decode returned 1");
  });
  EXPECT_EQ(Answer(d, R"({"id":1,"op":"score"})")["error"], "this channel cannot carry frames");

  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  const Dispatcher::Outcome o = d.Dispatch(R"({"id":2,"op":"score"})", out);
  EXPECT_TRUE(o.written);
  std::rewind(out);
  char line[256];
  ASSERT_NE(std::fgets(line, sizeof line, out), nullptr);
  EXPECT_EQ(json::parse(line), json({{"id", 2}, {"ok", true}, {"frames", 2}, {"n_vocab", 1}}));
  unsigned char h[protocol::kFrameHeaderBytes];
  float value = 0;
  ASSERT_EQ(std::fread(h, 1, sizeof h, out), sizeof h);
  EXPECT_EQ(protocol::ParseFrameHeader(h).kind, protocol::FrameKind::kLogits);
  ASSERT_EQ(std::fread(&value, sizeof value, 1, out), 1u);
  EXPECT_EQ(value, 1.0f);
  ASSERT_EQ(std::fread(h, 1, sizeof h, out), sizeof h);
  const protocol::FrameHeader abort = protocol::ParseFrameHeader(h);
  EXPECT_EQ(abort.kind, protocol::FrameKind::kAbort);
  std::string message(abort.count, '\0');
  ASSERT_EQ(std::fread(message.data(), 1, message.size(), out), message.size());
  EXPECT_EQ(message, "llama_decode returned 1");
  std::fclose(out);
}

}  // namespace
}  // namespace pipette::worker_common
