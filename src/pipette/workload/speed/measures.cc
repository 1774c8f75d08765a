#include "pipette/workload/speed/measures.h"

#include <algorithm>
#include <climits>
#include <cstdint>

#include "pipette/stats/stats.h"
#include "pipette/util/json_read.h"
#include "pipette/util/seconds.h"

namespace pipette::workload::speed {

using json_read::Int;
using json_read::Ints;
using json_read::Member;
using json_read::Number;
using json_read::Ref;
using nlohmann::json;

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
  const json& perf = Ref(raw, "runtime_perf");
  const double ms = Number(perf, "t_eval_ms").value_or(0.0);
  const double n = Number(perf, "n_eval").value_or(0.0);
  if (n <= 0) return std::nullopt;
  return ms / n;
}

std::optional<double> TtftMs(const json& raw) {
  auto t0 = Int(raw, "t_start_ns"), t1 = Int(raw, "t_first_token_ns");
  if (!t0 || !t1 || *t1 < *t0) return std::nullopt;
  return double(*t1 - *t0) / 1e6;
}

std::optional<double> DecodeSeconds(const json& raw) {
  const std::optional<int64_t> t0 = Int(raw, "t_start_ns");
  if (!t0) return std::nullopt;
  const json& ends = Ref(raw, "token_end_ns");
  const std::optional<int64_t> last =
      ends.is_array() && !ends.empty() ? json_read::AsInt(ends.back()) : std::nullopt;
  if (!last || *last <= *t0) return std::nullopt;
  return SecondsBetween(*t0, *last);
}

namespace {

// The figures of one endpoint request's streams: per stream, and the aggregate over them.
void StreamFigures(metrics::RowBuilder& b, const std::string& test, const json& streams, bool tg,
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

}  // namespace

bool AddStreams(const store::SampleRecord& s, bool decode, SpeedRows& out) {
  const json& raw = s.raw;
  if (!raw.contains("streams")) return false;
  StreamCounts& counts = out.streams[s.test];
  if (raw.contains("request_failed") && !Ref(raw, "streams").is_array()) {
    ++counts.streams;
    ++counts.failed;
  } else {
    StreamFigures(out.rows, s.test, Ref(raw, "streams"), decode, counts);
  }
  return true;
}

void AddEnergy(const store::SampleRecord& s, std::optional<double> tps, SpeedRows& out) {
  auto e = s.raw.find("energy");
  if (e == s.raw.end() || !e->is_object()) return;
  if (s.raw.contains("streams")) {
    out.no_energy[s.test] =
        "a served model: the streams' energy is not one request's, and the server may run on "
        "another machine";
    return;
  }
  if (auto why = e->find("na"); why != e->end()) {
    out.no_energy[s.test] = why->is_string() ? why->get<std::string>() : "not measured";
    return;
  }
  const double joules = e->value("joules", -1.0);
  const double seconds = e->value("seconds", 0.0);
  if (joules < 0 || seconds <= 0 || !tps) {
    out.no_energy[s.test] =
        "the stored energy reading is incomplete (no joules, seconds or tokens)";
    return;
  }
  const double watts = joules / seconds;
  out.rows.Add(s.test, "energy_per_token", "J/token", watts / *tps);
  out.rows.Add(s.test, "power", "W", watts);
}

void AddRoofline(const DeriveInput& in, SpeedRows& out) {
  const store::SampleRecord& s = in.sample;
  const metrics::Roofline& roof = in.roof;
  if (roof.predates) return;
  if (s.raw.contains("streams")) {
    out.no_bw_util[s.test] =
        "a served model: what the server reads a token, and from which machine's memory, is not "
        "known to Pipette";
    return;
  }
  const auto tps = TgTokensPerSecond(s.raw);
  if (!tps) return;
  const auto bytes = metrics::TgBytesPerToken(roof, s.raw);
  if (!bytes) {
    out.no_bw_util[s.test] =
        roof.na_reason.empty() ? "a repetition's bytes per token are unknown" : roof.na_reason;
    return;
  }
  out.rows.Add(s.test, "bytes_per_token", "bytes", *bytes);
  if (auto kv = metrics::KvBytesUsed(roof, s.raw))
    out.rows.Add(s.test, "kv_bytes_used", "bytes", *kv);
  if (roof.bandwidth > 0) {
    out.rows.Add(s.test, "bw_util", "fraction", *tps * *bytes / roof.bandwidth);
  } else {
    out.no_bw_util[s.test] = roof.na_reason;
  }
}

}  // namespace pipette::workload::speed
