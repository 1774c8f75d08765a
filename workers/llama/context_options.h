// The init_context fields that choose by a word (docs/protocol.md "init_context"): the KV-cache
// types and flash attention, read and turned into llama.cpp's settings. Pure: no model, no
// context.
#pragma once

#include <ggml.h>
#include <llama.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "pipette/util/field_reader.h"
#include "pipette/util/result.h"

namespace pipette::llama_worker {

// The KV-cache type of a protocol name (ggml's: "f16", "q8_0", ...); none for a name not
// accepted.
std::optional<ggml_type> KvCacheType(const std::string& name);
// The accepted names, for an error: "f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1".
std::string KnownKvCacheTypes();

// The request's flash_attn as "auto" (absent: llama.cpp's default), "on" or "off"; true and
// false (protocol 1's form) mean on and off. A field of the wrong type is `fields`' problem; a
// string other than the three is an error.
Result<std::string> FlashAttnSetting(const nlohmann::json& request, FieldReader& fields);
// llama.cpp's setting for a word FlashAttnSetting returned.
llama_flash_attn_type FlashAttnType(const std::string& setting);

}  // namespace pipette::llama_worker
