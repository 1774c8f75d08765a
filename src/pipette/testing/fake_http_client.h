// An in-memory http::HttpClient for unit tests (ninja's FakeCommandRunner in spirit): every
// request is answered with `status` and the scripted `pieces` of body, stamped `t0 + step`,
// `t0 + 2*step`, ... (or `answer`'s pieces for that request); the requests are kept for the test to
// read.
#pragma once

#include <functional>
#include <mutex>
#include <vector>

#include "pipette/http/client.h"

namespace pipette::testing {

class FakeHttpClient : public http::HttpClient {
 public:
  int status = 200;
  std::vector<std::string> pieces;
  // When set, the pieces of the answer to each request (instead of `pieces`).
  std::function<std::vector<std::string>(const http::Request&)> answer;
  int64_t t0 = 0;
  int64_t step = 1000;
  std::vector<http::Request> requests;  // guarded by mu (concurrent Sends)
  std::mutex mu;

  Result<http::Response, http::Failure> Send(const http::Url& url, const http::Request& request,
                                             const http::BodyPiece& on_body,
                                             const std::atomic<bool>* cancel) override;
};

}  // namespace pipette::testing
