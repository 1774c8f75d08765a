// Turns one request line into one response line (docs/protocol.md): parses, checks the
// envelope, dispatches on "op" and wraps the answer with "id" and "ok".
#pragma once

#include <string>
#include <string_view>

#include "llama_session.h"

namespace pipette::llama_worker {

class RequestRouter {
 public:
  struct Outcome {
    std::string response;   // one JSON object, without the trailing newline
    bool shutdown = false;  // the request was `shutdown`: answer, then exit
  };

  Outcome Handle(std::string_view line);

 private:
  Reply Dispatch(const std::string& op, const nlohmann::json& request, bool* shutdown);

  LlamaSession session_;
};

}  // namespace pipette::llama_worker
