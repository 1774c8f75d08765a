// Server-sent events (the WHATWG "text/event-stream" format) as OpenAI-compatible servers stream
// them: bytes in, events out. Pure: the HTTP client feeds it whatever the socket gave, in pieces
// of any size, and stamps each event with the arrival time of the bytes that completed it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/util/result.h"

namespace pipette::http {

// The longest line, and the most data one event may hold (the `data:` lines joined): a server's
// chunk is a few hundred bytes; more is a broken or hostile server, never buffered.
inline constexpr size_t kMaxSseLine = 1 << 20;
inline constexpr size_t kMaxSseEvent = 1 << 20;

struct SseEvent {
  std::string event;  // the `event:` field; empty: the default ("message")
  std::string data;   // the `data:` lines joined with "\n"
  int64_t t_ns = 0;   // arrival of the bytes that ended it (the blank line)
};

class SseParser {
 public:
  // Appends the events the bytes complete to `out`. Lines end with LF, CRLF or CR; a CR at the
  // end of one piece may be the first half of a CRLF split across pieces. An error (and the
  // stream is over) when a line grows past kMaxSseLine or an event's data past kMaxSseEvent.
  Result<void> Feed(std::string_view bytes, int64_t t_ns, std::vector<SseEvent>* out);
  // The stream ended: an event not ended by a blank line is dropped (the format's rule), and
  // whether there was one is returned (a stream cut mid-event).
  bool Finish();

 private:
  Result<void> Line(std::string_view line, int64_t t_ns, std::vector<SseEvent>* out);

  std::string partial_;  // the current line's bytes so far
  bool after_cr_ = false;
  bool has_data_ = false;
  bool pending_ = false;  // a field of an event not yet ended
  SseEvent current_;
};

}  // namespace pipette::http
