#include "pipette/config/params.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "pipette/util/strings.h"

namespace pipette::config {

ParamRegistry ParamRegistry::Default() {
  // No default_value: the runtime's own applies (see params.h).
  using K = ParamKind;
  using S = ParamScope;
  const std::vector<std::string> kv_types = {"f32",  "f16",  "bf16", "q8_0",
                                             "q4_0", "q4_1", "q5_0", "q5_1"};
  return ParamRegistry({
      {.name = "threads",
       .help = "CPU threads for decoding and prompt processing (both)",
       .kind = K::kInt,
       .scope = S::kContext,
       .min = 1,
       .max = 1024,
       .column = "threads",
       .aliases = {"n_threads", "n_thread", "t", "threads_batch", "n_threads_batch", "nthread",
                   "thread_count"},
       .request_fields = {"n_threads", "n_threads_batch"},
       .applied_field = "n_threads",
       .default_doc = "llama.cpp's tools': `common_cpu_get_num_math()`, the physical cores "
                      "(performance cores on a hybrid x86 CPU); the same as `llama-bench` and "
                      "`llama-cli` with no `-t`. Recorded as `llama_n_threads` reports it"},
      {.name = "n_batch",
       .help = "logical batch: prompt tokens handed to one decode call",
       .kind = K::kInt,
       .scope = S::kContext,
       .min = 1,
       .max = 1 << 20,
       .column = "n_batch",
       .aliases = {"batch_size", "batch", "b"},
       .request_fields = {"n_batch"},
       .applied_field = "n_batch",
       .default_doc = "llama.cpp's: 2048, which llama.cpp clamps to the context; recorded as "
                      "applied (`llama_n_batch`)"},
      {.name = "n_ubatch",
       .help = "physical batch computed at once inside a decode call",
       .kind = K::kInt,
       .scope = S::kContext,
       .min = 1,
       .max = 1 << 20,
       .column = "n_ubatch",
       .aliases = {"ubatch_size", "ubatch", "ub"},
       .request_fields = {"n_ubatch"},
       .applied_field = "n_ubatch",
       .default_doc = "llama.cpp's: 512, clamped to `n_batch`; recorded as applied "
                      "(`llama_n_ubatch`)"},
      {.name = "n_ctx",
       .help = "context size in tokens",
       .kind = K::kInt,
       .scope = S::kContext,
       .default_value = "0",
       .min = 0,
       .max = 1 << 24,
       .column = "n_ctx",
       .aliases = {"ctx_size", "ctx", "c", "context", "context_size", "context_length"},
       .request_fields = {"n_ctx"},
       .default_doc = "Pipette's: 0 = just enough for the cell's tests; always rounded up to a "
                      "multiple of 256 (llama.cpp pads it so)"},
      {.name = "type_k",
       .help = "KV-cache type for keys",
       .kind = K::kChoice,
       .scope = S::kContext,
       .choices = kv_types,
       .column = "type_k",
       .aliases = {"cache_type_k", "ctk", "kv_type_k"},
       .request_fields = {"type_k"},
       .applied_field = "type_k",
       .default_doc = "llama.cpp's: f16"},
      {.name = "type_v",
       .help = "KV-cache type for values",
       .kind = K::kChoice,
       .scope = S::kContext,
       .choices = kv_types,
       .column = "type_v",
       .aliases = {"cache_type_v", "ctv", "kv_type_v"},
       .request_fields = {"type_v"},
       .applied_field = "type_v",
       .default_doc = "llama.cpp's: f16"},
      {.name = "flash_attn",
       .help = "flash attention: auto (the runtime decides), on or off",
       .kind = K::kChoice,
       .scope = S::kContext,
       .choices = {"auto", "on", "off"},
       .column = "flash_attn",
       .aliases = {"fa", "flash_attention", "flash_attn_type"},
       .value_aliases = {{"true", "on"}, {"false", "off"}, {"enabled", "on"}, {"disabled", "off"}},
       .request_fields = {"flash_attn"},
       .applied_field = "flash_attn_resolved",
       .runtime_resolves = true,
       .unreported = "auto",
       .default_doc = "llama.cpp's: `auto`, which llama.cpp resolves per device; recorded as it "
                      "resolved it (`on`/`off`, read from llama.cpp's log), shown `on (auto)`; "
                      "`auto (unresolved)` where llama.cpp did not say"},
      {.name = "swa_full",
       .help = "full-size sliding-window KV cache: the sliding-window attention layers keep "
               "the whole context (true) or only their window (false); changes only models with "
               "such layers (Gemma 3, ...)",
       .kind = K::kBool,
       .scope = S::kContext,
       .column = "swa_full",
       .aliases = {"swa", "swa_full_cache"},
       .request_fields = {"swa_full"},
       .applied_field = "swa_full",
       .default_doc = "libllama's: `true` (`llama_context_default_params()`); `llama-bench` sets "
                      "`false`, as `llama-cli` and `llama-server` do without `--swa-full`. "
                      "Recorded as sent to llama.cpp"},
      {.name = "depth",
       .help = "tokens already in the context when tg starts",
       .kind = K::kInt,
       .scope = S::kTest,
       .default_value = "0",
       .min = 0,
       .max = 1 << 24,
       .column = "depth",
       .aliases = {"n_depth", "d"},
       .default_doc = "Pipette's: 0"},
      {.name = "n_gpu_layers",
       .help = "layers offloaded to an accelerator (-1: every layer)",
       .kind = K::kInt,
       .scope = S::kLoad,
       .min = -1,
       .max = 100000,
       .column = "n_gpu_layers",
       .aliases = {"ngl", "gpu_layers", "n_gpu"},
       .request_fields = {"n_gpu_layers"},
       .applied_field = "n_gpu_layers",
       .default_doc = "llama.cpp's: -1 (every layer to an accelerator, where there is one; no "
                      "effect on a CPU-only build); recorded as sent"},
      {.name = "use_mmap",
       .help = "map the model file instead of reading it",
       .kind = K::kBool,
       .scope = S::kLoad,
       .column = "use_mmap",
       .aliases = {"mmap", "mmp", "no_mmap"},
       .request_fields = {"use_mmap"},
       .applied_field = "use_mmap",
       .default_doc = "llama.cpp's: load mode `auto` (mapped where the device supports it); "
                      "recorded as llama.cpp logged the mode it used (`true` = mmap)"},
  });
}

const char* StageName(ParamScope scope) {
  switch (scope) {
    case ParamScope::kLoad:
      return "load";
    case ParamScope::kContext:
      return "context";
    case ParamScope::kTest:
      return "test";
  }
  return "?";
}

const ParamDef* ParamRegistry::Find(std::string_view name) const {
  for (const ParamDef& d : defs_) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

std::string ParamRegistry::Column(std::string_view name) const {
  const ParamDef* d = Find(name);
  return d && !d->column.empty() ? d->column : std::string(name);
}

namespace {

// A name as another tool may write it: "--ctx-size", "Threads" -> "ctx_size", "threads".
std::string Normalized(std::string_view name) {
  while (name.starts_with('-')) name.remove_prefix(1);
  std::string out(name);
  for (char& c : out) {
    c = c == '-' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return out;
}

}  // namespace

const ParamDef* ParamRegistry::FindAlias(std::string_view name) const {
  const std::string n = Normalized(name);
  for (const ParamDef& d : defs_) {
    if (d.name == n || std::find(d.aliases.begin(), d.aliases.end(), n) != d.aliases.end()) {
      return &d;
    }
  }
  return nullptr;
}

const ParamDef* ParamRegistry::Nearest(std::string_view name) const {
  if (const ParamDef* d = FindAlias(name)) return d;
  // Short aliases (t, c, ub, fa, ngl) match only as written: any short typo is near them.
  std::vector<std::string> candidates;
  std::vector<const ParamDef*> owner;
  for (const ParamDef& d : defs_) {
    candidates.push_back(d.name);
    owner.push_back(&d);
    for (const std::string& a : d.aliases) {
      if (a.size() <= 3) continue;
      candidates.push_back(a);
      owner.push_back(&d);
    }
  }
  auto near = NearestName(Normalized(name), candidates);
  if (!near) return nullptr;
  const auto it = std::find(candidates.begin(), candidates.end(), *near);
  return owner[static_cast<size_t>(it - candidates.begin())];
}

std::string ParamRegistry::DidYouMean(std::string_view name) const {
  const ParamDef* d = Nearest(name);
  return d ? fmt::format(" (did you mean '{}'?)", d->name) : std::string();
}

std::vector<std::string> ParamRegistry::Names() const {
  std::vector<std::string> out;
  for (const ParamDef& d : defs_) out.push_back(d.name);
  return out;
}

Result<std::string> ParamRegistry::Parse(const ParamDef& def, std::string_view text) const {
  switch (def.kind) {
    case ParamKind::kInt: {
      int64_t v = 0;
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || ptr != text.data() + text.size()) {
        return InputError(fmt::format("{} must be an integer, got '{}'", def.name, text));
      }
      if (v < def.min || v > def.max) {
        return InputError(
            fmt::format("{} must be between {} and {}, got {}", def.name, def.min, def.max, v));
      }
      return std::to_string(v);
    }
    case ParamKind::kBool: {
      if (text == "true" || text == "on" || text == "1" || text == "yes")
        return std::string("true");
      if (text == "false" || text == "off" || text == "0" || text == "no") {
        return std::string("false");
      }
      return InputError(fmt::format("{} must be true or false, got '{}'", def.name, text));
    }
    case ParamKind::kChoice: {
      for (const auto& [alias, choice] : def.value_aliases) {
        if (text == alias) return choice;
      }
      auto it = std::find(def.choices.begin(), def.choices.end(), text);
      if (it == def.choices.end()) {
        std::string also;
        for (const auto& [alias, choice] : def.value_aliases) {
          also += fmt::format("{}{} = {}", also.empty() ? " (" : ", ", alias, choice);
        }
        if (!also.empty()) also += ")";
        return InputError(fmt::format("{} must be one of {}{}, got '{}'", def.name,
                                      fmt::join(def.choices, ", "), also, text));
      }
      return *it;
    }
  }
  return InputError("unreachable");
}

nlohmann::json ParamRegistry::ToJson(const ParamDef& def, const std::string& canonical) {
  switch (def.kind) {
    case ParamKind::kInt:
      return std::stoll(canonical);
    case ParamKind::kBool:
      return canonical == "true";
    case ParamKind::kChoice:
      return canonical;
  }
  return canonical;
}

}  // namespace pipette::config
