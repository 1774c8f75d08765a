// The endpoint channel's one way to a server (endpoint/channel.h): JSON over HTTP to the
// OpenAI-compatible base ("…/v1") or to the server's origin (llama-server's own endpoints:
// /props, /tokenize, /detokenize, /apply-template), with the API key sent as a bearer token and
// cut out of every word a server or the client wrote before it reaches an error. Also what a
// server says of itself (its flavour, its build, the fields of its replies, type-checked where
// they are read).
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/endpoint/openai_stream.h"
#include "pipette/http/client.h"
#include "pipette/util/result.h"
#include "pipette/worker/channel.h"

namespace pipette::endpoint {

// A server's context or slots past this is no figure a server gives.
inline constexpr int64_t kMaxServerCount = int64_t{1} << 30;

// A field of a server's JSON reply, type-checked where it is read: absent or null is nullopt,
// another type (or a count out of its range) an error naming the reply (`what`) and the field,
// never an exception.
Result<std::optional<std::string>> StringField(const nlohmann::json& reply, const char* key,
                                               std::string_view what);
Result<std::optional<int64_t>> CountField(const nlohmann::json& reply, const char* key, int64_t lo,
                                          int64_t hi, std::string_view what);

class ServerLink {
 public:
  // `where`: how messages name the server (its base URL, or "the started server").
  ServerLink(http::HttpClient& client, std::string api_key, std::string where)
      : client_(client), api_key_(std::move(api_key)), where_(std::move(where)) {}

  // The OpenAI-compatible base ("…/v1"): known from the start, or once a started server is up.
  const std::optional<http::Url>& Base() const { return base_; }
  void SetBase(std::optional<http::Url> base) { base_ = std::move(base); }
  http::HttpClient& Client() const { return client_; }
  const std::string& ApiKey() const { return api_key_; }
  const std::string& Where() const { return where_; }
  std::chrono::milliseconds Timeout() const { return timeout_; }
  void SetTimeout(std::chrono::milliseconds t) { timeout_ = t; }

  // llama-server's own endpoints are there (else a generic OpenAI-compatible server).
  Flavor ServerFlavor() const { return flavor_; }
  void SetFlavor(Flavor f) { flavor_ = f; }
  bool Flavored() const { return flavor_ == Flavor::kLlamaServer; }

  // A GET or POST of JSON to `path` under the origin or the base; the reply must be a JSON
  // object. A failure is `op`'s, its words redacted and bounded.
  Result<nlohmann::json, worker::CallError> Exchange(const std::string& op,
                                                     const std::string& method,
                                                     const std::string& path,
                                                     const nlohmann::json& body, bool at_origin);
  // The ids of the models the server lists (GET /models), each redacted and bounded; an error
  // (`op`'s) where it lists none the way the API says.
  Result<std::vector<std::string>, worker::CallError> ServedModels(const std::string& op);
  // The prompt llama-server renders for a chat body (its /apply-template).
  Result<std::string, worker::CallError> RenderedPrompt(const std::string& op,
                                                        const nlohmann::json& body);

  // `text` with the API key cut out wherever a server's words repeated it (an error body).
  std::string Redact(const std::string& text) const;
  // A reply's error messages (a failed stream's `error`, a failed request's `message`: the words
  // a server or the client wrote) redacted the same way. Only those: a measured text, a rendered
  // prompt or an answer is data, kept as it came, whatever a key such as "EMPTY" matches in it.
  nlohmann::json Redacted(nlohmann::json j) const;

 private:
  http::HttpClient& client_;
  std::string api_key_;
  std::string where_;
  std::optional<http::Url> base_;
  Flavor flavor_ = Flavor::kGeneric;
  std::chrono::milliseconds timeout_{300000};
};

}  // namespace pipette::endpoint
