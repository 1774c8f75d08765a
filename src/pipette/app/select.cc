#include "pipette/app/select.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "pipette/app/commands.h"
#include "pipette/env/process.h"
#include "pipette/report/command_output.h"
#include "pipette/report/load.h"
#include "pipette/select/profile.h"
#include "pipette/select/select.h"
#include "pipette/select/view.h"
#include "pipette/store/store.h"
#include "pipette/util/files.h"
#include "pipette/util/strings.h"
#include "pipette/workload/registry.h"

namespace pipette::app {
namespace {

namespace fs = std::filesystem;

// Every profile within reach, the first of a name winning: the file's, each run's experiment's,
// Pipette's own.
Result<select::Profiles> ProfilesFor(const SelectArgs& args,
                                     const std::vector<store::RunRecord>& runs) {
  select::Profiles out;
  if (!args.profiles.empty()) {
    auto text = ReadFileToString(args.profiles);
    if (!text) {
      return InputError(fmt::format("--profiles {}: {}", args.profiles, text.error().message));
    }
    auto file = select::ParseProfiles(*text, args.profiles, workload::Figures());
    if (!file) return file.error();
    if (file->empty()) {
      return InputError(
          fmt::format("{}: no profiles (a 'profiles:' mapping of names to "
                      "{{about, constraints, weights}})",
                      args.profiles));
    }
    out = std::move(*file);
  }
  for (const store::RunRecord& r : runs) {
    auto ex =
        select::ParseProfiles(r.config_text, r.experiment_path, workload::Figures(), "select");
    if (!ex) return ex.error();
    for (auto& [name, p] : *ex) out.emplace(name, std::move(p));
  }
  for (const auto& [name, p] : select::ShippedProfiles(workload::Figures())) {
    select::Profile shipped = p;
    shipped.source = "shipped";
    out.emplace(name, std::move(shipped));
  }
  return out;
}

}  // namespace

int Select(const SelectArgs& args) {
  if (auto st = report::CheckCommandFormat("select", args.format); !st) {
    return FailInput(st.error());
  }
  std::error_code ec;
  if (!fs::exists(args.store, ec)) {
    if (args.list && args.runs.empty()) {  // the file's and the shipped profiles, no run's
      auto profiles = ProfilesFor(args, {});
      if (!profiles) return FailInput(profiles.error());
      for (const auto& [name, p] : *profiles) {
        std::cout << fmt::format("{} ({}): {}\n", name, p.source, p.about);
      }
      return 0;
    }
    return FailInput(InputError(fmt::format("{}: no such store", args.store)));
  }
  // -o never overwrites the store or the profiles file.
  std::vector<NamedPath> inputs = StoreFiles("the store", args.store);
  inputs.push_back({"the profiles file", args.profiles});
  if (auto st = CheckOutputs(inputs, {{"-o", args.output}}); !st) return FailInput(st.error());
  auto store = store::Store::Open(args.store, store::OpenMode::kReadOnly);
  if (!store) return FailInput(store.error());
  std::vector<int64_t> runs = args.runs;
  for (size_t i = 0; i < runs.size(); ++i) {
    if (std::find(runs.begin(), runs.begin() + long(i), runs[i]) != runs.begin() + long(i)) {
      return FailInput(InputError(
          fmt::format("--run {} is given twice: each run's cells are candidates once", runs[i])));
    }
  }
  if (runs.empty()) {
    auto latest = (*store)->LatestRunId();
    if (!latest) return FailInput(latest.error());
    if (!*latest)
      return FailInput(InputError(fmt::format("the store {} has no runs yet", args.store)));
    runs.push_back(**latest);
  }
  env::LinuxProcessTable processes;
  auto data = report::LoadReportData(**store, runs, workload::Derivers(), &processes);
  if (!data) return FailInput(data.error());
  for (int64_t id : runs) {
    bool found = false;
    for (const auto& r : data->runs) found = found || r.id == id;
    if (!found) return FailInput(InputError(fmt::format("{}: no run {}", args.store, id)));
  }
  auto profiles = ProfilesFor(args, data->runs);
  if (!profiles) return FailInput(profiles.error());
  std::vector<std::string> names;
  for (const auto& [name, p] : *profiles) names.push_back(name);
  if (args.list || args.profile.empty()) {
    std::ostringstream out;
    for (const auto& [name, p] : *profiles) {
      out << fmt::format("{} ({}): {}\n", name, p.source, p.about);
    }
    if (args.list) {
      std::cout << out.str();
      return 0;
    }
    return FailInput(InputError(fmt::format(
        "give a profile: pipette select --profile NAME (profiles: {})", fmt::join(names, ", "))));
  }
  auto it = profiles->find(args.profile);
  if (it == profiles->end()) {
    return FailInput(
        InputError(fmt::format("--profile {}: no such profile (profiles: {}){}", args.profile,
                               fmt::join(names, ", "), DidYouMean(args.profile, names))));
  }
  auto s = select::Select(workload::Figures(), data->rows, it->second);
  if (!s) return FailInput(s.error());
  const std::string source = fmt::format("{} run {}", args.store, fmt::join(runs, ", "));
  std::ostringstream out;
  report::RenderCommandOutput(
      args.format,
      {[&](std::ostream& o) { select::WriteSelectionMarkdown(*s, it->second, source, o); },
       [&] { return select::SelectionJson(*s, it->second, source); },
       [&] { return select::RankedTable(*s); }},
      out);
  if (args.output.empty()) {
    std::cout << out.str();
  } else {
    if (auto st = WriteOutput(args.output, out.str(), processes); !st) return FailInput(st.error());
    fmt::print(stderr, "wrote {}\n", args.output);
  }
  return s->ranked.empty() ? 1 : 0;
}

}  // namespace pipette::app
