#include "pipette/workload/speed/speed.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "pipette/config/parse.h"
#include "pipette/protocol/speed_ops.h"
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
  }
  return "?";
}

protocol::TokenIds Ids(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

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

  void PlanWork(const config::Experiment& ex, const plan::Cell& cell,
                std::vector<estimate::Work>* out) const override {
    const double requests = ex.warmup + ex.repetitions;
    for (const TestSpec& t : ex.tests) {
      out->push_back({cell.Key(), t.name, KindName(t.kind), requests, double(t.n)});
    }
  }

  // pp: the whole request; tg: from its start to its last token; ttft: to its first token. Per
  // token the test names.
  std::optional<estimate::Measured> Timed(const store::SampleRecord& s) const override {
    auto t = config::ParseTestName(s.test);
    if (!t || t->n <= 0 || !s.raw.is_object()) return std::nullopt;
    std::optional<double> secs;
    const auto t0 = s.raw.find("t_start_ns");
    if (t0 == s.raw.end() || !t0->is_number()) return std::nullopt;
    const int64_t start = t0->get<int64_t>();
    if (t->kind == TestKind::kPP) {
      secs = SpanSeconds(s.raw);
    } else if (t->kind == TestKind::kTG) {
      const auto ends = s.raw.find("token_end_ns");
      if (ends != s.raw.end() && ends->is_array() && !ends->empty() && ends->back().is_number() &&
          ends->back().get<int64_t>() > start) {
        secs = SecondsBetween(start, ends->back().get<int64_t>());
      }
    } else {
      const auto first = s.raw.find("t_first_token_ns");
      if (first != s.raw.end() && first->is_number() && first->get<int64_t>() >= start) {
        secs = SecondsBetween(start, first->get<int64_t>());
      }
    }
    if (!secs) return std::nullopt;
    return estimate::Measured{KindName(t->kind), double(t->n), *secs};
  }

  RunStatus Run(Context& ctx, size_t phase) override {
    const config::Experiment& ex = ctx.Experiment();
    const TestSpec& t = ex.tests.at(phase);
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
    const int total = ex.warmup + ex.repetitions;
    for (int rep = 0; rep < total; ++rep) {
      if (ctx.Stopped()) return Failed("interrupted");
      const bool warmup = rep < ex.warmup;
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
      const bool metered = !warmup && t.kind != TestKind::kTTFT && depth == 0;
      std::optional<env::Sensors> mark;
      if (metered) mark = ctx.EnergyMark();
      const auto t0 = std::chrono::steady_clock::now();
      auto resp = ctx.Call(req);
      const double call_s = SecondsSince(t0);
      json energy = metered ? ctx.EnergySince(mark, call_s) : json(nullptr);
      if (!warmup && t.kind != TestKind::kTTFT && depth > 0) {
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
        if (auto st = ctx.Keep(t.name, rep, warmup, raw); !st) return st;
        ctx.Step(fmt::format("{} request {}/{} failed: {}", t.name, rep + 1, total,
                             raw["request_failed"].value("message", "")));
        continue;
      }
      // A reply missing a field or mistyping one broke the protocol: nothing of it is stored.
      if (auto st = CheckResponse(t.kind, *resp); !st) return Broken(st.error().message);
      ctx.Done(KindName(t.kind), double(t.n), call_s);
      json raw = RawFacts(std::move(*resp));
      raw["request"] = req_facts;
      if (!ready.is_null()) raw["ready"] = ready;
      if (!energy.is_null()) raw["energy"] = std::move(energy);
      if (auto st = ctx.Keep(t.name, rep, warmup, raw); !st) return st;
      ctx.Step(fmt::format("{} {} {}/{}", t.name, warmup ? "warm-up" : "rep",
                           warmup ? rep + 1 : rep - ex.warmup + 1,
                           warmup ? ex.warmup : ex.repetitions));
    }
    return {};
  }

 private:
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
    }
  }
  return need;
}

std::unique_ptr<Workload> NewSpeed() { return std::make_unique<Speed>(); }

}  // namespace pipette::workload
