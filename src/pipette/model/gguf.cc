#include "pipette/model/gguf.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include "pipette/model/ggml_types.h"
#include "pipette/model/gguf_header_reader.h"
#include "pipette/util/utf8.h"

namespace pipette::model {
namespace {

constexpr char kMagic[4] = {'G', 'G', 'U', 'F'};
constexpr uint32_t kDefaultAlignment = 32;
constexpr uint32_t kMaxDims = 4;                 // GGML_MAX_DIMS
constexpr uint64_t kMaxKeyBytes = 65535;         // the GGUF spec caps keys at 2^16 - 1 bytes
constexpr uint64_t kMaxTensorNameBytes = 65535;  // ggml itself allows 63; this only bounds memory
constexpr int kMaxArrayDepth = 4;  // arrays of arrays of ... (the spec allows nesting)

// GGUF metadata value types.
enum ValueType : uint32_t {
  kUint8 = 0,
  kInt8 = 1,
  kUint16 = 2,
  kInt16 = 3,
  kUint32 = 4,
  kInt32 = 5,
  kFloat32 = 6,
  kBool = 7,
  kString = 8,
  kArray = 9,
  kUint64 = 10,
  kInt64 = 11,
  kFloat64 = 12,
  kValueTypeCount = 13,
};

constexpr std::array<const char*, kValueTypeCount> kValueTypeNames = {
    "uint8", "int8",   "uint16", "int16",  "uint32", "int32",  "float32",
    "bool",  "string", "array",  "uint64", "int64",  "float64"};

// Smallest encoding of one value of each type (string: its length; array: type and count).
constexpr std::array<uint64_t, kValueTypeCount> kMinValueBytes = {1, 1, 2,  2, 4, 4, 4,
                                                                  1, 8, 12, 8, 8, 8};

// Bytes of a fixed-size scalar value; 0 for string and array.
constexpr uint64_t ScalarBytes(uint32_t type) {
  return (type == kString || type == kArray) ? 0 : kMinValueBytes[type];
}

// enum llama_ftype (llama.h) without the LLAMA_FTYPE_MOSTLY_ prefix; nullptr for gaps.
constexpr std::array<const char*, 42> kFileTypes = {
    "F32",   "F16",     "Q4_0",      "Q4_1",   nullptr,  nullptr,   nullptr,  "Q8_0",   "Q5_0",
    "Q5_1",  "Q2_K",    "Q3_K_S",    "Q3_K_M", "Q3_K_L", "Q4_K_S",  "Q4_K_M", "Q5_K_S", "Q5_K_M",
    "Q6_K",  "IQ2_XXS", "IQ2_XS",    "Q2_K_S", "IQ3_XS", "IQ3_XXS", "IQ1_S",  "IQ4_NL", "IQ3_S",
    "IQ3_M", "IQ2_S",   "IQ2_M",     "IQ4_XS", "IQ1_M",  "BF16",    nullptr,  nullptr,  nullptr,
    "TQ1_0", "TQ2_0",   "MXFP4_MOE", "NVFP4",  "Q1_0",   "Q2_0"};

// A name from the file, quoted for an error message (control bytes escaped).
std::string Quote(std::string_view name) { return "'" + EscapeBytes(name) + "'"; }

// Shortest text that reads back as the same value; plain decimals ("100000", "0.00001") when
// those are short, else scientific ("1e-12").
template <class T>
std::string FormatFloat(T value) {
  char buf[512];  // fixed notation of a double can need ~330 characters
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::fixed);
  if (ec == std::errc() && end - buf <= 12) return std::string(buf, end);
  const auto [end2, ec2] = std::to_chars(buf, buf + sizeof(buf), value);
  if (ec2 != std::errc()) return "?";
  return std::string(buf, end2);
}

// Reads one metadata value of `type` and describes it as text (arrays are summarized).
Status ReadValue(HeaderReader& r, uint32_t type, int depth, std::string* text) {
  switch (type) {
    case kUint8: {
      uint8_t v = 0;
      if (Status s = r.ReadUint(&v); !s) return s;
      *text = std::to_string(v);
      return {};
    }
    case kInt8: {
      uint8_t v = 0;
      if (Status s = r.ReadUint(&v); !s) return s;
      *text = std::to_string(static_cast<int8_t>(v));
      return {};
    }
    case kUint16: {
      uint16_t v = 0;
      if (Status s = r.ReadUint(&v); !s) return s;
      *text = std::to_string(v);
      return {};
    }
    case kInt16: {
      uint16_t v = 0;
      if (Status s = r.ReadUint(&v); !s) return s;
      *text = std::to_string(static_cast<int16_t>(v));
      return {};
    }
    case kUint32: {
      uint32_t v = 0;
      if (Status s = r.ReadUint(&v); !s) return s;
      *text = std::to_string(v);
      return {};
    }
    case kInt32: {
      uint32_t v = 0;
      if (Status s = r.ReadUint(&v); !s) return s;
      *text = std::to_string(static_cast<int32_t>(v));
      return {};
    }
    case kUint64: {
      uint64_t v = 0;
      if (Status s = r.ReadUint(&v); !s) return s;
      *text = std::to_string(v);
      return {};
    }
    case kInt64: {
      uint64_t v = 0;
      if (Status s = r.ReadUint(&v); !s) return s;
      *text = std::to_string(static_cast<int64_t>(v));
      return {};
    }
    case kFloat32: {
      uint32_t v = 0;
      if (Status s = r.ReadUint(&v); !s) return s;
      *text = FormatFloat(std::bit_cast<float>(v));
      return {};
    }
    case kFloat64: {
      uint64_t v = 0;
      if (Status s = r.ReadUint(&v); !s) return s;
      *text = FormatFloat(std::bit_cast<double>(v));
      return {};
    }
    case kBool: {
      uint8_t v = 0;
      if (Status s = r.ReadUint(&v); !s) return s;
      *text = v != 0 ? "true" : "false";
      return {};
    }
    case kString:
      return r.ReadString(text, r.remaining());
    case kArray: {
      const uint64_t at = r.pos();
      uint32_t elem_type = 0;
      uint64_t count = 0;
      if (Status s = r.ReadUint(&elem_type); !s) return s;
      if (Status s = r.ReadUint(&count); !s) return s;
      if (elem_type >= kValueTypeCount) {
        return r.Invalid("unknown array element type " + std::to_string(elem_type) + " at offset " +
                         std::to_string(at) + " in " + r.context());
      }
      if (elem_type == kArray && depth + 1 >= kMaxArrayDepth) {
        return r.Invalid("arrays nested more than " + std::to_string(kMaxArrayDepth) +
                         " deep at offset " + std::to_string(at) + " in " + r.context());
      }
      if (count > r.remaining() / kMinValueBytes[elem_type]) {
        return r.Invalid("array of " + std::to_string(count) + " " + kValueTypeNames[elem_type] +
                         " at offset " + std::to_string(at) + " in " + r.context() +
                         " cannot fit in the " + std::to_string(r.remaining()) +
                         " bytes left in the file (corrupt or truncated file)");
      }
      if (const uint64_t size = ScalarBytes(elem_type); size != 0) {
        if (Status s = r.Skip(count * size); !s) return s;
      } else if (elem_type == kString) {
        for (uint64_t i = 0; i < count; ++i) {
          if (Status s = r.SkipString(); !s) return s;
        }
      } else {
        std::string ignored;
        for (uint64_t i = 0; i < count; ++i) {
          if (Status s = ReadValue(r, kArray, depth + 1, &ignored); !s) return s;
        }
      }
      *text = "[array of " + std::to_string(count) + " " + kValueTypeNames[elem_type] + "]";
      return {};
    }
    default:
      return r.Invalid("unknown metadata value type " + std::to_string(type) + " at offset " +
                       std::to_string(r.pos() - 4) + " in " + r.context());
  }
}

// Sets *sum = a + b; true when that overflows.
bool AddOverflows(uint64_t a, uint64_t b, uint64_t* sum) {
  return __builtin_add_overflow(a, b, sum);
}

uint64_t ElementCount(const std::vector<uint64_t>& dims) {
  uint64_t n = 1;
  for (uint64_t d : dims) n *= d;  // validated not to overflow when the file was read
  return n;
}

}  // namespace

uint64_t GgufFile::n_params() const {
  uint64_t total = 0;
  for (const GgufTensor& t : tensors) {
    if (AddOverflows(total, ElementCount(t.dims), &total)) {
      return std::numeric_limits<uint64_t>::max();
    }
  }
  return total;
}

std::optional<std::string> GgufFile::architecture() const {
  auto it = metadata.find("general.architecture");
  if (it == metadata.end()) return std::nullopt;
  return it->second;
}

std::optional<int> GgufFile::file_type() const {
  auto it = metadata.find("general.file_type");
  if (it == metadata.end()) return std::nullopt;
  const std::string& s = it->second;
  int value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return value;
}

std::optional<std::string> FileTypeName(int file_type) {
  if (file_type < 0 || static_cast<size_t>(file_type) >= kFileTypes.size()) return std::nullopt;
  const char* name = kFileTypes[static_cast<size_t>(file_type)];
  if (name == nullptr) return std::nullopt;
  return std::string(name);
}

std::optional<std::string> GgmlTypeName(uint32_t type) {
  const GgmlType* traits = FindGgmlType(type);
  if (traits == nullptr) return std::nullopt;
  return std::string(traits->name);
}

Result<GgufFile> ReadGguf(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status status = fs::status(path, ec);
  if (ec || !fs::exists(status)) {
    return InputError(path + ": cannot open: " + (ec ? ec.message() : ErrnoText(ENOENT)));
  }
  if (fs::is_directory(status)) return InputError(path + ": is a directory, not a GGUF file");
  if (!fs::is_regular_file(status)) return InputError(path + ": not a regular file");

  const uint64_t file_size = fs::file_size(path, ec);
  if (ec) return InputError(path + ": cannot read the file size: " + ec.message());

  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) return InputError(path + ": cannot open: " + ErrnoText(errno != 0 ? errno : EIO));
  return ReadGguf(in, file_size, path);
}

Result<GgufFile> ParseGguf(std::string_view bytes, const std::string& path) {
  std::istringstream in(std::string(bytes), std::ios::binary);
  return ReadGguf(in, bytes.size(), path);
}

Result<GgufFile> ReadGguf(std::istream& in, uint64_t file_size, const std::string& path) {
  GgufFile file;
  file.alignment = kDefaultAlignment;
  file.file_size = file_size;
  HeaderReader r(in, path, file.file_size);

  // Magic and version.
  if (file.file_size < sizeof(kMagic)) {
    return r.Invalid("not a GGUF file (only " + std::to_string(file.file_size) +
                     " bytes; expected the magic 'GGUF')");
  }
  char magic[sizeof(kMagic)];
  if (Status s = r.Read(magic, sizeof(magic)); !s) return s.error();
  if (!std::equal(std::begin(magic), std::end(magic), std::begin(kMagic))) {
    return r.Invalid("not a GGUF file (magic '" +
                     EscapeBytes(std::string_view(magic, sizeof(magic))) + "'; expected 'GGUF')");
  }
  if (Status s = r.ReadUint(&file.version); !s) return s.error();
  if (file.version != 2 && file.version != 3) {
    const uint32_t v = file.version;
    const uint32_t swapped = (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
    if (swapped == 2 || swapped == 3) {
      return r.Invalid("big-endian GGUF files are not supported (version field reads " +
                       std::to_string(swapped) + " byte-swapped)");
    }
    return r.Invalid("unsupported GGUF version " + std::to_string(file.version) +
                     " (expected 2 or 3)");
  }

  // Counts: each metadata pair takes at least 13 bytes (key length, value type, a 1-byte value)
  // and each tensor info at least 24 (name length, n_dims, type, offset).
  constexpr uint64_t kMinKvBytes = 8 + 4 + 1;
  constexpr uint64_t kMinTensorInfoBytes = 8 + 4 + 4 + 8;
  uint64_t tensor_count = 0;
  uint64_t kv_count = 0;
  if (Status s = r.ReadUint(&tensor_count); !s) return s.error();
  if (Status s = r.ReadUint(&kv_count); !s) return s.error();
  if (tensor_count > r.remaining() / kMinTensorInfoBytes) {
    return r.Invalid("tensor count " + std::to_string(tensor_count) + " cannot fit in a file of " +
                     std::to_string(file.file_size) + " bytes (corrupt or truncated file)");
  }
  if (kv_count > (r.remaining() - tensor_count * kMinTensorInfoBytes) / kMinKvBytes) {
    return r.Invalid("metadata count " + std::to_string(kv_count) + " cannot fit in a file of " +
                     std::to_string(file.file_size) + " bytes (corrupt or truncated file)");
  }

  // Metadata.
  for (uint64_t i = 0; i < kv_count; ++i) {
    r.set_context("metadata key #" + std::to_string(i));
    std::string key;
    if (Status s = r.ReadString(&key, kMaxKeyBytes); !s) return s.error();
    if (file.metadata.count(key) != 0) return r.Invalid("duplicate metadata key " + Quote(key));
    r.set_context("the value of metadata key " + Quote(key));
    const uint64_t type_at = r.pos();
    uint32_t type = 0;
    if (Status s = r.ReadUint(&type); !s) return s.error();
    std::string text;
    if (key == "general.alignment") {
      if (type != kUint32) {
        return r.Invalid(
            "general.alignment must be a uint32, not type " +
            (type < kValueTypeCount ? std::string(kValueTypeNames[type]) : std::to_string(type)) +
            " (at offset " + std::to_string(type_at) + ")");
      }
      uint32_t alignment = 0;
      if (Status s = r.ReadUint(&alignment); !s) return s.error();
      if (alignment == 0 || (alignment & (alignment - 1)) != 0) {
        return r.Invalid("general.alignment " + std::to_string(alignment) +
                         " is not a power of two");
      }
      file.alignment = alignment;
      text = std::to_string(alignment);
    } else if (Status s = ReadValue(r, type, 0, &text); !s) {
      return s.error();
    }
    file.metadata.emplace(std::move(key), std::move(text));
  }

  // Tensor infos.
  if (tensor_count > r.remaining() / kMinTensorInfoBytes) {
    return r.Invalid("tensor count " + std::to_string(tensor_count) + " cannot fit in the " +
                     std::to_string(r.remaining()) +
                     " bytes after the metadata (corrupt or truncated file)");
  }
  std::set<std::string> names;
  for (uint64_t i = 0; i < tensor_count; ++i) {
    r.set_context("tensor info #" + std::to_string(i));
    GgufTensor t;
    if (Status s = r.ReadString(&t.name, kMaxTensorNameBytes); !s) return s.error();
    if (!names.insert(t.name).second) return r.Invalid("duplicate tensor name " + Quote(t.name));
    r.set_context("the info of tensor " + Quote(t.name));
    uint32_t n_dims = 0;
    if (Status s = r.ReadUint(&n_dims); !s) return s.error();
    if (n_dims > kMaxDims) {
      return r.Invalid("tensor " + Quote(t.name) + " has " + std::to_string(n_dims) +
                       " dimensions (ggml allows at most " + std::to_string(kMaxDims) + ")");
    }
    uint64_t n_elements = 1;
    for (uint32_t d = 0; d < n_dims; ++d) {
      uint64_t dim = 0;
      if (Status s = r.ReadUint(&dim); !s) return s.error();
      if (dim > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) ||
          __builtin_mul_overflow(n_elements, dim, &n_elements) ||
          n_elements > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
        return r.Invalid("tensor " + Quote(t.name) + " has an impossible shape (dimension " +
                         std::to_string(d) + " is " + std::to_string(dim) + ")");
      }
      t.dims.push_back(dim);
    }
    if (Status s = r.ReadUint(&t.type); !s) return s.error();
    const GgmlType* traits = FindGgmlType(t.type);
    if (traits == nullptr) {
      return r.Invalid("tensor " + Quote(t.name) + " has unknown ggml type " +
                       std::to_string(t.type));
    }
    t.type_name = traits->name;
    const uint64_t row = t.dims.empty() ? 1 : t.dims[0];
    if (row % traits->block_size != 0) {
      return r.Invalid("tensor " + Quote(t.name) + " of type " + t.type_name + " has rows of " +
                       std::to_string(row) + " elements, not a multiple of the block size " +
                       std::to_string(traits->block_size));
    }
    if (__builtin_mul_overflow(n_elements / traits->block_size, uint64_t{traits->type_size},
                               &t.n_bytes)) {
      return r.Invalid("tensor " + Quote(t.name) + " is too large to address");
    }
    if (Status s = r.ReadUint(&t.offset); !s) return s.error();
    file.tensors.push_back(std::move(t));
  }

  // Tensor data: starts at the next multiple of the alignment after the header.
  const uint64_t header_end = r.pos();
  file.data_offset = header_end;
  if (!file.tensors.empty()) {
    const uint64_t misalign = header_end % file.alignment;
    if (misalign != 0) file.data_offset += file.alignment - misalign;
    if (file.data_offset > file.file_size) {
      return InputError(path + ": truncated: tensor data should start at byte " +
                        std::to_string(file.data_offset) + " but the file has " +
                        std::to_string(file.file_size) + " bytes");
    }
  }
  std::vector<std::pair<uint64_t, size_t>> extents;  // (start, index) to find overlaps
  extents.reserve(file.tensors.size());
  for (size_t i = 0; i < file.tensors.size(); ++i) {
    const GgufTensor& t = file.tensors[i];
    if (t.offset % file.alignment != 0) {
      return r.Invalid("tensor " + Quote(t.name) + " has data offset " + std::to_string(t.offset) +
                       ", not a multiple of the alignment " + std::to_string(file.alignment));
    }
    uint64_t start = 0;
    uint64_t end = 0;
    if (AddOverflows(file.data_offset, t.offset, &start) || AddOverflows(start, t.n_bytes, &end)) {
      return r.Invalid("tensor " + Quote(t.name) + " has data offset " + std::to_string(t.offset) +
                       " and size " + std::to_string(t.n_bytes) + ", beyond any file");
    }
    if (end > file.file_size) {
      return InputError(path + ": truncated: tensor " + Quote(t.name) + " ends at byte " +
                        std::to_string(end) + " but the file has " +
                        std::to_string(file.file_size) + " bytes");
    }
    extents.emplace_back(t.offset, i);
  }
  std::sort(extents.begin(), extents.end());
  for (size_t k = 1; k < extents.size(); ++k) {
    const GgufTensor& prev = file.tensors[extents[k - 1].second];
    const GgufTensor& cur = file.tensors[extents[k].second];
    if (prev.offset + prev.n_bytes > cur.offset) {
      return r.Invalid("the data of tensors " + Quote(prev.name) + " and " + Quote(cur.name) +
                       " overlap");
    }
  }
  return file;
}

}  // namespace pipette::model
