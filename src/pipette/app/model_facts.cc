#include "pipette/app/model_facts.h"

#include <fmt/format.h>

#include <filesystem>

#include "pipette/app/measuring.h"
#include "pipette/app/ready_probes.h"
#include "pipette/env/fingerprint.h"
#include "pipette/model/gguf.h"
#include "pipette/model/onnx_model.h"
#include "pipette/model/token_reads.h"
#include "pipette/runtime/registry.h"
#include "pipette/util/sha256.h"
#include "pipette/workload/registry.h"

namespace pipette::app {

namespace {

// A converted ONNX model: model.onnx's SHA-256 is the model's; every file of the folder is hashed
// and sized (model.onnx.data holds the weights). A folder converted for MNN: model.mnn's.
Result<run::ModelFacts> OnnxFactsOf(const std::string& path) {
  auto onnx = model::ReadOnnxModel(path);
  if (!onnx) return onnx.error();
  run::ModelFacts f;
  f.info["format"] = onnx->format;
  f.info["architecture"] = onnx->arch;
  f.info["variant"] = onnx->variant;
  f.info["quant"] = model::OnnxQuantLabel(onnx->meta.value("variant", nlohmann::json::object()));
  f.info["token_reads"] = {{"na", "bytes per token are known for GGUF models only"}};
  f.info["n_layer"] = onnx->n_layer;
  if (!onnx->general_name.empty()) f.info["general_name"] = onnx->general_name;
  for (const auto& [name, meta_sha] : onnx->files) {
    const std::string file = (std::filesystem::path(onnx->dir) / name).string();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec)) continue;
    auto sha = Sha256File(file);
    if (!sha) return sha.error();
    f.info["files_sha256"][name] = *sha;
    if (file == onnx->graph_path) f.sha256 = *sha;
    if (name != "tokenizer.json") {
      f.file_size += static_cast<int64_t>(std::filesystem::file_size(file, ec));
    }
  }
  return f;
}

}  // namespace

Result<run::ModelFacts> ModelFactsOf(const std::string& path) {
  if (model::IsOnnxModelPath(path)) return OnnxFactsOf(path);
  auto gguf = model::ReadGguf(path);
  if (!gguf) return gguf.error();
  auto sha = Sha256File(path);
  if (!sha) return sha.error();
  run::ModelFacts f;
  f.sha256 = *sha;
  f.file_size = static_cast<int64_t>(gguf->file_size);
  f.info["format"] = "gguf";
  f.info["gguf_version"] = gguf->version;
  f.info["n_tensors"] = gguf->tensors.size();
  f.info["n_params"] = gguf->n_params();
  if (auto a = gguf->architecture()) f.info["architecture"] = *a;
  if (auto ft = gguf->file_type()) {
    f.info["file_type"] = *ft;
    f.info["quant"] = model::FileTypeName(*ft).value_or(fmt::format("file_type {}", *ft));
  }
  if (auto it = gguf->metadata.find("general.name"); it != gguf->metadata.end()) {
    f.info["general_name"] = it->second;
  }
  // What a generated token reads (bw_util, pipette predict); why not, where the shape says too
  // little.
  auto reads = model::TokenReadsOf(*gguf);
  f.info["token_reads"] =
      reads ? model::ToJson(*reads) : nlohmann::json{{"na", reads.error().message}};
  return f;
}

run::RunnerDeps LocalRunnerDeps(device::Device* device, store::Store* store,
                                run::ProgressSink* progress, const std::atomic<bool>* stop,
                                const env::ProcessTable* processes) {
  run::RunnerDeps deps;
  deps.workloads = workload::MakeWorkloads;
  deps.runtimes = &runtime::Registry();
  deps.derivers = &workload::Derivers();
  deps.device = device;
  deps.store = store;
  deps.progress = progress;
  deps.conditions = [device] { return device->Conditions(); };
  deps.model_facts = ModelFactsOf;
  deps.stop = stop;
  const env::ProcessIdentity self = processes->Self();
  deps.controller = self.ToJson();
  deps.other_pipettes = [processes, pid = self.pid] {
    return OtherPipetteWorkers(*processes, pid);
  };
  // The readiness gate looks at each device its own way; this machine's sensors under
  // PIPETTE_SYSFS_ROOT where set (a fake tree, in tests).
  deps.ready_probe = [root = SensorsRootFromEnvironment()](device::Device& d) {
    return ReadyProbeFor(d, root);
  };
  return deps;
}

}  // namespace pipette::app
