// The end-to-end fixture: runs build/pipette (real worker, real bundled models) in a fresh
// folder per test and reads what it printed and stored.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <thread>

#include "pipette/store/store.h"
#include "pipette/testing/paths.h"

namespace pipette_e2e {

namespace fs = std::filesystem;
using nlohmann::json;

inline const std::string kSource = pipette::testing::SourceDir();
inline const std::string kPipette = pipette::testing::PipetteBinary();
inline const std::string kModel = kSource + "/models/SmolLM2-135M-Instruct.Q4_1.gguf";
inline const std::string kGemmaModel = kSource + "/models/gemma-3-270m-q4_k_m.gguf";
// llama.cpp's own tools, built by this project from the same pinned source as the worker.
inline const std::string kLlamaTools = pipette::testing::LlamaToolsDir();

struct Output {
  int code = -1;
  std::string out, err;
};

inline std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Starts a program (no shell; a name without '/' is looked up on PATH) with stdout and stderr
// sent to files (one file for both when they are the same path); returns the pid.
inline pid_t Spawn(std::vector<std::string> argv, const fs::path& out, const fs::path& err) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int e = err == out ? o : open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(o, 1);
    dup2(e, 2);
    std::vector<char*> a;
    for (auto& s : argv) a.push_back(s.data());
    a.push_back(nullptr);
    execvp(a[0], a.data());
    _exit(127);
  }
  return pid;
}

// Starts pipette with stdout and stderr sent to files; returns the pid.
inline pid_t Start(const std::vector<std::string>& args, const fs::path& out, const fs::path& err) {
  std::vector<std::string> argv = {kPipette};
  argv.insert(argv.end(), args.begin(), args.end());
  return Spawn(std::move(argv), out, err);
}

inline int Wait(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

class E2E : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(kModel)) << "run scripts/setup.sh first: " << kModel;
    // One folder per test, named after it ("/" of a parameterised test's name made "_", so that
    // removing the folder removes everything the test wrote).
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '_');
    dir_ = fs::temp_directory_path() / ("pipette-e2e-" + std::to_string(getpid()) + "-" + name);
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // A measuring lock of the test's own: tests neither wait for nor block what else runs here.
    setenv("PIPETTE_LOCK_FILE", (dir_ / "measure.lock").c_str(), 1);
  }
  // Whatever happened, nothing is left: the programs a test started are stopped and its folder
  // removed (a failing test prints what it needs first).
  void TearDown() override {
    for (pid_t pid : started_) {
      // 0: still running (a child not yet reaped); -1: the test waited for it already.
      if (::waitpid(pid, nullptr, WNOHANG) == 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
      }
    }
    std::error_code ec;
    fs::remove_all(dir_, ec);
    unsetenv("PIPETTE_LOCK_FILE");
  }

  // Starts pipette in the background; TearDown stops it if the test did not wait for it.
  pid_t StartPipette(const std::vector<std::string>& args, const std::string& tag = "") {
    const pid_t pid = Start(args, dir_ / (tag + "stdout"), dir_ / (tag + "stderr"));
    started_.push_back(pid);
    return pid;
  }

  fs::path Write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

  Output Pipette(const std::vector<std::string>& args) {
    Output o;
    o.code = Wait(Start(args, dir_ / "stdout", dir_ / "stderr"));
    o.out = ReadFile(dir_ / "stdout");
    o.err = ReadFile(dir_ / "stderr");
    return o;
  }

  // Runs another program (a llama.cpp reference tool) with stdout and stderr into the test's
  // folder; `out` holds both, stdout first.
  Output Program(const std::vector<std::string>& argv) {
    Output o;
    const pid_t pid = Spawn(argv, dir_ / "program.out", dir_ / "program.err");
    started_.push_back(pid);
    o.code = Wait(pid);
    o.err = ReadFile(dir_ / "program.err");
    o.out = ReadFile(dir_ / "program.out") + o.err;
    return o;
  }

  std::string Store() const { return (dir_ / "results.db").string(); }

  json ReportJson() {
    Output o = Pipette({"report", "--store", Store(), "--format", "json"});
    EXPECT_EQ(o.code, 0) << o.err;
    return json::parse(o.out);
  }

  // The samples of `test` the store holds for a cell.
  std::vector<pipette::store::SampleRecord> Samples(int64_t cell, const std::string& test) {
    std::vector<pipette::store::SampleRecord> out;
    auto st = pipette::store::Store::Open(Store());
    EXPECT_TRUE(st.ok());
    if (!st.ok()) return out;
    auto samples = (*st)->Samples(cell);
    EXPECT_TRUE(samples.ok());
    if (!samples.ok()) return out;
    for (auto& s : *samples) {
      if (s.test == test) out.push_back(s);
    }
    return out;
  }

  // A result's value in the report's JSON (NaN, failing the test, when it has none).
  static double Value(const json& results, int cell, const std::string& test,
                      const std::string& metric) {
    const json* r = Find(results, cell, test, metric);
    EXPECT_NE(r, nullptr) << "cell " << cell << " " << test << " " << metric;
    return r && r->at("value").is_number() ? r->at("value").get<double>() : NAN;
  }

  static const json* Find(const json& results, int cell, const std::string& test,
                          const std::string& metric) {
    for (const json& r : results) {
      if (r["cell"] == cell && r["test"] == test && r["metric"] == metric) return &r;
    }
    return nullptr;
  }

  fs::path dir_;
  std::vector<pid_t> started_;
};

}  // namespace pipette_e2e
