#include "pipette/workload/timing.h"

#include "pipette/util/json_read.h"
#include "pipette/util/seconds.h"

namespace pipette::workload {

std::optional<double> SpanSeconds(const nlohmann::json& raw) {
  if (!raw.is_object()) return std::nullopt;
  const auto t0 = json_read::Int(raw, "t_start_ns"), t1 = json_read::Int(raw, "t_end_ns");
  if (!t0 || !t1 || *t1 <= *t0) return std::nullopt;
  return SecondsBetween(*t0, *t1);
}

std::optional<estimate::Measured> ChunkTimed(const nlohmann::json& raw, const std::string& kind) {
  const auto secs = SpanSeconds(raw);
  if (!secs) return std::nullopt;
  auto number = [](const nlohmann::json& j, const char* key) {
    return json_read::Number(j, key).value_or(0.0);
  };
  auto request = raw.find("request");
  const double n = request != raw.end() && request->is_object() ? number(*request, "n_ctx") : 0;
  const double tokens = n > 0 ? n : number(raw, "n_tokens");
  if (tokens <= 0) return std::nullopt;
  return estimate::Measured{kind, tokens, *secs};
}

std::optional<estimate::Measured> ItemTimed(const nlohmann::json& raw, const std::string& kind) {
  const auto secs = SpanSeconds(raw);
  if (!secs) return std::nullopt;
  return estimate::Measured{kind, 1, *secs};
}

}  // namespace pipette::workload
