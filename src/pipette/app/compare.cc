#include "pipette/app/compare.h"

#include <fmt/format.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string_view>

#include "pipette/app/commands.h"
#include "pipette/compare/compare.h"
#include "pipette/compare/view.h"
#include "pipette/env/process.h"
#include "pipette/report/command_output.h"
#include "pipette/report/load.h"
#include "pipette/report/read_json.h"
#include "pipette/store/store.h"
#include "pipette/util/files.h"
#include "pipette/workload/registry.h"

namespace pipette::app {
namespace {

namespace fs = std::filesystem;

// Whether `path` holds a JSON report rather than a store: its first byte that is not a space.
bool IsJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char bom[3] = {};
  if (!in.read(bom, 3) || std::string_view(bom, 3) != "\xEF\xBB\xBF") {  // a UTF-8 BOM: skipped
    in.clear();
    in.seekg(0);
  }
  char c = 0;
  while (in.get(c)) {
    if (!std::isspace(static_cast<unsigned char>(c))) return c == '{';
  }
  return false;
}

struct Side {
  std::vector<metrics::ResultRow> rows;
  std::string name;  // "results.db run 3", as the output names it
  compare::SideSource source;
};

// One side: STORE (its latest run), STORE:RUN, a JSON report (its latest run) or
// REPORT.json:RUN, read only.
Result<Side> ReadSide(const std::string& side) {
  std::string path = side;
  std::optional<int64_t> run;
  if (!fs::exists(path)) {
    const size_t colon = side.rfind(':');
    const std::string id = colon == std::string::npos ? "" : side.substr(colon + 1);
    if (!id.empty() && id.find_first_not_of("0123456789") == std::string::npos && id.size() < 10 &&
        fs::exists(side.substr(0, colon))) {
      path = side.substr(0, colon);
      run = std::stoll(id);
    } else {
      return InputError(
          fmt::format("{}: no such store or JSON report (give STORE, STORE:RUN, REPORT.json or "
                      "REPORT.json:RUN)",
                      side));
    }
  }
  Side out;
  std::error_code ec;
  out.source.path = path;
  out.source.file = fs::weakly_canonical(path, ec).string();
  if (IsJsonFile(path)) {
    Result<std::string> text = ReadFileToString(path);
    if (!text) {
      Error e = text.error();
      e.exit_code = 2;
      return e;
    }
    auto rows = report::RowsFromReportJson(*text, path, run);
    if (!rows) return rows.error();
    out.name = fmt::format("{} run {}", path, rows->run_id);
    out.source.run_id = rows->run_id;
    out.source.interleaved = rows->interleaved;
    out.source.resumes = rows->resumes;
    out.rows = std::move(rows->rows);
    return out;
  }
  auto store = store::Store::Open(path, store::OpenMode::kReadOnly);
  if (!store) return store.error();
  if (!run) {
    auto latest = (*store)->LatestRunId();
    if (!latest) return latest.error();
    if (!*latest) return InputError(fmt::format("the store {} has no runs yet", path));
    run = **latest;
  }
  env::LinuxProcessTable processes;
  auto data = report::LoadReportData(**store, {*run}, workload::Derivers(), &processes);
  if (!data) return data.error();
  if (data->runs.empty()) return InputError(fmt::format("{}: no run {}", path, *run));
  out.name = fmt::format("{} run {}", path, *run);
  out.source.run_id = *run;
  out.source.interleaved = data->runs.front().interleave;
  out.source.resumes = data->runs.front().resumes;
  out.rows = std::move(data->rows);
  return out;
}

// The side, narrowed by --baseline-only / --candidate-only (`filter`), named with it.
Result<Side> SideOf(const std::string& side, const std::string& filter, const std::string& flag) {
  auto s = ReadSide(side);
  if (!s || filter.empty()) return s;
  auto rows = compare::OnlyRows(s->rows, filter, flag);
  if (!rows) return rows.error();
  s->rows = std::move(*rows);
  s->name += fmt::format(" ({})", filter);
  return s;
}

}  // namespace

int Compare(const CompareArgs& args) {
  if (auto st = report::CheckCommandFormat("compare", args.format); !st) {
    return FailInput(st.error());
  }
  if (args.resamples < 100 || args.resamples > 1000000) {
    return FailInput(InputError(
        fmt::format("--resamples {}: give 100 to 1000000 (10000 by default)", args.resamples)));
  }
  compare::CompareOptions options;
  options.ignore.insert(args.ignore.begin(), args.ignore.end());
  options.pair_on.insert(args.pair_on.begin(), args.pair_on.end());
  options.bootstrap.seed = args.seed;
  options.bootstrap.resamples = args.resamples;
  if (!args.gate.empty()) {
    std::error_code ec;
    if (fs::is_directory(args.gate, ec)) {
      return FailInput(
          InputError(fmt::format("--gate {}: a directory, not a gate file", args.gate)));
    }
    auto text = ReadFileToString(args.gate);
    if (!text) {
      return FailInput(InputError(fmt::format("--gate {}: cannot read the gate file", args.gate)));
    }
    auto gate = compare::ParseGate(*text, args.gate);
    if (!gate) return FailInput(gate.error());
    options.gate = std::move(*gate);
    options.gate_file = args.gate;
  }
  auto base = SideOf(args.baseline, args.baseline_only, "--baseline-only");
  if (!base) return FailInput(base.error());
  auto cand = SideOf(args.candidate, args.candidate_only, "--candidate-only");
  if (!cand) return FailInput(cand.error());
  // -o never overwrites a side or the gate file.
  std::vector<NamedPath> inputs = StoreFiles("the baseline", base->source.path);
  for (NamedPath& n : StoreFiles("the candidate", cand->source.path)) inputs.push_back(n);
  inputs.push_back({"the gate file", args.gate});
  if (auto st = CheckOutputs(inputs, {{"-o", args.output}}); !st) return FailInput(st.error());
  auto c = compare::Compare(workload::Figures(), base->rows, cand->rows, options);
  if (!c) return FailInput(c.error());
  c->interleaving = compare::DescribeInterleaving(base->source, cand->source);
  std::ostringstream out;
  report::RenderCommandOutput(
      args.format,
      {[&](std::ostream& o) { compare::WriteComparisonMarkdown(*c, base->name, cand->name, o); },
       [&] { return compare::ComparisonJson(*c, base->name, cand->name); },
       [&] { return compare::ComparisonTable(*c); }},
      out);
  if (args.output.empty()) {
    std::cout << out.str();
  } else {
    env::LinuxProcessTable processes;
    if (auto st = WriteOutput(args.output, out.str(), processes); !st) {
      return FailInput(st.error());
    }
    fmt::print(stderr, "wrote {}\n", args.output);
  }
  // 1: a gate line failed; 3: none failed but some could not be decided; 0: every line held
  // (docs/running.md "Comparing and gating").
  const std::optional<compare::GateOutcome> outcome = compare::OutcomeOf(*c);
  if (outcome == compare::GateOutcome::kFailed) return 1;
  if (outcome == compare::GateOutcome::kInconclusive) return 3;
  return 0;
}

}  // namespace pipette::app
