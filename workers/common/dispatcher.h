// Turns one request line into one response line (docs/protocol.md): parses, checks the
// envelope, dispatches on "op" and wraps the answer with "id" and "ok".
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

#include "frame_stream.h"
#include "llama_session.h"

namespace pipette::llama_worker {

class RequestRouter {
 public:
  struct Outcome {
    std::string response;   // one JSON object, without the trailing newline
    bool shutdown = false;  // the request was `shutdown`: answer, then exit
    bool written = false;   // the response (line and frames) is already on `out`
  };

  // `stream_out` carries the frames of a `score` with `logits: true`, which writes its own
  // response.
  Outcome Handle(std::string_view line, std::FILE* stream_out = nullptr);

 private:
  Reply Dispatch(const std::string& op, const nlohmann::json& request, bool* shutdown,
                 FrameStream* stream);

  LlamaSession session_;
};

}  // namespace pipette::llama_worker
