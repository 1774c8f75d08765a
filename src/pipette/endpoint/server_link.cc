#include "pipette/endpoint/server_link.h"

#include <fmt/format.h>

#include "pipette/http/text.h"
#include "pipette/util/json_parse.h"

namespace pipette::endpoint {

using nlohmann::json;
using worker::CallError;
using worker::FailedCall;

namespace {

http::Url OriginOf(http::Url url) {
  url.base_path.clear();
  return url;
}

}  // namespace

Result<std::optional<std::string>> StringField(const json& reply, const char* key,
                                               std::string_view what) {
  const auto it = reply.find(key);
  if (it == reply.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_string()) {
    return RuntimeError(fmt::format("{}: '{}' is not a string", what, key));
  }
  return std::optional<std::string>(it->get<std::string>());
}

Result<std::optional<int64_t>> CountField(const json& reply, const char* key, int64_t lo,
                                          int64_t hi, std::string_view what) {
  const auto it = reply.find(key);
  if (it == reply.end() || it->is_null()) return std::optional<int64_t>();
  if (it->is_number_integer() &&
      !(it->is_number_unsigned() && it->get<uint64_t>() > uint64_t(hi)) &&
      it->get<int64_t>() >= lo && it->get<int64_t>() <= hi) {
    return std::optional<int64_t>(it->get<int64_t>());
  }
  return RuntimeError(fmt::format("{}: '{}' is {}: not a whole number from {} to {}", what, key,
                                  http::ServerText(it->dump(), "", 40), lo, hi));
}

Result<json, CallError> ServerLink::Exchange(const std::string& op, const std::string& method,
                                             const std::string& path, const json& body,
                                             bool at_origin) {
  if (!base_) return FailedCall(op, "the server is not started yet (no init_context)");
  http::Request req{.method = method,
                    .path = path,
                    .body = method == "GET" ? "" : body.dump(),
                    .timeout = timeout_};
  if (!api_key_.empty()) req.headers.emplace_back("Authorization", "Bearer " + api_key_);
  auto resp = client_.Send(at_origin ? OriginOf(*base_) : *base_, req);
  if (!resp) return FailedCall(op, resp.error().message);
  const std::string where = (at_origin ? "" : base_->base_path) + path;
  if (resp->status != 200) {
    // The key cut out of the server's words before they are cut to their bound.
    return FailedCall(
        op, fmt::format("{}: HTTP {}: {}", where, resp->status,
                        http::ServerText(resp->body + (resp->body_cut ? " ..." : ""), api_key_)));
  }
  const std::string what = fmt::format("the server's reply to {} {}", method, where);
  auto j = ParseJsonBounded(resp->body, what);
  if (!j) return FailedCall(op, http::ServerText(j.error().message, api_key_));
  if (!j->is_object()) return FailedCall(op, what + ": not a JSON object");
  return std::move(*j);
}

Result<std::vector<std::string>, CallError> ServerLink::ServedModels(const std::string& op) {
  auto models = Exchange(op, "GET", "/models", json(), false);
  if (!models) {
    return FailedCall(op, fmt::format("the endpoint {} did not list its models: {}", where_,
                                      models.error().message));
  }
  std::vector<std::string> ids;
  const auto data = models->find("data");
  if (data == models->end() || !data->is_array()) {
    return FailedCall(op, fmt::format("the endpoint {} did not list its models: its reply to GET "
                                      "/models has no 'data' array",
                                      where_));
  }
  for (const json& m : *data) {
    if (!m.is_object() || !m.contains("id") || !m["id"].is_string()) {
      return FailedCall(op, fmt::format("the endpoint {} did not list its models: an entry of "
                                        "its reply to GET /models has no string 'id'",
                                        where_));
    }
    ids.push_back(http::ServerText(m["id"].get<std::string>(), api_key_, 200));
  }
  return ids;
}

Result<std::string, CallError> ServerLink::RenderedPrompt(const std::string& op, const json& body) {
  auto r = Exchange(op, "POST", "/apply-template", body, true);
  if (!r) return r.error();
  auto prompt = StringField(*r, "prompt", "the server's reply to POST /apply-template");
  if (!prompt) return FailedCall(op, prompt.error().message);
  if (!*prompt) return FailedCall(op, "the server's reply to POST /apply-template has no prompt");
  return **prompt;
}

std::string ServerLink::Redact(const std::string& text) const {
  return http::RedactSecret(text, api_key_);
}

json ServerLink::Redacted(json j) const {
  if (api_key_.empty() || !j.is_structured()) return j;
  if (j.is_object()) {
    for (auto& [k, v] : j.items()) {
      if ((k == "error" || k == "message") && v.is_string()) {
        v = Redact(v.get<std::string>());
      } else {
        v = Redacted(std::move(v));
      }
    }
  } else {
    for (auto& v : j) v = Redacted(std::move(v));
  }
  return j;
}

}  // namespace pipette::endpoint
