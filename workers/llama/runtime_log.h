// What llama.cpp says only in its log: how it resolved flash attention (`auto`) and the load
// mode it used. Pure text parsing, so it is unit-tested without a model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pipette::llama_worker {

// How flash attention ran, from the log of one context creation (llama_init_from_model): "on" or
// "off" from the last line that decides it (src/llama-context.cpp: "Flash Attention enabled",
// "Flash Attention not supported, set to disabled", "enabling flash_attn since it is required
// for ...", "flash_attn is not compatible with ... - forcing off"); `requested` ("on"/"off"/
// "auto") when no line does. "auto" thus means unresolved.
std::string FlashAttnFromLog(std::string_view log, const std::string& requested);

// The size in cells of the sliding-window layers' KV cache, from the log of one context creation
// (src/llama-kv-cache-iswa.cpp: "creating     SWA KV cache, size = N cells"): the context size
// with swa_full, less without it; nullopt when the model has no sliding-window layers.
std::optional<int64_t> SwaCacheCellsFromLog(std::string_view log);

// The KV cache's buffers as llama.cpp logged their sizes when it made the context ("CPU KV buffer
// size = 6.00 MiB", one line per cache and backend), summed, in bytes (to the log's 0.01 MiB);
// nullopt when the log has none or one does not read as a size.
std::optional<int64_t> KvBufferBytesFromLog(std::string_view log);

// The load mode of one model load ("mmap", "none", ...) from llama.cpp's "(load_mode = X)"
// line; "" when there is none.
std::string LoadModeFromLog(std::string_view log);

}  // namespace pipette::llama_worker
