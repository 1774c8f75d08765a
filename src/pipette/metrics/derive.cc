#include "pipette/metrics/derive.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <map>
#include <string_view>

#include "pipette/metrics/cell_figures.h"
#include "pipette/metrics/roofline.h"
#include "pipette/metrics/sustained.h"
#include "pipette/quant/variant.h"
#include "pipette/util/json_read.h"
#include "pipette/util/seconds.h"

namespace pipette::metrics {

using nlohmann::json;

namespace {

// A sample's `raw` is outside data (a worker's or a server's reply, read back from a store):
// every read below checks its type (util/json_read.h), and a value of another type reads as
// absent, never throws.
using json_read::Flag;
using json_read::Int;
using json_read::Ints;
using json_read::Member;
using json_read::Number;
using json_read::Ref;
using json_read::String;

}  // namespace

std::optional<double> PpTokensPerSecond(const json& raw) {
  auto n = Int(raw, "n_tokens"), t0 = Int(raw, "t_start_ns"), t1 = Int(raw, "t_end_ns");
  if (!n || !t0 || !t1 || *t1 <= *t0) return std::nullopt;
  return double(*n) / SecondsBetween(*t0, *t1);
}

std::optional<double> TgTokensPerSecond(const json& raw) {
  auto t0 = Int(raw, "t_start_ns");
  const std::vector<int64_t> ends = Ints(Member(raw, "token_end_ns"));
  if (!t0 || ends.empty()) return std::nullopt;
  const int64_t t1 = ends.back();
  if (t1 <= *t0) return std::nullopt;
  return double(ends.size()) / SecondsBetween(*t0, t1);
}

std::vector<double> InterTokenLatenciesMs(const json& raw) {
  std::vector<double> out;
  auto t0 = Int(raw, "t_start_ns");
  if (!t0) return out;
  int64_t prev = *t0;
  for (const int64_t now : Ints(Member(raw, "token_end_ns"))) {
    out.push_back(double(now - prev) / 1e6);
    prev = now;
  }
  return out;
}

std::optional<double> RuntimeMsPerToken(const json& raw) {
  const json& perf = json_read::Ref(raw, "runtime_perf");
  const double ms = json_read::Number(perf, "t_eval_ms").value_or(0.0);
  const double n = json_read::Number(perf, "n_eval").value_or(0.0);
  if (n <= 0) return std::nullopt;
  return ms / n;
}

std::optional<double> TtftMs(const json& raw) {
  auto t0 = Int(raw, "t_start_ns"), t1 = Int(raw, "t_first_token_ns");
  if (!t0 || !t1 || *t1 < *t0) return std::nullopt;
  return double(*t1 - *t0) / 1e6;
}

std::optional<double> LoadMs(const json& raw) {
  auto t0 = Int(raw, "t_start_ns"), t1 = Int(raw, "t_end_ns");
  if (!t0 || !t1 || *t1 < *t0) return std::nullopt;
  return double(*t1 - *t0) / 1e6;
}

bool IsSpeedTest(std::string_view prefix, std::string_view test) {
  if (!test.starts_with(prefix) || test.size() == prefix.size()) return false;
  return std::all_of(test.begin() + long(prefix.size()), test.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

bool IsE2eTest(std::string_view test) {
  if (!test.starts_with("e2e@")) return false;
  const std::string_view rest = test.substr(4);
  const size_t plus = rest.find('+');
  auto digits = [](std::string_view s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  return plus != std::string_view::npos && digits(rest.substr(0, plus)) &&
         digits(rest.substr(plus + 1));
}

namespace {

// Collects values of one (test, metric, subset) in order of first appearance.
class RowBuilder {
 public:
  void Add(const std::string& test, const std::string& metric, const std::string& unit, double v,
           const std::string& subset = "") {
    auto key = test + "\x1f" + metric + "\x1f" + subset;
    auto it = index_.find(key);
    if (it == index_.end()) {
      it = index_.emplace(key, entries_.size()).first;
      entries_.push_back({test, metric, unit, subset, {}});
    }
    entries_[it->second].values.push_back(v);
  }
  struct Entry {
    std::string test, metric, unit, subset;
    std::vector<double> values;
  };
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::map<std::string, size_t> index_;
  std::vector<Entry> entries_;
};

// An endpoint's requests (docs/metrics.md "Endpoints"), per test: streams that failed (a stall,
// a cut stream, too few tokens) and streams whose token counts did not check out.
struct StreamCounts {
  int64_t streams = 0, failed = 0, mismatched = 0;
};
using EndpointCounts = std::map<std::string, StreamCounts>;

// The figures of one endpoint request (a tg or ttft reply with `streams`): per stream, and the
// aggregate over its concurrent streams.
void AddStreams(RowBuilder& b, const std::string& test, const json& streams, bool tg,
                StreamCounts& counts) {
  int64_t first = INT64_MAX, last = INT64_MIN, generated = 0;
  std::vector<double> gaps;
  for (const json& f : streams) {
    ++counts.streams;
    if (!f.is_object() || f.contains("error")) {
      ++counts.failed;
      continue;
    }
    if (Member(f, "tokens").contains("mismatch")) ++counts.mismatched;
    auto sent = Int(f, "t_sent_ns"), end = Int(f, "t_end_ns"), t_first = Int(f, "t_first_ns");
    const std::vector<int64_t> arrivals = Ints(Member(f, "token_ns"));
    if (!sent || !end || !t_first) continue;
    const double e2e_ms = double(*end - *sent) / 1e6;
    b.Add(test, "e2e", "ms", e2e_ms);
    if (!tg) b.Add(test, "ttft", "ms", double(*t_first - *sent) / 1e6);
    const json server = Member(f, "server");
    const auto prompt_ms = Number(server, "prompt_ms"),
               predicted_ms = Number(server, "predicted_ms");
    if (prompt_ms && predicted_ms) {
      const double server_ms = *prompt_ms + *predicted_ms;
      b.Add(test, "server_prompt_ms", "ms", *prompt_ms);
      b.Add(test, "serving_overhead", "ms", e2e_ms - server_ms);
    }
    if (!tg || arrivals.size() < 2) continue;
    const int64_t a0 = arrivals.front(), a1 = arrivals.back();
    if (a1 > a0) {
      const double tps = double(arrivals.size() - 1) / SecondsBetween(a0, a1);
      b.Add(test, "throughput", "t/s", tps);
      b.Add(test, "ms_per_token", "ms", 1000.0 / tps);
    }
    for (size_t i = 1; i < arrivals.size(); ++i) {
      gaps.push_back(double(arrivals[i] - arrivals[i - 1]) / 1e6);
    }
    first = std::min(first, a0);
    last = std::max(last, a1);
    generated += static_cast<int64_t>(arrivals.size()) - 1;
  }
  if (!gaps.empty()) {
    b.Add(test, "itl_p50", "ms", stats::Percentile(gaps, 50));
    b.Add(test, "itl_p90", "ms", stats::Percentile(gaps, 90));
    b.Add(test, "itl_p99", "ms", stats::Percentile(gaps, 99));
  }
  if (tg && last > first && generated > 0) {
    b.Add(test, "aggregate_throughput", "t/s", double(generated) / SecondsBetween(first, last));
  }
}

void AddSample(RowBuilder& b, const store::SampleRecord& s, EndpointCounts& endpoint) {
  const json& raw = s.raw;
  const bool tg = IsSpeedTest("tg", s.test);
  if ((tg || IsSpeedTest("ttft@", s.test)) && raw.contains("streams")) {
    StreamCounts& counts = endpoint[s.test];
    if (raw.contains("request_failed") && !Ref(raw, "streams").is_array()) {
      ++counts.streams;
      ++counts.failed;
    } else {
      AddStreams(b, s.test, Ref(raw, "streams"), tg, counts);
    }
    return;
  }
  if (IsSpeedTest("pp", s.test)) {
    if (auto v = PpTokensPerSecond(raw)) b.Add(s.test, "throughput", "t/s", *v);
  } else if (IsSpeedTest("tg", s.test)) {
    if (auto v = TgTokensPerSecond(raw)) {
      b.Add(s.test, "throughput", "t/s", *v);
      b.Add(s.test, "ms_per_token", "ms", 1000.0 / *v);
    }
    const std::vector<double> itl = InterTokenLatenciesMs(raw);
    if (!itl.empty()) {
      b.Add(s.test, "itl_p50", "ms", stats::Percentile(itl, 50));
      b.Add(s.test, "itl_p90", "ms", stats::Percentile(itl, 90));
      b.Add(s.test, "itl_p99", "ms", stats::Percentile(itl, 99));
    }
    if (auto v = RuntimeMsPerToken(raw)) b.Add(s.test, "runtime_ms_per_token", "ms", *v);
  } else if (IsSpeedTest("ttft@", s.test)) {
    if (auto v = TtftMs(raw)) b.Add(s.test, "ttft", "ms", *v);
  } else if (IsE2eTest(s.test)) {
    // One request: the prompt, then every generated token (docs/metrics.md "e2e@P+N").
    auto t0 = Int(raw, "t_start_ns");
    const std::vector<int64_t> ends = Ints(Member(raw, "token_end_ns"));
    if (t0 && !ends.empty() && ends.front() >= *t0) {
      const int64_t first = ends.front(), last = ends.back();
      b.Add(s.test, "e2e", "ms", double(last - *t0) / 1e6);
      b.Add(s.test, "first_token", "ms", double(first - *t0) / 1e6);
      if (ends.size() >= 2 && last > first) {
        b.Add(s.test, "decode_throughput", "t/s",
              double(ends.size() - 1) / SecondsBetween(first, last));
      }
    }
  } else if (s.test == "memory") {
    // Without a reset at the cell's start, VmHWM would include earlier cells: not this cell's.
    // Pages swapped out (a phone's zram) are not in VmHWM: the worker's largest VmRSS + VmSwap
    // sampled since the reset counts them (docs/metrics.md "peak RSS").
    const bool reset = Flag(Member(raw, "reset"), "supported", false);
    if (auto v = Int(raw, "hwm"); v && reset) {
      const int64_t footprint = Int(raw, "footprint_peak").value_or(0);
      b.Add("memory", "peak_rss", "bytes", double(std::max(*v, footprint)));
    }
  }
}

// bytes_per_token and bw_util of an in-process tg repetition (metrics/roofline.h); the tests
// whose bw_util cannot be given go into `na`, with the reason.
void AddRoofline(RowBuilder& b, const store::SampleRecord& s, const Roofline& roof,
                 std::map<std::string, std::string>* na) {
  if (!IsSpeedTest("tg", s.test) || roof.predates) return;
  if (s.raw.contains("streams")) {
    (*na)[s.test] =
        "a served model: what the server reads a token, and from which machine's memory, is not "
        "known to Pipette";
    return;
  }
  const auto tps = TgTokensPerSecond(s.raw);
  if (!tps) return;
  const auto bytes = TgBytesPerToken(roof, s.raw);
  if (!bytes) {
    (*na)[s.test] =
        roof.na_reason.empty() ? "a repetition's bytes per token are unknown" : roof.na_reason;
    return;
  }
  b.Add(s.test, "bytes_per_token", "bytes", *bytes);
  if (auto kv = KvBytesUsed(roof, s.raw)) b.Add(s.test, "kv_bytes_used", "bytes", *kv);
  if (roof.bandwidth > 0) {
    b.Add(s.test, "bw_util", "fraction", *tps * *bytes / roof.bandwidth);
  } else {
    (*na)[s.test] = roof.na_reason;
  }
}

// energy_per_token and power of a pp or tg repetition whose energy was read (docs/metrics.md
// "energy per token"): the mean power between the two readings, and that power over the
// repetition's timed span per token (power / t/s); the tests whose energy cannot be given go
// into `na`, with the reason.
void AddEnergy(RowBuilder& b, const store::SampleRecord& s,
               std::map<std::string, std::string>* na) {
  auto e = s.raw.find("energy");
  if (e == s.raw.end() || !e->is_object()) return;
  if (s.raw.contains("streams")) {
    (*na)[s.test] =
        "a served model: the streams' energy is not one request's, and the server may run on "
        "another machine";
    return;
  }
  if (auto why = e->find("na"); why != e->end()) {
    (*na)[s.test] = why->is_string() ? why->get<std::string>() : "not measured";
    return;
  }
  const double joules = e->value("joules", -1.0);
  const double seconds = e->value("seconds", 0.0);
  const auto tps = IsSpeedTest("pp", s.test) ? PpTokensPerSecond(s.raw) : TgTokensPerSecond(s.raw);
  if (joules < 0 || seconds <= 0 || !tps) {
    (*na)[s.test] = "the stored energy reading is incomplete (no joules, seconds or tokens)";
    return;
  }
  const double watts = joules / seconds;
  b.Add(s.test, "energy_per_token", "J/token", watts / *tps);
  b.Add(s.test, "power", "W", watts);
}

// sustained<T> (docs/metrics.md "sustained<T>"): per 10 s window its t/s, and where every window
// has them its temperature, frequency and power (so the rows' samples are the windows, in
// order); the decay from the first window to the last; the energy per token of the whole run.
void AddSustained(RowBuilder& b, const store::SampleRecord& s,
                  std::map<std::string, std::string>* no_energy,
                  std::map<std::string, std::string>* unreadable) {
  const Sustained run = SustainedOf(s.raw);
  if (!run.error.empty()) {
    (*unreadable)[s.test] = "the stored run cannot be read: " + run.error;
    return;
  }
  if (run.windows.empty()) {
    (*unreadable)[s.test] = "the run gave no full 10 s window";
    return;
  }
  bool temps = true, freqs = true, powers = true;
  for (const SustainedWindow& w : run.windows) {
    b.Add(s.test, "throughput", "t/s", w.tps);
    temps = temps && w.temp_c;
    freqs = freqs && w.freq_mhz;
    powers = powers && w.power_w;
  }
  for (const SustainedWindow& w : run.windows) {
    b.Add(s.test, "window_wall_throughput", "t/s", w.wall_tps);
    if (temps) b.Add(s.test, "window_temp_c", "°C", *w.temp_c);
    if (freqs) b.Add(s.test, "window_freq_mhz", "MHz", *w.freq_mhz);
    if (powers) b.Add(s.test, "window_power", "W", *w.power_w);
  }
  if (run.decay) b.Add(s.test, "decay", "%", *run.decay * 100);
  b.Add(s.test, "generated_tokens", "tokens", double(run.tokens));
  if (run.energy_per_token) {
    b.Add(s.test, "energy_per_token", "J/token", *run.energy_per_token);
  } else {
    const json why = Member(s.raw, "sensors_na");
    (*no_energy)[s.test] = why.is_string() ? why.get<std::string>() : run.energy_na;
  }
}

// load (docs/metrics.md): from the load call until the runtime can accept a prompt, i.e. the
// model load that served the cell plus the creation of the cell's own context.
void AddLoad(RowBuilder& b, const store::SampleRecord& load, const store::SampleRecord* context) {
  // A server already running loaded its model before Pipette came: no load to time.
  if (!Flag(load.raw, "load_measured", true)) return;
  const auto model_ms = LoadMs(load.raw);
  double context_ms = -1;
  if (context) context_ms = LoadMs(context->raw).value_or(-1);
  if (model_ms && context_ms >= 0) b.Add("load", "time", "ms", *model_ms + context_ms);
  if (model_ms) b.Add("load", "model_load", "ms", *model_ms);
  if (context_ms >= 0) b.Add("load", "context_init", "ms", context_ms);
  auto before = Int(load.raw, "rss_before"), after = Int(load.raw, "rss_after");
  if (before && after) b.Add("load", "rss_delta", "bytes", double(*after - *before));
  // What the runtime did not run as asked (ONNX Runtime's load reply): nodes it assigned to
  // another execution provider, and the casts it inserted where a provider lacks a kernel for a
  // type; each count also by op type, as rows of that subset (the op type).
  if (const auto f = load.raw.find("fallback"); f != load.raw.end() && f->is_object()) {
    for (const auto& [metric, by_op] : {std::pair{"nodes_on_other_providers", "other_provider_ops"},
                                        std::pair{"inserted_casts", "inserted_cast_ops"}}) {
      if (auto v = Int(*f, metric)) b.Add("load", metric, "nodes", double(*v));
      const auto ops = f->find(by_op);
      if (ops == f->end() || !ops->is_object()) continue;
      for (const auto& [op, count] : ops->items()) {
        if (count.is_number_integer()) b.Add("load", metric, "nodes", count.get<double>(), op);
      }
    }
  }
}

}  // namespace

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

namespace {

// The time to write 1000 characters (docs/metrics.md "ms_per_kchar"): each tg repetition's
// ms/token times the tokens the cell's model makes of 1000 characters of the ppl corpus, so that
// models with other tokenizers compare on the same text. Rows from `first` on are the cell's.
void AddMsPerKchar(std::vector<ResultRow>& rows, size_t first) {
  std::optional<double> density;
  for (size_t i = first; i < rows.size(); ++i) {
    const ResultRow& r = rows[i];
    if (r.test == "ppl" && r.metric == "tok_per_kchar" && r.na_reason.empty() && r.value > 0) {
      density = r.value;
    }
  }
  if (!density) return;
  const size_t end = rows.size();
  for (size_t i = first; i < end; ++i) {
    if (rows[i].metric != "ms_per_token" || !IsSpeedTest("tg", rows[i].test)) continue;
    ResultRow k = rows[i];
    k.metric = "ms_per_kchar";
    for (double& v : k.samples) v *= *density;
    k.summary = stats::Summarize(k.samples);
    k.value = k.summary.median;
    rows.push_back(std::move(k));
  }
}

}  // namespace

std::vector<ResultRow> DeriveRows(const store::RunRecord& run, const store::EnvironmentRecord& env,
                                  const std::vector<CellSamples>& cells,
                                  const RowDerivers& derivers, const Environments* envs) {
  std::map<int64_t, const store::SampleRecord*> loads;  // cell id -> its load sample
  for (const CellSamples& c : cells) {
    for (const auto& s : c.samples) {
      if (s.test == "load") loads[c.cell.id] = &s;
    }
  }
  CellsById by_id;
  for (const CellSamples& c : cells) by_id[c.cell.id] = &c;
  std::vector<ResultRow> rows;
  for (const CellSamples& c : cells) {
    // A cell measured again by a resume: its samples stay (a reference may point at them) but
    // count in no figure.
    if (c.cell.status == "superseded") continue;
    const size_t cell_first = rows.size();
    RowBuilder b;
    const store::SampleRecord* context = nullptr;
    std::vector<ResultRow> kv_na;  // completed with the cell's facts below
    EndpointCounts endpoint;
    const store::EnvironmentRecord& cell_env = EnvironmentOf(c.cell, env, envs);
    for (const auto& s : c.samples) {
      if (s.test == "context") context = &s;
    }
    const Roofline roof = RooflineOf(c.cell, cell_env.facts, context ? context->raw : json());
    std::map<std::string, std::string> no_bw_util;
    std::map<std::string, std::string> no_energy;
    std::map<std::string, std::string> no_sustained;  // a sustained run that cannot be read
    for (const auto& s : c.samples) {
      if (!s.warmup && IsSpeedTest("sustained", s.test)) {
        AddSustained(b, s, &no_energy, &no_sustained);
      } else if (!s.warmup && s.test != "load") {
        AddSample(b, s, endpoint);
        AddRoofline(b, s, roof, &no_bw_util);
        AddEnergy(b, s, &no_energy);
      }
    }
    for (const auto& [test, n] : endpoint) {
      b.Add(test, "failed_streams", "streams", double(n.failed));
      b.Add(test, "token_count_mismatches", "streams", double(n.mismatched));
      b.Add(test, "streams", "streams", double(n.streams));
    }
    if (c.cell.load_cell_id) {
      if (auto it = loads.find(*c.cell.load_cell_id); it != loads.end()) {
        AddLoad(b, *it->second, context);
      }
    }
    if (context) {
      // The runtime's own figure where it reports one (llama.cpp's log), and the model's always
      // (docs/metrics.md "kv_bytes"): side by side, each checks the other.
      if (auto v = Int(context->raw, "kv_buffer_bytes")) {
        b.Add("memory", "kv_bytes_allocated", "bytes", double(*v));
      }
      if (auto kv = KvBytesAllocated(roof, context->raw)) {
        b.Add("memory", "kv_bytes_allocated_model", "bytes", *kv);
      } else if (std::string why = KvBytesAllocatedNa(roof, context->raw); !why.empty()) {
        ResultRow r;  // a served model's that cannot be given, with the reason
        r.test = "memory";
        r.metric = "kv_bytes_allocated_model";
        r.unit = "bytes";
        r.na_reason = std::move(why);
        kv_na.push_back(std::move(r));
      }
    }
    if (c.cell.model_file_size > 0) {
      b.Add("model", "file_size", "bytes", double(c.cell.model_file_size));
    }
    const json& params_set =
        context && context->raw.contains("params_set") ? context->raw["params_set"] : c.cell.params;
    ResultRow base;
    base.cell = std::make_shared<const CellFacts>(CellFactsOf(run, cell_env, c.cell, params_set));
    for (const auto& e : b.entries()) {
      ResultRow r = base;
      r.test = e.test;
      r.metric = e.metric;
      r.unit = e.unit;
      r.subset = e.subset;
      r.samples = e.values;
      r.summary = stats::Summarize(e.values);
      r.value = r.summary.median;
      rows.push_back(std::move(r));
    }
    // Each workload's figures; stored data of an unexpected shape (an older writer, a hand edit)
    // makes that workload's figures n/a with the reason, not the whole report.
    for (const RowDeriver* w : derivers) {
      std::vector<ResultRow> own;
      if (auto st = w->Derive(base, c, by_id, &own); !st) {
        ResultRow r = base;
        r.test = w->Name();
        r.metric = "all";
        r.na_reason = st.error().message;
        rows.push_back(std::move(r));
        continue;
      }
      rows.insert(rows.end(), own.begin(), own.end());
    }
    AddMsPerKchar(rows, cell_first);
    // A figure no repetition of a test could give: one n/a row with the reason (where some
    // repetitions gave it, the figure is theirs).
    auto add_na = [&](const std::map<std::string, std::string>& why_by_test, const char* metric,
                      const char* unit) {
      for (const auto& [test_name, why] : why_by_test) {
        const std::string& test = test_name;  // a lambda may not capture a structured binding
        const bool some = std::any_of(b.entries().begin(), b.entries().end(), [&](const auto& e) {
          return e.test == test && e.metric == metric;
        });
        if (some) continue;
        ResultRow r = base;
        r.test = test;
        r.metric = metric;
        r.unit = unit;
        r.na_reason = why;
        rows.push_back(std::move(r));
      }
    };
    add_na(no_energy, "energy_per_token", "J/token");
    add_na(no_energy, "power", "W");
    add_na(no_bw_util, "bw_util", "fraction");
    add_na(no_sustained, "throughput", "t/s");
    for (ResultRow& na : kv_na) {
      ResultRow r = base;
      r.test = std::move(na.test);
      r.metric = std::move(na.metric);
      r.unit = std::move(na.unit);
      r.na_reason = std::move(na.na_reason);
      rows.push_back(std::move(r));
    }
    // A phase the cell's runtime does not serve (run/runner.cc stores it as an `na` sample): one
    // n/a row for all its figures, with the reason.
    for (const auto& s : c.samples) {
      if (s.test != "na" || !s.raw.is_object()) continue;
      ResultRow r = base;
      const json& phase = s.raw.value("phase", json());
      const json& reason = s.raw.value("reason", json());
      r.test = phase.is_string() ? phase.get<std::string>() : "?";
      r.metric = "all";
      r.na_reason = reason.is_string() ? reason.get<std::string>() : "not measured";
      rows.push_back(std::move(r));
    }
    for (const auto& s : c.samples) {
      if (s.test == "memory" && !Flag(Member(s.raw, "reset"), "supported", false)) {
        ResultRow r = base;
        r.test = "memory";
        r.metric = "peak_rss";
        r.unit = "bytes";
        r.na_reason = "the worker could not reset its peak-memory mark at the start of the cell";
        rows.push_back(std::move(r));
      }
    }
  }
  return rows;
}

std::vector<FigureDef> CellFigures() {
  constexpr auto kNot = Better::kNotJudged;
  constexpr auto kOnce = Statistic::kMeasuredOnce;
  return FigureList()
      .Add("load", {"time"}, "ms", FigureKind::kSpeed, Better::kLower)
      .Score(ScoreGroup::kEngineering, "load_time", Better::kLower)
      .Add("load", {"model_load", "context_init"}, "ms", FigureKind::kSpeed, Better::kLower)
      .Add("load", {"rss_delta"}, "bytes", FigureKind::kMemory, kNot, ValueKind::kSigned)
      .Add("load", {"nodes_on_other_providers", "inserted_casts"}, "nodes", FigureKind::kFact, kNot)
      .Add("memory", {"peak_rss"}, "bytes", FigureKind::kMemory, Better::kLower, ValueKind::kAmount,
           kOnce)
      .Score(ScoreGroup::kEfficiency, "peak_rss", Better::kLower)
      .Shows(Shown::kPeakMemory)
      .Add("memory", {"kv_bytes_allocated"}, "bytes", FigureKind::kMemory, Better::kLower,
           ValueKind::kAmount, kOnce)
      .Shows(Shown::kKvAllocated)
      .Add("memory", {"kv_bytes_allocated_model"}, "bytes", FigureKind::kMemory, kNot,
           ValueKind::kAmount, kOnce)
      .Add("model", {"file_size"}, "bytes", FigureKind::kMemory, Better::kLower, ValueKind::kAmount,
           kOnce)
      .Score(ScoreGroup::kEngineering, "file_size", Better::kLower)
      .Take();
}

}  // namespace pipette::metrics
