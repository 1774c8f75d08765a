// The ssh device against a real sshd on a board in a network namespace (ssh_board.h): the real
// llama.cpp worker staged there and spoken to over ssh, the bundled model staged once and found
// again by its SHA-256, hostile file names, a link that drops mid-call, a controller killed —
// and nothing left running on the board afterwards. Then the adb device over a stand-in adb
// (tests/e2e/standin-adb, named as one: no phone reaches this machine).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include "fixture.h"
#include "pipette/device/adb_device.h"
#include "pipette/protocol/model_ops.h"
#include "pipette/protocol/session_ops.h"
#include "pipette/protocol/speed_ops.h"
#include "pipette/worker/line_channel.h"
#include "pipette/worker/pipe_transport.h"
#include "ssh_board.h"

namespace pipette_e2e {
namespace {

using namespace pipette;
using std::chrono::milliseconds;
using std::chrono::seconds;

const std::string kWorker = (fs::path(kPipette).parent_path() / "pipette-worker-llama").string();

// hello, load_model (the staged path), init_context, then tg of `n` tokens.
void Measure(worker::WorkerChannel& ch, const std::string& model, int n) {
  auto hello = ch.Call(protocol::HelloRequest{}.ToJson(), seconds(60));
  ASSERT_TRUE(hello) << hello.error().message << "\n" << ch.StderrTail();
  EXPECT_EQ((*hello)["runtime"], "llama.cpp");
  protocol::LoadModelRequest load;
  load.path = model;
  auto loaded = ch.Call(load.ToJson(), seconds(120));
  ASSERT_TRUE(loaded) << loaded.error().message << "\n" << ch.StderrTail();
  EXPECT_GT((*loaded)["model"]["n_params"].get<int64_t>(), 100000000);
  protocol::InitContextRequest ctx;
  ctx.n_ctx = 64;
  ASSERT_TRUE(ch.Call(ctx.ToJson(), seconds(60)));
  protocol::TgRequest tg;
  tg.first_token = 1;
  tg.n_gen = n;
  auto r = ch.Call(tg.ToJson(), seconds(120));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ((*r)["n_gen"], n);
  EXPECT_EQ((*r)["token_end_ns"].size(), static_cast<size_t>(n));
}

class SshDeviceE2E : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string missing = SshBoard::Missing();
    ASSERT_TRUE(missing.empty()) << missing;
    board_ = std::make_unique<SshBoard>();
    ASSERT_TRUE(board_->ready()) << "the board did not come up";
  }
  void TearDown() override {
    board_.reset();  // sshd, sessions and workers killed; the namespace and link removed
  }

  std::unique_ptr<SshBoard> board_;
  ProcessCommandRunner runner_;
};

TEST_F(SshDeviceE2E, TheWorkerRunsOnTheBoardAndStagedFilesAreFoundAgainByDigest) {
  device::SshDevice board(board_->Target(), runner_);
  auto arch = board.Arch();
  ASSERT_TRUE(arch) << arch.error().message;
  EXPECT_EQ(*arch, "x86_64");  // the board's own `uname -m`
  // The board's facts, from its own files: its hostname is this machine's (one kernel), but it
  // was read over ssh.
  const json fp = board.Fingerprint({});
  EXPECT_EQ(fp["arch"], "x86_64");
  EXPECT_FALSE(fp["cpu_model"].is_null());
  EXPECT_FALSE(board.Conditions()["load_avg_1"].is_null());

  auto model = board.Stage(kModel);
  ASSERT_TRUE(model) << model.error().message;
  EXPECT_EQ(model->rfind(board_->Target().workdir, 0), 0u) << *model;  // in the work folder
  auto ch = board.StartWorker({kWorker});
  ASSERT_TRUE(ch) << ch.error().message;
  Measure(**ch, *model, 4);
  // The worker ran on the board: its process is in the board's namespace.
  EXPECT_FALSE(board_->Processes("pipette-worker").empty());
  (*ch)->Shutdown(milliseconds(5000));
  EXPECT_TRUE(board_->NoneLeft("pipette-worker", seconds(10)));
  EXPECT_EQ(board.sent(), 2);  // the model and the worker

  // A second run: both are on the board with the same digest; nothing is sent again.
  device::SshDevice again(board_->Target(), runner_);
  EXPECT_EQ(*again.Stage(kModel), *model);
  auto ch2 = again.StartWorker({kWorker});
  ASSERT_TRUE(ch2) << ch2.error().message;
  Measure(**ch2, *model, 2);
  EXPECT_EQ(again.sent(), 0);
  EXPECT_EQ(again.reused(), 2);
}

TEST_F(SshDeviceE2E, HostileFileNamesAndArgumentsArriveWhole) {
  TempDir dir("pipette-hostile");
  // Were a word of it run by a shell, a file of this name would appear in the shell's folder
  // (the board's home, where ssh's commands start, or here).
  const std::string canary = "pipette-pwned-" + std::to_string(getpid());
  const std::string name =
      "it's a \"model\" $HOME `touch " + canary + "`; $(touch " + canary + ")\nline two\\ * ?.gguf";
  const fs::path hostile = dir.path() / name;
  fs::copy_file(kModel, hostile);
  device::SshDevice board(board_->Target(), runner_);
  auto model = board.Stage(hostile.string());
  ASSERT_TRUE(model) << model.error().message;
  EXPECT_EQ(fs::path(*model).filename().string(), name);
  EXPECT_TRUE(fs::exists(*model));  // the board shares this disk: the very name is there
  auto ch = board.StartWorker({kWorker});
  ASSERT_TRUE(ch) << ch.error().message;
  Measure(**ch, *model, 2);
  (*ch)->Shutdown(milliseconds(5000));
  // An argument the worker does not know comes back in its refusal, whole.
  auto odd = board.StartWorker({kWorker, "--no such; $(flag)"});
  ASSERT_TRUE(odd);
  auto hello = (*odd)->Call(protocol::HelloRequest{}.ToJson(), seconds(30));
  EXPECT_FALSE(hello);
  EXPECT_NE((*odd)->StderrTail().find("unknown argument '--no such; $(flag)'"), std::string::npos)
      << (*odd)->StderrTail();
  for (const fs::path& where :
       {fs::path(getenv("HOME") ? getenv("HOME") : "/root"), fs::current_path(), board_->dir()}) {
    EXPECT_FALSE(fs::exists(where / canary)) << where;  // nothing in a name ran
  }
}

// A request that keeps the worker busy for a minute or more: 8000 tokens generated.
void StartLongGeneration(worker::WorkerChannel& ch, const std::string& model,
                         std::function<void()> while_busy) {
  ASSERT_TRUE(ch.Call(protocol::HelloRequest{}.ToJson(), seconds(60)));
  protocol::LoadModelRequest load;
  load.path = model;
  ASSERT_TRUE(ch.Call(load.ToJson(), seconds(120)));
  protocol::InitContextRequest ctx;
  ctx.n_ctx = 8192;
  ASSERT_TRUE(ch.Call(ctx.ToJson(), seconds(60)));
  protocol::TgRequest tg;
  tg.first_token = 1;
  tg.n_gen = 8000;
  std::thread busy(std::move(while_busy));
  auto r = ch.Call(tg.ToJson(), seconds(600));
  busy.join();
  EXPECT_FALSE(r);  // the link went while it ran
}

TEST_F(SshDeviceE2E, ALinkThatDropsMidCallFailsTheCallAndLeavesNothingRunning) {
  device::SshDevice board(board_->Target(), runner_);
  auto model = board.Stage(kModel);
  ASSERT_TRUE(model) << model.error().message;
  auto ch = board.StartWorker({kWorker});
  ASSERT_TRUE(ch) << ch.error().message;
  std::chrono::steady_clock::time_point dropped;
  // Packets stop a second into the generation; nothing tells either end.
  StartLongGeneration(**ch, *model, [&] {
    std::this_thread::sleep_for(seconds(1));
    EXPECT_FALSE(board_->Processes("pipette-worker").empty());
    dropped = std::chrono::steady_clock::now();
    board_->SetLink(false);
  });
  // ssh's keep-alives gave up (about 3 s), long before the call's timeout.
  EXPECT_LT(std::chrono::steady_clock::now() - dropped, seconds(30));
  // The board's sshd ended the session, and the worker, busy generating, died with it: it does
  // not run its minute out.
  EXPECT_TRUE(board_->NoneLeft("pipette-worker", seconds(15)));
  board_->SetLink(true);
}

TEST_F(SshDeviceE2E, AKilledControllerLeavesNothingRunningOnTheBoard) {
  device::SshDevice board(board_->Target(), runner_);
  auto model = board.Stage(kModel);
  ASSERT_TRUE(model) << model.error().message;
  auto worker = board.Stage(kWorker);
  ASSERT_TRUE(worker) << worker.error().message;
  const auto argv = device::SshArgv(board_->Target(), device::RemoteWorkerCommand(*worker, {}));
  // A controller: starts the worker's ssh as Pipette does (PipeTransport) and has it generate
  // for a minute or more.
  const pid_t controller = fork();
  if (controller == 0) {
    auto t = worker::PipeTransport::Start(argv);
    if (!t) _exit(3);
    worker::LineChannel ch(std::move(*t), "worker");
    protocol::LoadModelRequest load;
    load.path = *model;
    protocol::InitContextRequest ctx;
    ctx.n_ctx = 8192;
    protocol::TgRequest tg;
    tg.first_token = 1;
    tg.n_gen = 8000;
    for (const json& request :
         {json(protocol::HelloRequest{}.ToJson()), load.ToJson(), ctx.ToJson(), tg.ToJson()}) {
      if (!ch.Call(request, seconds(600))) _exit(4);
    }
    _exit(0);
  }
  ASSERT_GT(controller, 0);
  // Killed once the worker has been generating a little while.
  std::this_thread::sleep_for(seconds(4));
  EXPECT_FALSE(board_->Processes("pipette-worker").empty()) << "the worker never started";
  int status = 0;
  EXPECT_EQ(waitpid(controller, &status, WNOHANG), 0) << "the controller ended early";
  kill(controller, SIGKILL);
  waitpid(controller, nullptr, 0);
  // Its ssh died with it; the connection closed; the board's session ended; the worker, busy
  // generating, too.
  EXPECT_TRUE(board_->NoneLeft("pipette-worker", seconds(15)));
}

// adb's commands through the stand-in: the real worker staged and spoken to through
// `adb shell`, staged files found again by digest, a hostile name, an unknown serial.
TEST(AdbDeviceE2E, TheWorkerThroughAStandInAdbAndStagingByDigest) {
  TempDir dir("pipette-adb-e2e");
  setenv("PIPETTE_STANDIN_SERIAL", "standin-1", 1);
  device::AdbTarget target;
  target.serial = "standin-1";
  target.workdir = (dir.path() / "data-local-tmp").string();
  target.adb_program = kSource + "/tests/e2e/standin-adb";
  ProcessCommandRunner runner;
  device::AdbDevice phone(target, runner);
  EXPECT_EQ(*phone.Arch(), "x86_64");  // the stand-in's: this machine's, not a phone's
  const fs::path hostile = dir.path() / "a 'model' $(x) `y`; z.gguf";
  fs::copy_file(kModel, hostile);
  auto model = phone.Stage(hostile.string());
  ASSERT_TRUE(model) << model.error().message;
  EXPECT_TRUE(fs::exists(*model));
  auto ch = phone.StartWorker({kWorker});
  ASSERT_TRUE(ch) << ch.error().message;
  Measure(**ch, *model, 2);
  (*ch)->Shutdown(milliseconds(5000));
  EXPECT_EQ(phone.sent(), 2);

  device::AdbDevice again(target, runner);
  EXPECT_EQ(*again.Stage(hostile.string()), *model);
  EXPECT_EQ(again.sent(), 0);
  EXPECT_EQ(again.reused(), 1);

  target.serial = "not-attached";
  device::AdbDevice absent(target, runner);
  auto staged = absent.Stage(kModel);
  ASSERT_FALSE(staged);
  EXPECT_NE(staged.error().message.find("adb failed: error: device 'not-attached' not found"),
            std::string::npos)
      << staged.error().message;
  unsetenv("PIPETTE_STANDIN_SERIAL");
}

}  // namespace
}  // namespace pipette_e2e
