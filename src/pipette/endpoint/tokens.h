// The model's tokenizer behind an endpoint (endpoint/channel.h): llama-server's own /tokenize and
// /detokenize, else a worker that loads the model's GGUF (started on first use, kept for the
// model); and the count of what a stream generated where the server sent no `usage`, with that
// tokenizer.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pipette/device/device.h"
#include "pipette/endpoint/openai_stream.h"
#include "pipette/endpoint/server_link.h"
#include "pipette/worker/channel.h"

namespace pipette::endpoint {

class EndpointTokens {
 public:
  // `program`: a worker program that loads the model's GGUF, started on `device` ("" or null:
  // none, so a generic server's text is not counted).
  EndpointTokens(ServerLink& link, device::Device* device, std::string program)
      : link_(link), device_(device), program_(std::move(program)) {}
  ~EndpointTokens() { Stop(); }

  // The model's tokenizer is at hand: the server's own endpoints, else a worker's.
  bool Available() const;
  // The model the tokens are of (load_model): another one stops the worker of the one before.
  void SetModel(const std::string& path);
  const std::string& ModelPath() const { return model_path_; }

  Result<std::vector<int64_t>, worker::CallError> TokensOf(const std::string& op,
                                                           const std::string& text,
                                                           bool add_special, bool parse_special);
  Result<std::string, worker::CallError> TextOf(const std::string& op,
                                                const std::vector<int64_t>& tokens);
  // Generated `text` as the model's tokenizer cuts it (no special tokens added or parsed), or
  // nullopt when there is none.
  Result<std::optional<std::vector<int64_t>>, worker::CallError> ModelTokens(
      const std::string& op, const std::string& text);
  // A stream the server gave no `usage` for: its text (reasoning and answer) counted with the
  // model's tokenizer, where there is one (StreamRecord::tokenizer_completion_tokens).
  Result<void, worker::CallError> CountWithoutUsage(const std::string& op, StreamRecord* r);

  // Stops the worker, if one was started.
  void Stop();

 private:
  Result<worker::WorkerChannel*, worker::CallError> Worker(const std::string& op);
  Result<nlohmann::json, worker::CallError> WorkerCall(const std::string& op,
                                                       const nlohmann::json& request);

  ServerLink& link_;
  device::Device* device_ = nullptr;
  std::string program_;
  std::string model_path_;
  std::unique_ptr<worker::WorkerChannel> worker_;  // the model's, where the server has none
};

}  // namespace pipette::endpoint
