#include "context_options.h"

#include <utility>

namespace pipette::llama_worker {
namespace {

constexpr std::pair<const char*, ggml_type> kKvCacheTypes[] = {
    {"f32", GGML_TYPE_F32},   {"f16", GGML_TYPE_F16},   {"bf16", GGML_TYPE_BF16},
    {"q8_0", GGML_TYPE_Q8_0}, {"q4_0", GGML_TYPE_Q4_0}, {"q4_1", GGML_TYPE_Q4_1},
    {"q5_0", GGML_TYPE_Q5_0}, {"q5_1", GGML_TYPE_Q5_1},
};

}  // namespace

std::optional<ggml_type> KvCacheType(const std::string& name) {
  for (const auto& [type_name, type] : kKvCacheTypes) {
    if (name == type_name) return type;
  }
  return std::nullopt;
}

std::string KnownKvCacheTypes() {
  std::string out;
  for (const auto& [type_name, type] : kKvCacheTypes) {
    if (!out.empty()) out += ", ";
    out += type_name;
  }
  return out;
}

Result<std::string> FlashAttnSetting(const nlohmann::json& request, FieldReader& fields) {
  if (!fields.Has("flash_attn")) return std::string("auto");
  const nlohmann::json& fa = request["flash_attn"];
  if (fa.is_boolean()) return std::string(fa.get<bool>() ? "on" : "off");
  std::string setting = fields.String("flash_attn");
  if (setting != "auto" && setting != "on" && setting != "off") {
    return Error{"'flash_attn' must be \"auto\", \"on\" or \"off\", got '" + setting + "'"};
  }
  return setting;
}

llama_flash_attn_type FlashAttnType(const std::string& setting) {
  if (setting == "on") return LLAMA_FLASH_ATTN_TYPE_ENABLED;
  if (setting == "off") return LLAMA_FLASH_ATTN_TYPE_DISABLED;
  return LLAMA_FLASH_ATTN_TYPE_AUTO;
}

}  // namespace pipette::llama_worker
