// sustained<T> (docs/metrics.md "sustained<T>"): greedy generation for T seconds in short tg
// requests back to back, the device's sensors read after each; per 10 s window its rate (and,
// where the device tells, its temperature, frequency and power), the decay from the first
// window to the last, the energy per token of the whole run. One sample per cell, made at the
// first visit whatever the repetitions.
#include "pipette/metrics/sustained.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>

#include "pipette/env/cgroup_tier.h"
#include "pipette/env/sensors.h"
#include "pipette/protocol/speed_ops.h"
#include "pipette/util/json_read.h"
#include "pipette/util/seconds.h"
#include "pipette/workload/speed/kinds/kinds.h"
#include "pipette/workload/speed/random_tokens.h"

namespace pipette::workload::speed {
namespace {

using nlohmann::json;

// The longest run: a day.
constexpr int64_t kMaxSustainedSeconds = 86400;
// At most this many tokens in each tg request (each from a cleared context), and about this
// many seconds of them.
constexpr int64_t kSustainedChunk = 64;
constexpr double kSustainedChunkS = 2.0;

std::optional<Result<config::TestSpec>> ParseSustained(std::string_view text) {
  using R = Result<config::TestSpec>;
  if (!text.starts_with("sustained")) return std::nullopt;
  // sustained<T>: greedy generation for T seconds, in 10 s windows (two at least: the decay).
  const std::string_view secs = text.substr(9);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(secs.data(), secs.data() + secs.size(), v);
  if (secs.empty() || ptr != secs.data() + secs.size() || ec != std::errc() || v < 20 ||
      v > kMaxSustainedSeconds) {
    return R(
        InputError(fmt::format("test '{}' needs whole seconds from 20 (two 10 s windows: the "
                               "decay compares the first and the last) to {}, e.g. "
                               "sustained60",
                               text, kMaxSustainedSeconds)));
  }
  config::TestSpec t;
  t.kind = "sustained";
  t.n = static_cast<int>(v);
  t.name = fmt::format("sustained{}", v);
  return R(std::move(t));
}

// What a reading after a chunk says: the hottest temperature, the mean frequency of the CPUs the
// worker may run on (`cpus`; every CPU when the run does not know them or the device reports
// none of them), which `freq_cpus` names, and the energy since the reading before
// (env::EnergyFacts), each only where the device tells.
json SensorFacts(const env::Sensors& before, const env::Sensors& now, double seconds,
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

// tg requests of at most kSustainedChunk tokens back to back until T seconds have passed, the
// device's sensors read after each (its temperature, frequency and energy since the reading
// before); stored as one sample. One warm-up chunk first when the experiment warms up.
RunStatus RunSustained(Context& ctx, const config::TestSpec& t) {
  const config::Experiment& ex = ctx.Experiment();
  const std::optional<int64_t> vocab = ctx.Model().n_vocab;
  if (!vocab) {
    return Failed(
        fmt::format("{} generates from the model's first token, and the runtime did "
                    "not report its vocabulary (load_model: model.n_vocab)",
                    t.name));
  }
  const int64_t first = FirstToken(ex.seed, ctx.Model().bos, *vocab);
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
    if (auto st = Checked(protocol::TgResponse::FromJson(*resp)); !st) {
      return Broken(st.error().message);
    }
    next_size(*resp);
    json chunk = {{"t_start_ns", (*resp)["t_start_ns"]}, {"token_end_ns", (*resp)["token_end_ns"]}};
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
  ctx.Done("sustained", double(t.n), wall_s);
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

// Per 10 s window its t/s, and where every window has them its temperature, frequency and power
// (so the rows' samples are the windows, in order); the decay from the first window to the
// last; the energy per token of the whole run.
void SustainedDerive(const DeriveInput& in, SpeedRows& out) {
  const store::SampleRecord& s = in.sample;
  metrics::RowBuilder& b = out.rows;
  const metrics::Sustained run = metrics::SustainedOf(s.raw);
  if (!run.error.empty()) {
    out.no_sustained[s.test] = "the stored run cannot be read: " + run.error;
    return;
  }
  if (run.windows.empty()) {
    out.no_sustained[s.test] = "the run gave no full 10 s window";
    return;
  }
  bool temps = true, freqs = true, powers = true;
  for (const metrics::SustainedWindow& w : run.windows) {
    b.Add(s.test, "throughput", "t/s", w.tps);
    temps = temps && w.temp_c;
    freqs = freqs && w.freq_mhz;
    powers = powers && w.power_w;
  }
  for (const metrics::SustainedWindow& w : run.windows) {
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
    const json why = json_read::Member(s.raw, "sensors_na");
    out.no_energy[s.test] = why.is_string() ? why.get<std::string>() : run.energy_na;
  }
}

std::vector<metrics::FigureDef> SustainedFigures() {
  using metrics::FigureKind, metrics::Better, metrics::ValueKind, metrics::Shown;
  constexpr auto kSpeed = FigureKind::kSpeed;
  constexpr auto kEnergy = FigureKind::kEnergy;
  constexpr auto kNot = Better::kNotJudged;
  return metrics::FigureList()
      .Add("sustained<N>", {"throughput"}, "t/s", kSpeed, Better::kHigher)
      .Headline()
      .Shows(Shown::kWindowRate)
      .Add("sustained<N>", {"window_wall_throughput"}, "t/s", kSpeed, Better::kHigher)
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
      .Score(metrics::ScoreGroup::kRobustness, "<test>.decay", Better::kLower)
      .Add("sustained<N>", {"generated_tokens"}, "tokens", kSpeed, kNot)
      .Add("sustained<N>", {"energy_per_token"}, "J/token", kEnergy, Better::kLower)
      .Score(metrics::ScoreGroup::kEfficiency, "<test>.energy", Better::kLower)
      .Take();
}

}  // namespace

TestKind SustainedKind() {
  TestKind k;
  k.name = "sustained";
  k.form = "sustained<seconds>";
  k.example = "sustained60";
  k.parse = ParseSustained;
  k.ops = {protocol::op::kTg};
  k.needs_vocab = false;  // checked by its run, with its own words
  k.context_need = [](const config::TestSpec&, int64_t) { return kSustainedChunk + 1; };
  k.units = [](const config::TestSpec& t) { return double(t.n); };  // seconds
  k.check = [](const json& reply) { return Checked(protocol::TgResponse::FromJson(reply)); };
  k.run = RunSustained;
  k.seconds = [](const json& raw) -> std::optional<double> {
    const auto secs = raw.find("wall_s");
    if (secs == raw.end() || !secs->is_number()) return std::nullopt;
    return secs->get<double>();
  };
  k.derive = SustainedDerive;
  k.figures = SustainedFigures;
  return k;
}

}  // namespace pipette::workload::speed
