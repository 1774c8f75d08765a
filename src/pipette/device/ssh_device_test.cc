// The ssh device's commands, built and read back without a board: a fake CommandRunner answers
// as ssh would. A real sshd on a board in a network namespace is in
// tests/e2e/ssh_device_e2e_test.cc.
#include "pipette/device/ssh_device.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "pipette/util/sha256.h"
#include "pipette/util/shell_quote.h"
#include "pipette/util/temp_dir.h"

namespace pipette::device {
namespace {

// Answers each ssh command with `answer(remote command, stdin path)`; keeps what it ran.
class FakeSsh : public CommandRunner {
 public:
  std::function<CommandResult(const std::string&, const std::string&)> answer;
  std::vector<Command> ran;
  Result<CommandResult> Run(const Command& c) override {
    ran.push_back(c);
    return answer(c.argv.back(), c.stdin_path);
  }
};

SshTarget Board() {
  SshTarget t;
  t.host = "10.0.0.2";
  t.port = 2222;
  t.user = "pi";
  t.key_file = "/keys/id";
  t.workdir = "/data/pipette";
  return t;
}

// What the board's sh would do with a command line: the words it splits it into.
std::vector<std::string> ShellWords(const std::string& line) {
  const std::string cmd =
      "sh -c " + ShellQuote("for w in " + line + "; do printf '%s\\0' \"$w\"; done");
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  char buf[256];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  ::pclose(p);
  std::vector<std::string> words;
  for (size_t s = 0, e; (e = out.find('\0', s)) != std::string::npos; s = e + 1) {
    words.push_back(out.substr(s, e - s));
  }
  return words;
}

TEST(SshArgv, BatchModeNoTtyKeepAlivesTheKeyAndOneRemoteCommand) {
  const auto argv = SshArgv(Board(), "uname -m");
  const std::vector<std::string> head = {"/usr/bin/ssh", "-T", "-o", "BatchMode=yes"};
  EXPECT_EQ(std::vector<std::string>(argv.begin(), argv.begin() + 4), head);
  EXPECT_NE(std::find(argv.begin(), argv.end(), "ServerAliveInterval=5"), argv.end());
  EXPECT_NE(std::find(argv.begin(), argv.end(), "/keys/id"), argv.end());
  ASSERT_GE(argv.size(), 3u);
  EXPECT_EQ(argv[argv.size() - 3], "--");
  EXPECT_EQ(argv[argv.size() - 2], "pi@10.0.0.2");
  EXPECT_EQ(argv.back(), "uname -m");
  EXPECT_EQ(Board().DisplayName(), "pi@10.0.0.2:2222");
  // A host that looks like an option comes after "--": ssh takes it as a name, not an option.
  SshTarget hostile = Board();
  hostile.host = "-oProxyCommand=touch /tmp/pwned";
  hostile.user = "";
  const auto h = SshArgv(hostile, "true");
  EXPECT_EQ(h[h.size() - 3], "--");
  EXPECT_EQ(h[h.size() - 2], "-oProxyCommand=touch /tmp/pwned");
}

TEST(RemoteWorkerCommand, EveryWordArrivesWholeWhateverItHolds) {
  const std::string worker = "/data/pipette/files/abc/pipette worker's $HOME";
  const std::vector<std::string> args = {"--model", "a;b `c` $(d)\nline two", "*"};
  const std::string cmd = RemoteWorkerCommand(worker, args);
  // After `chmod u+x <worker> && exec`, the words the board's shell runs.
  const std::string exec = cmd.substr(cmd.find("&& exec ") + 8);
  std::vector<std::string> expected = {worker};
  expected.insert(expected.end(), args.begin(), args.end());
  EXPECT_EQ(ShellWords(exec), expected);
  EXPECT_EQ(cmd.rfind("export PIPETTE_EXIT_WITH_PARENT=\"$PPID\"; ", 0), 0u) << cmd;
  // A relative path (a work folder under the home) is run as ./path: never an option, never
  // looked up on PATH, whatever it starts with; a name holding '=' is no assignment.
  const std::string odd = RemoteWorkerCommand("-w=1/worker", {});
  EXPECT_EQ(ShellWords(odd.substr(odd.find("&& exec ") + 8)),
            std::vector<std::string>{"./-w=1/worker"});
}

TEST(SshDevice, StagesAFileOnceAndReusesOneWithTheSameDigest) {
  TempDir dir("pipette-ssh-test");
  const std::string model = (dir.path() / "my model $1.gguf").string();
  std::ofstream(model) << "weights";
  const std::string sha = *Sha256File(model);
  const std::string remote = "/data/pipette/files/" + sha + "/my model $1.gguf";

  FakeSsh ssh;
  bool there = false;
  ssh.answer = [&](const std::string& command, const std::string& stdin_path) {
    CommandResult r;
    if (command.find("cat >") != std::string::npos) {
      EXPECT_EQ(stdin_path, model);  // the file goes through ssh's standard input
      there = true;
    } else if (there || command.find("mv -f") != std::string::npos) {
      r.out = sha + "  -\n";
    }
    return r;
  };
  SshDevice board(Board(), ssh);
  auto staged = board.Stage(model);
  ASSERT_TRUE(staged) << staged.error().message;
  EXPECT_EQ(*staged, remote);
  EXPECT_EQ(board.sent(), 1);
  EXPECT_EQ(ssh.ran.size(), 4u);  // asked, a folder made, sent, its digest checked there
  EXPECT_EQ(*board.Stage(model), remote);
  EXPECT_EQ(ssh.ran.size(), 4u);  // once per device object

  // A second run (another device object) finds it there by its digest and sends nothing.
  SshDevice again(Board(), ssh);
  EXPECT_EQ(*again.Stage(model), remote);
  EXPECT_EQ(again.sent(), 0);
  EXPECT_EQ(again.reused(), 1);
}

TEST(SshDevice, ACopyWithAnotherDigestOrALostLinkIsAnError) {
  TempDir dir("pipette-ssh-test");
  const std::string model = (dir.path() / "m.gguf").string();
  std::ofstream(model) << "weights";
  FakeSsh ssh;
  ssh.answer = [](const std::string& command, const std::string&) {
    CommandResult r;
    if (command.find("mv -f") != std::string::npos) {  // the check of the copy's digest
      r.exit_code = 3;
      r.err = "the copy's SHA-256 is 00ff\n";
    }
    return r;
  };
  SshDevice board(Board(), ssh);
  auto staged = board.Stage(model);
  ASSERT_FALSE(staged);
  EXPECT_NE(staged.error().message.find("the copy's SHA-256 is 00ff"), std::string::npos);

  ssh.answer = [](const std::string&, const std::string&) {
    return CommandResult{255, false, "", "ssh: connect to host 10.0.0.2 port 2222: No route\n"};
  };
  SshDevice gone(Board(), ssh);
  auto lost = gone.Stage(model);
  ASSERT_FALSE(lost);
  EXPECT_NE(lost.error().message.find("device pi@10.0.0.2:2222: ssh failed: ssh: connect"),
            std::string::npos)
      << lost.error().message;
  EXPECT_FALSE(gone.Arch());
}

TEST(SshDevice, TheFingerprintIsTheBoardsFromItsSnapshot) {
  FakeSsh ssh;
  ssh.answer = [](const std::string&, const std::string&) {
    CommandResult r;
    r.out =
        "\n==> /proc/cpuinfo <==\nprocessor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd08\n"
        "Features\t: fp asimd\n\n==> /proc/meminfo <==\nMemTotal:        4000000 kB\n"
        "\n==> /proc/sys/kernel/hostname <==\nboard\n\n==> @uname-m <==\naarch64\n";
    return r;
  };
  SshDevice board(Board(), ssh);
  const nlohmann::json fp = board.Fingerprint({});
  EXPECT_EQ(fp["arch"], "aarch64");
  EXPECT_EQ(fp["hostname"], "board");
  EXPECT_EQ(fp["cpu_model"], "ARM Cortex-A72");
  EXPECT_EQ(fp["mem_total_bytes"], int64_t{4000000} * 1024);
  EXPECT_EQ(fp["isa_flags"], nlohmann::json::array({"neon", "asimd"}));
}

}  // namespace
}  // namespace pipette::device
