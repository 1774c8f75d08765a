#include "pipette/compare/sides.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "pipette/compare/compare.h"
#include "pipette/util/strings.h"

namespace pipette::compare {

Result<std::vector<metrics::ResultRow>> OnlyRows(const std::vector<metrics::ResultRow>& rows,
                                                 const std::string& filter,
                                                 const std::string& flag) {
  std::vector<std::string> keys = {"model", "quant", "runtime", "runtime_version", "device"};
  for (const auto& r : rows) {
    if (!r.cell->params.is_object()) continue;
    for (const auto& [k, v] : r.cell->params.items()) {
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
  }
  // A row's values of `key`: the pairing key's, and the model's name beside its SHA-256.
  auto values = [](const metrics::ResultRow& r, const std::string& key) {
    std::vector<std::string> out;
    if (key == "model") out.push_back(r.cell->model);
    for (const auto& [k, v] : CellKey(r)) {
      if (k == key) out.push_back(v);
    }
    return out;
  };
  std::vector<metrics::ResultRow> out = rows;
  for (size_t start = 0; start <= filter.size();) {
    size_t end = filter.find(',', start);
    if (end == std::string::npos) end = filter.size();
    const std::string term = filter.substr(start, end - start);
    start = end + 1;
    if (term.empty()) continue;
    const size_t eq = term.find('=');
    if (eq == std::string::npos) {
      return InputError(fmt::format("{} {}: '{}' is not key=value (e.g. quant=Q4_K_M,threads=2)",
                                    flag, filter, term));
    }
    const std::string key = term.substr(0, eq), value = term.substr(eq + 1);
    if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
      return InputError(fmt::format("{} {}: unknown key '{}'{} (keys: {})", flag, filter, key,
                                    DidYouMean(key, keys), fmt::join(keys, ", ")));
    }
    std::set<std::string> seen;
    std::vector<metrics::ResultRow> kept;
    for (const auto& r : out) {
      const std::vector<std::string> vs = values(r, key);
      seen.insert(vs.begin(), vs.end());
      if (std::find(vs.begin(), vs.end(), value) != vs.end()) kept.push_back(r);
    }
    if (kept.empty()) {
      return InputError(fmt::format("{} {}: no cell has {}={} (its values there: {})", flag, filter,
                                    key, value, fmt::join(seen, ", ")));
    }
    out = std::move(kept);
  }
  return out;
}

Interleaving DescribeInterleaving(const SideSource& baseline, const SideSource& candidate) {
  Interleaving i;
  i.same_run = baseline.file == candidate.file && baseline.run_id == candidate.run_id;
  auto said = [](const std::optional<bool>& v) {
    return !v ? "not recorded" : *v ? "interleaved" : "not interleaved";
  };
  if (i.same_run && baseline.interleaved.value_or(false) && baseline.resumes > 0) {
    i.note = fmt::format(
        "Partly interleaved: both sides are cells of run {}, measured in rounds (run "
        "--interleave), but the run was resumed ({} time{}): the cells a resume measured again "
        "were interleaved only among themselves, later.",
        baseline.run_id, baseline.resumes, baseline.resumes == 1 ? "" : "s");
    return i;
  }
  if (i.same_run) {
    i.interleaved = baseline.interleaved.value_or(false);
    i.note = i.interleaved
                 ? fmt::format(
                       "Interleaved: both sides are cells of run {}, measured in rounds "
                       "(run --interleave), so drift on the machine fell on both alike.",
                       baseline.run_id)
                 : fmt::format(
                       "Not interleaved: both sides are cells of run {} ({}), measured one cell "
                       "after the other; pipette run --interleave measures them in rounds, so "
                       "that drift on the machine falls on both alike.",
                       baseline.run_id, said(baseline.interleaved));
    return i;
  }
  i.note = fmt::format(
      "Not interleaved: the sides are separate runs (baseline run {}, {}; candidate run {}, {}), "
      "so drift between the runs counts as change. To A/B two configurations, put both in one "
      "experiment, run it with --interleave and compare the run with itself "
      "(--baseline-only KEY=A --candidate-only KEY=B --ignore KEY).",
      baseline.run_id, said(baseline.interleaved), candidate.run_id, said(candidate.interleaved));
  return i;
}

}  // namespace pipette::compare
