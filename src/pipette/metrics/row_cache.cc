#include "pipette/metrics/row_cache.h"

#include <algorithm>
#include <cmath>

#include "pipette/util/json_read.h"

namespace pipette::metrics {
namespace {

using nlohmann::json;

// A double as JSON that reads back bit for bit: numbers as they are (nlohmann writes the shortest
// text that reads back the same), the values JSON has no number for as strings.
json Num(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

// Throws json::exception (caught by DecodeCellRows) on anything Num did not write.
double ReadNum(const json& j) {
  if (j.is_number()) return j.get<double>();
  const std::string s = j.get<std::string>();
  if (s == "nan") return std::nan("");
  if (s == "inf") return HUGE_VAL;
  if (s == "-inf") return -HUGE_VAL;
  throw json::type_error::create(302, "not a cached number: " + s, &j);
}

json OptNum(const std::optional<double>& v) { return v ? Num(*v) : json(); }
std::optional<double> ReadOptNum(const json& j) {
  if (j.is_null()) return std::nullopt;
  return ReadNum(j);
}

// The figures of one row, field by field, in this order (a row is a JSON array of kFields).
constexpr size_t kFields = 14;

json EncodeRow(const ResultRow& r) {
  json samples = json::array();
  for (double v : r.samples) samples.push_back(Num(v));
  const stats::Summary& s = r.summary;
  json summary = {int64_t(s.n), Num(s.median), Num(s.min), Num(s.max),
                  Num(s.mean),  Num(s.stddev), Num(s.cv),  s.noisy};
  return json::array({r.test, r.metric, r.unit, std::move(summary), std::move(samples),
                      Num(r.value), OptNum(r.std_error), r.dataset, r.dataset_sha256, r.na_reason,
                      r.subset, OptNum(r.ci_low), OptNum(r.ci_high), r.chat_template});
}

void DecodeRow(const json& a, ResultRow& r) {
  if (!a.is_array() || a.size() != kFields) {
    throw json::type_error::create(302, "not a cached row", &a);
  }
  r.test = a[0].get<std::string>();
  r.metric = a[1].get<std::string>();
  r.unit = a[2].get<std::string>();
  const json& s = a[3];
  if (!s.is_array() || s.size() != 8) throw json::type_error::create(302, "not a summary", &s);
  const std::optional<int64_t> n = json_read::AsInt(s[0]);
  if (!n || *n < 0) throw json::type_error::create(302, "not a count", &s[0]);
  r.summary.n = size_t(*n);
  r.summary.median = ReadNum(s[1]);
  r.summary.min = ReadNum(s[2]);
  r.summary.max = ReadNum(s[3]);
  r.summary.mean = ReadNum(s[4]);
  r.summary.stddev = ReadNum(s[5]);
  r.summary.cv = ReadNum(s[6]);
  r.summary.noisy = s[7].get<bool>();
  r.samples.clear();
  r.samples.reserve(a[4].size());
  for (const json& v : a[4]) r.samples.push_back(ReadNum(v));
  r.value = ReadNum(a[5]);
  r.std_error = ReadOptNum(a[6]);
  r.dataset = a[7].get<std::string>();
  r.dataset_sha256 = a[8].get<std::string>();
  r.na_reason = a[9].get<std::string>();
  r.subset = a[10].get<std::string>();
  r.ci_low = ReadOptNum(a[11]);
  r.ci_high = ReadOptNum(a[12]);
  r.chat_template = a[13];
}

store::SampleCount Count(const std::vector<store::SampleRecord>& samples) {
  store::SampleCount c;
  c.n = int64_t(samples.size());
  for (const auto& s : samples) c.max_id = std::max(c.max_id, s.id);
  return c;
}

store::SampleCount CountOf(const std::map<int64_t, store::SampleCount>& counts, int64_t cell_id) {
  auto it = counts.find(cell_id);
  return it == counts.end() ? store::SampleCount{} : it->second;
}

// The rows of a parsed EncodeCellRows text, each with `facts`; nullopt when it is not one.
std::optional<std::vector<ResultRow>> DecodeParsed(const json& doc,
                                                   const std::shared_ptr<const CellFacts>& facts) {
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  auto it = doc.find("rows");
  if (it == doc.end() || !it->is_array()) return std::nullopt;
  std::vector<ResultRow> rows;
  rows.reserve(it->size());
  try {
    for (size_t i = 0; i < it->size(); ++i) {
      rows.emplace_back().cell = facts;  // shared, not copied
      DecodeRow((*it)[i], rows.back());
    }
  } catch (const json::exception&) {
    return std::nullopt;
  }
  return rows;
}

}  // namespace

bool ReadsOtherCells(const std::vector<store::SampleRecord>& samples, const RowDerivers& derivers) {
  return std::any_of(derivers.begin(), derivers.end(),
                     [&](const RowDeriver* w) { return w->ReadsOtherCells(samples); });
}

bool Cacheable(const CellSamples& cell, const RowDerivers& derivers) {
  return !ReadsOtherCells(cell.samples, derivers) &&
         std::all_of(derivers.begin(), derivers.end(),
                     [&](const RowDeriver* w) { return w->RowsCacheable(cell.samples); });
}

std::string EncodeCellRows(const std::vector<ResultRow>& rows) {
  json rows_json = json::array();
  for (const ResultRow& r : rows) rows_json.push_back(EncodeRow(r));
  json doc = {{"params_set", rows.empty() ? json() : rows.front().cell->params_set},
              {"rows", std::move(rows_json)}};
  return doc.dump();
}

std::optional<std::vector<ResultRow>> DecodeCellRows(std::string_view text,
                                                     std::shared_ptr<const CellFacts> facts) {
  const json doc = json::parse(text.begin(), text.end(), nullptr, false);
  return DecodeParsed(doc, facts);
}

Status StoreDerivedRows(store::Store& store, const store::CellRecord& cell,
                        const RowDerivers& derivers) {
  auto samples = store.Samples(cell.id);
  if (!samples) return samples.error();
  std::vector<CellSamples> cells;
  store::DerivedRecord d;
  d.cell_id = cell.id;
  d.version = kDerivationVersion;
  d.load_cell_id = cell.load_cell_id;
  if (cell.load_cell_id && *cell.load_cell_id != cell.id) {
    auto load = store.Samples(*cell.load_cell_id);
    if (!load) return load.error();
    const store::SampleCount c = Count(*load);
    d.load_n_samples = c.n;
    d.load_max_sample_id = c.max_id;
    store::CellRecord load_cell;
    load_cell.id = *cell.load_cell_id;
    load_cell.run_id = cell.run_id;
    cells.push_back({std::move(load_cell), std::move(*load)});
  }
  const store::SampleCount own = Count(*samples);
  d.n_samples = own.n;
  d.max_sample_id = own.max_id;
  cells.push_back({cell, std::move(*samples)});
  if (!Cacheable(cells.back(), derivers)) return {};
  // Only the cell's own rows are kept: the run and the environment are facts the report
  // attaches (CellFacts), never stored here. The environment's measured bandwidth is read (bw_util
  // divides by it); a stored environment never changes.
  store::RunRecord run;
  run.id = cell.run_id;
  std::optional<int64_t> env_id = cell.environment_id;
  if (!env_id) {
    auto r = store.Run(cell.run_id);
    if (!r) return r.error();
    env_id = r->environment_id;
  }
  auto env = store.Environment(*env_id);
  if (!env) return {};  // no environment to derive against: nothing cached, reports derive live
  std::vector<ResultRow> rows = DeriveRows(run, *env, cells, derivers);
  std::erase_if(rows, [&](const ResultRow& r) { return r.cell->cell_id != cell.id; });
  d.rows = EncodeCellRows(rows);
  return store.PutDerived(d);
}

std::optional<std::vector<ResultRow>> CachedRows(
    const store::DerivedRecord& cached, const std::map<int64_t, store::SampleCount>& counts,
    const store::RunRecord& run, const store::EnvironmentRecord& env,
    const store::CellRecord& cell) {
  if (cached.version != kDerivationVersion || cached.load_cell_id != cell.load_cell_id) {
    return std::nullopt;
  }
  if (CountOf(counts, cell.id) != store::SampleCount{cached.n_samples, cached.max_sample_id}) {
    return std::nullopt;
  }
  if (cell.load_cell_id && *cell.load_cell_id != cell.id) {
    // Derived live, a load cell of another run serves nothing: a cached row must not use it.
    if (!counts.contains(*cell.load_cell_id) ||
        CountOf(counts, *cell.load_cell_id) !=
            store::SampleCount{cached.load_n_samples, cached.load_max_sample_id}) {
      return std::nullopt;
    }
  }
  const json doc = json::parse(cached.rows.begin(), cached.rows.end(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("params_set")) return std::nullopt;
  if (auto rows = doc.find("rows"); rows != doc.end() && rows->is_array() && rows->empty()) {
    return std::vector<ResultRow>{};
  }
  return DecodeParsed(
      doc, std::make_shared<const CellFacts>(CellFactsOf(run, env, cell, doc.at("params_set"))));
}

}  // namespace pipette::metrics
