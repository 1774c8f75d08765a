#include "pipette/protocol/session_ops.h"

namespace pipette::protocol {

using nlohmann::json;
using nlohmann::ordered_json;

ordered_json HelloResponse::ToJson() const {
  ordered_json out;
  out["protocol"] = protocol;
  out["runtime"] = runtime;
  out["runtime_version"] = runtime_version;
  out["runtime_build"] = runtime_build;
  out["pid"] = pid;
  if (!ops.empty()) out["ops"] = ops;
  return out;
}

Result<HelloResponse> HelloResponse::FromJson(const json& j) {
  return ReadResponse<HelloResponse>(j, op::kHello, [](FieldReader& f, HelloResponse& r) {
    r.protocol = f.Int("protocol", kInt64Min, kInt64Max);
    r.runtime = f.String("runtime");
    r.runtime_version = f.String("runtime_version");
    r.runtime_build = f.OptionalObject("runtime_build");
    r.pid = f.Int("pid", 0, kInt64Max, 0);
    if (f.Has("ops")) {
      const json ops = f.Array("ops");
      for (const json& o : ops) {
        if (!o.is_string()) {
          f.Fail("field 'ops' must be an array of op names");
          break;
        }
        r.ops.push_back(o.get<std::string>());
      }
    }
  });
}

ordered_json ResetPeakMemoryResponse::ToJson() const {
  ordered_json out;
  out["supported"] = supported;
  out["rss"] = rss;
  out["hwm"] = hwm;
  return out;
}

Result<ResetPeakMemoryResponse> ResetPeakMemoryResponse::FromJson(const json& j) {
  return ReadResponse<ResetPeakMemoryResponse>(j, op::kResetPeakMemory,
                                               [](FieldReader& f, ResetPeakMemoryResponse& r) {
                                                 r.supported = f.Bool("supported");
                                                 r.rss = f.Int("rss", 0, kInt64Max);
                                                 r.hwm = f.Int("hwm", 0, kInt64Max);
                                               });
}

ordered_json MemoryResponse::ToJson() const {
  ordered_json out;
  out["rss"] = rss;
  out["hwm"] = hwm;
  if (swap) out["swap"] = *swap;
  if (footprint_peak) out["footprint_peak"] = *footprint_peak;
  return out;
}

Result<MemoryResponse> MemoryResponse::FromJson(const json& j) {
  return ReadResponse<MemoryResponse>(j, op::kMemory, [](FieldReader& f, MemoryResponse& r) {
    r.rss = f.Int("rss", 0, kInt64Max);
    r.hwm = f.Int("hwm", 0, kInt64Max);
    r.swap = f.OptionalInt("swap", 0, kInt64Max);
    r.footprint_peak = f.OptionalInt("footprint_peak", 0, kInt64Max);
  });
}

}  // namespace pipette::protocol
