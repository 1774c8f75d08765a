#include "pipette/sandbox/sandbox.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>

#include "pipette/util/temp_dir.h"

namespace pipette::sandbox {
namespace {

// The real tools (scripts/setup.sh installs bubblewrap): each hostile program tries its attack
// and exits 0 only if it worked. Contained means a verdict that is not a pass, the attack's
// target untouched, and this process going on.
class SandboxTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto tools = FindTools();
    ASSERT_TRUE(tools.ok()) << tools.error().message;
    tools_ = *tools;
  }
  Verdict Run(const std::string& program, Limits limits = {}) {
    Sandbox sandbox(runner_, tools_, limits);
    auto v = sandbox.RunPython(program);
    EXPECT_TRUE(v.ok()) << v.error().message;
    return v.ok() ? *v : Verdict{};
  }
  ProcessCommandRunner runner_;
  Tools tools_;
};

TEST_F(SandboxTest, APassingProgramPassesAndAFailingOneFails) {
  Sandbox sandbox(runner_, tools_, {});
  EXPECT_TRUE(sandbox.Check().ok());
  const Verdict ok = Run("def f(x):\n    return x + 1\nassert f(1) == 2\nprint('fine')\n");
  EXPECT_TRUE(ok.passed) << ok.outcome << ": " << ok.output;
  EXPECT_EQ(ok.outcome, "passed");
  EXPECT_EQ(ok.output, "fine\n");
  const Verdict bad = Run("assert 1 + 1 == 3\n");
  EXPECT_FALSE(bad.passed);
  EXPECT_EQ(bad.outcome, "failed");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.output.find("AssertionError"), std::string::npos);
}

TEST_F(SandboxTest, AForkBombIsStoppedAtItsProcessLimit) {
  const auto t0 = std::chrono::steady_clock::now();
  const Verdict v =
      Run("import os\n"
          "n = 0\n"
          "while n < 100000:\n"
          "    if os.fork() == 0:\n"
          "        import time; time.sleep(60); os._exit(0)\n"
          "    n += 1\n",
          {.wall_s = 30, .processes = 16});
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.outcome, "failed") << v.output;
  EXPECT_NE(v.output.find("Resource temporarily unavailable"), std::string::npos) << v.output;
  // Its sleeping children went with the sandbox, not left to run out their minute.
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
}

TEST_F(SandboxTest, AMemoryBombFailsAtItsAddressSpaceLimit) {
  const Verdict v = Run("x = bytearray(4 << 30)\n");
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.output.find("MemoryError"), std::string::npos) << v.output;
}

TEST_F(SandboxTest, AnInfiniteLoopIsKilledAtItsTime) {
  const Verdict wall = Run("import time\nwhile True: time.sleep(1)\n", {.wall_s = 1});
  EXPECT_FALSE(wall.passed);
  EXPECT_EQ(wall.outcome, "timeout");
  const Verdict cpu = Run("while True: pass\n", {.wall_s = 60, .cpu_s = 1});
  EXPECT_FALSE(cpu.passed);
  EXPECT_EQ(cpu.outcome, "signal");  // SIGKILL past RLIMIT_CPU's hard limit, or SIGXCPU
}

TEST_F(SandboxTest, ItHasNoNetwork) {
  // A server of this process's, on the machine's loopback: the program cannot reach it.
  const int server = socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(server, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(server, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(server, 4), 0);
  socklen_t len = sizeof addr;
  ASSERT_EQ(getsockname(server, reinterpret_cast<sockaddr*>(&addr), &len), 0);
  const int port = ntohs(addr.sin_port);
  const Verdict v = Run("import socket\nsocket.create_connection(('127.0.0.1', " +
                        std::to_string(port) + "), timeout=3)\n");
  close(server);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.output.find("ConnectionRefusedError"), std::string::npos) << v.output;
  const Verdict out = Run("import socket\nsocket.create_connection(('1.1.1.1', 80), timeout=3)\n");
  EXPECT_FALSE(out.passed);
  EXPECT_NE(out.output.find("Network is unreachable"), std::string::npos) << out.output;
}

TEST_F(SandboxTest, ItWritesOnlyItsOwnTemporaryFolder) {
  TempDir host("pipette-sandbox-test");
  const Verdict tmp =
      Run("open('/tmp/x', 'w').write('ok')\nassert open('/tmp/x').read() == 'ok'\n");
  EXPECT_TRUE(tmp.passed) << tmp.output;
  for (const std::string& target : {std::string("/usr/pwned"), std::string("/pwned"),
                                    host / "pwned", std::string("/etc/pwned")}) {
    const Verdict v = Run("open('" + target + "', 'w').write('x')\n");
    EXPECT_FALSE(v.passed) << target;
  }
  EXPECT_FALSE(std::filesystem::exists(host / "pwned"));
  // Its /tmp is bounded: a file past the size limit fails.
  const Verdict big =
      Run("open('/tmp/big', 'wb').write(b'a' * (64 << 20))\n", {.file_bytes = int64_t{8} << 20});
  EXPECT_FALSE(big.passed);
}

TEST_F(SandboxTest, ItSeesNoSecretFileHomeStoreOrEnvironment) {
  TempDir host("pipette-sandbox-test");
  const std::string secret = host / "id_ed25519";
  std::ofstream(secret) << "SECRET-KEY-MATERIAL";
  setenv("PIPETTE_SANDBOX_TEST_TOKEN", "SECRET-TOKEN", 1);
  const std::string home = std::getenv("HOME") ? std::getenv("HOME") : "/root";
  for (const std::string& path : {secret, home + "/.ssh/id_rsa", home + "/.ssh/id_ed25519",
                                  std::string(std::filesystem::current_path())}) {
    const Verdict v = Run("import os\nprint(open('" + path + "').read() if os.path.isfile('" +
                          path + "') else os.listdir('" + path + "'))\n");
    EXPECT_FALSE(v.passed) << path << ": " << v.output;
    EXPECT_EQ(v.output.find("SECRET-KEY-MATERIAL"), std::string::npos);
  }
  const Verdict env =
      Run("import os\nprint(os.environ)\nassert 'PIPETTE_SANDBOX_TEST_TOKEN' in os.environ\n");
  unsetenv("PIPETTE_SANDBOX_TEST_TOKEN");
  EXPECT_FALSE(env.passed);
  EXPECT_EQ(env.output.find("SECRET-TOKEN"), std::string::npos) << env.output;
}

TEST_F(SandboxTest, ItInheritsNoOpenFileOfThisProcess) {
  TempDir host("pipette-sandbox-test");
  const std::string secret = host / "open-secret";
  std::ofstream(secret) << "SECRET-OPEN-FILE";
  const int fd = ::open(secret.c_str(), O_RDONLY);  // no O_CLOEXEC: a leak to look for
  ASSERT_GE(fd, 3);
  const Verdict v = Run("import os\nprint(sorted(os.listdir('/proc/self/fd')))\nprint(os.read(" +
                        std::to_string(fd) + ", 100))\n");
  ::close(fd);
  EXPECT_FALSE(v.passed) << v.output;
  EXPECT_NE(v.output.find("Bad file descriptor"), std::string::npos) << v.output;
  EXPECT_EQ(v.output.find("SECRET-OPEN-FILE"), std::string::npos) << v.output;
}

TEST_F(SandboxTest, AHugeOutputIsCutAndTheProgramKilled) {
  const Verdict v =
      Run("import sys\nwhile True: sys.stdout.write('x' * 65536)\n", {.output_bytes = 1 << 20});
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.outcome, "output_limit");
  EXPECT_LE(v.output.size(), Verdict::kKeptOutput);
}

TEST_F(SandboxTest, KillingItsParentOrThisProcessFails) {
  const Verdict v =
      Run("import os, signal\n"
          "os.kill(" +
          std::to_string(getpid()) +
          ", signal.SIGKILL)\n"  // this test: not in its PID namespace
          "os.kill(os.getppid(), signal.SIGKILL)\n"
          "os.kill(-1, signal.SIGKILL)\n");
  EXPECT_FALSE(v.passed);
  // And this process is here to see it, and the next program runs.
  EXPECT_TRUE(Run("print('next')\n").passed);
}

TEST(SandboxArgv, RunsPythonUnderBubblewrapWithEveryLimit) {
  ProcessCommandRunner runner;
  Sandbox sandbox(runner,
                  {"/usr/bin/bwrap", "/usr/bin/prlimit", "/usr/bin/setpriv", "/usr/bin/python3"},
                  {.cpu_s = 7, .address_space = 123, .processes = 5, .file_bytes = 456});
  const std::vector<std::string> argv = sandbox.Argv();
  auto has = [&](const std::string& a) {
    return std::find(argv.begin(), argv.end(), a) != argv.end();
  };
  for (const char* a : {"--cpu=7", "--as=123", "--fsize=456", "--core=0", "--unshare-all",
                        "--unshare-user", "--die-with-parent", "--clearenv", "--remount-ro"}) {
    EXPECT_TRUE(has(a)) << a;
  }
  EXPECT_FALSE(has("/home"));
  EXPECT_EQ(argv.back(), "-");
  EXPECT_EQ(argv[argv.size() - 3], "/usr/bin/python3");
}

}  // namespace
}  // namespace pipette::sandbox
