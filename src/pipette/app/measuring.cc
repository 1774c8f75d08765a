#include "pipette/app/measuring.h"

#include <fmt/format.h>

#include "pipette/util/shell_quote.h"

namespace pipette::app {

Result<std::unique_ptr<store::Store>> OpenStoreForWriting(const std::string& path,
                                                          const env::ProcessTable& processes) {
  auto store = store::Store::Open(path, store::OpenMode::kReadWrite, nullptr, &processes);
  if (!store) return store.error();
  if ((*store)->schema_version_found() > 0 &&
      (*store)->schema_version_found() < store::kSchemaVersion) {
    fmt::print(stderr, "note: migrated the store {} from schema version {} to {}\n", path,
               (*store)->schema_version_found(), store::kSchemaVersion);
  }
  auto marked = (*store)->MarkAbandonedRuns(processes);
  if (!marked) return InputError(marked.error().message);  // nothing measured yet
  for (int64_t id : *marked) {
    fmt::print(stderr,
               "note: run {} in {} was left running by a Pipette that is gone: marked abandoned "
               "(pipette run --resume {} --store {} measures what it left)\n",
               id, path, id, ShellQuote(path));
  }
  return store;
}

Result<std::unique_ptr<run::MeasureLock>> TakeMeasureLock(const LockArgs& args,
                                                          const std::string& command,
                                                          const std::string& store_path,
                                                          const env::ProcessTable& processes,
                                                          const std::atomic<bool>* stop) {
  run::LockOptions o;
  o.no_wait = args.no_wait;
  o.wait_s = args.wait_s;
  o.stop = stop;
  o.say = [](const std::string& line) { fmt::print(stderr, "{}\n", line); };
  const env::ProcessIdentity self = processes.Self();
  nlohmann::json holder = {
      {"pid", self.pid},    {"host", self.host},   {"start_ticks", self.start_ticks},
      {"command", command}, {"store", store_path}, {"since", store::NowIso8601()}};
  return run::MeasureLock::Acquire(o, holder);
}

nlohmann::json OtherPipetteWorkers(const env::ProcessTable& processes, int self) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& e : processes.Programs("pipette-worker")) {
    if (e.pid == self || e.ppid == self) continue;
    out.push_back({{"pid", e.pid}, {"program", e.program}});
  }
  return out;
}

}  // namespace pipette::app
