// The protocol over a transport that is not a pipe: a FAKE in-memory transport (what an ssh or
// adb transport would be to LineChannel), scripted per request, so that line framing, ids,
// frames split across reads, timeouts and shutdown are checked without a process.
#include "pipette/worker/line_channel.h"

#include <gtest/gtest.h>

#include <cstring>
#include <deque>
#include <functional>

#include "pipette/protocol/frames.h"

namespace pipette::worker {
namespace {

using nlohmann::json;
using protocol::Deadline;
using protocol::IoError;
using std::chrono::milliseconds;

struct FakeLog {
  std::vector<std::string> written;  // every line the channel sent
  bool input_closed = false;
  bool killed = false;
};

class FakeTransport : public protocol::Transport {
 public:
  // `answer` turns each request line into the bytes the "worker" sends back; `chunk` bytes at
  // most per Read, so that lines and frames arrive in pieces.
  FakeTransport(FakeLog* log, std::function<std::string(const json&)> answer, size_t chunk)
      : log_(log), answer_(std::move(answer)), chunk_(chunk) {}

  Result<void, IoError> Write(std::string_view bytes, Deadline) override {
    log_->written.emplace_back(bytes);
    const json request = json::parse(bytes);
    output_ += answer_(request);
    return {};
  }
  Result<size_t, IoError> Read(char* buffer, size_t capacity, Deadline) override {
    if (output_.empty()) {
      IoError e;
      e.kind = ended_ ? IoError::Kind::kEnded : IoError::Kind::kTimedOut;
      return e;
    }
    const size_t n = std::min({capacity, chunk_, output_.size()});
    std::memcpy(buffer, output_.data(), n);
    output_.erase(0, n);
    return n;
  }
  void CloseInput() override { log_->input_closed = true; }
  Result<std::string, IoError> AwaitExit(Deadline) override {
    alive_ = false;
    return std::string("exited with status 0");
  }
  void Kill() override {
    log_->killed = true;
    alive_ = false;
  }
  std::string ExitDescription() override { return alive_ ? "still running" : "killed by SIGKILL"; }
  bool Alive() const override { return alive_; }
  int Pid() const override { return 7; }
  std::string StderrTail() const override { return "tail"; }
  bool ended_ = false;

 private:
  FakeLog* log_;
  std::function<std::string(const json&)> answer_;
  size_t chunk_;
  std::string output_;
  bool alive_ = true;
};

std::string Line(json response) { return response.dump() + "\n"; }

std::unique_ptr<LineChannel> Channel(FakeLog* log, std::function<std::string(const json&)> answer,
                                     size_t chunk = 3) {
  return std::make_unique<LineChannel>(
      std::make_unique<FakeTransport>(log, std::move(answer), chunk), "fake-worker");
}

TEST(LineChannel, NumbersRequestsAndReadsLinesThatArriveInPieces) {
  FakeLog log;
  auto ch = Channel(&log, [](const json& r) {
    return Line({{"id", r["id"]}, {"ok", true}, {"echo", r["op"]}});
  });
  auto a = ch->Call({{"op", "hello"}}, milliseconds(1000));
  ASSERT_TRUE(a.ok()) << a.error().message;
  EXPECT_EQ((*a)["echo"], "hello");
  auto b = ch->Call({{"op", "memory"}}, milliseconds(1000));
  ASSERT_TRUE(b.ok()) << b.error().message;
  EXPECT_EQ((*b)["id"], 2);
  EXPECT_EQ(log.written[0], "{\"id\":1,\"op\":\"hello\"}\n");
  EXPECT_EQ(ch->Pid(), 7);
  EXPECT_EQ(ch->StderrTail(), "tail");
}

TEST(LineChannel, AFailedRequestCarriesItsContextAndKeepsTheWorker) {
  FakeLog log;
  auto ch = Channel(&log, [](const json& r) {
    return Line({{"id", r["id"]}, {"ok", false}, {"error", "no model loaded"}});
  });
  auto r = ch->Call({{"op", "pp"}}, milliseconds(1000));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().message, "'pp' failed in the worker: no model loaded");
  EXPECT_EQ(r.error().context.op, "pp");
  EXPECT_EQ(r.error().worker, "fake-worker");
  EXPECT_FALSE(r.error().broken);
  EXPECT_TRUE(ch->Alive());
  EXPECT_FALSE(log.killed);
}

TEST(LineChannel, AWrongIdOrSilenceBreaksAndKillsTheWorker) {
  FakeLog log;
  auto ch = Channel(&log, [](const json&) { return Line({{"id", 99}, {"ok", true}}); });
  auto r = ch->Call({{"op", "tg"}}, milliseconds(1000));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().broken);
  EXPECT_EQ(r.error().message, "the worker answered 'tg' with id 99 (expected 1)");
  EXPECT_TRUE(log.killed);
  EXPECT_FALSE(ch->Alive());
  auto again = ch->Call({{"op", "tg"}}, milliseconds(1000));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().message, "the worker is not running");

  FakeLog quiet_log;
  auto quiet = Channel(&quiet_log, [](const json&) { return std::string(); });
  auto t = quiet->Call({{"op", "pp"}}, milliseconds(1500));
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.error().message, "no response to 'pp' within 1.5s: the worker was killed");
  EXPECT_TRUE(quiet_log.killed);
}

// A worker's `ok` or `error` of another type is a worker speaking garbage: the call breaks with
// the reason, never an uncaught JSON type_error (found by fuzz/protocol_lines_fuzz.cc).
TEST(LineChannel, AnOkOrErrorOfAnotherTypeBreaksTheCall) {
  for (const json& bad : {json{{"ok", "yes"}}, json{{"ok", 1}}, json{{"ok", false}, {"error", 5}},
                          json{{"ok", false}, {"error", {{"message", "x"}}}}}) {
    SCOPED_TRACE(bad.dump());
    FakeLog log;
    auto ch = Channel(&log, [&bad](const json& r) {
      json line = bad;
      line["id"] = r["id"];
      return Line(line);
    });
    auto r = ch->Call({{"op", "pp"}}, milliseconds(1000));
    ASSERT_FALSE(r.ok());
    EXPECT_TRUE(r.error().broken);
    EXPECT_NE(r.error().message.find("is not a protocol message"), std::string::npos)
        << r.error().message;
  }
}

// A logits frame of no values reads (no copy into an empty buffer: memcpy of a null pointer is
// undefined, found by fuzz/protocol_frames_fuzz.cc under UBSan).
TEST(LineChannel, AFrameOfNoValuesReads) {
  FakeLog log;
  auto ch = Channel(&log, [](const json& r) {
    std::string out = Line({{"id", r["id"]}, {"ok", true}, {"frames", 1}, {"n_vocab", 0}});
    unsigned char h[protocol::kFrameHeaderBytes];
    protocol::WriteLogitsFrameHeader(0, 0, 5, h);
    return out + std::string(reinterpret_cast<const char*>(h), sizeof h);
  });
  ASSERT_TRUE(ch->Call({{"op", "score"}, {"logits", true}}, milliseconds(1000)).ok());
  LogitsFrame f;
  auto r = ch->ReadFrame(&f, 0, milliseconds(1000));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(f.logits.empty());
  EXPECT_EQ(f.t_ns, 5);
}

TEST(LineChannel, FramesFollowTheirLineThroughAnyTransport) {
  FakeLog log;
  auto ch = Channel(
      &log,
      [](const json& r) {
        if (r["op"] != "score") return Line({{"id", r["id"]}, {"ok", true}});
        std::string out = Line({{"id", r["id"]}, {"ok", true}, {"frames", 1}, {"n_vocab", 2}});
        unsigned char h[protocol::kFrameHeaderBytes];
        protocol::WriteLogitsFrameHeader(4, 2, 11, h);
        out.append(reinterpret_cast<const char*>(h), sizeof h);
        const float values[2] = {1.5f, -2.0f};
        out.append(reinterpret_cast<const char*>(values), sizeof values);
        const std::string why = "llama_decode returned 1";
        protocol::WriteAbortFrameHeader(-1, uint32_t(why.size()), 12, h);
        out.append(reinterpret_cast<const char*>(h), sizeof h);
        return out + why;
      },
      /*chunk=*/5);
  ASSERT_TRUE(ch->Call({{"op", "score"}, {"logits", true}}, milliseconds(1000)).ok());
  LogitsFrame f;
  auto r = ch->ReadFrame(&f, 2, milliseconds(1000));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(f.position, 4);
  EXPECT_EQ(f.t_ns, 11);
  EXPECT_EQ(f.logits, (std::vector<float>{1.5f, -2.0f}));
  r = ch->ReadFrame(&f, 2, milliseconds(1000));
  ASSERT_FALSE(r.ok());
  EXPECT_FALSE(r.error().broken);
  EXPECT_EQ(r.error().message, "the worker ended its frames: llama_decode returned 1");
  EXPECT_TRUE(ch->Call({{"op", "memory"}}, milliseconds(1000)).ok());
}

TEST(LineChannel, ShutdownSaysSoClosesTheInputAndWaits) {
  FakeLog log;
  {
    auto ch = Channel(&log, [](const json& r) { return Line({{"id", r["id"]}, {"ok", true}}); });
    ch->Shutdown(milliseconds(100));
    EXPECT_FALSE(ch->Alive());
  }
  ASSERT_EQ(log.written.size(), 1u);
  EXPECT_EQ(json::parse(log.written[0])["op"], "shutdown");
  EXPECT_TRUE(log.input_closed);
  EXPECT_FALSE(log.killed);  // it exited within the grace period
}

}  // namespace
}  // namespace pipette::worker
