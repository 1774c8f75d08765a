#include "imatrix_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <limits>

namespace pipette::llama_worker {
namespace {

namespace fs = std::filesystem;

class ImatrixFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("pipette-imatrix-test-" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& text) {
    const fs::path p = dir_ / ("f" + std::to_string(++n_) + ".json");
    std::ofstream(p) << text;
    return p.string();
  }
  fs::path dir_;
  int n_ = 0;
};

TEST_F(ImatrixFileTest, WrittenAtomicallyAndReadBackExactly) {
  ImatrixFile file;
  file.n_chunks = 2;
  file.n_tokens = 600;
  file.entries["blk.0.attn_q.weight"] = {600, {0.1f, 1e-7f, 3.25f}};
  file.entries["blk.0.ffn_down.weight"] = {600, {2.0f}};
  const std::string path = (dir_ / "out.json").string();
  ASSERT_TRUE(WriteImatrixFile(path, file).ok());
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  auto back = ReadImatrixFile(path);
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->n_chunks, 2);
  EXPECT_EQ(back->n_tokens, 600);
  ASSERT_EQ(back->entries.size(), 2u);
  EXPECT_EQ(back->entries["blk.0.attn_q.weight"].values,
            file.entries["blk.0.attn_q.weight"].values);
  EXPECT_EQ(back->entries["blk.0.attn_q.weight"].count, 600);
}

TEST_F(ImatrixFileTest, ANonFiniteValueIsNotWritten) {
  ImatrixFile file;
  file.entries["blk.0.x"] = {1, {std::numeric_limits<float>::infinity()}};
  const std::string path = (dir_ / "inf.json").string();
  const Status st = WriteImatrixFile(path, file);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().message, "the importance matrix of blk.0.x is not finite");
  EXPECT_FALSE(fs::exists(path));
  EXPECT_FALSE(WriteImatrixFile((dir_ / "no-dir" / "x.json").string(), ImatrixFile{}).ok());
}

TEST_F(ImatrixFileTest, MalformedFilesAreRefusedWithTheReason) {
  auto message = [&](const std::string& text) {
    auto r = ReadImatrixFile(Write(text));
    return r ? std::string("(read)") : r.error().message;
  };
  EXPECT_NE(message("[1]").find("is not a JSON object"), std::string::npos);
  EXPECT_NE(message(R"({"format":"other"})").find("is not in the format \"pipette-imatrix/1\""),
            std::string::npos);
  EXPECT_NE(message(R"({"format":"pipette-imatrix/1","n_chunks":1,"n_tokens":1,"entries":{}})")
                .find("has no entries"),
            std::string::npos);
  EXPECT_NE(message(R"({"format":"pipette-imatrix/1","n_chunks":1,"n_tokens":1,)"
                    R"("entries":{"a":{"count":1,"values":[-1]}}})")
                .find("entry 'a' holds a negative or non-finite value"),
            std::string::npos);
  EXPECT_NE(ReadImatrixFile((dir_ / "missing.json").string()).error().message.find("cannot open"),
            std::string::npos);
}

}  // namespace
}  // namespace pipette::llama_worker
