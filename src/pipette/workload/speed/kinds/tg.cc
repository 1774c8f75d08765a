// tg<N> (docs/metrics.md "tg"): N tokens generated one at a time after the model's first token,
// at the cell's depth after the depth's untimed tokens; its rate, the time per token and the
// latencies between tokens, the runtime's own count, what a token reads of the memory (bytes per
// token, bandwidth use, the KV cache filled) and its energy. Against an endpoint, its streams.
#include <fmt/format.h>

#include "pipette/protocol/speed_ops.h"
#include "pipette/stats/stats.h"
#include "pipette/workload/speed/grammar.h"
#include "pipette/workload/speed/kinds/kinds.h"
#include "pipette/workload/speed/measures.h"
#include "pipette/workload/speed/random_tokens.h"

namespace pipette::workload::speed {
namespace {

using nlohmann::json;

Result<Request, RunError> TgRequest(const RequestInput& in) {
  const config::TestSpec& t = in.test;
  const int64_t first = FirstToken(in.ex.seed, in.bos, in.n_vocab);
  const json req =
      protocol::TgRequest{
          Ids(RandomTokens(in.ex.seed, fmt::format("depth{}", in.depth), in.depth, in.n_vocab)),
          static_cast<int32_t>(first), t.n, in.n_batch}
          .ToJson();
  return Request{
      req, {{"n_gen", t.n}, {"depth", in.depth}, {"first_token", first}, {"seed", in.ex.seed}}};
}

void TgDerive(const DeriveInput& in, SpeedRows& out) {
  const store::SampleRecord& s = in.sample;
  if (!AddStreams(s, /*decode=*/true, out)) {
    if (auto v = TgTokensPerSecond(s.raw)) {
      out.rows.Add(s.test, "throughput", "t/s", *v);
      out.rows.Add(s.test, "ms_per_token", "ms", 1000.0 / *v);
    }
    const std::vector<double> itl = InterTokenLatenciesMs(s.raw);
    if (!itl.empty()) {
      out.rows.Add(s.test, "itl_p50", "ms", stats::Percentile(itl, 50));
      out.rows.Add(s.test, "itl_p90", "ms", stats::Percentile(itl, 90));
      out.rows.Add(s.test, "itl_p99", "ms", stats::Percentile(itl, 99));
    }
    if (auto v = RuntimeMsPerToken(s.raw)) out.rows.Add(s.test, "runtime_ms_per_token", "ms", *v);
  }
  AddRoofline(in, out);
  AddEnergy(s, TgTokensPerSecond(s.raw), out);
}

std::vector<metrics::FigureDef> TgFigures() {
  using metrics::FigureKind, metrics::Better, metrics::ValueKind, metrics::Shown;
  constexpr auto kSpeed = FigureKind::kSpeed;
  constexpr auto kNot = Better::kNotJudged;
  constexpr auto kEff = metrics::ScoreGroup::kEfficiency;
  return metrics::FigureList()
      .Add("tg<N>", {"throughput"}, "t/s", kSpeed, Better::kHigher)
      .Headline()
      .Score(kEff, "<test>", Better::kHigher)
      .Shows(Shown::kRate)
      .Shows(Shown::kDecodeRate)
      .Add("tg<N>", {"aggregate_throughput"}, "t/s", kSpeed, Better::kHigher)
      .Add("tg<N>", {"ms_per_token", "itl_p50", "itl_p90", "itl_p99", "runtime_ms_per_token"}, "ms",
           kSpeed, Better::kLower)
      .Add("tg<N>", {"ms_per_kchar"}, "ms", kSpeed, Better::kLower)
      .Score(kEff, "<test>.ms_per_kchar", Better::kLower, /*same_tokenizer=*/false,
             /*replaces_headline=*/true)
      .Shows(Shown::kPerKchar)
      .Add("tg<N>", {"e2e", "server_prompt_ms"}, "ms", kSpeed, Better::kLower)
      .Add("tg<N>", {"serving_overhead"}, "ms", kSpeed, Better::kLower, ValueKind::kSigned)
      .Add("tg<N>", {"failed_streams", "token_count_mismatches"}, "streams", kSpeed, kNot)
      .CountsFailures()
      .Add("tg<N>", {"streams"}, "streams", kSpeed, kNot)
      .Add("tg<N>", {"bytes_per_token"}, "bytes", FigureKind::kMemory, kNot)
      .Shows(Shown::kBytesPerToken)
      .Add("tg<N>", {"kv_bytes_used"}, "bytes", FigureKind::kMemory, Better::kLower)
      .Shows(Shown::kKvUsed)
      .Add("tg<N>", {"bw_util"}, "fraction", kSpeed, kNot, ValueKind::kProportion)
      .Shows(Shown::kBandwidthUse)
      .Add("tg<N>", {"energy_per_token"}, "J/token", FigureKind::kEnergy, Better::kLower)
      .Score(kEff, "<test>.energy", Better::kLower)
      .Add("tg<N>", {"power"}, "W", FigureKind::kEnergy, kNot)
      .Take();
}

}  // namespace

int64_t FirstToken(uint64_t seed, int64_t bos, int64_t n_vocab) {
  return bos >= 0 && bos < n_vocab ? bos : RandomTokens(seed, "first", 1, n_vocab)[0];
}

TestKind TgKind() {
  TestKind k;
  k.name = "tg";
  k.form = "tg<N>";
  k.example = "tg128";
  k.parse = [](std::string_view text) { return TokensAfter(text, "tg", "tg", "tg"); };
  k.ops = {protocol::op::kTg};
  k.metered = true;
  k.per_kchar = true;
  k.context_need = [](const config::TestSpec& t, int64_t depth) { return depth + t.n + 1; };
  k.units = [](const config::TestSpec& t) { return double(t.n); };
  k.request = TgRequest;
  k.check = [](const json& reply) { return Checked(protocol::TgResponse::FromJson(reply)); };
  k.seconds = DecodeSeconds;
  k.derive = TgDerive;
  k.figures = TgFigures;
  return k;
}

}  // namespace pipette::workload::speed
