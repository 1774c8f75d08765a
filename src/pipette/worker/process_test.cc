// Supervision of worker processes. The "workers" here are FAKES — tiny shell scripts — because
// the failures under test (garbage, silence, crashes) are what a real worker must never do.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "pipette/worker/channel.h"

namespace pipette::worker {
namespace {
namespace fs = std::filesystem;
using std::chrono::milliseconds;

class ProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pipette-proc-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::unique_ptr<WorkerChannel> Fake(const std::string& script) {
    const fs::path p = dir_ / ("fake" + std::to_string(++n_fakes_) + ".sh");
    std::ofstream(p) << "#!/bin/sh\n" << script;
    fs::permissions(p, fs::perms::owner_all);
    auto ch = launcher_.Launch({p.string()});
    EXPECT_TRUE(ch.ok());
    return ch.ok() ? std::move(*ch) : nullptr;
  }
  ProcessLauncher launcher_;
  fs::path dir_;
  int n_fakes_ = 0;
};

TEST_F(ProcessTest, EchoesIdsAndReturnsResponses) {
  // Answers every request with ok:true and the id it was given (ids are 1, 2, ...).
  auto ch = Fake(
      "i=0; while read line; do i=$((i+1)); echo \"{\\\"id\\\":$i,\\\"ok\\\":true,"
      "\\\"n\\\":$i}\"; done\n");
  auto r1 = ch->Call({{"op", "hello"}}, milliseconds(5000));
  ASSERT_TRUE(r1.ok()) << r1.error().message;
  EXPECT_EQ((*r1)["n"], 1);
  auto r2 = ch->Call({{"op", "memory"}}, milliseconds(5000));
  ASSERT_TRUE(r2.ok()) << r2.error().message;
  EXPECT_EQ((*r2)["n"], 2);
  EXPECT_TRUE(ch->Alive());
  ch->Shutdown(milliseconds(2000));
  EXPECT_FALSE(ch->Alive());
}

TEST_F(ProcessTest, RequestFailureKeepsTheWorker) {
  auto ch = Fake(
      "read line; echo '{\"id\":1,\"ok\":false,\"error\":\"no model loaded\"}'; "
      "read line; echo '{\"id\":2,\"ok\":true}'\n");
  auto r = ch->Call({{"op", "pp"}}, milliseconds(5000));
  ASSERT_FALSE(r.ok());
  EXPECT_FALSE(r.error().broken);
  EXPECT_EQ(r.error().message, "'pp' failed in the worker: no model loaded");
  EXPECT_EQ(r.error().context.op, "pp");  // the error's context: the op and the worker program
  EXPECT_NE(r.error().worker.find("fake1.sh"), std::string::npos) << r.error().worker;
  EXPECT_TRUE(ch->Alive());
  EXPECT_TRUE(ch->Call({{"op", "pp"}}, milliseconds(5000)).ok());
}

TEST_F(ProcessTest, GarbageKillsTheWorker) {
  auto ch = Fake("read line; echo 'Segmentation fault (not really)'; exec sleep 30\n");
  auto r = ch->Call({{"op", "hello"}}, milliseconds(5000));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().broken);
  EXPECT_NE(r.error().message.find("not a protocol message"), std::string::npos)
      << r.error().message;
  EXPECT_FALSE(ch->Alive());
}

TEST_F(ProcessTest, WrongIdKillsTheWorker) {
  auto ch = Fake("read line; echo '{\"id\":7,\"ok\":true}'; exec sleep 30\n");
  auto r = ch->Call({{"op", "hello"}}, milliseconds(5000));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().broken);
  EXPECT_NE(r.error().message.find("with id 7 (expected 1)"), std::string::npos)
      << r.error().message;
}

TEST_F(ProcessTest, SilenceTimesOutAndKills) {
  auto ch = Fake("read line; exec sleep 30\n");
  auto r = ch->Call({{"op", "tg"}}, milliseconds(300));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().broken);
  EXPECT_NE(r.error().message.find("no response to 'tg' within 0.3s"), std::string::npos)
      << r.error().message;
  EXPECT_FALSE(ch->Alive());
}

TEST_F(ProcessTest, WorkerThatStopsReadingCannotHangTheController) {
  auto ch = Fake("exec sleep 30\n");  // never reads its standard input
  nlohmann::json big = {{"op", "pp"}, {"text", std::string(8 << 20, 'x')}};
  auto r = ch->Call(big, milliseconds(500));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().broken);
  EXPECT_NE(r.error().message.find("did not read 'pp' within 0.5s"), std::string::npos)
      << r.error().message;
  EXPECT_FALSE(ch->Alive());
}

TEST_F(ProcessTest, CrashIsReportedWithExitStatusAndStderr) {
  auto ch = Fake("read line; echo 'fatal: out of cheese' >&2; exit 3\n");
  auto r = ch->Call({{"op", "load_model"}}, milliseconds(5000));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().broken);
  EXPECT_NE(r.error().message.find("died during 'load_model': exited with status 3"),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(ch->StderrTail().find("out of cheese"), std::string::npos);
}

TEST_F(ProcessTest, KilledBySignalIsNamed) {
  auto ch = Fake("read line; kill -9 $$\n");
  auto r = ch->Call({{"op", "tg"}}, milliseconds(5000));
  EXPECT_NE(r.error().message.find("killed by SIGKILL"), std::string::npos) << r.error().message;
}

TEST_F(ProcessTest, WritingToAnExitedWorkerIsAnErrorNotASignal) {
  auto ch = Fake("exit 0\n");
  std::this_thread::sleep_for(milliseconds(200));  // let it exit before anything is sent
  auto r = ch->Call({{"op", "hello"}}, milliseconds(2000));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().broken);
  EXPECT_NE(r.error().message.find("exited with status 0"), std::string::npos) << r.error().message;
  ch->Shutdown(milliseconds(100));  // sends "shutdown" to nobody: must not raise SIGPIPE
}

// Frames after a response line (docs/protocol.md "Frames"): a logits frame, then an abort
// frame; the worker answers the next request as usual. printf writes the bytes (octal escapes).
TEST_F(ProcessTest, FramesFollowTheirResponseLineAndAnAbortKeepsTheWorker) {
  auto ch = Fake(
      "read line; echo '{\"id\":1,\"ok\":true,\"frames\":2,\"n_vocab\":2}'; "
      "printf 'PLGT\\005\\000\\000\\000\\002\\000\\000\\000\\000\\000\\000\\000"
      "\\007\\000\\000\\000\\000\\000\\000\\000\\000\\000\\200\\077\\000\\000\\000\\300'; "
      "printf 'PLGX\\377\\377\\377\\377\\004\\000\\000\\000\\000\\000\\000\\000"
      "\\000\\000\\000\\000\\000\\000\\000\\000oops'; "
      "read line; echo '{\"id\":2,\"ok\":true}'\n");
  auto head = ch->Call({{"op", "score"}, {"logits", true}}, milliseconds(5000));
  ASSERT_TRUE(head.ok()) << head.error().message;
  EXPECT_EQ((*head)["frames"], 2);
  LogitsFrame f;
  auto r = ch->ReadFrame(&f, 2, milliseconds(5000));
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_EQ(f.position, 5);
  EXPECT_EQ(f.t_ns, 7);
  EXPECT_EQ(f.logits, (std::vector<float>{1.0f, -2.0f}));
  r = ch->ReadFrame(&f, 2, milliseconds(5000));
  ASSERT_FALSE(r.ok());
  EXPECT_FALSE(r.error().broken);
  EXPECT_EQ(r.error().message, "the worker ended its frames: oops");
  EXPECT_TRUE(ch->Call({{"op", "memory"}}, milliseconds(5000)).ok());
}

TEST_F(ProcessTest, AFrameOfTheWrongLengthOrCutShortBreaksTheWorker) {
  auto ch = Fake(
      "read line; echo '{\"id\":1,\"ok\":true}'; "
      "printf 'PLGT\\000\\000\\000\\000\\003\\000\\000\\000\\000\\000\\000\\000"
      "\\000\\000\\000\\000\\000\\000\\000\\000'; exec sleep 30\n");
  ASSERT_TRUE(ch->Call({{"op", "score"}}, milliseconds(5000)).ok());
  LogitsFrame f;
  auto r = ch->ReadFrame(&f, 2, milliseconds(5000));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().broken);
  EXPECT_EQ(r.error().message, "the worker sent a frame of 3 values where 2 were announced");
  EXPECT_FALSE(ch->Alive());

  auto cut = Fake("read line; echo '{\"id\":1,\"ok\":true}'; printf 'PLGT\\000\\000'; exit 4\n");
  ASSERT_TRUE(cut->Call({{"op", "score"}}, milliseconds(5000)).ok());
  r = cut->ReadFrame(&f, 2, milliseconds(5000));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().broken);
  EXPECT_EQ(r.error().message, "the worker died during its frames: exited with status 4");

  auto silent = Fake("read line; echo '{\"id\":1,\"ok\":true}'; exec sleep 30\n");
  ASSERT_TRUE(silent->Call({{"op", "score"}}, milliseconds(5000)).ok());
  r = silent->ReadFrame(&f, 2, milliseconds(300));
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.error().broken);
  EXPECT_EQ(r.error().message, "the worker's frames did not arrive in time: it was killed");
  EXPECT_FALSE(silent->Alive());
}

TEST_F(ProcessTest, MissingProgramIsAnError) {
  auto ch = launcher_.Launch({(dir_ / "nope").string()});
  ASSERT_FALSE(ch.ok());
  EXPECT_NE(ch.error().message.find("No such file"), std::string::npos) << ch.error().message;
}

}  // namespace
}  // namespace pipette::worker
