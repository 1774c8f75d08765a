// e2e@<P>+<N> (docs/metrics.md "e2e@P+N"): one request from a fresh context, a P-token prompt of
// random ids then N generated tokens, timed as a whole; the time to its first token and its
// decode rate.
#include <fmt/format.h>

#include "pipette/protocol/speed_ops.h"
#include "pipette/util/json_read.h"
#include "pipette/util/seconds.h"
#include "pipette/workload/speed/grammar.h"
#include "pipette/workload/speed/kinds/kinds.h"
#include "pipette/workload/speed/measures.h"
#include "pipette/workload/speed/random_tokens.h"

namespace pipette::workload::speed {
namespace {

using nlohmann::json;

std::optional<Result<config::TestSpec>> ParseE2e(std::string_view text) {
  using R = Result<config::TestSpec>;
  if (!text.starts_with("e2e@")) return std::nullopt;
  // e2e@P+N: a P-token prompt and N generated tokens, timed as one request.
  const std::string_view rest = text.substr(4);
  const size_t plus = rest.find('+');
  if (plus == std::string_view::npos) {
    return R(InputError(fmt::format(
        "test '{}' needs a prompt and a generation, e2e@<P>+<N>, e.g. e2e@128+64", text)));
  }
  auto p = TestTokens(text, rest.substr(0, plus), "the prompt (P)");
  if (!p) return R(p.error());
  auto n = TestTokens(text, rest.substr(plus + 1), "the generation (N)");
  if (!n) return R(n.error());
  if (int64_t(*p) + *n > kMaxTestTokens) {
    return R(InputError(fmt::format("test '{}' asks for {} tokens: a test takes at most {} (2^24)",
                                    text, int64_t(*p) + *n, kMaxTestTokens)));
  }
  config::TestSpec t;
  t.kind = "e2e";
  t.prompt = *p;
  t.n = *n;
  t.name = fmt::format("e2e@{}+{}", *p, *n);
  return R(std::move(t));
}

Result<Request, RunError> E2eRequest(const RequestInput& in) {
  const config::TestSpec& t = in.test;
  // A fresh context whatever the cell's depth: a P-token prompt of random ids, the same for
  // every cell of the experiment.
  protocol::E2eRequest e;
  e.prompt =
      Ids(RandomTokens(in.ex.seed, fmt::format("e2e-prompt{}", t.prompt), t.prompt, in.n_vocab));
  e.n_gen = t.n;
  e.n_batch = in.n_batch;
  Request r{e.ToJson(), {{"n_prompt", t.prompt}, {"n_gen", t.n}, {"seed", in.ex.seed}}};
  if (in.n_batch) r.facts["n_batch"] = *in.n_batch;
  return r;
}

// One request: the prompt, then every generated token.
void E2eDerive(const DeriveInput& in, SpeedRows& out) {
  const store::SampleRecord& s = in.sample;
  auto t0 = json_read::Int(s.raw, "t_start_ns");
  const std::vector<int64_t> ends = json_read::Ints(json_read::Member(s.raw, "token_end_ns"));
  if (t0 && !ends.empty() && ends.front() >= *t0) {
    const int64_t first = ends.front(), last = ends.back();
    out.rows.Add(s.test, "e2e", "ms", double(last - *t0) / 1e6);
    out.rows.Add(s.test, "first_token", "ms", double(first - *t0) / 1e6);
    if (ends.size() >= 2 && last > first) {
      out.rows.Add(s.test, "decode_throughput", "t/s",
                   double(ends.size() - 1) / SecondsBetween(first, last));
    }
  }
  AddEnergy(s, TgTokensPerSecond(s.raw), out);
}

std::vector<metrics::FigureDef> E2eFigures() {
  using metrics::FigureKind, metrics::Better;
  return metrics::FigureList()
      .Add("e2e@<P>+<N>", {"e2e"}, "ms", FigureKind::kSpeed, Better::kLower)
      .Headline()
      .Add("e2e@<P>+<N>", {"first_token"}, "ms", FigureKind::kSpeed, Better::kLower)
      .Add("e2e@<P>+<N>", {"decode_throughput"}, "t/s", FigureKind::kSpeed, Better::kHigher)
      .Take();
}

}  // namespace

TestKind E2eKind() {
  TestKind k;
  k.name = "e2e";
  k.form = "e2e@<P>+<N>";
  k.example = "e2e@128+64";
  k.parse = ParseE2e;
  k.ops = {protocol::op::kE2e};
  // A fresh context (the depth does not apply): the prompt and the tokens decoded after it.
  k.context_need = [](const config::TestSpec& t, int64_t) { return int64_t(t.prompt) + t.n; };
  // Counted as its prompt and generated tokens together.
  k.units = [](const config::TestSpec& t) { return double(t.n + t.prompt); };
  k.request = E2eRequest;
  k.check = [](const json& reply) { return Checked(protocol::E2eResponse::FromJson(reply)); };
  k.seconds = DecodeSeconds;
  k.derive = E2eDerive;
  k.figures = E2eFigures;
  return k;
}

}  // namespace pipette::workload::speed
