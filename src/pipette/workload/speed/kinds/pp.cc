// pp<N> (docs/metrics.md "pp"): N random token ids processed as one prompt, at the cell's depth
// after the depth's untimed tokens; its rate in tokens per second.
#include <fmt/format.h>

#include "pipette/protocol/speed_ops.h"
#include "pipette/workload/speed/grammar.h"
#include "pipette/workload/speed/kinds/kinds.h"
#include "pipette/workload/speed/measures.h"
#include "pipette/workload/speed/random_tokens.h"
#include "pipette/workload/timing.h"

namespace pipette::workload::speed {
namespace {

using nlohmann::json;

Result<Request, RunError> PpRequest(const RequestInput& in) {
  const config::TestSpec& t = in.test;
  // At a depth: the same untimed context tg decodes first, then the N timed tokens.
  protocol::PpRequest pp;
  pp.prefix = Ids(RandomTokens(in.ex.seed, fmt::format("depth{}", in.depth), in.depth, in.n_vocab));
  pp.tokens = Ids(RandomTokens(in.ex.seed, t.name, t.n, in.n_vocab));
  pp.n_batch = in.n_batch;
  Request r{pp.ToJson(), {{"n_tokens", t.n}, {"depth", in.depth}, {"seed", in.ex.seed}}};
  if (in.n_batch) r.facts["n_batch"] = *in.n_batch;
  return r;
}

void PpDerive(const DeriveInput& in, SpeedRows& out) {
  const store::SampleRecord& s = in.sample;
  const std::optional<double> tps = PpTokensPerSecond(s.raw);
  if (tps) out.rows.Add(s.test, "throughput", "t/s", *tps);
  AddEnergy(s, tps, out);
}

std::vector<metrics::FigureDef> PpFigures() {
  using metrics::FigureKind, metrics::Better;
  constexpr auto kEff = metrics::ScoreGroup::kEfficiency;
  return metrics::FigureList()
      .Add("pp<N>", {"throughput"}, "t/s", FigureKind::kSpeed, Better::kHigher)
      .Headline()
      .Score(kEff, "<test>", Better::kHigher)
      .Shows(metrics::Shown::kRate)
      .Add("pp<N>", {"energy_per_token"}, "J/token", FigureKind::kEnergy, Better::kLower)
      .Score(kEff, "<test>.energy", Better::kLower)
      .Add("pp<N>", {"power"}, "W", FigureKind::kEnergy, Better::kNotJudged)
      .Take();
}

}  // namespace

TestKind PpKind() {
  TestKind k;
  k.name = "pp";
  k.form = "pp<N>";
  k.example = "pp512";
  k.parse = [](std::string_view text) { return TokensAfter(text, "pp", "pp", "pp"); };
  k.ops = {protocol::op::kPp};
  k.metered = true;
  k.context_need = [](const config::TestSpec& t, int64_t depth) { return depth + t.n; };
  k.units = [](const config::TestSpec& t) { return double(t.n); };
  k.request = PpRequest;
  k.check = [](const json& reply) { return Checked(protocol::PpResponse::FromJson(reply)); };
  k.seconds = SpanSeconds;
  k.derive = PpDerive;
  k.figures = PpFigures;
  return k;
}

}  // namespace pipette::workload::speed
