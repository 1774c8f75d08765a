// One streamed generation request, measured: the request written, each event's arrival read off
// the stream, and what the events said (StreamReader). The seam is http::HttpClient.
#pragma once

#include <atomic>
#include <chrono>
#include <string>

#include "pipette/endpoint/openai_stream.h"
#include "pipette/http/client.h"

namespace pipette::endpoint {

struct Streamed {
  int64_t t_sent_ns = 0;    // just before the request was written
  int64_t t_status_ns = 0;  // the response's headers read
  int64_t t_end_ns = 0;     // the last byte read
  StreamRecord record;
};

// Why a stream gave no measurement. kConnect and kHttp say the server is down or refused the
// request: the cell fails with that reason. The others are a request that failed mid-way (a
// stall cancelled at the timeout, a stream cut short, an error event): recorded, and the cell
// goes on.
struct StreamError : Error {
  enum class Kind { kConnect, kHttp, kTimeout, kCut, kServerError, kCancelled } kind = Kind::kCut;
  bool EndsCell() const { return kind == Kind::kConnect || kind == Kind::kHttp; }
  const char* KindName() const;
};

struct StreamOptions {
  std::string api_key = {};  // sent as "Authorization: Bearer ..."; never in an error text
  std::chrono::milliseconds timeout{300000};
  const std::atomic<bool>* cancel = nullptr;
};

// Errors: the HTTP failure (connect, timeout, cut), a status other than 200 (with the server's
// error message), a server error event, a stream cut before "[DONE]".
Result<Streamed, StreamError> StreamGeneration(http::HttpClient& client, const http::Url& url,
                                               const GenerationRequest& request,
                                               const StreamOptions& options);

}  // namespace pipette::endpoint

namespace pipette::endpoint {

// `requests.size()` streams at once, each on its own thread and connection, released together
// (the concurrency a serving benchmark sweeps); one result per request, in order. A failed stream
// does not stop the others.
std::vector<Result<Streamed, StreamError>> StreamConcurrently(
    http::HttpClient& client, const http::Url& url, const std::vector<GenerationRequest>& requests,
    const StreamOptions& options);

}  // namespace pipette::endpoint
