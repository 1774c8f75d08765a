#include "pipette/endpoint/model_info.h"

#include <fmt/format.h>

#include <optional>
#include <regex>

#include "pipette/model/gguf.h"

namespace pipette::endpoint {
namespace {

std::optional<int64_t> MetaInt(const model::GgufFile& f, const std::string& key) {
  auto it = f.metadata.find(key);
  if (it == f.metadata.end()) return std::nullopt;
  try {
    return std::stoll(it->second);
  } catch (...) {
    return std::nullopt;
  }
}

// "[array of 49152 string]" -> 49152.
std::optional<int64_t> ArrayLength(const model::GgufFile& f, const std::string& key) {
  auto it = f.metadata.find(key);
  if (it == f.metadata.end()) return std::nullopt;
  std::smatch m;
  static const std::regex kArray(R"(^\[array of (\d+) )");
  if (!std::regex_search(it->second, m, kArray)) return std::nullopt;
  return std::stoll(m[1].str());
}

}  // namespace

Result<protocol::ModelInfo> ModelInfoOf(const std::string& path) {
  auto f = model::ReadGguf(path);
  if (!f) return f.error();
  protocol::ModelInfo m;
  const std::string arch = f->architecture().value_or("?");
  const std::string ftype =
      f->file_type() ? model::FileTypeName(*f->file_type()).value_or("?") : std::string("?");
  m.n_params = static_cast<int64_t>(f->n_params());
  m.size_bytes = static_cast<int64_t>(f->file_size);
  m.desc = fmt::format("{} {}M {}", arch, *m.n_params / 1000000, ftype);
  m.n_ctx_train = MetaInt(*f, arch + ".context_length");
  m.n_layer = MetaInt(*f, arch + ".block_count");
  m.n_embd = MetaInt(*f, arch + ".embedding_length");
  m.n_vocab = ArrayLength(*f, "tokenizer.ggml.tokens");
  m.bos = MetaInt(*f, "tokenizer.ggml.bos_token_id").value_or(-1);
  m.eos = MetaInt(*f, "tokenizer.ggml.eos_token_id").value_or(-1);
  auto add_bos = f->metadata.find("tokenizer.ggml.add_bos_token");
  m.add_bos = add_bos != f->metadata.end() && add_bos->second == "true";
  return m;
}

}  // namespace pipette::endpoint
