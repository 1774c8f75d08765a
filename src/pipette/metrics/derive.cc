#include "pipette/metrics/derive.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string_view>

#include "pipette/metrics/items.h"
#include "pipette/quality/checkers.h"
#include "pipette/quality/datasets.h"
#include "pipette/quality/kld.h"
#include "pipette/quality/ppl.h"
#include "pipette/quant/variant.h"

namespace pipette::metrics {

using nlohmann::json;

double Seconds(int64_t t0_ns, int64_t t1_ns) { return double(t1_ns - t0_ns) / 1e9; }

namespace {

std::optional<int64_t> Int(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<int64_t>();
}

}  // namespace

std::optional<double> PpTokensPerSecond(const json& raw) {
  auto n = Int(raw, "n_tokens"), t0 = Int(raw, "t_start_ns"), t1 = Int(raw, "t_end_ns");
  if (!n || !t0 || !t1 || *t1 <= *t0) return std::nullopt;
  return double(*n) / Seconds(*t0, *t1);
}

std::optional<double> TgTokensPerSecond(const json& raw) {
  auto t0 = Int(raw, "t_start_ns");
  auto it = raw.find("token_end_ns");
  if (!t0 || it == raw.end() || !it->is_array() || it->empty()) return std::nullopt;
  const int64_t t1 = it->back().get<int64_t>();
  if (t1 <= *t0) return std::nullopt;
  return double(it->size()) / Seconds(*t0, t1);
}

std::vector<double> InterTokenLatenciesMs(const json& raw) {
  std::vector<double> out;
  auto t0 = Int(raw, "t_start_ns");
  auto it = raw.find("token_end_ns");
  if (!t0 || it == raw.end() || !it->is_array()) return out;
  int64_t prev = *t0;
  for (const json& t : *it) {
    const int64_t now = t.get<int64_t>();
    out.push_back(double(now - prev) / 1e6);
    prev = now;
  }
  return out;
}

std::optional<double> RuntimeMsPerToken(const json& raw) {
  auto it = raw.find("runtime_perf");
  if (it == raw.end() || !it->is_object()) return std::nullopt;
  const double ms = it->value("t_eval_ms", 0.0);
  const double n = it->value("n_eval", 0.0);
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

std::optional<double> RequestSeconds(const std::string& test, const json& raw) {
  if (IsSpeedTest("pp", test)) {
    auto t0 = Int(raw, "t_start_ns"), t1 = Int(raw, "t_end_ns");
    if (t0 && t1 && *t1 > *t0) return Seconds(*t0, *t1);
  } else if (IsSpeedTest("tg", test)) {
    auto t0 = Int(raw, "t_start_ns");
    auto it = raw.find("token_end_ns");
    if (t0 && it != raw.end() && it->is_array() && !it->empty()) {
      return Seconds(*t0, it->back().get<int64_t>());
    }
  } else if (IsSpeedTest("ttft@", test)) {
    if (auto ms = TtftMs(raw)) return *ms / 1000.0;
  } else if (test == "ppl" || test == "kld" || test == "kld_ref" || test == "gen") {
    auto t0 = Int(raw, "t_start_ns"), t1 = Int(raw, "t_end_ns");
    if (t0 && t1 && *t1 > *t0) return Seconds(*t0, *t1);
  }
  return std::nullopt;
}

bool IsSpeedTest(std::string_view prefix, std::string_view test) {
  if (!test.starts_with(prefix) || test.size() == prefix.size()) return false;
  return std::all_of(test.begin() + long(prefix.size()), test.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

bool IsHeadline(const ResultRow& row) {
  return (row.metric == "throughput" &&
          (IsSpeedTest("pp", row.test) || IsSpeedTest("tg", row.test))) ||
         row.metric == "ttft";
}

namespace {

// Collects values of one (test, metric) in order of first appearance.
class RowBuilder {
 public:
  void Add(const std::string& test, const std::string& metric, const std::string& unit, double v) {
    auto key = test + "\x1f" + metric;
    auto it = index_.find(key);
    if (it == index_.end()) {
      it = index_.emplace(key, entries_.size()).first;
      entries_.push_back({test, metric, unit, {}});
    }
    entries_[it->second].values.push_back(v);
  }
  struct Entry {
    std::string test, metric, unit;
    std::vector<double> values;
  };
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::map<std::string, size_t> index_;
  std::vector<Entry> entries_;
};

void AddSample(RowBuilder& b, const store::SampleRecord& s) {
  const json& raw = s.raw;
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
  } else if (s.test == "memory") {
    // Without a reset at the cell's start, VmHWM would include earlier cells: not this cell's.
    const bool reset = raw.value("reset", json::object()).value("supported", false);
    if (auto v = Int(raw, "hwm"); v && reset) b.Add("memory", "peak_rss", "bytes", double(*v));
  }
}

// load (docs/metrics.md): from the load call until the runtime can accept a prompt, i.e. the
// model load that served the cell plus the creation of the cell's own context.
void AddLoad(RowBuilder& b, const store::SampleRecord& load, const store::SampleRecord* context) {
  const auto model_ms = LoadMs(load.raw);
  double context_ms = -1;
  if (context) context_ms = LoadMs(context->raw).value_or(-1);
  if (model_ms && context_ms >= 0) b.Add("load", "time", "ms", *model_ms + context_ms);
  if (model_ms) b.Add("load", "model_load", "ms", *model_ms);
  if (context_ms >= 0) b.Add("load", "context_init", "ms", context_ms);
  auto before = Int(load.raw, "rss_before"), after = Int(load.raw, "rss_after");
  if (before && after) b.Add("load", "rss_delta", "bytes", double(*after - *before));
}

// One item's outcome for proportion figures (accuracy, format compliance).
struct Proportion {
  std::string language, task_type;
  std::map<std::string, bool> ok;  // metric -> passed
};

// Rows for the whole set, per language, per task type and per both, with Wilson intervals; the
// per-item 0/1 outcomes are the samples.
void AddProportionRows(const ResultRow& base, const std::string& test, const json& info,
                       const std::vector<Proportion>& items,
                       const std::vector<std::string>& metrics, std::vector<ResultRow>* rows) {
  auto in_subset = [](const Proportion& o, const std::string& sub) {
    return sub.empty() || sub == o.language || sub == o.task_type ||
           sub == o.language + "/" + o.task_type;
  };
  std::vector<std::string> subsets = {""};
  for (const auto& o : items) {
    for (const std::string& sub : {o.language, o.task_type, o.language + "/" + o.task_type}) {
      if (sub.empty() || sub.front() == '/' || sub.back() == '/') continue;
      if (std::find(subsets.begin(), subsets.end(), sub) == subsets.end()) subsets.push_back(sub);
    }
  }
  for (const std::string& sub : subsets) {
    for (const std::string& metric : metrics) {
      int64_t n = 0, k = 0;
      std::vector<double> per_item;
      for (const auto& o : items) {
        if (!in_subset(o, sub)) continue;
        const bool ok = o.ok.at(metric);
        ++n;
        k += ok;
        per_item.push_back(ok ? 1.0 : 0.0);
      }
      if (n == 0) continue;
      ResultRow r = base;
      r.test = test;
      r.metric = metric;
      r.unit = "fraction";
      r.subset = sub;
      r.dataset = info.value("path", "");
      r.dataset_sha256 = info.value("sha256", "");
      r.value = double(k) / double(n);
      const stats::Interval ci = stats::Wilson(k, n);
      r.ci_low = ci.low;
      r.ci_high = ci.high;
      r.samples = per_item;
      r.summary.n = size_t(n);
      r.summary.median = r.summary.mean = r.summary.min = r.summary.max = r.value;
      rows->push_back(std::move(r));
    }
  }
}

// tok_per_kchar of a dataset's own item texts, for all items ("") and per language.
void AddDensityRows(const ResultRow& base, const std::string& test, const json& info,
                    const std::vector<store::SampleRecord>& samples, std::vector<ResultRow>* rows) {
  std::map<std::string, std::pair<int64_t, int64_t>> by_subset;  // tokens, chars
  for (const auto& s : samples) {
    if (s.test != test || !s.raw.contains("text_tokens")) continue;
    const json& meta = s.raw.contains("item") ? s.raw["item"] : s.raw;
    std::vector<std::string> subsets = {""};
    if (!meta.value("language", "").empty()) subsets.push_back(meta.value("language", ""));
    for (const std::string& sub : subsets) {
      by_subset[sub].first += s.raw.value("text_tokens", int64_t{0});
      by_subset[sub].second += s.raw.value("text_chars", int64_t{0});
    }
  }
  for (const auto& [subset, tc] : by_subset) {
    if (tc.second == 0) continue;
    ResultRow r = base;
    r.test = test;
    r.metric = "tok_per_kchar";
    r.unit = "tokens/kchar";
    r.subset = subset;
    r.dataset = info.value("path", "");
    r.dataset_sha256 = info.value("sha256", "");
    r.value = quality::TokensPerKchar(tc.first, tc.second);
    r.samples = {r.value};
    r.summary = stats::Summarize(r.samples);
    rows->push_back(std::move(r));
  }
}

// Multiple choice: for each item, each choice's summed log-probability; acc picks the highest
// sum, acc_norm the highest sum per UTF-8 byte of the choice (first on ties). Rows for the whole
// set, per language, per task type and per language and task type, with Wilson intervals.
void AddMcRows(const ResultRow& base, const std::vector<store::SampleRecord>& samples,
               std::vector<ResultRow>* rows) {
  const json* info = nullptr;
  std::vector<Proportion> props;
  for (const auto& s : samples) {
    if (s.test == "mc_dataset") info = &s.raw;
    if (s.test != "mc") continue;
    const McPick pick = PickChoice(McChoices(s.raw));
    const int answer = s.raw.value("answer", -1);
    props.push_back({s.raw.value("language", ""),
                     s.raw.value("task_type", ""),
                     {{"acc", pick.chosen == answer}, {"acc_norm", pick.chosen_norm == answer}}});
  }
  if (!info) return;
  AddProportionRows(base, "mc", *info, props, {"acc", "acc_norm"}, rows);
  AddDensityRows(base, "mc", *info, samples, rows);
}

// Generation: every item's output judged by its checkers (quality/checkers.h).
void AddGenRows(const ResultRow& base, const std::vector<store::SampleRecord>& samples,
                std::vector<ResultRow>* rows) {
  const json* info = nullptr;
  std::vector<Proportion> props;
  for (const auto& s : samples) {
    if (s.test == "gen_dataset") info = &s.raw;
    if (s.test != "gen") continue;
    const json& item = s.raw["item"];
    quality::GenItem gi;
    gi.id = item.value("id", "");
    for (const json& c : item["checkers"]) {
      gi.checkers.push_back({c.value("type", ""), c.value("role", ""), c.value("spec", json())});
    }
    const quality::Verdict v = quality::Judge(gi, s.raw.value("text", ""));
    props.push_back({item.value("language", ""),
                     item.value("task_type", ""),
                     {{"format_ok", v.format_ok}, {"task_acc", v.task_ok}}});
  }
  if (!info) return;
  const size_t first = rows->size();
  AddProportionRows(base, "gen", *info, props, {"format_ok", "task_acc"}, rows);
  AddDensityRows(base, "gen", *info, samples, rows);
  // How the prompts were made, as the cell recorded it (absent from stores before it was).
  if (info->contains("template_sha256")) {
    json chat_template = {{"sha256", info->value("template_sha256", "")},
                          {"origin", info->value("template_origin", json())},
                          {"options", info->value("template_options", json::object())},
                          {"enable_thinking", info->value("enable_thinking", json())}};
    for (size_t i = first; i < rows->size(); ++i) (*rows)[i].chat_template = chat_template;
  }
}

// KL divergence, position by position: full-vocabulary samples carry each position's KL and the
// two models' facts ("kl", "ref_logprob", ...); top-k samples (mode topk, and every store before
// it) are reduced against the reference cell's stored top-k distribution, a lower bound.
void AddKldRows(const ResultRow& base, const std::vector<store::SampleRecord>& samples,
                const std::map<int64_t, const CellSamples*>& by_id, std::vector<ResultRow>* rows) {
  std::vector<quality::KldPosition> positions;
  std::vector<double> chunk_means;
  int64_t ref_cell = 0;
  int64_t top_k = 0;
  bool full = false;
  std::string corpus_sha, reference;
  for (const auto& s : samples) {
    if (s.test != "kld") continue;
    const json request = s.raw.value("request", json::object());
    std::vector<quality::KldPosition> chunk;
    if (s.raw.contains("kl")) {
      full = true;
      reference = request.value("reference", "");
      corpus_sha = request.value("corpus_sha256", "");
      const json &kl = s.raw.at("kl"), &rl = s.raw.at("ref_logprob"), &tl = s.raw.at("logprob"),
                 &ra = s.raw.at("ref_argmax"), &ta = s.raw.at("argmax");
      const size_t n = std::min({kl.size(), rl.size(), tl.size(), ra.size(), ta.size()});
      for (size_t j = 0; j < n; ++j) {
        quality::KldPosition p;
        p.kl.kl = kl[j].get<double>();
        p.same_top1 = ra[j] == ta[j];
        p.ref_correct_lp = rl[j].get<double>();
        p.test_correct_lp = tl[j].get<double>();
        chunk.push_back(p);
      }
    } else {
      ref_cell = request.value("ref_cell_id", int64_t{0});
      auto it = by_id.find(ref_cell);
      if (it == by_id.end()) continue;
      const store::SampleRecord* ref = nullptr;
      for (const auto& r : it->second->samples) {
        if (r.test == "kld_ref" && r.rep == s.rep) ref = &r;
      }
      if (!ref) continue;
      const json ref_request = ref->raw.value("request", json::object());
      corpus_sha = ref_request.value("corpus_sha256", "");
      top_k = ref_request.value("top_k", int64_t{0});
      const json& top = ref->raw["top_logprobs"];
      const json& ids_lp = s.raw["ids_logprob"];
      const json& ref_tail = ref->raw.value("top_tail_logprob", json::array());
      const json& test_tail = s.raw.value("ids_tail_logprob", json::array());
      const size_t n =
          std::min({top.size(), ids_lp.size(), s.raw["logprob"].size(), s.raw["argmax"].size(),
                    ref->raw["argmax"].size(), ref->raw["logprob"].size()});
      const bool exact_tails = ref_tail.size() >= n && test_tail.size() >= n;
      for (size_t j = 0; j < n; ++j) {
        const auto rl = top[j].get<std::vector<double>>();
        const auto tl = ids_lp[j].get<std::vector<double>>();
        quality::KldPosition p;
        p.kl = exact_tails ? quality::CoarseKlDivergence(rl, tl, ref_tail[j].get<double>(),
                                                         test_tail[j].get<double>())
                           : quality::CoarseKlDivergence(rl, tl);
        p.same_top1 = s.raw["argmax"][j] == ref->raw["argmax"][j];
        p.ref_correct_lp = ref->raw["logprob"][j].get<double>();
        p.test_correct_lp = s.raw["logprob"][j].get<double>();
        chunk.push_back(p);
      }
    }
    chunk_means.push_back(quality::SummarizeKld(chunk).mean);
    positions.insert(positions.end(), chunk.begin(), chunk.end());
  }
  if (positions.empty()) return;
  const quality::KldSummary k = quality::SummarizeKld(positions);
  auto add = [&](const std::string& metric, const std::string& unit, double v) {
    ResultRow r = base;
    r.test = "kld";
    r.metric = metric;
    r.unit = unit;
    r.value = v;
    r.dataset_sha256 = corpus_sha;
    // Which KL this is, in every report: the top-k figures are a lower bound of the full one.
    r.subset =
        full ? fmt::format("full vocabulary; reference {}", reference)
             : fmt::format(
                   "lower bound: top-{} + tail, mean reference tail mass {:.4f}; "
                   "reference cell {}",
                   top_k > 0 ? std::to_string(top_k) : std::string("k"), k.ref_tail_mean, ref_cell);
    if (metric == "kld_mean") {
      r.samples = chunk_means;
      r.summary = stats::Summarize(chunk_means);
    } else {
      r.samples = {v};
      r.summary = stats::Summarize(r.samples);
    }
    r.summary.n = size_t(k.n);
    r.summary.noisy = false;
    rows->push_back(std::move(r));
  };
  add("kld_mean", "nats", k.mean);
  add("kld_median", "nats", k.median);
  add("kld_p99", "nats", k.p99);
  add("kld_max", "nats", k.max);
  add("top1_agree", "fraction", k.top1_agree);
  add("rms_dp", "probability", k.rms_dp);
  add("ppl_ratio", "ratio", k.ppl_ratio);
  if (!full) add("ref_tail_mass", "probability", k.ref_tail_mean);
}

// Conversion consistency: this cell's greedy gen outputs against the reference cell's, token by
// token: the share of identical outputs, and where the differing ones first differ.
void AddDivergenceRows(const ResultRow& base, const std::vector<store::SampleRecord>& samples,
                       const std::map<int64_t, const CellSamples*>& by_id,
                       std::vector<ResultRow>* rows) {
  int64_t ref_id = 0;
  for (const auto& s : samples) {
    if (s.test == "gen_dataset") ref_id = s.raw.value("divergence_reference_cell_id", int64_t{0});
  }
  auto it = by_id.find(ref_id);
  if (ref_id == 0 || it == by_id.end()) return;
  if (it->second->cell.status != "ok" && it->second->cell.id != base.cell_id) return;
  std::map<int, const json*> ref_tokens;
  for (const auto& s : it->second->samples) {
    if (s.test == "gen") ref_tokens[s.rep] = &s.raw["tokens"];
  }
  std::vector<double> identical, first_diff;
  for (const auto& s : samples) {
    if (s.test != "gen") continue;
    auto r = ref_tokens.find(s.rep);
    if (r == ref_tokens.end()) continue;
    const json& a = s.raw["tokens"];
    const json& b = *r->second;
    size_t i = 0;
    while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
    const bool same = i == a.size() && i == b.size();
    identical.push_back(same ? 1.0 : 0.0);
    if (!same) first_diff.push_back(double(i));
  }
  if (identical.empty()) return;
  ResultRow r = base;
  r.test = "divergence";
  r.subset = fmt::format("reference cell {}", ref_id);
  ResultRow share = r;
  share.metric = "identical";
  share.unit = "fraction";
  int64_t k = 0;
  for (double v : identical) k += v > 0;
  share.value = double(k) / double(identical.size());
  const stats::Interval ci = stats::Wilson(k, int64_t(identical.size()));
  share.ci_low = ci.low;
  share.ci_high = ci.high;
  share.samples = identical;
  share.summary.n = identical.size();
  share.summary.median = share.summary.mean = share.summary.min = share.summary.max = share.value;
  rows->push_back(std::move(share));
  ResultRow diff = r;
  diff.metric = "first_diff_index";
  diff.unit = "tokens";
  diff.samples = first_diff;  // one per differing output
  diff.summary = stats::Summarize(first_diff);
  diff.summary.noisy = false;
  if (first_diff.empty()) {
    diff.na_reason = "every output is identical to the reference's";
  } else {
    diff.value = diff.summary.median;
  }
  rows->push_back(std::move(diff));
}

// ppl over every scored token of the corpus; the per-chunk figures become the samples.
void AddPplRows(const ResultRow& base, const std::vector<store::SampleRecord>& samples,
                std::vector<ResultRow>* rows) {
  const json* corpus = nullptr;
  std::vector<double> all, per_chunk;
  for (const auto& s : samples) {
    if (s.test == "ppl_corpus") corpus = &s.raw;
    if (s.test != "ppl") continue;
    const auto lp = s.raw.value("logprob", std::vector<double>{});
    all.insert(all.end(), lp.begin(), lp.end());
    per_chunk.push_back(quality::PplFromLogprobs(lp).ppl);
  }
  if (!corpus) return;
  ResultRow r = base;
  r.test = "ppl";
  r.dataset = corpus->value("path", "");
  r.dataset_sha256 = corpus->value("sha256", "");
  if (!all.empty()) {
    const quality::PplFigure f = quality::PplFromLogprobs(all);
    ResultRow p = r;
    p.metric = "ppl";
    p.samples = per_chunk;
    p.summary = stats::Summarize(per_chunk);
    p.value = f.ppl;
    p.std_error = f.std_error;
    p.summary.noisy = false;  // chunks differ in content: their spread is not measurement noise
    rows->push_back(std::move(p));
  }
  ResultRow t = r;
  t.metric = "tok_per_kchar";
  t.unit = "tokens/kchar";
  t.value = quality::TokensPerKchar(corpus->value("n_tokens", int64_t{0}),
                                    corpus->value("n_chars", int64_t{0}));
  t.samples = {t.value};
  t.summary = stats::Summarize(t.samples);
  rows->push_back(std::move(t));
}

}  // namespace

std::vector<ResultRow> DeriveRows(const store::RunRecord& run, const store::EnvironmentRecord& env,
                                  const std::vector<CellSamples>& cells) {
  std::map<int64_t, const store::SampleRecord*> loads;  // cell id -> its load sample
  for (const CellSamples& c : cells) {
    for (const auto& s : c.samples) {
      if (s.test == "load") loads[c.cell.id] = &s;
    }
  }
  std::map<int64_t, const CellSamples*> by_id;
  for (const CellSamples& c : cells) by_id[c.cell.id] = &c;
  std::vector<ResultRow> rows;
  for (const CellSamples& c : cells) {
    // A cell measured again by a resume: its samples stay (a reference may point at them) but
    // count in no figure.
    if (c.cell.status == "superseded") continue;
    RowBuilder b;
    const store::SampleRecord* context = nullptr;
    for (const auto& s : c.samples) {
      if (s.test == "context") context = &s;
      if (!s.warmup && s.test != "load") AddSample(b, s);
    }
    if (c.cell.load_cell_id) {
      if (auto it = loads.find(*c.cell.load_cell_id); it != loads.end()) {
        AddLoad(b, *it->second, context);
      }
    }
    if (c.cell.model_file_size > 0) {
      b.Add("model", "file_size", "bytes", double(c.cell.model_file_size));
    }
    ResultRow base;
    base.run_id = run.id;
    base.cell_id = c.cell.id;
    base.cell_index = c.cell.index;
    base.cell_status = c.cell.status;
    base.model = c.cell.model_name;
    base.model_sha256 = c.cell.model_sha256;
    base.model_file_size = c.cell.model_file_size;
    const json& file = c.cell.model_info.value("file", json::object());
    const json& rt = c.cell.model_info.value("runtime", json::object());
    base.n_params = file.value("n_params", rt.value("n_params", int64_t{0}));
    base.quant = file.value("quant", std::string("?"));
    base.base_model = c.cell.model_name;
    if (auto p = c.cell.model_info.find("provenance");
        p != c.cell.model_info.end() && p->is_object()) {
      base.provenance = *p;
      base.quant = p->value("label", base.quant);
      base.quant_origin = quant::OriginNote(*p);
      base.base_model = p->value("base", json::object()).value("name", base.base_model);
    }
    // Files of one model in different quantizations share the name in their metadata: that
    // groups them (report --vary quant), while base_model stays Pipette's name for the model.
    base.family = file.value("general_name", base.base_model);
    base.runtime = c.cell.runtime;
    base.runtime_version = c.cell.runtime_version;
    base.runtime_build = c.cell.runtime_build;
    base.device = env.facts.value("cpu_model", std::string("local"));
    base.device_id = env.fingerprint_id;
    base.params = c.cell.params;
    base.params_set =
        context && context->raw.contains("params_set") ? context->raw["params_set"] : c.cell.params;
    for (const auto& e : b.entries()) {
      ResultRow r = base;
      r.test = e.test;
      r.metric = e.metric;
      r.unit = e.unit;
      r.samples = e.values;
      r.summary = stats::Summarize(e.values);
      r.value = r.summary.median;
      rows.push_back(std::move(r));
    }
    // Stored data of an unexpected shape (an older writer, a hand edit) must not take the whole
    // report down: the cell's quality figures become n/a with the reason.
    try {
      std::vector<ResultRow> quality;
      AddPplRows(base, c.samples, &quality);
      AddMcRows(base, c.samples, &quality);
      AddGenRows(base, c.samples, &quality);
      AddKldRows(base, c.samples, by_id, &quality);
      AddDivergenceRows(base, c.samples, by_id, &quality);
      rows.insert(rows.end(), quality.begin(), quality.end());
    } catch (const json::exception& e) {
      ResultRow r = base;
      r.test = "quality";
      r.metric = "all";
      r.na_reason = std::string("stored quality data could not be read: ") + e.what();
      rows.push_back(std::move(r));
    }
    for (const auto& s : c.samples) {
      if (s.test == "memory" && !s.raw.value("reset", json::object()).value("supported", false)) {
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

}  // namespace pipette::metrics
