#include "pipette/workload/speed/speed.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include "pipette/config/parse.h"
#include "pipette/env/cgroup_tier.h"
#include "pipette/env/sensors.h"
#include "pipette/protocol/speed_ops.h"
#include "pipette/util/json_read.h"
#include "pipette/workload/speed/prompt_text.h"
#include "pipette/workload/speed/random_tokens.h"
#include "pipette/workload/timing.h"

namespace pipette::workload {
namespace {

using config::TestKind;
using config::TestSpec;
using nlohmann::json;

std::string KindName(TestKind k) {
  switch (k) {
    case TestKind::kPP:
      return "pp";
    case TestKind::kTG:
      return "tg";
    case TestKind::kTTFT:
      return "ttft";
    case TestKind::kE2E:
      return "e2e";
    case TestKind::kSustained:
      return "sustained";
  }
  return "?";
}

// `resp` reads as the typed response of the test's op; the stored sample keeps the reply as it
// came (fields a newer worker adds included).
Status CheckResponse(TestKind k, const json& resp) {
  auto check = [](const auto& typed) -> Status {
    if (!typed) return typed.error();
    return {};
  };
  switch (k) {
    case TestKind::kPP:
      return check(protocol::PpResponse::FromJson(resp));
    case TestKind::kTG:
      return check(protocol::TgResponse::FromJson(resp));
    case TestKind::kTTFT:
      return check(protocol::TtftResponse::FromJson(resp));
    case TestKind::kE2E:
      return check(protocol::E2eResponse::FromJson(resp));
    case TestKind::kSustained:
      return check(protocol::TgResponse::FromJson(resp));
  }
  return {};
}

const char* KindOp(TestKind k) {
  switch (k) {
    case TestKind::kPP:
      return protocol::op::kPp;
    case TestKind::kTG:
      return protocol::op::kTg;
    case TestKind::kTTFT:
      return protocol::op::kTtft;
    case TestKind::kE2E:
      return protocol::op::kE2e;
    case TestKind::kSustained:
      return protocol::op::kTg;
  }
  return "?";
}

protocol::TokenIds Ids(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

// sustained<T>: at most this many tokens in each tg request (each from a cleared context), and
// about this many seconds of them.
constexpr int64_t kSustainedChunk = 64;
constexpr double kSustainedChunkS = 2.0;

class Speed : public Workload {
 public:
  std::string Name() const override { return "speed"; }

  std::vector<Phase> Phases(const config::Experiment& ex) const override {
    std::vector<Phase> out;
    for (const TestSpec& t : ex.tests) {
      std::vector<std::string> ops = {KindOp(t.kind)};
      if (t.kind == TestKind::kTTFT) ops.push_back(protocol::op::kTokenize);
      out.push_back({t.name, ops});
    }
    return out;
  }

  int64_t ContextNeed(const config::Experiment& ex, int64_t depth) const override {
    return TokensNeeded(ex.tests, depth);
  }

  std::string ContextNeedWhat(const config::Experiment& ex, int64_t depth) const override {
    int64_t most = 0;
    std::string name;
    for (const config::TestSpec& t : ex.tests) {
      const int64_t n = TokensNeeded({t}, depth);
      if (n > most) {
        most = n;
        name = t.name;
      }
    }
    return name.empty() ? "" : "the test " + name;
  }

  void PlanWork(const config::Experiment& ex, const plan::Cell& cell,
                std::vector<estimate::Work>* out) const override {
    // Interleaved, every visit (one per repetition) warms up again.
    const double requests = ex.warmup * (ex.interleave ? ex.repetitions : 1) + ex.repetitions;
    for (const TestSpec& t : ex.tests) {
      if (t.kind == TestKind::kSustained) {  // one run of T seconds, whatever the repetitions
        out->push_back({cell.Key(), t.name, KindName(t.kind), 1, double(t.n)});
        continue;
      }
      // e2e: counted as its prompt and generated tokens together.
      out->push_back({cell.Key(), t.name, KindName(t.kind), requests, double(t.n + t.prompt)});
    }
  }

  // pp: the whole request; tg: from its start to its last token; ttft: to its first token. Per
  // token the test names.
  std::optional<estimate::Measured> Timed(const store::SampleRecord& s) const override {
    auto t = config::ParseTestName(s.test);
    if (!t || t->n <= 0 || !s.raw.is_object()) return std::nullopt;
    if (t->kind == TestKind::kSustained) {
      const auto secs = s.raw.find("wall_s");
      if (secs == s.raw.end() || !secs->is_number()) return std::nullopt;
      return estimate::Measured{KindName(t->kind), double(t->n), secs->get<double>()};
    }
    std::optional<double> secs;
    const std::optional<int64_t> t0 = json_read::Int(s.raw, "t_start_ns");
    if (!t0) return std::nullopt;
    const int64_t start = *t0;
    if (t->kind == TestKind::kPP) {
      secs = SpanSeconds(s.raw);
    } else if (t->kind == TestKind::kTG || t->kind == TestKind::kE2E) {
      const json& ends = json_read::Ref(s.raw, "token_end_ns");
      const std::optional<int64_t> last =
          ends.is_array() && !ends.empty() ? json_read::AsInt(ends.back()) : std::nullopt;
      if (last && *last > start) secs = SecondsBetween(start, *last);
    } else {
      const std::optional<int64_t> first = json_read::Int(s.raw, "t_first_token_ns");
      if (first && *first >= start) secs = SecondsBetween(start, *first);
    }
    if (!secs) return std::nullopt;
    return estimate::Measured{KindName(t->kind), double(t->n + t->prompt), *secs};
  }

  bool Interleaves() const override { return true; }

  RunStatus Run(Context& ctx, size_t phase) override {
    const config::Experiment& ex = ctx.Experiment();
    const TestSpec& t = ex.tests.at(phase);
    // Interleaved: this visit's one measured repetition (its warm-ups first); a sustained run is
    // one stretch of T seconds, made at the first visit.
    const Visit visit = ctx.CurrentVisit();
    const bool interleaved = visit.count > 1;
    if (t.kind == TestKind::kSustained) {
      return interleaved && visit.index > 0 ? RunStatus() : RunSustained(ctx, t);
    }
    const std::optional<int64_t> n_batch = ctx.NBatch();
    const std::optional<int64_t> vocab = ctx.Model().n_vocab;
    if (t.kind != TestKind::kTTFT && !vocab) {
      return Failed(
          fmt::format("{} draws random token ids from the model's vocabulary, and the "
                      "runtime did not report its size (load_model: model.n_vocab)",
                      t.name));
    }
    const int64_t n_vocab = vocab.value_or(0);
    const int64_t depth = ctx.Cell().IntParam("depth");
    json req;
    json req_facts;  // what the stored sample says was asked (token arrays left out)
    switch (t.kind) {
      case TestKind::kPP: {
        // At a depth: the same untimed context tg decodes first, then the N timed tokens.
        protocol::PpRequest pp;
        pp.prefix = Ids(RandomTokens(ex.seed, fmt::format("depth{}", depth), depth, n_vocab));
        pp.tokens = Ids(RandomTokens(ex.seed, t.name, t.n, n_vocab));
        pp.n_batch = n_batch;
        req = pp.ToJson();
        req_facts = {{"n_tokens", t.n}, {"depth", depth}, {"seed", ex.seed}};
        break;
      }
      case TestKind::kTG: {
        const int64_t bos = ctx.Model().bos;
        const int64_t first =
            bos >= 0 && bos < n_vocab ? bos : RandomTokens(ex.seed, "first", 1, n_vocab)[0];
        req =
            protocol::TgRequest{
                Ids(RandomTokens(ex.seed, fmt::format("depth{}", depth), depth, n_vocab)),
                static_cast<int32_t>(first), t.n, n_batch}
                .ToJson();
        req_facts = {{"n_gen", t.n}, {"depth", depth}, {"first_token", first}, {"seed", ex.seed}};
        break;
      }
      case TestKind::kSustained:
        return RunSustained(ctx, t);  // (returned above)
      case TestKind::kE2E: {
        // A fresh context whatever the cell's depth: a P-token prompt of random ids, the same
        // for every cell of the experiment.
        protocol::E2eRequest e;
        e.prompt =
            Ids(RandomTokens(ex.seed, fmt::format("e2e-prompt{}", t.prompt), t.prompt, n_vocab));
        e.n_gen = t.n;
        e.n_batch = n_batch;
        req = e.ToJson();
        req_facts = {{"n_prompt", t.prompt}, {"n_gen", t.n}, {"seed", ex.seed}};
        break;
      }
      case TestKind::kTTFT: {
        auto prompt = PromptOfTokens(ctx, t.n);
        if (!prompt) return prompt.error();
        const std::string& text = prompt->first;
        protocol::TtftRequest r;
        r.text = text;
        r.n_batch = n_batch;
        r.add_special = true;
        req = r.ToJson();
        req_facts = {{"n_prompt_tokens_target", t.n}, {"text_chars", text.size()}};
        break;
      }
    }
    if (n_batch && t.kind != TestKind::kTG) req_facts["n_batch"] = *n_batch;
    const int measured = interleaved ? 1 : ex.repetitions;
    const int total = ex.warmup + measured;
    // The measured requests of this test in this cell (across the visits when interleaved): how
    // many failed, and why.
    Tally& tally = tallies_[{ctx.Record().id, t.name}];
    if (!interleaved || visit.index == 0) tally = Tally{};
    for (int i = 0; i < total; ++i) {
      if (ctx.Stopped()) return Failed("interrupted");
      const bool warmup = i < ex.warmup;
      // The sample's repetition number: the warm-ups first, then the measured ones, numbered
      // across the visits when interleaved.
      const int rep = warmup || !interleaved ? i : ex.warmup + visit.index;
      // A measured repetition waits until the device is ready (the experiment's `ready:`).
      json ready = nullptr;
      if (!warmup) {
        auto found = ctx.Ready();
        if (!found) return found.error();
        ready = std::move(*found);
      }
      // Measured pp and tg repetitions: the energy they cost, where the device can tell (the
      // seconds from the first reading to the request's end; the runner adds the second
      // reading's). At a depth the same request decodes the depth's tokens first.
      const bool metered =
          !warmup && (t.kind == TestKind::kPP || t.kind == TestKind::kTG) && depth == 0;
      std::optional<env::Sensors> mark;
      if (metered) mark = ctx.EnergyMark();
      const auto t0 = std::chrono::steady_clock::now();
      auto resp = ctx.Call(req);
      const double call_s = SecondsSince(t0);
      json energy = metered ? ctx.EnergySince(mark, call_s) : json(nullptr);
      if (!warmup && (t.kind == TestKind::kPP || t.kind == TestKind::kTG) && depth > 0) {
        energy = {{"na", fmt::format("the request also decoded the depth's {} untimed tokens: its "
                                     "energy is not the measured tokens'",
                                     depth)}};
      }
      if (!resp) return resp.error();
      if (resp->contains("request_failed")) {
        // An endpoint's request that stalled past the timeout or was cut short: a result in
        // itself (stored, counted as failed), and the test goes on with the next request.
        json raw = RawFacts(std::move(*resp));
        raw["request"] = req_facts;
        if (!ready.is_null()) raw["ready"] = ready;
        if (interleaved) raw["visit"] = visit.index;
        if (auto st = ctx.Keep(t.name, rep, warmup, raw); !st) return st;
        const json& failure = raw["request_failed"];
        const std::string why = failure.is_object() && failure.value("message", json()).is_string()
                                    ? failure["message"].get<std::string>()
                                    : std::string("no reason given");
        if (!warmup) tally.Fail(why);
        ctx.Step(fmt::format("{} request {}/{} failed: {}", t.name, i + 1, total, why));
        continue;
      }
      // A reply missing a field or mistyping one broke the protocol: nothing of it is stored.
      if (auto st = CheckResponse(t.kind, *resp); !st) return Broken(st.error().message);
      if (!warmup) ++tally.ok;
      ctx.Done(KindName(t.kind), double(t.n + t.prompt), call_s);
      json raw = RawFacts(std::move(*resp));
      raw["request"] = req_facts;
      if (!ready.is_null()) raw["ready"] = ready;
      if (!energy.is_null()) raw["energy"] = std::move(energy);
      if (interleaved) raw["visit"] = visit.index;
      if (auto st = ctx.Keep(t.name, rep, warmup, raw); !st) return st;
      ctx.Step(fmt::format("{} {} {}/{}", t.name, warmup ? "warm-up" : "rep",
                           warmup ? i + 1 : rep - ex.warmup + 1,
                           warmup ? ex.warmup : ex.repetitions));
    }
    // Every measured request failed (every stream of each: a stall, a cut, junk, too few
    // tokens): the test measured nothing, and the cell fails saying why, its failed requests
    // kept. Interleaved, that is known at the last visit (when this run made every visit).
    const int expected = interleaved ? visit.count : ex.repetitions;
    const bool last = !interleaved || visit.index == visit.count - 1;
    if (last && tally.ok == 0 && tally.failed == expected && expected > 0) {
      return Failed(fmt::format("{}: every measured request failed ({} of {}): {}", t.name,
                                tally.failed, expected, tally.Reasons()));
    }
    return {};
  }

 private:
  // sustained<T>: tg requests of kSustainedChunk tokens back to back until T seconds have passed,
  // the device's sensors read after each (its temperature, frequency and energy since the reading
  // before); stored as one sample. One warm-up chunk first when the experiment warms up.
  RunStatus RunSustained(Context& ctx, const TestSpec& t) {
    const config::Experiment& ex = ctx.Experiment();
    const std::optional<int64_t> vocab = ctx.Model().n_vocab;
    if (!vocab) {
      return Failed(
          fmt::format("{} generates from the model's first token, and the runtime did "
                      "not report its vocabulary (load_model: model.n_vocab)",
                      t.name));
    }
    const int64_t bos = ctx.Model().bos;
    const int64_t first =
        bos >= 0 && bos < *vocab ? bos : RandomTokens(ex.seed, "first", 1, *vocab)[0];
    // Chunks of about kSustainedChunkS each (from the chunk before's rate: a slow device's
    // windows get readings too, and the run ends within one chunk of T), at most
    // kSustainedChunk tokens.
    int64_t n_chunk = 16;
    auto request = [&] {
      return protocol::TgRequest{{}, static_cast<int32_t>(first), n_chunk, ctx.NBatch()}.ToJson();
    };
    auto next_size = [&](const json& resp) {
      const int64_t t0 = json_read::Int(resp, "t_start_ns").value_or(0);
      const json& ends = json_read::Ref(resp, "token_end_ns");
      const std::optional<int64_t> last =
          ends.is_array() && !ends.empty() ? json_read::AsInt(ends.back()) : std::nullopt;
      if (!last || *last <= t0) return;
      const double rate = double(ends.size()) / SecondsBetween(t0, *last);
      n_chunk = std::clamp<int64_t>(std::llround(rate * kSustainedChunkS), 4, kSustainedChunk);
    };
    if (ex.warmup > 0) {
      auto warm = ctx.Call(request());
      if (!warm) return warm.error();
      next_size(*warm);
    }
    auto found = ctx.Ready();
    if (!found) return found.error();
    std::string root;
    auto before = ctx.ReadSensors(&root);
    const std::string sensors_na = before ? "" : before.error().message;
    auto last_read = std::chrono::steady_clock::now();
    const std::optional<std::vector<int>> cpus = ctx.WorkerCpus();
    json chunks = json::array();
    const auto t0 = std::chrono::steady_clock::now();
    const auto until = t0 + std::chrono::seconds(t.n);
    while (std::chrono::steady_clock::now() < until) {
      if (ctx.Stopped()) return Failed("interrupted");
      auto resp = ctx.Call(request());
      if (!resp) return resp.error();
      if (resp->contains("request_failed")) {
        return Failed(fmt::format("{}: a request failed: {}", t.name,
                                  (*resp)["request_failed"].value("message", "")));
      }
      if (auto st = CheckResponse(TestKind::kTG, *resp); !st) return Broken(st.error().message);
      next_size(*resp);
      json chunk = {{"t_start_ns", (*resp)["t_start_ns"]},
                    {"token_end_ns", (*resp)["token_end_ns"]}};
      if (before) {
        auto now = ctx.ReadSensors(nullptr);
        const double span = SecondsSince(last_read);
        last_read = std::chrono::steady_clock::now();
        if (now) {
          chunk["sensors"] = SensorFacts(*before, *now, span, cpus);
          before = std::move(now);
        } else {
          chunk["sensors"] = {{"energy", {{"na", now.error().message}}}};
        }
      }
      chunks.push_back(std::move(chunk));
      ctx.Step(fmt::format("{}: {:.0f} of {} s", t.name, SecondsSince(t0), t.n));
    }
    const double wall_s = SecondsSince(t0);
    ctx.Done(KindName(t.kind), double(t.n), wall_s);
    json raw = {{"seconds", t.n},
                {"chunk_max", kSustainedChunk},
                {"wall_s", wall_s},
                {"first_token", first},
                {"chunks", std::move(chunks)}};
    if (!found->is_null()) raw["ready"] = *found;
    if (!sensors_na.empty()) raw["sensors_na"] = sensors_na;
    if (!root.empty()) raw["sensors_root"] = root;
    return ctx.Keep(t.name, 0, false, std::move(raw));
  }

  // What a reading after a chunk says: the hottest temperature, the mean frequency of the CPUs the
  // worker may run on (`cpus`; every CPU when the run does not know them or the device reports
  // none of them), which `freq_cpus` names, and the energy since the reading before
  // (env::EnergyFacts), each only where the device tells.
  static json SensorFacts(const env::Sensors& before, const env::Sensors& now, double seconds,
                          const std::optional<std::vector<int>>& cpus) {
    json out = json::object();
    if (auto t = env::HottestC(now)) out["temp_c"] = *t;
    std::vector<int> used;
    double sum = 0;
    auto take = [&](bool only_cpus) {
      for (const auto& [cpu, khz] : now.cpu_freq_khz) {
        if (only_cpus && !std::binary_search(cpus->begin(), cpus->end(), cpu)) continue;
        used.push_back(cpu);
        sum += double(khz);
      }
    };
    bool all = !cpus;
    take(!all);
    if (used.empty() && !all) {
      all = true;
      take(false);
    }
    if (!used.empty()) {
      out["freq_mhz"] = sum / double(used.size()) / 1000.0;
      all = all || used.size() == now.cpu_freq_khz.size();
      out["freq_cpus"] = all ? std::string("all") : env::FormatCpuList(used);
    }
    out["energy"] = env::EnergyFacts(before, now, seconds);
    return out;
  }

  // The shortest prefix of the prose passage that the model's tokenizer turns into at least
  // `n` tokens (special tokens included), found by bisection over word boundaries: the text
  // and its token count.
  Result<std::pair<std::string, int64_t>, RunError> PromptOfTokens(Context& ctx, int64_t n) {
    const std::string key = ctx.LoadKey() + "|" + std::to_string(n);
    if (auto it = prompts_.find(key); it != prompts_.end()) return it->second;
    const std::string prose = ProseText(static_cast<size_t>(n) * 8 + 64);
    std::vector<size_t> cuts;  // word ends
    for (size_t i = 1; i < prose.size(); ++i) {
      if (prose[i] == ' ') cuts.push_back(i);
    }
    auto count = [&](size_t cut) -> Result<int64_t, RunError> {
      auto tokens = Tokenize(ctx, prose.substr(0, cut));
      if (!tokens) return tokens.error();
      return static_cast<int64_t>(tokens->size());
    };
    size_t lo = 0, hi = cuts.size() - 1;
    auto c = count(cuts[hi]);
    if (!c) return c.error();
    if (*c < n) return Failed(fmt::format("could not build a {}-token prompt", n));
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      c = count(cuts[mid]);
      if (!c) return c.error();
      if (*c >= n) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    const std::string text = prose.substr(0, cuts[lo]);
    c = count(cuts[lo]);
    if (!c) return c.error();
    prompts_[key] = {text, *c};
    return prompts_[key];
  }

  std::map<std::string, std::pair<std::string, int64_t>> prompts_;  // by load key and length

  // A test's measured requests in one cell: those that gave a figure, those that failed, and the
  // first few distinct reasons.
  struct Tally {
    int ok = 0, failed = 0;
    std::vector<std::string> reasons;
    void Fail(const std::string& why) {
      ++failed;
      if (reasons.size() < 3 && std::find(reasons.begin(), reasons.end(), why) == reasons.end()) {
        reasons.push_back(why);
      }
    }
    std::string Reasons() const {
      std::string out;
      for (const std::string& r : reasons) out += (out.empty() ? "" : "; ") + r;
      return out;
    }
  };
  std::map<std::pair<int64_t, std::string>, Tally> tallies_;  // by cell id and test
};

}  // namespace

int64_t TokensNeeded(const std::vector<config::TestSpec>& tests, int64_t depth) {
  int64_t need = 0;
  for (const auto& t : tests) {
    switch (t.kind) {
      case config::TestKind::kPP:
        need = std::max<int64_t>(need, depth + t.n);
        break;
      case config::TestKind::kTG:
        need = std::max<int64_t>(need, depth + t.n + 1);
        break;
      case config::TestKind::kTTFT:
        // A text of P tokens can tokenize to a few more at a word boundary: keep a margin.
        need = std::max<int64_t>(need, t.n + 16);
        break;
      case config::TestKind::kE2E:
        // A fresh context (the depth does not apply): the prompt and the tokens decoded after it.
        need = std::max<int64_t>(need, int64_t(t.prompt) + t.n);
        break;
      case config::TestKind::kSustained:
        need = std::max<int64_t>(need, kSustainedChunk + 1);
        break;
    }
  }
  return need;
}

std::unique_ptr<Workload> NewSpeed() { return std::make_unique<Speed>(); }

}  // namespace pipette::workload
