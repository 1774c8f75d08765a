#include "pipette/testing/fake_http_client.h"

namespace pipette::testing {

Result<http::Response, http::Failure> FakeHttpClient::Send(const http::Url&,
                                                           const http::Request& request,
                                                           const http::BodyPiece& on_body,
                                                           const std::atomic<bool>*) {
  {
    std::lock_guard lock(mu);
    requests.push_back(request);
  }
  http::Response r;
  r.status = status;
  r.t_sent_ns = t0 + 1;
  r.t_status_ns = t0 + step / 2;
  int64_t t = t0;
  for (const auto& p : answer ? answer(request) : pieces) {
    t += step;
    r.body += p;
    r.t_end_ns = t;
    if (status < 300 && on_body && !on_body(p, t)) {
      http::Failure f;
      f.kind = http::Failure::Kind::kCancelled;
      f.message = "cancelled";
      return f;
    }
  }
  return r;
}

}  // namespace pipette::testing
