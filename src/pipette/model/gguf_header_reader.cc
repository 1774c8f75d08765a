#include "pipette/model/gguf_header_reader.h"

#include <cerrno>
#include <optional>
#include <system_error>

#include "pipette/util/utf8.h"

namespace pipette::model {
namespace {

constexpr uint64_t kSeekThreshold = 64 * 1024;  // skips longer than this seek instead of reading

}  // namespace

std::string ErrnoText(int err) { return std::error_code(err, std::system_category()).message(); }

std::string EscapeBytes(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    const auto b = static_cast<unsigned char>(c);
    if (c == '\\' || c == '\'') {
      out.push_back('\\');
      out.push_back(c);
    } else if (b >= 0x20 && b < 0x7f) {
      out.push_back(c);
    } else {
      out += "\\x";
      out.push_back(kHex[b >> 4]);
      out.push_back(kHex[b & 0xf]);
    }
  }
  return out;
}

Status HeaderReader::Read(void* dst, uint64_t n) {
  if (n > remaining()) return Truncated(n);
  in_.read(static_cast<char*>(dst), static_cast<std::streamsize>(n));
  if (static_cast<uint64_t>(in_.gcount()) != n) return ReadFailed();
  pos_ += n;
  return {};
}

Status HeaderReader::Skip(uint64_t n) {
  if (n > remaining()) return Truncated(n);
  if (n <= kSeekThreshold) {
    in_.ignore(static_cast<std::streamsize>(n));
    if (static_cast<uint64_t>(in_.gcount()) != n) return ReadFailed();
  } else {
    in_.seekg(static_cast<std::streamoff>(pos_ + n));
    if (!in_) return ReadFailed();
  }
  pos_ += n;
  return {};
}

Status HeaderReader::ReadString(std::string* s, uint64_t max_bytes) {
  const uint64_t at = pos_;
  uint64_t len = 0;
  if (Status st = ReadStringLength(&len); !st) return st;
  if (len > max_bytes) {
    return Invalid("string of " + std::to_string(len) + " bytes at offset " + std::to_string(at) +
                   " in " + context_ + " is longer than the limit of " + std::to_string(max_bytes));
  }
  s->resize(len);
  if (Status st = Read(s->data(), len); !st) return st;
  if (const std::optional<size_t> bad = FirstInvalidUtf8(*s)) {
    return Invalid("the string at offset " + std::to_string(at) + " in " + context_ +
                   " is not UTF-8: byte " + EscapeBytes(s->substr(*bad, 1)) + " at offset " +
                   std::to_string(at + 8 + *bad) + " (GGUF strings are UTF-8)");
  }
  return {};
}

Status HeaderReader::SkipString() {
  uint64_t len = 0;
  if (Status st = ReadStringLength(&len); !st) return st;
  return Skip(len);
}

Status HeaderReader::ReadStringLength(uint64_t* len) {
  const uint64_t at = pos_;
  if (Status st = ReadUint(len); !st) return st;
  // A length that would fit in a file this size most likely means the file was cut short.
  if (*len > remaining() && *len <= file_size_) return Truncated(*len);
  if (*len > remaining()) {
    return Invalid("invalid string length " + std::to_string(*len) + " at offset " +
                   std::to_string(at) + " in " + context_ + ": only " +
                   std::to_string(remaining()) + " bytes remain in the file");
  }
  return {};
}

Error HeaderReader::Truncated(uint64_t n) const {
  return InputError(path_ + ": truncated: the file ends at byte " + std::to_string(file_size_) +
                    ", inside " + context_ + " (needed " + std::to_string(n) + " bytes at offset " +
                    std::to_string(pos_) + ")");
}

Error HeaderReader::ReadFailed() const {
  const int err = errno != 0 ? errno : EIO;
  return Error{path_ + ": read error at offset " + std::to_string(pos_) + " in " + context_ + ": " +
               ErrnoText(err)};
}

}  // namespace pipette::model
