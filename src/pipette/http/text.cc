#include "pipette/http/text.h"

#include <fmt/format.h>

#include <algorithm>

namespace pipette::http {
namespace {

constexpr std::string_view kKeyMark = "[api key]";

bool SchemeChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '-' || c == '.';
}

// Where a URL written in running text ends: at a space, a quote, an angle bracket, a control
// character or the end.
bool EndsUrl(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u <= 0x20 || u == 0x7f || c == '\'' || c == '"' || c == '<' || c == '>' || c == '`';
}

// The length of the valid UTF-8 sequence at `s[i]`, or 0 when the bytes there are not one.
size_t Utf8Length(std::string_view s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) {
    n = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    n = 3;
    if (c == 0xE0) lo = 0xA0;  // no overlong form
    if (c == 0xED) hi = 0x9F;  // no surrogate
  } else if (c >= 0xF0 && c <= 0xF4) {
    n = 4;
    if (c == 0xF0) lo = 0x90;
    if (c == 0xF4) hi = 0x8F;  // nothing past U+10FFFF
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k) {
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  }
  return n;
}

}  // namespace

std::string RedactSecret(std::string_view text, std::string_view secret) {
  std::string out(text);
  if (secret.empty()) return out;
  for (size_t p = out.find(secret); p != std::string::npos; p = out.find(secret, p)) {
    out.replace(p, secret.size(), kKeyMark);
    p += kKeyMark.size();
  }
  // A cut through the secret: its longest prefix that ends the text, its longest suffix that
  // starts it.
  for (size_t n = std::min(secret.size() - 1, out.size()); n >= kMinSecretPart; --n) {
    if (out.compare(out.size() - n, n, secret.substr(0, n)) == 0) {
      out.replace(out.size() - n, n, kKeyMark);
      break;
    }
  }
  for (size_t n = std::min(secret.size() - 1, out.size()); n >= kMinSecretPart; --n) {
    if (out.compare(0, n, secret.substr(secret.size() - n)) == 0) {
      out.replace(0, n, kKeyMark);
      break;
    }
  }
  return out;
}

std::string RedactUrls(std::string_view text) {
  std::string out;
  size_t done = 0;  // text[0, done) is in `out`
  for (size_t sep = text.find("://"); sep != std::string_view::npos;
       sep = text.find("://", sep + 3)) {
    if (sep < done) continue;
    size_t start = sep;
    while (start > done && SchemeChar(text[start - 1])) --start;
    if (start == sep) continue;  // no scheme before "://"
    size_t end = sep + 3;
    while (end < text.size() && !EndsUrl(text[end])) ++end;
    const std::string_view rest = text.substr(sep + 3, end - sep - 3);
    const size_t authority_end = rest.find_first_of("/?#");
    const std::string_view authority = rest.substr(0, authority_end);
    std::string url(text.substr(start, sep + 3 - start));
    const size_t at = authority.rfind('@');
    std::string_view after = rest;
    if (at != std::string_view::npos) {
      url += "[credentials]@";
      after = rest.substr(at + 1);
    }
    const size_t query = after.find_first_of("?#");
    url += after.substr(0, query);
    if (query != std::string_view::npos) url += "?[redacted]";
    out += text.substr(done, start - done);
    out += url;
    done = end;
  }
  out += text.substr(done);
  return out;
}

std::string ServerText(std::string_view text, std::string_view secret, size_t max) {
  const std::string redacted = RedactUrls(RedactSecret(text, secret));
  std::string clean;
  clean.reserve(std::min(redacted.size(), max + 64));
  for (size_t i = 0; i < redacted.size();) {
    const size_t n = Utf8Length(redacted, i);
    if (n == 0) {
      clean += '?';
      ++i;
      continue;
    }
    if (n == 1 && HasControlCharacter(redacted.substr(i, 1))) {
      clean += ' ';
    } else {
      clean.append(redacted, i, n);
    }
    i += n;
    if (clean.size() > max + 4) {                    // enough to cut at a character's start
      clean.append(redacted, i, std::string::npos);  // counted below, never kept
      break;
    }
  }
  if (clean.size() <= max) return clean;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(clean[cut]) & 0xC0) == 0x80) --cut;
  const size_t more = clean.size() - cut;
  clean.resize(cut);
  return clean + fmt::format(" ... [{} more bytes]", more);
}

bool HasControlCharacter(std::string_view value) {
  return std::any_of(value.begin(), value.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u < 0x20 || u == 0x7f;
  });
}

}  // namespace pipette::http
