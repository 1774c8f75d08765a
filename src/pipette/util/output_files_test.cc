#include "pipette/util/output_files.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "pipette/util/files.h"
#include "pipette/util/temp_dir.h"

namespace pipette {
namespace {
namespace fs = std::filesystem;

std::string Slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs the checks from inside `dir`, so that relative spellings can be tried.
class InDir {
 public:
  explicit InDir(const fs::path& dir) : was_(fs::current_path()) { fs::current_path(dir); }
  ~InDir() { fs::current_path(was_); }

 private:
  fs::path was_;
};

TEST(OutputFiles, AnOutputThatIsAnInputUnderAnySpellingIsRefused) {
  const TempDir dir("pipette-outputs");
  const InDir here(dir.path());
  std::ofstream("s.db") << "store";
  std::ofstream("x.yaml") << "tests: [tg4]";
  fs::create_symlink("s.db", "link.db");
  fs::create_hard_link("s.db", "hard.db");
  fs::create_directory("sub");
  const std::vector<NamedPath> inputs = StoreFiles("the store", "s.db");
  for (const std::string& out :
       std::vector<std::string>{"s.db", "./s.db", "sub/../s.db", (dir.path() / "s.db").string(),
                                std::string("link.db"), std::string("hard.db")}) {
    const Status st = CheckOutputs(inputs, {{"--export-json", out}});
    ASSERT_FALSE(st.ok()) << out;
    EXPECT_EQ(st.error().exit_code, 2);
    EXPECT_EQ(st.error().message, "--export-json " + out +
                                      ": that is the store (s.db), which writing would destroy: "
                                      "give another path");
  }
  // The files SQLite keeps beside the store are the store too, whether they exist or not.
  const Status wal = CheckOutputs(inputs, {{"-o", "s.db-wal"}});
  ASSERT_FALSE(wal.ok());
  EXPECT_NE(wal.error().message.find("the store (wal file) (s.db-wal)"), std::string::npos)
      << wal.error().message;
  // The experiment, through an --export FORMAT=PATH.
  const Status ex = CheckOutputs({{"the experiment", "x.yaml"}}, {{"--export md=", "./x.yaml"}});
  ASSERT_FALSE(ex.ok());
  EXPECT_EQ(ex.error().message,
            "--export md=./x.yaml: that is the experiment (x.yaml), which writing would destroy: "
            "give another path");
  EXPECT_TRUE(
      CheckOutputs(inputs, {{"-o", "report.md"}, {"--export-json", "sub/new/r.json"}}).ok());
  EXPECT_EQ(Slurp("s.db"), "store");
}

TEST(OutputFiles, TwoOutputsToOneFileAreRefused) {
  const TempDir dir("pipette-outputs");
  const InDir here(dir.path());
  const Status st = CheckOutputs({}, {{"--export-md", "r.md"}, {"--export md=", "./r.md"}});
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().exit_code, 2);
  EXPECT_EQ(st.error().message,
            "--export md=./r.md: --export-md r.md writes that file too: give each output its own "
            "path");
}

TEST(OutputFiles, ADirectoryOrAPlaceNoFileCanBeIsRefused) {
  const TempDir dir("pipette-outputs");
  const std::string folder = dir.path().string();
  const Status d = CheckOutputs({}, {{"-o", folder}});
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().exit_code, 2);
  EXPECT_EQ(d.error().message,
            "-o " + folder + ": " + folder + " is a directory: give a file to write");
  std::ofstream(dir.path() / "file") << "x";
  const std::string under = (dir.path() / "file" / "sub" / "r.md").string();
  const Status f = CheckOutputs({}, {{"-o", under}});
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.error().exit_code, 2);
  EXPECT_NE(f.error().message.find((dir.path() / "file").string() + " is not a folder"),
            std::string::npos)
      << f.error().message;
}

TEST(OutputFiles, WritingADirectorySaysSoWithExitCode2) {
  const TempDir dir("pipette-outputs");
  const Status st = WriteFileAtomically(dir.path().string(), "x");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().exit_code, 2);
  EXPECT_EQ(st.error().message,
            "cannot write " + dir.path().string() + ": " + dir.path().string() + " is a directory");
  // The reason is the failing call's errno, never a stale one ("Success").
  std::ofstream(dir.path() / "file") << "x";
  const std::string under = (dir.path() / "file" / "r.md").string();
  const Status nd = WriteFileAtomically(under, "x");
  ASSERT_FALSE(nd.ok());
  EXPECT_EQ(nd.error().exit_code, 2);
  EXPECT_NE(nd.error().message.find("Not a directory"), std::string::npos) << nd.error().message;
  EXPECT_EQ(nd.error().message.find("Success"), std::string::npos) << nd.error().message;
}

TEST(OutputFiles, ASymbolicLinkIsFollowedAndAPipeWrittenInPlace) {
  const TempDir dir("pipette-outputs");
  std::ofstream(dir.path() / "real.md") << "old";
  fs::create_symlink(dir.path() / "real.md", dir.path() / "link.md");
  ASSERT_TRUE(WriteFileAtomically((dir.path() / "link.md").string(), "new").ok());
  EXPECT_TRUE(fs::is_symlink(dir.path() / "link.md"));
  EXPECT_EQ(Slurp(dir.path() / "real.md"), "new");

  // A pipe whose reader is open already: written through, never replaced by a file.
  const fs::path fifo = dir.path() / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  const Status st = WriteFileAtomically(fifo.string(), "through the pipe");
  char buf[64] = {};
  const ssize_t n = ::read(reader, buf, sizeof buf);
  ::close(reader);
  EXPECT_TRUE(st.ok());
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(std::string(buf, n > 0 ? size_t(n) : 0), "through the pipe");
}

TEST(OutputFiles, TemporaryFileNames) {
  EXPECT_EQ(TempFilePid("r.md.tmp123", "r.md", "box"), 123);
  EXPECT_EQ(TempFilePid("r.md.tmp123.box", "r.md", "box"), 123);
  EXPECT_EQ(TempFilePid("r.md.tmp123.other", "r.md", "box"), std::nullopt);
  EXPECT_EQ(TempFilePid("r.md.tmp", "r.md", "box"), std::nullopt);
  EXPECT_EQ(TempFilePid("r.md.tmpx", "r.md", "box"), std::nullopt);
  EXPECT_EQ(TempFilePid("s.md.tmp123", "r.md", "box"), std::nullopt);
  EXPECT_EQ(TempFilePid("r.md", "r.md", "box"), std::nullopt);
}

TEST(OutputFiles, AGoneWritersTemporaryFilesAreRemovedByTheNextWriter) {
  const TempDir dir("pipette-outputs");
  const std::string host = ShortHostName();
  const fs::path out = dir.path() / "r.md";
  const std::string self = std::to_string(::getpid());
  // 4000001 and 4000002 are gone (the fake table), 4000003 runs; one of another host is kept.
  for (const std::string& name :
       std::vector<std::string>{"r.md.tmp4000001", "r.md.tmp4000002." + host, "r.md.tmp4000003",
                                "r.md.tmp4000001.elsewhere", "other.md.tmp4000001"}) {
    std::ofstream(dir.path() / name) << "half";
  }
  const PidAlive alive = [](int pid) { return pid == 4000003; };
  ASSERT_TRUE(WriteFileAtomically(out.string(), "whole", alive).ok());
  EXPECT_EQ(Slurp(out), "whole");
  EXPECT_FALSE(fs::exists(dir.path() / "r.md.tmp4000001"));
  EXPECT_EQ(fs::exists(dir.path() / ("r.md.tmp4000002." + host)), host.empty());
  EXPECT_TRUE(fs::exists(dir.path() / "r.md.tmp4000003"));
  EXPECT_TRUE(fs::exists(dir.path() / "r.md.tmp4000001.elsewhere"));
  EXPECT_TRUE(fs::exists(dir.path() / "other.md.tmp4000001"));
  // Nothing of this writer's own is left.
  for (const auto& e : fs::directory_iterator(dir.path())) {
    EXPECT_EQ(e.path().filename().string().find("tmp" + self), std::string::npos) << e.path();
  }
}

}  // namespace
}  // namespace pipette
