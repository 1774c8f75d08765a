#include "pipette/metrics/roofline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "pipette/util/json_read.h"

namespace pipette::metrics {

using nlohmann::json;

Roofline RooflineOf(const store::CellRecord& cell, const json& device_facts,
                    const json& context_raw) {
  Roofline roof;
  const json& file = json_read::Ref(cell.model_info, "file");
  const json& reads = json_read::Ref(file, "token_reads");
  if (reads.is_object() && reads.contains("na")) {
    const json& na = reads.at("na");
    roof.na_reason =
        "bytes per token unknown: " + (na.is_string() ? na.get<std::string>() : na.dump());
    return roof;
  }
  if (reads.is_null()) {
    roof.predates = true;
    roof.na_reason = "the cell's model facts have no token_reads (recorded by an older Pipette)";
    return roof;
  }
  roof.reads = model::TokenReadsFromJson(reads);
  if (!roof.reads) {
    roof.na_reason = "bytes per token unknown: the cell's token_reads cannot be read";
    return roof;
  }
  for (auto [param, bytes] :
       {std::pair{"type_k", &roof.k_bytes}, std::pair{"type_v", &roof.v_bytes}}) {
    auto it = cell.params.find(param);
    if (it == cell.params.end() || !it->is_string()) continue;  // the runtime's default: f16
    auto size = model::KvTypeBytes(it->get<std::string>());
    if (!size) {
      roof.reads.reset();
      roof.na_reason =
          fmt::format("bytes per token unknown: the size of KV-cache type {}={} is not known",
                      param, it->get<std::string>());
      return roof;
    }
    *bytes = *size;
  }
  // Without flash attention llama.cpp reads every cached position of a sliding-window layer and
  // masks those outside the window; with it, masked positions are skipped.
  const json& ctx = context_raw.is_object() ? context_raw : json::object();
  if (const auto e = cell.runtime_build.find("endpoint");
      cell.runtime_build.is_object() && e != cell.runtime_build.end() && e->is_object()) {
    roof.served = true;
    roof.server_started = e->contains("server");
  }
  roof.swa_full = json_read::Flag(ctx, "swa_full", json_read::Flag(cell.params, "swa_full", false));
  const std::string fa = json_read::String(ctx, "flash_attn_resolved",
                                           json_read::String(cell.params, "flash_attn", "on"));
  roof.flash_attn = fa != "off";
  if (auto cells = ctx.find("swa_cache_cells"); cells != ctx.end() && cells->is_number_integer()) {
    roof.swa_cells = cells->get<int64_t>();
  }
  const json& bw =
      device_facts.is_object() ? device_facts.value("memory_bandwidth", json()) : json();
  if (!bw.is_object()) {
    roof.na_reason =
        "the device's memory bandwidth was not measured (the run had --no-bandwidth, or an older "
        "Pipette recorded it)";
  } else if (bw.contains("na")) {
    roof.na_reason = "the device's memory bandwidth is n/a: " + bw.value("na", std::string("?"));
  } else if (auto t = bw.find("triad_bytes_per_s");
             t != bw.end() && t->is_number() && t->get<double>() > 0) {
    roof.bandwidth = t->get<double>();
  } else {
    roof.na_reason = "the device's memory bandwidth record has no triad figure";
  }
  return roof;
}

namespace {

// Elements of K and V per position of one layer group, in bytes.
double PositionBytes(const Roofline& roof, const model::KvLayers& l) {
  return double(l.k_per_position) * roof.k_bytes + double(l.v_per_position) * roof.v_bytes;
}

int64_t IntOr(const json& j, const char* key, int64_t fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_integer() ? it->get<int64_t>() : fallback;
}

// A tg sample's depth and how many tokens it generated; nullopt without tokens.
struct TgShape {
  int64_t depth = 0, n_gen = 0;
};
std::optional<TgShape> TgShapeOf(const json& raw) {
  auto ends = raw.find("token_end_ns");
  if (ends == raw.end() || !ends->is_array() || ends->empty()) return std::nullopt;
  const json& request = json_read::Ref(raw, "request");
  return TgShape{request.is_object() ? IntOr(request, "depth", 0) : 0,
                 static_cast<int64_t>(ends->size())};
}

// The positions a sliding-window layer keeps: all with the full cache, else its cache's cells
// (the window, where they are not known); 0: no cap.
int64_t KeptCap(const Roofline& roof, const model::KvLayers& l) {
  if (l.window == 0 || roof.swa_full) return 0;
  return roof.swa_cells > 0 ? roof.swa_cells : l.window;
}

// ... and those it reads: the window with flash attention, else every position it keeps.
int64_t ReadCap(const Roofline& roof, const model::KvLayers& l) {
  if (l.window == 0) return 0;
  return roof.flash_attn ? l.window : KeptCap(roof, l);
}

}  // namespace

std::optional<double> TgBytesPerToken(const Roofline& roof, const json& raw) {
  const auto tg = TgShapeOf(raw);
  if (!roof.reads || !tg) return std::nullopt;
  model::TokenReads reads = *roof.reads;
  for (model::KvLayers& l : reads.kv) l.window = ReadCap(roof, l);
  return model::TgBytesPerToken(reads, tg->depth, tg->n_gen, roof.k_bytes, roof.v_bytes);
}

std::string KvBytesAllocatedNa(const Roofline& roof, const json& context_raw) {
  if (!roof.served || !roof.reads || !context_raw.is_object()) return "";
  if (!roof.server_started) {
    return "a server Pipette did not start: the KV cache it holds (its own context and slots) is "
           "not known to Pipette";
  }
  if (IntOr(context_raw, "slots", 0) <= 0 || IntOr(context_raw, "server_n_ctx_per_slot", 0) <= 0) {
    return "the server did not report its slots and context per slot (llama-server's /props)";
  }
  for (const model::KvLayers& l : roof.reads->kv) {
    if (l.window > 0) {
      return "the server's cache of its sliding-window layers is not reported to Pipette";
    }
  }
  return "";
}

std::optional<double> KvBytesAllocated(const Roofline& roof, const json& context_raw) {
  if (!roof.reads || !context_raw.is_object()) return std::nullopt;
  if (roof.served) {
    // Every slot's context, as the server holds them: never the plan's n_ctx of one slot.
    if (!KvBytesAllocatedNa(roof, context_raw).empty()) return std::nullopt;
    const double cells = double(IntOr(context_raw, "slots", 0)) *
                         double(IntOr(context_raw, "server_n_ctx_per_slot", 0));
    double bytes = 0;
    for (const model::KvLayers& l : roof.reads->kv) {
      bytes += double(l.count) * cells * PositionBytes(roof, l);
    }
    return bytes;
  }
  const int64_t n_ctx = IntOr(context_raw, "n_ctx", 0);
  if (n_ctx <= 0) return std::nullopt;
  const int64_t swa_cells = IntOr(context_raw, "swa_cache_cells", n_ctx);
  double bytes = 0;
  for (const model::KvLayers& l : roof.reads->kv) {
    bytes += double(l.count) * double(l.window > 0 ? swa_cells : n_ctx) * PositionBytes(roof, l);
  }
  return bytes;
}

std::optional<double> KvBytesUsed(const Roofline& roof, const json& tg_raw) {
  const auto tg = TgShapeOf(tg_raw);
  if (!roof.reads || !tg) return std::nullopt;
  const int64_t positions = tg->depth + tg->n_gen;
  double bytes = 0;
  for (const model::KvLayers& l : roof.reads->kv) {
    const int64_t cap = KeptCap(roof, l);
    const int64_t kept = cap > 0 ? std::min(positions, cap) : positions;
    bytes += double(l.count) * double(kept) * PositionBytes(roof, l);
  }
  return bytes;
}

}  // namespace pipette::metrics
