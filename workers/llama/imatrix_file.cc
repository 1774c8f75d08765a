#include "imatrix_file.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <system_error>

namespace pipette::llama_worker {
namespace {

using nlohmann::json;

// The shortest text that reads back as the same float (a float printed as a double would
// carry ~17 digits of noise).
void AppendFloat(std::string* out, float value) {
  char buf[32];
  const auto result = std::to_chars(buf, buf + sizeof(buf), value);
  out->append(buf, result.ptr);
}

std::string Serialise(const ImatrixFile& file) {
  std::string out = "{\"format\":" + json(kImatrixFormat).dump() +
                    ",\"n_chunks\":" + std::to_string(file.n_chunks) +
                    ",\"n_tokens\":" + std::to_string(file.n_tokens) + ",\"entries\":{";
  bool first_entry = true;
  for (const auto& [name, entry] : file.entries) {
    if (!first_entry) out += ',';
    first_entry = false;
    out += '\n';
    out += json(name).dump();
    out += ":{\"count\":" + std::to_string(entry.count) + ",\"values\":[";
    for (size_t i = 0; i < entry.values.size(); ++i) {
      if (i > 0) out += ',';
      AppendFloat(&out, entry.values[i]);
    }
    out += "]}";
  }
  out += "}}\n";
  return out;
}

}  // namespace

Status WriteImatrixFile(const std::string& path, const ImatrixFile& file) {
  for (const auto& [name, entry] : file.entries) {
    for (float v : entry.values) {
      if (!std::isfinite(v)) return Error{"the importance matrix of " + name + " is not finite"};
    }
  }
  const std::string text = Serialise(file);
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "wb");
  if (f == nullptr) return Error{"cannot create " + tmp};
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const bool closed = std::fclose(f) == 0;
  std::error_code ec;
  if (!written || !closed) {
    std::filesystem::remove(tmp, ec);
    return Error{"cannot write " + tmp};
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::error_code ignored;
    std::filesystem::remove(tmp, ignored);
    return Error{"cannot rename " + tmp + " to " + path + ": " + ec.message()};
  }
  return {};
}

Result<ImatrixFile> ReadImatrixFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Error{"cannot open the imatrix file " + path};
  const json doc = json::parse(in, nullptr, /*allow_exceptions=*/false);
  const std::string bad = "the imatrix file " + path + " ";
  if (doc.is_discarded() || !doc.is_object()) return Error{bad + "is not a JSON object"};
  const auto format = doc.find("format");
  if (format == doc.end() || *format != kImatrixFormat) {
    return Error{bad + "is not in the format \"" + kImatrixFormat + "\""};
  }
  const auto n_chunks = doc.find("n_chunks");
  const auto n_tokens = doc.find("n_tokens");
  const auto entries = doc.find("entries");
  if (n_chunks == doc.end() || !n_chunks->is_number_integer() || n_tokens == doc.end() ||
      !n_tokens->is_number_integer() || entries == doc.end() || !entries->is_object()) {
    return Error{bad + "needs integer 'n_chunks' and 'n_tokens' and an object 'entries'"};
  }
  ImatrixFile result;
  result.n_chunks = n_chunks->get<int64_t>();
  result.n_tokens = n_tokens->get<int64_t>();
  for (const auto& [name, value] : entries->items()) {
    const std::string where = bad + "entry '" + name + "' ";
    if (!value.is_object()) return Error{where + "is not an object"};
    const auto count = value.find("count");
    const auto values = value.find("values");
    if (count == value.end() || !count->is_number_integer() || values == value.end() ||
        !values->is_array() || values->empty()) {
      return Error{where + "needs an integer 'count' and a non-empty array 'values'"};
    }
    ImatrixEntry entry;
    entry.count = count->get<int64_t>();
    entry.values.reserve(values->size());
    for (const json& v : *values) {
      if (!v.is_number()) return Error{where + "holds a value that is not a number"};
      const float f = v.get<float>();
      if (!std::isfinite(f) || f < 0) return Error{where + "holds a negative or non-finite value"};
      entry.values.push_back(f);
    }
    result.entries.emplace(name, std::move(entry));
  }
  if (result.entries.empty()) return Error{bad + "has no entries"};
  return result;
}

}  // namespace pipette::llama_worker
