// One kind of speed test (pp, tg, ttft, e2e, sustained; docs/metrics.md "Speed"): everything
// Pipette knows of it in one entry, each kind in its own file under kinds/, the table in
// test_kinds.cc. A new kind that sends an op the workers already serve is one file under kinds/
// and one line in the table (docs/architecture.md "Adding a speed test kind"); one with a new op
// also needs the op in protocol/ and the workers.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pipette/config/experiment.h"
#include "pipette/metrics/figures.h"
#include "pipette/metrics/roofline.h"
#include "pipette/metrics/row_builder.h"
#include "pipette/store/store.h"
#include "pipette/util/result.h"
#include "pipette/workload/context.h"

namespace pipette::workload::speed {

// The most tokens one test may ask for (pp, tg, ttft, e2e).
inline constexpr int64_t kMaxTestTokens = int64_t{1} << 24;

// What a repetition sends: the request, and what the stored sample says was asked (token arrays
// left out).
struct Request {
  nlohmann::json request;
  nlohmann::json facts;
};

// What a kind's request is made of: the test, the experiment (its seed), the cell's depth, the
// model's vocabulary (0 when the runtime did not report it: a kind that draws token ids needs
// it) and first token, the batch the runtime applied. `ctx`: the cell, for a kind that asks the
// worker while it builds its request (ttft's prompt, from the model's tokenizer); `memo`: what
// the kind kept from the cells before.
// What a kind keeps across the cells of a run (ttft: each model's prompt of each length).
using KindMemo = std::map<std::string, nlohmann::json>;

struct RequestInput {
  const config::TestSpec& test;
  const config::Experiment& ex;
  int64_t depth = 0;
  int64_t n_vocab = 0;
  int64_t bos = -1;
  std::optional<int64_t> n_batch;
  Context& ctx;
  KindMemo& memo;
};

// An endpoint's requests of one test (docs/metrics.md "Endpoints"): streams that failed (a
// stall, a cut stream, too few tokens) and streams whose token counts did not check out.
struct StreamCounts {
  int64_t streams = 0, failed = 0, mismatched = 0;
};

// What the derivation of one cell's speed tests writes: the figures, in the order they first
// appear; each endpoint test's stream counts; and per test why a figure could not be given
// (energy per token and power, bandwidth use, a sustained run's throughput).
struct SpeedRows {
  metrics::RowBuilder rows;
  std::map<std::string, StreamCounts> streams;
  std::map<std::string, std::string> no_energy, no_bw_util, no_sustained;
};

// A warm-up or measured repetition's stored sample of the kind, in the cell whose roofline
// (metrics/roofline.h: its model's bytes per token, its machine's bandwidth) is `roof`.
struct DeriveInput {
  const store::SampleRecord& sample;
  const metrics::Roofline& roof;
};

struct TestKind {
  std::string name;     // "pp": what the time estimate and the summary call it
  std::string form;     // "pp<N>": how the unknown-test message writes it
  std::string example;  // "pp512"
  // A test name of this kind read: nullopt when it is another kind's, an input error (without a
  // place) when it is this kind's, written wrong.
  std::optional<Result<config::TestSpec>> (*parse)(std::string_view text) = nullptr;
  // The ops its phase needs, the timed one first (a runtime that lacks one stores the phase n/a).
  std::vector<std::string> ops;
  // Draws random token ids from the model's vocabulary (the runtime must report its size).
  bool needs_vocab = true;
  // A measured repetition at depth 0 is metered: the energy it cost, where the device tells.
  bool metered = false;
  // Its ms_per_token is also given per 1000 characters of the ppl corpus (ms_per_kchar).
  bool per_kchar = false;
  // Tokens the cell's context must hold for it at `depth`.
  int64_t (*context_need)(const config::TestSpec& t, int64_t depth) = nullptr;
  // Units of the time estimate for one request (tokens), and the requests a cell makes of it
  // given the measured ones (a kind that runs once: 1).
  double (*units)(const config::TestSpec& t) = nullptr;
  // One repetition's request; null for a kind that runs its own loop (`run`).
  Result<Request, RunError> (*request)(const RequestInput& in) = nullptr;
  // The reply reads as the op's typed response (the stored sample keeps it as it came).
  Status (*check)(const nlohmann::json& reply) = nullptr;
  // A kind with a loop of its own (sustained: chunks for T seconds, one sample): run at the
  // first visit, whatever the repetitions.
  RunStatus (*run)(Context& ctx, const config::TestSpec& t) = nullptr;
  // A stored sample as timed work for the estimate's history: its seconds; nullopt where it
  // does not tell.
  std::optional<double> (*seconds)(const nlohmann::json& raw) = nullptr;
  // A measured repetition's figures (docs/metrics.md), added to `out`.
  void (*derive)(const DeriveInput& in, SpeedRows& out) = nullptr;
  // Its figures, with their meaning (metrics/figures.h), in report order.
  std::vector<metrics::FigureDef> (*figures)() = nullptr;
};

}  // namespace pipette::workload::speed
