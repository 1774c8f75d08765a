// llama.cpp start-up (backends, logging) and the build facts a worker reports about it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pipette::llama_worker {

// The llama-cpp-python package version this worker was built against ("runtime_version").
const char* LlamaCppPythonVersion();

// Routes llama.cpp/ggml logging to standard error, keeping warnings and errors only (all
// levels when `verbose`), and initialises the backends.
void StartLlamaRuntime(bool verbose);

// While an instance lives, llama.cpp's messages are also kept (they still go to standard error
// as before), so that a failed call can name llama.cpp's reason in its reply and a reply can say
// what llama.cpp decides only in its log (runtime_log.h). One at a time.
class LlamaErrorCapture {
 public:
  LlamaErrorCapture();
  ~LlamaErrorCapture();
  LlamaErrorCapture(const LlamaErrorCapture&) = delete;
  LlamaErrorCapture& operator=(const LlamaErrorCapture&) = delete;
  // The last error message logged since construction, trailing whitespace removed; "" if none.
  std::string LastError() const;
  // Every message (all levels) logged since construction.
  std::string Log() const;
};

// The `runtime_build` object of `hello`: commit, versions, system info, backends and devices.
nlohmann::ordered_json RuntimeBuild();

// Human-readable version lines for --version.
std::string VersionText();

}  // namespace pipette::llama_worker
