#include "runtime_info.h"

#include <ggml-backend.h>
#include <ggml.h>
#include <llama.h>
#include <sys/auxv.h>
#include <sys/utsname.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>
#include <utility>

#include "pipette/protocol/version.h"

namespace pipette::llama_worker {
namespace {

std::atomic<bool> g_verbose{false};
std::atomic<int> g_last_level{GGML_LOG_LEVEL_INFO};

// The error messages kept for a LlamaErrorCapture, when one is alive.
std::mutex g_capture_mutex;
bool g_capturing = false;
std::string g_last_error;
std::string g_log;  // every message of every level, for what llama.cpp says only there

// llama.cpp logs through this; GGML_LOG_LEVEL_CONT continues the previous message's level.
void LogToStderr(ggml_log_level level, const char* text, void* /*user_data*/) {
  int effective = level;
  if (level == GGML_LOG_LEVEL_CONT) {
    effective = g_last_level.load();
  } else {
    g_last_level.store(level);
  }
  if (g_verbose.load() || effective >= GGML_LOG_LEVEL_WARN) std::fputs(text, stderr);
  const std::lock_guard<std::mutex> lock(g_capture_mutex);
  if (!g_capturing) return;
  g_log += text;
  if (effective == GGML_LOG_LEVEL_ERROR) {
    if (level != GGML_LOG_LEVEL_CONT) g_last_error.clear();
    g_last_error += text;
  }
}

// The architecture this worker was compiled for.
constexpr const char* kCompiledFor =
#if defined(__aarch64__)
    "aarch64";
#elif defined(__x86_64__)
    "x86_64";
#else
    "other";
#endif

// The names of the set bits of AT_HWCAP / AT_HWCAP2 that decide llama.cpp's aarch64 kernels
// (Linux's arch/arm64/include/uapi/asm/hwcap.h); other architectures: none decoded.
nlohmann::ordered_json HwcapNames(unsigned long hwcap, unsigned long hwcap2) {
  nlohmann::ordered_json names = nlohmann::ordered_json::array();
#if defined(__aarch64__)
  const std::pair<int, const char*> bits[] = {{0, "fp"},   {1, "asimd"},    {7, "atomics"},
                                              {9, "fphp"}, {10, "asimdhp"}, {20, "asimddp"},
                                              {22, "sve"}, {23, "asimdfhm"}};
  for (const auto& [bit, name] : bits) {
    if (hwcap & (1UL << bit)) names.push_back(name);
  }
  const std::pair<int, const char*> bits2[] = {
      {1, "sve2"}, {13, "i8mm"}, {14, "bf16"}, {23, "sme"}};
  for (const auto& [bit, name] : bits2) {
    if (hwcap2 & (1UL << bit)) names.push_back(name);
  }
#else
  (void)hwcap;
  (void)hwcap2;
#endif
  return names;
}

// The instruction set as this process sees it: what it was compiled for, the machine uname()
// tells it (under qemu-user: the emulated one, not the host's) and the CPU capabilities the
// kernel, or the emulator, gives it (the auxiliary vector's AT_HWCAP and AT_HWCAP2).
nlohmann::ordered_json Isa() {
  nlohmann::ordered_json isa;
  isa["compiled_for"] = kCompiledFor;
  struct utsname u {};
  isa["machine"] = ::uname(&u) == 0 ? std::string(u.machine) : std::string();
  const unsigned long hwcap = ::getauxval(AT_HWCAP), hwcap2 = ::getauxval(AT_HWCAP2);
  char hex[64];
  std::snprintf(hex, sizeof hex, "0x%lx", hwcap);
  isa["hwcap"] = hex;
  std::snprintf(hex, sizeof hex, "0x%lx", hwcap2);
  isa["hwcap2"] = hex;
  isa["hwcap_names"] = HwcapNames(hwcap, hwcap2);
  return isa;
}

const char* DeviceTypeName(enum ggml_backend_dev_type type) {
  switch (type) {
    case GGML_BACKEND_DEVICE_TYPE_CPU:
      return "cpu";
    case GGML_BACKEND_DEVICE_TYPE_GPU:
      return "gpu";
    case GGML_BACKEND_DEVICE_TYPE_IGPU:
      return "igpu";
    case GGML_BACKEND_DEVICE_TYPE_ACCEL:
      return "accel";
    default:
      return "other";
  }
}

}  // namespace

LlamaErrorCapture::LlamaErrorCapture() {
  const std::lock_guard<std::mutex> lock(g_capture_mutex);
  g_capturing = true;
  g_last_error.clear();
  g_log.clear();
}

LlamaErrorCapture::~LlamaErrorCapture() {
  const std::lock_guard<std::mutex> lock(g_capture_mutex);
  g_capturing = false;
  g_last_error.clear();
  g_log.clear();
}

std::string LlamaErrorCapture::LastError() const {
  const std::lock_guard<std::mutex> lock(g_capture_mutex);
  std::string text = g_last_error;
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r')) {
    text.pop_back();
  }
  return text;
}

std::string LlamaErrorCapture::Log() const {
  const std::lock_guard<std::mutex> lock(g_capture_mutex);
  return g_log;
}

const char* LlamaCppPythonVersion() { return PIPETTE_LLAMA_CPP_PYTHON_VERSION; }

void StartLlamaRuntime(bool verbose) {
  g_verbose.store(verbose);
  llama_log_set(LogToStderr, nullptr);
  llama_backend_init();
}

nlohmann::ordered_json RuntimeBuild() {
  nlohmann::ordered_json build;
  build["llama_cpp_commit"] = PIPETTE_LLAMA_BUILD_COMMIT;
  build["llama_cpp_tree"] = PIPETTE_LLAMA_TREE;
  build["llama_cpp_source"] = std::string("llama-cpp-python ") + PIPETTE_LLAMA_CPP_PYTHON_VERSION +
                              " sdist (PyPI), built by Pipette's CMake";
  build["llama_version"] = llama_version();
  build["llama_cpp_python_version"] = PIPETTE_LLAMA_CPP_PYTHON_VERSION;
  build["ggml_version"] = ggml_version();
  build["ggml_commit"] = ggml_commit();
  build["system_info"] = llama_print_system_info();
  build["isa"] = Isa();
  nlohmann::ordered_json backends = nlohmann::ordered_json::array();
  for (size_t i = 0; i < ggml_backend_reg_count(); ++i) {
    backends.push_back(ggml_backend_reg_name(ggml_backend_reg_get(i)));
  }
  build["ggml_backends"] = backends;
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  for (size_t i = 0; i < ggml_backend_dev_count(); ++i) {
    ggml_backend_dev_t dev = ggml_backend_dev_get(i);
    // "name (type): description", e.g. "CPU (cpu): AMD EPYC" or "CUDA0 (gpu): NVIDIA H200".
    std::string device = ggml_backend_dev_name(dev);
    device += std::string(" (") + DeviceTypeName(ggml_backend_dev_type(dev)) + "): ";
    device += ggml_backend_dev_description(dev);
    devices.push_back(device);
  }
  build["ggml_devices"] = devices;
  return build;
}

std::string VersionText() {
  std::string text =
      "pipette-worker-llama (protocol " + std::to_string(protocol::kProtocolVersion) + ")\n";
  text += std::string("llama.cpp source: llama-cpp-python ") + PIPETTE_LLAMA_CPP_PYTHON_VERSION +
          " sdist\n";
  text += std::string("llama.cpp ") + llama_version() +
          " (commit " PIPETTE_LLAMA_BUILD_COMMIT ", tree " PIPETTE_LLAMA_TREE ")\n";
  text += std::string("ggml ") + ggml_version() + " (commit " + ggml_commit() + ")\n";
  return text;
}

}  // namespace pipette::llama_worker
