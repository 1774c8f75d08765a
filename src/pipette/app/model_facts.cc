#include "pipette/app/model_facts.h"

#include "pipette/app/measuring.h"
#include "pipette/app/ready_probes.h"
#include "pipette/env/fingerprint.h"
#include "pipette/model_formats/formats.h"
#include "pipette/runtime/registry.h"
#include "pipette/workload/registry.h"

namespace pipette::app {

Result<run::ModelFacts> ModelFactsOf(const std::string& path) {
  return model_formats::Registry().Measure(path);
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
