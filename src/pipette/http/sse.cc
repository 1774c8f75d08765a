#include "pipette/http/sse.h"

#include <fmt/format.h>

#include <utility>

namespace pipette::http {

Result<void> SseParser::Feed(std::string_view bytes, int64_t t_ns, std::vector<SseEvent>* out) {
  for (char c : bytes) {
    if (after_cr_) {
      after_cr_ = false;
      if (c == '\n') continue;  // the LF of a CRLF
    }
    if (c == '\r' || c == '\n') {
      after_cr_ = c == '\r';
      auto st = Line(partial_, t_ns, out);
      partial_.clear();
      if (!st) return st;
    } else if (partial_.size() >= kMaxSseLine) {
      partial_.clear();
      return RuntimeError(
          fmt::format("a line of the event stream is longer than {} bytes", kMaxSseLine));
    } else {
      partial_ += c;
    }
  }
  return {};
}

Result<void> SseParser::Line(std::string_view line, int64_t t_ns, std::vector<SseEvent>* out) {
  if (line.empty()) {  // dispatch
    if (has_data_) {
      current_.t_ns = t_ns;
      out->push_back(std::move(current_));
    }
    current_ = SseEvent{};
    has_data_ = false;
    pending_ = false;
    return {};
  }
  if (line.front() == ':') return {};  // a comment (servers send them as keep-alives)
  const size_t colon = line.find(':');
  std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  pending_ = true;
  if (field == "data") {
    if (current_.data.size() + value.size() + 1 > kMaxSseEvent) {
      current_ = SseEvent{};
      return RuntimeError(
          fmt::format("an event of the event stream holds more than {} bytes", kMaxSseEvent));
    }
    if (has_data_) current_.data += '\n';
    current_.data += value;
    has_data_ = true;
  } else if (field == "event") {
    current_.event = std::string(value);
  }
  // id and retry are not used by these servers' streams; other fields are ignored (the rule).
  return {};
}

bool SseParser::Finish() {
  const bool cut = pending_ || !partial_.empty();
  partial_.clear();
  current_ = SseEvent{};
  has_data_ = pending_ = after_cr_ = false;
  return cut;
}

}  // namespace pipette::http
