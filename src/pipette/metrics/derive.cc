#include "pipette/metrics/derive.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>

#include "pipette/quant/variant.h"
#include "pipette/util/json_read.h"

namespace pipette::metrics {

using nlohmann::json;

namespace {

// A sample's `raw` is outside data (a worker's or a server's reply, read back from a store):
// every read below checks its type (util/json_read.h), and a value of another type reads as
// absent, never throws.
using json_read::Flag;
using json_read::Int;
using json_read::Member;
using json_read::String;

}  // namespace

std::optional<double> LoadMs(const json& raw) {
  auto t0 = Int(raw, "t_start_ns"), t1 = Int(raw, "t_end_ns");
  if (!t0 || !t1 || *t1 < *t0) return std::nullopt;
  return double(*t1 - *t0) / 1e6;
}

const std::shared_ptr<const CellFacts>& NoCellFacts() {
  static const std::shared_ptr<const CellFacts> none = std::make_shared<const CellFacts>();
  return none;
}

CellFacts& ResultRow::EditCell() {
  auto own = std::make_shared<CellFacts>(*cell);
  CellFacts& facts = *own;
  cell = std::move(own);
  return facts;
}

const store::EnvironmentRecord& EnvironmentOf(const store::CellRecord& cell,
                                              const store::EnvironmentRecord& env,
                                              const Environments* envs) {
  if (!envs || !cell.environment_id) return env;
  auto it = envs->find(*cell.environment_id);
  return it == envs->end() ? env : it->second;
}

std::string DeviceLabel(const json& facts) {
  if (!facts.is_object()) return "local";
  const std::string cpu = String(facts, "cpu_model", "local");
  auto device = facts.find("device");
  if (device == facts.end() || !device->is_object()) return cpu;  // this machine
  const std::string name = String(*device, "name", "?");
  std::string label;
  auto emulated = facts.find("emulated");
  if (emulated != facts.end() && emulated->is_object()) {
    label = fmt::format("{}: {} emulated by {} on {}", name, String(*emulated, "arch", "?"),
                        String(*emulated, "emulator", "?"), String(facts, "cpu_model", "?"));
  } else {
    label = fmt::format("{}: {}", name, String(facts, "cpu_model", "?"));
  }
  // A tier of a machine (a cpuset, a quota, a memory cap) says so wherever the device is named.
  auto tier = facts.find("tier");
  if (tier != facts.end() && tier->is_object()) {
    label += fmt::format(" ({})", String(*tier, "label", "emulated tier"));
  }
  return label;
}

CellFacts CellFactsOf(const store::RunRecord& run, const store::EnvironmentRecord& env,
                      const store::CellRecord& cell, const json& params_set) {
  CellFacts f;
  f.run_id = run.id;
  f.cell_id = cell.id;
  f.cell_index = cell.index;
  f.cell_status = cell.status;
  f.model = cell.model_name;
  f.model_sha256 = cell.model_sha256;
  f.model_file_size = cell.model_file_size;
  const json file = Member(cell.model_info, "file");
  const json rt = Member(cell.model_info, "runtime");
  f.n_params = Int(file, "n_params").value_or(Int(rt, "n_params").value_or(0));
  f.quant = String(file, "quant", "?");
  f.base_model = cell.model_name;
  if (auto p = cell.model_info.find("provenance"); p != cell.model_info.end() && p->is_object()) {
    f.provenance = *p;
    f.quant = String(*p, "label", f.quant);
    f.quant_origin = quant::OriginNote(*p);
    f.base_model = String(Member(*p, "base"), "name", f.base_model);
  }
  // Files of one model in different quantizations share the name in their metadata: that
  // groups them (report --vary quant), while base_model stays Pipette's name for the model.
  f.family = String(file, "general_name", f.base_model);
  f.runtime = cell.runtime;
  f.runtime_version = cell.runtime_version;
  f.runtime_build = cell.runtime_build;
  f.device = DeviceLabel(env.facts);
  f.device_id = env.fingerprint_id;
  f.emulated =
      env.facts.is_object() && env.facts.contains("emulated") && env.facts["emulated"].is_object();
  f.emulated_tier =
      env.facts.is_object() && env.facts.contains("tier") && env.facts["tier"].is_object();
  f.params = cell.params;
  f.params_set = params_set;
  f.untrusted = UntrustedReason(cell.conditions);
  return f;
}

std::string UntrustedReason(const json& conditions) {
  if (!conditions.is_object()) return "";
  std::vector<std::string> why;
  if (auto o = conditions.find("other_pipette"); o != conditions.end() && o->is_array()) {
    std::string list;
    for (const json& p : *o) {
      if (!p.is_object()) continue;
      const auto pid = p.find("pid");
      const auto program = p.find("program");
      list += fmt::format("{}pid {}", list.empty() ? "" : ", ",
                          pid != p.end() && pid->is_number_integer() ? pid->get<int64_t>() : 0);
      if (program != p.end() && program->is_string() && !program->get<std::string>().empty()) {
        list += " " + program->get<std::string>();
      }
    }
    if (!o->empty()) {
      why.push_back(fmt::format("measured while {} other Pipette{} measured on the machine{}",
                                o->size(), o->size() == 1 ? "" : "s",
                                list.empty() ? "" : " (" + list + ")"));
    }
  }
  if (auto r = conditions.find("not_ready"); r != conditions.end() && r->is_string()) {
    why.push_back("the readiness gate found the device not ready: " + r->get<std::string>());
  }
  std::string out;
  for (const std::string& w : why) out += (out.empty() ? "" : "; ") + w;
  return out;
}

std::vector<ResultRow> DeriveRows(const store::RunRecord& run, const store::EnvironmentRecord& env,
                                  const std::vector<CellSamples>& cells,
                                  const RowDerivers& derivers, const Environments* envs) {
  CellsById by_id;
  for (const CellSamples& c : cells) by_id[c.cell.id] = &c;
  std::vector<ResultRow> rows;
  for (const CellSamples& c : cells) {
    // A cell measured again by a resume: its samples stay (a reference may point at them) but
    // count in no figure.
    if (c.cell.status == "superseded") continue;
    const size_t cell_first = rows.size();
    const store::EnvironmentRecord& cell_env = EnvironmentOf(c.cell, env, envs);
    const store::SampleRecord* context = nullptr;
    for (const auto& s : c.samples) {
      if (s.test == "context") context = &s;
    }
    const json& params_set =
        context && context->raw.contains("params_set") ? context->raw["params_set"] : c.cell.params;
    ResultRow base;
    base.cell = std::make_shared<const CellFacts>(CellFactsOf(run, cell_env, c.cell, params_set));
    // Each deriver's figures; stored data of an unexpected shape (an older writer, a hand edit)
    // makes that deriver's figures n/a with the reason, not the whole report.
    for (const RowDeriver* d : derivers) {
      std::vector<ResultRow> own;
      if (auto st = d->Derive(base, c, by_id, cell_env, &own); !st) {
        ResultRow r = base;
        r.test = d->Name();
        r.metric = "all";
        r.na_reason = st.error().message;
        rows.push_back(std::move(r));
        continue;
      }
      rows.insert(rows.end(), own.begin(), own.end());
    }
    for (const RowDeriver* d : derivers) d->Complete(base, c, cell_env, &rows, cell_first);
  }
  return rows;
}

}  // namespace pipette::metrics
