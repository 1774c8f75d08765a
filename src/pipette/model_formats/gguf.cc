#include "pipette/model/gguf.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "pipette/model/token_reads.h"
#include "pipette/model_formats/formats.h"
#include "pipette/util/files.h"
#include "pipette/util/sha256.h"

namespace pipette::model_formats {
namespace fs = std::filesystem;
namespace {

// A file named *.gguf (its reader says what is wrong with one that is no GGUF) or one that
// starts with GGUF's magic.
bool Recognises(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return false;
  if (fs::path(path).extension() == ".gguf") return true;
  std::ifstream in(path, std::ios::binary);
  char magic[4] = {};
  return in.read(magic, 4) && std::string_view(magic, 4) == "GGUF";
}

Result<model::ModelFileFacts> Read(const std::string& path) {
  auto gguf = model::ReadGguf(path);
  if (!gguf) return gguf.error();
  model::ModelFileFacts m;
  m.path = path;
  m.name = fs::path(path).stem().string();
  if (auto ft = gguf->file_type()) m.quant = model::FileTypeName(*ft).value_or("");
  // A variant Pipette made, named by its path: it keeps its provenance (and so its origin).
  if (auto side = ReadFileToString(path + ".json")) {
    nlohmann::json p = nlohmann::json::parse(*side, nullptr, /*allow_exceptions=*/false);
    if (p.is_object() && p.value("format", "") == "pipette-variant/1" &&
        p.value("file", nlohmann::json::object()).value("size", uint64_t{0}) == gguf->file_size) {
      m.provenance = std::move(p);
    }
  }
  if (auto arch = gguf->architecture()) {
    auto it = gguf->metadata.find(*arch + ".context_length");
    if (it != gguf->metadata.end()) m.n_ctx_train = std::atoll(it->second.c_str());
  }
  return m;
}

// The file's SHA-256 is the model's; the header gives its architecture, quantization, parameter
// count and what a generated token reads (bw_util, pipette predict), or why not.
Result<model::ModelFacts> Measure(const std::string& path) {
  auto gguf = model::ReadGguf(path);
  if (!gguf) return gguf.error();
  auto sha = Sha256File(path);
  if (!sha) return sha.error();
  model::ModelFacts f;
  f.sha256 = *sha;
  f.file_size = static_cast<int64_t>(gguf->file_size);
  f.info["gguf_version"] = gguf->version;
  f.info["n_tensors"] = gguf->tensors.size();
  f.info["n_params"] = gguf->n_params();
  if (auto a = gguf->architecture()) f.info["architecture"] = *a;
  if (auto ft = gguf->file_type()) {
    f.info["file_type"] = *ft;
    f.info["quant"] = model::FileTypeName(*ft).value_or(fmt::format("file_type {}", *ft));
  }
  if (auto it = gguf->metadata.find("general.name"); it != gguf->metadata.end()) {
    f.info["general_name"] = it->second;
  }
  auto reads = model::TokenReadsOf(*gguf);
  f.info["token_reads"] =
      reads ? model::ToJson(*reads) : nlohmann::json{{"na", reads.error().message}};
  return f;
}

}  // namespace

model::ModelFormat Gguf() {
  return {.name = model::kGgufFormat,
          .about = "a .gguf file",
          .extensions = {".gguf"},
          .recognises = Recognises,
          .read = Read,
          .measure = Measure};
}

}  // namespace pipette::model_formats
