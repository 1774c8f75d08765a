#include "pipette/worker/line_channel.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>

#include "pipette/protocol/frames.h"
#include "pipette/protocol/ops.h"

namespace pipette::worker {
namespace {

using protocol::Deadline;
using protocol::IoError;
using std::chrono::milliseconds;

// Frame values are read straight into floats: little-endian, like the frames (frames.h).
static_assert(std::endian::native == std::endian::little,
              "a big-endian controller would have to swap the float32 values of frames");

constexpr size_t kReadChunk = 65536;

}  // namespace

LineChannel::LineChannel(std::unique_ptr<protocol::Transport> transport, std::string name)
    : transport_(std::move(transport)), name_(std::move(name)) {}

LineChannel::~LineChannel() { Shutdown(milliseconds(2000)); }

CallError LineChannel::Broken(const std::string& op, std::string why) {
  if (transport_->Alive()) transport_->Kill();
  return BrokenCall(op, std::move(why), name_);
}

Result<nlohmann::json, CallError> LineChannel::Call(nlohmann::json request, milliseconds timeout) {
  const std::string op = request.value("op", std::string("?"));
  if (!Alive()) return Broken(op, "the worker is not running");
  const int64_t id = ++next_id_;
  request["id"] = id;
  const std::string line = request.dump() + "\n";
  const Deadline deadline = std::chrono::steady_clock::now() + timeout;
  if (auto sent = transport_->Write(line, deadline); !sent) {
    if (sent.error().kind == IoError::Kind::kTimedOut) {
      return Broken(op, fmt::format("the worker did not read '{}' within {:g}s: it was killed", op,
                                    timeout.count() / 1000.0));
    }
    return Broken(op, fmt::format("could not send '{}' to the worker ({}): {}", op,
                                  sent.error().message, transport_->ExitDescription()));
  }
  std::string response_line;
  while (true) {
    const size_t nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      response_line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      break;
    }
    char chunk[kReadChunk];
    auto got = transport_->Read(chunk, sizeof chunk, deadline);
    if (!got) {
      if (got.error().kind == IoError::Kind::kTimedOut) {
        return Broken(op, fmt::format("no response to '{}' within {:g}s: the worker was killed", op,
                                      timeout.count() / 1000.0));
      }
      return Broken(
          op, fmt::format("the worker died during '{}': {}", op, transport_->ExitDescription()));
    }
    buffer_.append(chunk, *got);
  }
  nlohmann::json resp = nlohmann::json::parse(response_line, nullptr, false);
  if (resp.is_discarded() || !resp.is_object()) {
    return Broken(op, fmt::format("the worker printed something that is not a protocol message "
                                  "during '{}': '{}'",
                                  op, response_line.substr(0, 200)));
  }
  if (!resp.contains("id") || resp["id"] != id) {
    return Broken(op, fmt::format("the worker answered '{}' with id {} (expected {})", op,
                                  resp.contains("id") ? resp["id"].dump() : "none", id));
  }
  // `ok` is a boolean and a failure's `error` a string: anything else is garbage from the worker,
  // never an uncaught JSON type_error.
  const auto ok = resp.find("ok");
  const auto err = resp.find("error");
  if ((ok != resp.end() && !ok->is_boolean()) ||
      (err != resp.end() && !err->is_string() && !(ok != resp.end() && *ok == true))) {
    return Broken(op, fmt::format("the worker printed something that is not a protocol message "
                                  "during '{}' (ok or error of another type): '{}'",
                                  op, response_line.substr(0, 200)));
  }
  if (!resp.value("ok", false)) {
    return FailedCall(op,
                      fmt::format("'{}' failed in the worker: {}", op,
                                  resp.value("error", std::string("(no message)"))),
                      name_);
  }
  return resp;
}

Result<void, CallError> LineChannel::Take(char* dst, size_t n, Deadline deadline) {
  if (n == 0) return {};  // a frame of no values: `dst` may be null
  const size_t buffered = std::min(n, buffer_.size());
  std::memcpy(dst, buffer_.data(), buffered);
  buffer_.erase(0, buffered);
  size_t got = buffered;
  while (got < n) {
    auto r = transport_->Read(dst + got, n - got, deadline);
    if (!r) {
      switch (r.error().kind) {
        case IoError::Kind::kTimedOut:
          return Broken("frames", "the worker's frames did not arrive in time: it was killed");
        case IoError::Kind::kFailed:
          return Broken("frames",
                        fmt::format("cannot wait for the worker's frames: {}", r.error().message));
        case IoError::Kind::kEnded:
          break;
      }
      return Broken("frames", fmt::format("the worker died during its frames: {}",
                                          transport_->ExitDescription()));
    }
    got += *r;
  }
  return {};
}

Result<void, CallError> LineChannel::ReadFrame(LogitsFrame* frame, size_t n_values,
                                               milliseconds timeout) {
  if (!Alive()) return Broken("frames", "the worker is not running");
  const Deadline deadline = std::chrono::steady_clock::now() + timeout;
  unsigned char h[protocol::kFrameHeaderBytes];
  if (auto r = Take(reinterpret_cast<char*>(h), sizeof h, deadline); !r) return r.error();
  const protocol::FrameHeader fh = protocol::ParseFrameHeader(h);
  if (fh.kind == protocol::FrameKind::kAbort) {
    // An abort frame carries a short message; a longer one is a corrupt stream.
    if (fh.count > protocol::kMaxAbortMessageBytes) {
      return Broken("frames",
                    fmt::format("an abort frame announces {} bytes of message", fh.count));
    }
    std::string message(fh.count, '\0');
    if (auto r = Take(message.data(), message.size(), deadline); !r) return r.error();
    return FailedCall("frames", "the worker ended its frames: " + message, name_);
  }
  if (fh.kind != protocol::FrameKind::kLogits) {
    return Broken("frames", "the worker sent bytes that are not a frame where one was expected");
  }
  if (fh.count != n_values) {
    return Broken("frames",
                  fmt::format("the worker sent a frame of {} values where {} were announced",
                              fh.count, n_values));
  }
  frame->position = fh.position;
  frame->t_ns = fh.t_ns;
  frame->logits.resize(n_values);
  return Take(reinterpret_cast<char*>(frame->logits.data()), n_values * sizeof(float), deadline);
}

void LineChannel::Shutdown(milliseconds grace) {
  if (shut_down_) return;
  shut_down_ = true;
  if (!transport_->Alive()) return;
  const Deadline deadline = std::chrono::steady_clock::now() + grace;
  const std::string bye =
      nlohmann::json{{"id", ++next_id_}, {"op", protocol::op::kShutdown}}.dump() + "\n";
  (void)transport_->Write(bye, deadline);
  transport_->CloseInput();
  if (!transport_->AwaitExit(deadline)) transport_->Kill();
}

}  // namespace pipette::worker
