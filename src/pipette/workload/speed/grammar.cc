#include "pipette/workload/speed/grammar.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdint>

#include "pipette/workload/speed/test_kind.h"

namespace pipette::workload::speed {

std::optional<Result<config::TestSpec>> TokensAfter(std::string_view text, std::string_view prefix,
                                                    const std::string& kind,
                                                    const std::string& canonical_prefix) {
  if (!text.starts_with(prefix)) return std::nullopt;
  const std::string_view num = text.substr(prefix.size());
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  const bool digits = !num.empty() && ptr == num.data() + num.size();
  if (digits &&
      (ec == std::errc::result_out_of_range || (ec == std::errc() && v > kMaxTestTokens))) {
    return Result<config::TestSpec>(
        InputError(fmt::format("test '{}' asks for {} tokens: a test takes at most {} (2^24)", text,
                               num, kMaxTestTokens)));
  }
  if (!digits || ec != std::errc()) {
    return Result<config::TestSpec>(InputError(
        fmt::format("test '{}' needs a whole number of tokens after '{}', e.g. pp512, tg128, "
                    "ttft@256",
                    text, text.substr(0, text.size() - num.size()))));
  }
  if (v < 1) {
    return Result<config::TestSpec>(InputError(
        fmt::format("test '{}' needs a positive token count, e.g. pp512, tg128, ttft@256", text)));
  }
  config::TestSpec t;
  t.kind = kind;
  t.n = static_cast<int>(v);
  t.name = canonical_prefix + std::to_string(v);
  return Result<config::TestSpec>(std::move(t));
}

Result<int> TestTokens(std::string_view text, std::string_view num, std::string_view what) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  const bool digits = !num.empty() && ptr == num.data() + num.size();
  if (digits &&
      (ec == std::errc::result_out_of_range || (ec == std::errc() && v > kMaxTestTokens))) {
    return InputError(fmt::format("test '{}' asks for {} tokens: a test takes at most {} (2^24)",
                                  text, num, kMaxTestTokens));
  }
  if (!digits || ec != std::errc() || v < 1) {
    return InputError(
        fmt::format("test '{}' needs a positive whole number of tokens for {}, e.g. "
                    "e2e@128+64",
                    text, what));
  }
  return static_cast<int>(v);
}

}  // namespace pipette::workload::speed
