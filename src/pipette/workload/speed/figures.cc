#include "pipette/workload/speed/figures.h"

namespace pipette::workload {

std::vector<metrics::FigureDef> SpeedFigures() {
  using metrics::FigureKind, metrics::Better, metrics::ValueKind, metrics::Shown;
  constexpr auto kSpeed = FigureKind::kSpeed;
  constexpr auto kEnergy = FigureKind::kEnergy;
  constexpr auto kNot = Better::kNotJudged;
  constexpr auto kHigher = Better::kHigher;
  constexpr auto kLower = Better::kLower;
  constexpr auto kEff = metrics::ScoreGroup::kEfficiency;
  return metrics::FigureList()
      .Add("pp<N>", {"throughput"}, "t/s", kSpeed, kHigher)
      .Headline()
      .Score(kEff, "<test>", kHigher)
      .Shows(Shown::kRate)
      .Add("pp<N>", {"energy_per_token"}, "J/token", kEnergy, kLower)
      .Score(kEff, "<test>.energy", kLower)
      .Add("pp<N>", {"power"}, "W", kEnergy, kNot)
      .Add("tg<N>", {"throughput"}, "t/s", kSpeed, kHigher)
      .Headline()
      .Score(kEff, "<test>", kHigher)
      .Shows(Shown::kRate)
      .Shows(Shown::kDecodeRate)
      .Add("tg<N>", {"aggregate_throughput"}, "t/s", kSpeed, kHigher)
      .Add("tg<N>", {"ms_per_token", "itl_p50", "itl_p90", "itl_p99", "runtime_ms_per_token"}, "ms",
           kSpeed, kLower)
      .Add("tg<N>", {"ms_per_kchar"}, "ms", kSpeed, kLower)
      .Score(kEff, "<test>.ms_per_kchar", kLower, /*same_tokenizer=*/false,
             /*replaces_headline=*/true)
      .Shows(Shown::kPerKchar)
      .Add("tg<N>", {"e2e", "server_prompt_ms"}, "ms", kSpeed, kLower)
      .Add("tg<N>", {"serving_overhead"}, "ms", kSpeed, kLower, ValueKind::kSigned)
      .Add("tg<N>", {"failed_streams", "token_count_mismatches"}, "streams", kSpeed, kNot)
      .CountsFailures()
      .Add("tg<N>", {"streams"}, "streams", kSpeed, kNot)
      .Add("tg<N>", {"bytes_per_token"}, "bytes", FigureKind::kMemory, kNot)
      .Shows(Shown::kBytesPerToken)
      .Add("tg<N>", {"kv_bytes_used"}, "bytes", FigureKind::kMemory, kLower)
      .Shows(Shown::kKvUsed)
      .Add("tg<N>", {"bw_util"}, "fraction", kSpeed, kNot, ValueKind::kProportion)
      .Shows(Shown::kBandwidthUse)
      .Add("tg<N>", {"energy_per_token"}, "J/token", kEnergy, kLower)
      .Score(kEff, "<test>.energy", kLower)
      .Add("tg<N>", {"power"}, "W", kEnergy, kNot)
      .Add("ttft@<P>", {"ttft"}, "ms", kSpeed, kLower)
      .Headline()
      .Score(kEff, "<test>", kLower)
      .Add("ttft@<P>", {"e2e", "server_prompt_ms"}, "ms", kSpeed, kLower)
      .Add("ttft@<P>", {"serving_overhead"}, "ms", kSpeed, kLower, ValueKind::kSigned)
      .Add("ttft@<P>", {"failed_streams", "token_count_mismatches"}, "streams", kSpeed, kNot)
      .CountsFailures()
      .Add("ttft@<P>", {"streams"}, "streams", kSpeed, kNot)
      .Add("e2e@<P>+<N>", {"e2e"}, "ms", kSpeed, kLower)
      .Headline()
      .Add("e2e@<P>+<N>", {"first_token"}, "ms", kSpeed, kLower)
      .Add("e2e@<P>+<N>", {"decode_throughput"}, "t/s", kSpeed, kHigher)
      .Add("sustained<N>", {"throughput"}, "t/s", kSpeed, kHigher)
      .Headline()
      .Shows(Shown::kWindowRate)
      .Add("sustained<N>", {"window_wall_throughput"}, "t/s", kSpeed, kHigher)
      .Shows(Shown::kWindowWallRate)
      .Add("sustained<N>", {"window_temp_c"}, "°C", kSpeed, kNot, ValueKind::kSigned)
      .Shows(Shown::kWindowTemp)
      .Add("sustained<N>", {"window_freq_mhz"}, "MHz", kSpeed, kNot)
      .Shows(Shown::kWindowFreq)
      .Add("sustained<N>", {"window_power"}, "W", kEnergy, kNot)
      .Shows(Shown::kWindowPower)
      .Add("sustained<N>", {"power"}, "W", kEnergy, kNot)
      .Add("sustained<N>", {"decay"}, "%", kSpeed, kNot, ValueKind::kPercentDrop)
      .Shows(Shown::kDecay)
      .Score(metrics::ScoreGroup::kRobustness, "<test>.decay", kLower)
      .Add("sustained<N>", {"generated_tokens"}, "tokens", kSpeed, kNot)
      .Add("sustained<N>", {"energy_per_token"}, "J/token", kEnergy, kLower)
      .Score(kEff, "<test>.energy", kLower)
      .Take();
}

}  // namespace pipette::workload
