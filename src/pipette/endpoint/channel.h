// An HTTP endpoint spoken to as a worker: the controller's own `worker::WorkerChannel` for an
// endpoint runtime (the `openai` runtime, runtime/openai.h). Each protocol op the workloads send
// becomes HTTP — `tg` and `ttft` streamed requests (concurrency of them at once), `chat` a chat
// completion, `tokenize`/`detokenize` llama-server's own endpoints — and the reply is built from
// what came over the wire (endpoint/replies.h), so every figure is derived as for any runtime.
// A server Pipette starts (server:) is started at `init_context`, when its context and slots are
// known, and again only when they change; its memory is the server process's.
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>
#include <string>

#include "pipette/device/device.h"
#include "pipette/endpoint/api_key.h"
#include "pipette/endpoint/spec.h"
#include "pipette/http/client.h"
#include "pipette/worker/channel.h"

namespace pipette::endpoint {

struct ChannelConfig {
  std::string runtime = "openai";
  EndpointSpec spec{};
  // Read from the environment variable the experiment names; sent as a bearer token, never
  // stored, logged or put in an error.
  std::string api_key{};
  http::HttpClient* client = nullptr;
  // Reads a started server's memory (Device::WorkerMemory); may be null.
  device::Device* device = nullptr;
  // Set (Ctrl-C) to end the requests in flight; may be null.
  const std::atomic<bool>* cancel = nullptr;
  // A worker program that loads the model's GGUF (llama.cpp's): the model's tokenizer, which
  // counts what a server without `usage` generated. Started on `device` only when needed.
  std::string tokenizer_program{};
};

// The channel, or an input error (exit code 2) when the experiment's base_url does not parse or
// the API key's variable is unset.
Result<std::unique_ptr<worker::WorkerChannel>> OpenEndpoint(ChannelConfig config);

// The API key the spec names, from the environment: "" when it names none; an input error naming
// the variable (never a value) when it is unset, empty or holds a control character (a line
// break would inject a header).
Result<std::string> ApiKeyFromEnvironment(const EndpointSpec& spec);

}  // namespace pipette::endpoint
