#include "pipette/metrics/figures.h"

#include <limits>

#include "pipette/metrics/derive.h"

namespace pipette::metrics {
namespace {

using K = FigureKind;

// A test family's pattern and whether `test` is of it; "" for a test of one name.
std::string_view FamilyPrefix(std::string_view pattern) {
  if (pattern == "pp<N>") return "pp";
  if (pattern == "tg<N>") return "tg";
  if (pattern == "ttft@<P>") return "ttft@";
  if (pattern == "sustained<N>") return "sustained";
  if (pattern == "e2e@<P>+<N>") return "e2e@";
  return "";
}

std::vector<FigureSpec> Catalogue() {
  std::vector<FigureSpec> out;
  auto add = [&](const std::string& test, std::initializer_list<const char*> metrics,
                 const std::string& unit, FigureKind kind) {
    for (const char* m : metrics) out.push_back({test, m, unit, kind});
  };
  // Speed (metrics/derive.cc), an endpoint's streams among them.
  add("pp<N>", {"throughput"}, "t/s", K::kAmount);
  add("pp<N>", {"energy_per_token"}, "J/token", K::kAmount);
  add("pp<N>", {"power"}, "W", K::kAmount);
  add("tg<N>", {"throughput", "aggregate_throughput"}, "t/s", K::kAmount);
  add("tg<N>",
      {"ms_per_token", "itl_p50", "itl_p90", "itl_p99", "runtime_ms_per_token", "ms_per_kchar",
       "e2e", "server_prompt_ms"},
      "ms", K::kAmount);
  add("tg<N>", {"serving_overhead"}, "ms", K::kSigned);
  add("tg<N>", {"failed_streams", "token_count_mismatches", "streams"}, "streams", K::kAmount);
  add("tg<N>", {"bytes_per_token", "kv_bytes_used"}, "bytes", K::kAmount);
  add("tg<N>", {"bw_util"}, "fraction", K::kProportion);
  add("tg<N>", {"energy_per_token"}, "J/token", K::kAmount);
  add("tg<N>", {"power"}, "W", K::kAmount);
  add("ttft@<P>", {"ttft", "e2e", "server_prompt_ms"}, "ms", K::kAmount);
  add("ttft@<P>", {"serving_overhead"}, "ms", K::kSigned);
  add("ttft@<P>", {"failed_streams", "token_count_mismatches", "streams"}, "streams", K::kAmount);
  add("e2e@<P>+<N>", {"e2e", "first_token"}, "ms", K::kAmount);
  add("e2e@<P>+<N>", {"decode_throughput"}, "t/s", K::kAmount);
  add("sustained<N>", {"throughput", "window_wall_throughput"}, "t/s", K::kAmount);
  add("sustained<N>", {"window_temp_c"}, "°C", K::kSigned);
  add("sustained<N>", {"window_freq_mhz"}, "MHz", K::kAmount);
  add("sustained<N>", {"window_power", "power"}, "W", K::kAmount);
  add("sustained<N>", {"decay"}, "%", K::kPercentDrop);
  add("sustained<N>", {"generated_tokens"}, "tokens", K::kAmount);
  add("sustained<N>", {"energy_per_token"}, "J/token", K::kAmount);
  // The cell's facts.
  add("load", {"time", "model_load", "context_init"}, "ms", K::kAmount);
  add("load", {"rss_delta"}, "bytes", K::kSigned);
  add("load", {"nodes_on_other_providers", "inserted_casts"}, "nodes", K::kAmount);
  add("memory", {"peak_rss", "kv_bytes_allocated", "kv_bytes_allocated_model"}, "bytes",
      K::kAmount);
  add("model", {"file_size"}, "bytes", K::kAmount);
  // Quality (workload/*/derive.cc).
  add("ppl", {"ppl"}, "", K::kPerplexity);
  add("ppl", {"tok_per_kchar"}, "tokens/kchar", K::kAmount);
  add("kld", {"kld_mean", "kld_median", "kld_p99", "kld_max"}, "nats", K::kAmount);
  add("kld", {"top1_agree"}, "fraction", K::kProportion);
  add("kld", {"rms_dp", "ref_tail_mass"}, "probability", K::kProportion);
  add("kld", {"ppl_ratio"}, "ratio", K::kAmount);
  add("mc", {"acc", "acc_norm"}, "fraction", K::kProportion);
  add("mc", {"tok_per_kchar"}, "tokens/kchar", K::kAmount);
  add("gen", {"format_ok", "task_acc"}, "fraction", K::kProportion);
  add("gen", {"thinking_exhausted", "failed_requests"}, "items", K::kAmount);
  add("gen", {"tok_per_kchar"}, "tokens/kchar", K::kAmount);
  add("divergence", {"identical"}, "fraction", K::kProportion);
  add("divergence", {"first_diff_index"}, "tokens", K::kAmount);
  return out;
}

// How specifically `name` names figures of `spec` (compare::FigureNameMatch): 3 test.metric or
// test_metric, 2 the metric, 1 the test for its headline figure; 0 not at all.
int Match(std::string_view name, const FigureSpec& spec) {
  const std::string& m = spec.metric;
  if (name.size() > m.size() + 1 && name.ends_with(m)) {
    const char sep = name[name.size() - m.size() - 1];
    if ((sep == '.' || sep == '_') && TestOf(spec, name.substr(0, name.size() - m.size() - 1))) {
      return 3;
    }
  }
  if (name == m) return 2;
  if (TestOf(spec, name)) {
    ResultRow row;
    row.test = std::string(name);
    row.metric = m;
    if (IsHeadline(row)) return 1;
  }
  return 0;
}

}  // namespace

ValueRange RangeOf(FigureKind kind) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  switch (kind) {
    case FigureKind::kProportion:
      return {0, 1};
    case FigureKind::kAmount:
      return {0, kInf};
    case FigureKind::kPercentDrop:
      return {-kInf, 100};
    case FigureKind::kPerplexity:
      return {1, kInf};
    case FigureKind::kSigned:
      return {-kInf, kInf};
  }
  return {-kInf, kInf};
}

std::string KindText(FigureKind kind) {
  switch (kind) {
    case FigureKind::kProportion:
      return "a proportion, from 0 to 1 (0% to 100%)";
    case FigureKind::kAmount:
      return "an amount, 0 or more";
    case FigureKind::kPercentDrop:
      return "a fall in %, at most 100%";
    case FigureKind::kPerplexity:
      return "a perplexity, 1 or more";
    case FigureKind::kSigned:
      return "a difference, either side of 0";
  }
  return "?";
}

const std::vector<FigureSpec>& KnownFigures() {
  static const std::vector<FigureSpec> kFigures = Catalogue();
  return kFigures;
}

bool TestOf(const FigureSpec& spec, std::string_view test) {
  const std::string_view prefix = FamilyPrefix(spec.test);
  if (prefix.empty()) return test == spec.test;
  if (spec.test == "e2e@<P>+<N>") return IsE2eTest(test);
  return IsSpeedTest(prefix, test);
}

std::vector<const FigureSpec*> FiguresNamed(std::string_view name) {
  std::vector<const FigureSpec*> out;
  int best = 0;
  for (const FigureSpec& spec : KnownFigures()) {
    const int m = Match(name, spec);
    if (m == 0 || m < best) continue;
    if (m > best) out.clear();
    best = m;
    out.push_back(&spec);
  }
  return out;
}

std::vector<std::string> FigureNamesLike(std::string_view name) {
  std::vector<std::string> out;
  const size_t dot = name.find('.');
  const std::string_view test = dot == std::string_view::npos ? "" : name.substr(0, dot);
  for (const FigureSpec& spec : KnownFigures()) {
    out.push_back(spec.metric);
    if (FamilyPrefix(spec.test).empty()) {
      out.push_back(spec.test);
      out.push_back(spec.test + "." + spec.metric);
      out.push_back(spec.test + "_" + spec.metric);
    } else if (!test.empty() && TestOf(spec, test)) {
      out.push_back(std::string(test) + "." + spec.metric);
    }
  }
  return out;
}

}  // namespace pipette::metrics
