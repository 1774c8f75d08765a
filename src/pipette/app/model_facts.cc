#include "pipette/app/model_facts.h"

#include <fmt/format.h>

#include "pipette/app/measuring.h"
#include "pipette/env/fingerprint.h"
#include "pipette/model/gguf.h"
#include "pipette/util/sha256.h"

namespace pipette::app {

Result<run::ModelFacts> ModelFactsOf(const std::string& path) {
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
  return f;
}

run::RunnerDeps LocalRunnerDeps(device::Device* device, store::Store* store,
                                run::ProgressSink* progress, const std::atomic<bool>* stop,
                                const env::ProcessTable* processes) {
  run::RunnerDeps deps;
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
  return deps;
}

}  // namespace pipette::app
