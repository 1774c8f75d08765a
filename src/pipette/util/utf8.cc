#include "pipette/util/utf8.h"

#include <fmt/format.h>

#include <algorithm>

namespace pipette {

std::optional<size_t> FirstInvalidUtf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const size_t n = text.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // the range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // no overlong form
      if (c == 0xED) hi = 0x9F;  // no surrogate
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;  // no overlong form
      if (c == 0xF4) hi = 0x8F;  // nothing past U+10FFFF
    } else {
      return i;  // a continuation byte without a lead, 0xC0, 0xC1, or 0xF5 and above
    }
    if (i + 1 >= n || s[i + 1] < lo || s[i + 1] > hi) return i;
    for (size_t k = 2; k < len; ++k) {
      if (i + k >= n || (s[i + k] & 0xC0) != 0x80) return i;
    }
    i += len;
  }
  return std::nullopt;
}

std::string ValidUtf8(std::string text) {
  std::optional<size_t> bad = FirstInvalidUtf8(text);
  if (!bad) return text;
  std::string out;
  out.reserve(text.size() + 16);
  std::string_view rest(text);
  while (bad) {
    out.append(rest.substr(0, *bad));
    out.append("\xEF\xBF\xBD");  // U+FFFD
    rest.remove_prefix(*bad + 1);
    bad = FirstInvalidUtf8(rest);
  }
  out.append(rest);
  return out;
}

Error NotUtf8Error(const std::string& file, std::string_view text, size_t offset, int first_line,
                   size_t base) {
  offset = std::min(offset, text.size());
  const std::string_view before = text.substr(0, offset);
  const int line = first_line + static_cast<int>(std::count(before.begin(), before.end(), '\n'));
  const size_t nl = before.rfind('\n');
  const size_t column = offset - (nl == std::string_view::npos ? 0 : nl + 1) + 1;
  const std::string byte =
      offset < text.size() ? fmt::format("byte 0x{:02X}", static_cast<unsigned char>(text[offset]))
                           : std::string("the end");
  return ErrorAt({file, line, static_cast<int>(column)},
                 fmt::format("not UTF-8: {} (offset {} of the file) starts no well-formed UTF-8 "
                             "sequence; save the text as UTF-8",
                             byte, base + offset),
                 2);
}

}  // namespace pipette
