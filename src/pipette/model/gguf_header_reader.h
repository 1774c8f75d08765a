// The bounded reader of a GGUF file's header (model/gguf.cc): sequential little-endian reads,
// each checked against the file's size before it is made, so that no length from the file is
// trusted before it is known to fit; its errors name the file, the offset and what was being
// read ("the value of metadata key 'general.name'").
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "pipette/util/result.h"

namespace pipette::model {

// Bytes as they would appear in a C string literal: "PK\x03\x04".
std::string EscapeBytes(std::string_view bytes);
// errno's words ("No such file or directory").
std::string ErrnoText(int err);

class HeaderReader {
 public:
  HeaderReader(std::istream& in, const std::string& path, uint64_t file_size)
      : in_(in), path_(path), file_size_(file_size) {}

  uint64_t pos() const { return pos_; }
  uint64_t remaining() const { return file_size_ - pos_; }

  // Where the bytes being read belong, for error messages: "metadata key 'general.name'".
  void set_context(std::string context) { context_ = std::move(context); }
  const std::string& context() const { return context_; }

  Error Invalid(const std::string& problem) const { return InputError(path_ + ": " + problem); }

  Status Read(void* dst, uint64_t n);
  Status Skip(uint64_t n);

  template <class T>
  Status ReadUint(T* value) {
    static_assert(std::is_unsigned_v<T>);
    unsigned char bytes[sizeof(T)];
    if (Status s = Read(bytes, sizeof(T)); !s) return s;
    T v = 0;
    for (size_t i = 0; i < sizeof(T); ++i) v |= static_cast<T>(bytes[i]) << (8 * i);
    *value = v;
    return {};
  }

  // A GGUF string: uint64 length, then that many bytes of UTF-8 (the format's own rule; what is
  // kept, a key, a value or a tensor name, reaches the store's JSON, which refuses anything else).
  Status ReadString(std::string* s, uint64_t max_bytes);
  // Skips a GGUF string without keeping it.
  Status SkipString();

 private:
  // A string's length, checked against what is left of the file before anything is allocated.
  Status ReadStringLength(uint64_t* len);
  Error Truncated(uint64_t n) const;
  Error ReadFailed() const;

  std::istream& in_;
  const std::string& path_;
  const uint64_t file_size_;
  uint64_t pos_ = 0;
  std::string context_ = "the header";
};

}  // namespace pipette::model
