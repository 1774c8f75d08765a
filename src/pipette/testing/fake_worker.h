// FakeWorker: a TEST FAKE of a runtime worker, in memory. It is a worker::WorkerLauncher whose
// channels answer every op of docs/protocol.md that a model worker serves (hello with its ops,
// load_model, init_context, tokenize, detokenize, pp, tg, ttft, score with facts or logits
// frames, chat, memory, reset_peak_memory, shutdown) with fixed, deterministic data, so the
// runner's orchestration (what it asks, in what order, what it stores, how it survives a
// failure) is tested without a runtime. Nothing it answers is a measurement: its clock is a
// counter and its "model" is a formula (below). Real workers are tested by tests/conformance and
// tests/e2e.
//
// Every request is read with its typed request of src/pipette/protocol/ (a request the protocol
// rejects is answered ok:false and recorded in bad_requests()), and every response is written
// with the typed response, so the shapes are the protocol's.
//
// The fake model: the vocabulary is kVocab ids; text is tokenized one token per byte (id 2 +
// byte; BOS 1 in front when the model adds BOS and add_special is set), so detokenize inverts
// tokenize exactly. The logits after token t are Logits(scale, t) (the model's scale, below),
// whatever came before it. chat renders "<|role|>content\n" per message then "<|assistant|>"
// and answers the model's fixed reply. pp takes kPpNsPerToken per token, tg kTgNsPerToken per
// token, on a clock that advances only when asked.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pipette/util/field_reader.h"
#include "pipette/worker/channel.h"

namespace pipette::testing {

inline constexpr int64_t kVocab = 260;  // ids 0 (EOS), 1 (BOS), 2 + every byte
inline constexpr int32_t kBos = 1;
inline constexpr int32_t kEos = 0;
inline constexpr int64_t kLoadNs = 5'000'000;
inline constexpr int64_t kContextNs = 2'000'000;
inline constexpr int64_t kPpNsPerToken = 1'000'000;   // 1000 tokens/s
inline constexpr int64_t kTgNsPerToken = 10'000'000;  // 100 tokens/s
inline constexpr int64_t kRss = 500'000'000, kHwm = 600'000'000;

// The logits of the fake model after token `token`: scale * cos(0.37 v + 1.3 token) for id v.
std::vector<float> Logits(double scale, int32_t token);

// The fake's tokens of `text` (see above).
TokenIds FakeTokens(const std::string& text, bool add_bos);

// One model file the fake can load, by its path; a path not configured loads FakeModel{}.
struct FakeModel {
  double logit_scale = 1.0;  // two models with different scales disagree (KL > 0)
  bool add_bos = false;
  std::string reply = "fake reply";  // what chat answers, whatever it is asked
};

// Tells the fake to fail a request: the `nth` request with op `op` (counted over every worker
// of this fake, or only in launch `launch` when it is > 0) answers ok:false, or, when `broken`,
// breaks the worker (it serves nothing more, as a crash). op "frames" counts frames read: a
// failed one is an abort frame, a broken one a worker that died mid-frames.
struct FailRule {
  std::string op;
  int nth = 1;
  bool broken = false;
  int launch = 0;
};

// A request the fake received: which worker (launch number, from 1), the op, the request.
struct FakeCall {
  int launch = 0;
  std::string op;
  nlohmann::json request;
};

class FakeWorker : public worker::WorkerLauncher {
 public:
  FakeWorker() = default;
  FakeWorker(const FakeWorker&) = delete;
  FakeWorker& operator=(const FakeWorker&) = delete;

  // Configuration, before the run.
  void SetModel(const std::string& path, FakeModel model) { models_[path] = std::move(model); }
  void Fail(FailRule rule) { rules_.push_back(std::move(rule)); }
  // Ops the fake does not serve: left out of hello's list, answered ok:false.
  void Lack(const std::string& op) { lacking_.push_back({op, ""}); }
  // The same only for the workers started as `program` (argv[0]): a second runtime's worker.
  void LackIn(const std::string& program, const std::string& op) {
    lacking_.push_back({op, program});
  }
  // Drops field `field` from every reply of `op` (a worker breaking the protocol).
  void Drop(const std::string& op, const std::string& field) { dropped_.emplace_back(op, field); }
  // Applies at most `n` as n_ubatch, whatever was asked (a runtime that changes a planned
  // parameter).
  void CapUbatch(int64_t n) { max_ubatch_ = n; }

  Result<std::unique_ptr<worker::WorkerChannel>> Launch(
      const std::vector<std::string>& argv) override;

  // What happened.
  int launches() const { return launches_; }
  const std::vector<FakeCall>& calls() const { return calls_; }
  int Count(const std::string& op) const;
  // The ops received, in order, by launch `launch` (0: every launch).
  std::vector<std::string> Ops(int launch = 0) const;
  int frames_read() const { return frames_read_; }
  // Requests the protocol's typed readers rejected, with why: a runner bug.
  const std::vector<std::string>& bad_requests() const { return bad_requests_; }

 private:
  friend class FakeChannel;
  const FakeModel& Model(const std::string& path) const;
  bool Lacks(const std::string& op, int launch) const;
  // The rule that fires for this request of `op` in `launch`, counted now; null: none.
  const FailRule* Fires(const std::string& op, int launch);

  std::map<std::string, FakeModel> models_;
  std::vector<FailRule> rules_;
  std::vector<std::pair<std::string, std::string>> lacking_;  // (op, program; "": every one)
  std::map<int, std::string> programs_;                       // launch -> argv[0]
  std::vector<std::pair<std::string, std::string>> dropped_;  // (op, field)
  std::optional<int64_t> max_ubatch_;
  std::map<std::string, int> seen_;                     // op -> requests so far, every launch
  std::map<std::pair<int, std::string>, int> seen_in_;  // (launch, op) -> requests so far
  int launches_ = 0;
  int frames_read_ = 0;
  std::vector<FakeCall> calls_;
  std::vector<std::string> bad_requests_;
};

}  // namespace pipette::testing
