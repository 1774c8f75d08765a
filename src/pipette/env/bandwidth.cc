#include "pipette/env/bandwidth.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "pipette/util/strings.h"

namespace pipette::env {
namespace {

constexpr size_t kMiB = size_t{1} << 20;

int64_t IntOr0(const nlohmann::json& facts, const char* key) {
  auto it = facts.find(key);
  return it != facts.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

}  // namespace

size_t DefaultArrayBytes(size_t llc_bytes, size_t mem_available_bytes) {
  constexpr size_t kMin = 64 * kMiB;
  constexpr size_t kMax = 1024 * kMiB;
  size_t bytes = std::min(std::max(kMin, 4 * llc_bytes), kMax);
  if (mem_available_bytes > 0) bytes = std::min(bytes, mem_available_bytes / 8);
  return std::max(bytes, 4 * kMiB);
}

std::vector<std::string> BandwidthProbeArgs(const nlohmann::json& facts,
                                            int64_t mem_available_bytes) {
  const int64_t llc =
      facts.is_object() ? std::max(IntOr0(facts, "cache_l3_bytes"), IntOr0(facts, "cache_l2_bytes"))
                        : 0;
  const size_t bytes =
      DefaultArrayBytes(static_cast<size_t>(std::max<int64_t>(llc, 0)),
                        static_cast<size_t>(std::max<int64_t>(mem_available_bytes, 0)));
  return {"bandwidth", "--array-bytes", std::to_string(bytes)};
}

Result<nlohmann::json> ParseBandwidthReply(std::string_view out) {
  const std::string line(Trim(out));
  nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object()) {
    return RuntimeError(fmt::format("its answer is not a JSON object: '{}'", line.substr(0, 200)));
  }
  nlohmann::json fact = nlohmann::json::object();
  for (const char* key : {"triad_bytes_per_s", "copy_bytes_per_s"}) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number() || !std::isfinite(it->get<double>()) ||
        it->get<double>() <= 0) {
      return RuntimeError(fmt::format("its answer has no positive {}: '{}'", key, line));
    }
    fact[key] = it->get<double>();
  }
  for (const char* key : {"array_bytes", "threads", "repetitions"}) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer() || it->get<int64_t>() <= 0) {
      return RuntimeError(fmt::format("its answer has no positive whole {}: '{}'", key, line));
    }
    fact[key] = it->get<int64_t>();
  }
  return fact;
}

nlohmann::json BandwidthFact(const Result<CommandResult>& ran, const std::string& where) {
  auto na = [&](const std::string& why) {
    return nlohmann::json{{"na", fmt::format("the memory bandwidth probe {} {}", where, why)}};
  };
  if (!ran) return na("could not start: " + ran.error().message);
  if (ran->timed_out) return na("ran out of time");
  if (ran->exit_code != 0) {
    return na(fmt::format("failed (exit code {}): {}", ran->exit_code, Trim(ran->err)));
  }
  auto fact = ParseBandwidthReply(ran->out);
  if (!fact) return na(fact.error().message);
  return *fact;
}

}  // namespace pipette::env
