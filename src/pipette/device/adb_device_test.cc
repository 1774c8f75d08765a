// The adb device's commands, built without a phone: a fake CommandRunner answers as adb would.
// The worker over a stand-in adb is in tests/e2e/ssh_device_e2e_test.cc (no phone reaches this
// machine).
#include "pipette/device/adb_device.h"

#include <gtest/gtest.h>

#include <fstream>

#include "pipette/util/sha256.h"
#include "pipette/util/temp_dir.h"

namespace pipette::device {
namespace {

class FakeAdb : public CommandRunner {
 public:
  std::function<CommandResult(const Command&)> answer;
  std::vector<Command> ran;
  Result<CommandResult> Run(const Command& c) override {
    ran.push_back(c);
    return answer(c);
  }
};

AdbTarget Phone() {
  AdbTarget t;
  t.serial = "R58M123 ABC";
  return t;
}

TEST(AdbShellArgv, TheSerialAndOneQuotedCommandWithoutATty) {
  EXPECT_EQ(AdbShellArgv(Phone(), "uname -m"),
            (std::vector<std::string>{"adb", "-s", "R58M123 ABC", "shell", "-T", "uname -m"}));
  EXPECT_EQ(Phone().DisplayName(), "adb:R58M123 ABC");
  AdbTarget only;
  EXPECT_EQ(AdbShellArgv(only, "true"), (std::vector<std::string>{"adb", "shell", "-T", "true"}));
}

TEST(AdbDevice, StagesByAdbPushIntoTheWorkFolderAndChecksTheDigestThere) {
  TempDir dir("pipette-adb-test");
  const std::string model = (dir.path() / "a b.gguf").string();
  std::ofstream(model) << "weights";
  const std::string sha = *Sha256File(model);
  FakeAdb adb;
  adb.answer = [](const Command&) { return CommandResult{}; };
  AdbDevice phone(Phone(), adb);
  auto staged = phone.Stage(model);
  ASSERT_TRUE(staged) << staged.error().message;
  EXPECT_EQ(*staged, "/data/local/tmp/pipette/files/" + sha + "/a b.gguf");
  ASSERT_EQ(adb.ran.size(), 4u);  // asked, a folder made, pushed, its digest checked
  const std::vector<std::string> push = adb.ran[2].argv;
  ASSERT_EQ(push.size(), 6u);
  EXPECT_EQ(std::vector<std::string>(push.begin(), push.begin() + 5),
            (std::vector<std::string>{"adb", "-s", "R58M123 ABC", "push", model}));
  EXPECT_EQ(push[5].rfind(*staged + ".part-", 0), 0u) << push[5];  // this attempt's own part
}

TEST(AdbDevice, ACopyWithAnotherDigestOrNoSha256sumOnTheDeviceIsAnError) {
  TempDir dir("pipette-adb-test");
  const std::string model = (dir.path() / "m.gguf").string();
  std::ofstream(model) << "weights";
  FakeAdb adb;
  adb.answer = [](const Command& c) {
    CommandResult r;
    if (c.argv.back().find("mv -f") != std::string::npos) {  // the check of the copy's digest
      r.exit_code = 3;
      r.err = "the copy's SHA-256 is 00ff\n";
    }
    return r;
  };
  AdbDevice phone(Phone(), adb);
  auto staged = phone.Stage(model);
  ASSERT_FALSE(staged);
  EXPECT_NE(staged.error().message.find("the copy's SHA-256 is 00ff"), std::string::npos);
  EXPECT_EQ(phone.sent(), 0);

  adb.answer = [](const Command&) {
    return CommandResult{4, false, "", "the device has no sha256sum to check staged files with\n"};
  };
  AdbDevice old(Phone(), adb);
  auto none = old.Stage(model);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("no sha256sum"), std::string::npos) << none.error().message;
}

TEST(AdbDevice, AdbsOwnFailureIsTheLinksNotTheCommands) {
  FakeAdb adb;
  adb.answer = [](const Command&) {
    return CommandResult{1, false, "", "error: device 'R58M123 ABC' not found\n"};
  };
  AdbDevice phone(Phone(), adb);
  auto arch = phone.Arch();
  ASSERT_FALSE(arch);
  EXPECT_NE(arch.error().message.find(
                "device adb:R58M123 ABC: adb failed: error: device 'R58M123 ABC' not found"),
            std::string::npos)
      << arch.error().message;
}

}  // namespace
}  // namespace pipette::device
