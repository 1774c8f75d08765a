// The speed workload: one phase per test of the experiment's `tests`, each run by its kind
// (test_kinds.h): warm-ups then measured repetitions of the kind's request (each gated by the
// readiness check, the metered ones with their energy), or the kind's own loop; its figures by
// derive.h.
#include "pipette/workload/speed/speed.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "pipette/env/sensors.h"
#include "pipette/workload/speed/derive.h"
#include "pipette/workload/speed/test_kinds.h"

namespace pipette::workload {
namespace {

using config::TestSpec;
using nlohmann::json;
using speed::KindOf;
using speed::TestKind;

class Speed : public Workload {
 public:
  explicit Speed(const speed::TestKindTable& kinds) : kinds_(kinds) {}
  std::string Name() const override { return "speed"; }

  std::vector<Phase> Phases(const config::Experiment& ex) const override {
    std::vector<Phase> out;
    for (const TestSpec& t : ex.tests) {
      const TestKind* k = Kind(t);
      out.push_back({t.name, k ? k->ops : std::vector<std::string>{}});
    }
    return out;
  }

  int64_t ContextNeed(const config::Experiment& ex, int64_t depth) const override {
    return TokensNeeded(ex.tests, depth, kinds_);
  }

  std::string ContextNeedWhat(const config::Experiment& ex, int64_t depth) const override {
    int64_t most = 0;
    std::string name;
    for (const config::TestSpec& t : ex.tests) {
      const int64_t n = TokensNeeded({t}, depth, kinds_);
      if (n > most) {
        most = n;
        name = t.name;
      }
    }
    return name.empty() ? "" : "the test " + name;
  }

  void PlanWork(const config::Experiment& ex, const plan::Cell& cell,
                std::vector<estimate::Work>* out) const override {
    // Interleaved, every visit (one per repetition) warms up again.
    const double requests = ex.warmup * (ex.interleave ? ex.repetitions : 1) + ex.repetitions;
    for (const TestSpec& t : ex.tests) {
      const TestKind* k = Kind(t);
      if (!k) continue;
      // A kind with its own loop runs once, whatever the repetitions.
      out->push_back({cell.Key(), t.name, k->name, k->run ? 1 : requests, k->units(t)});
    }
  }

  // A stored repetition as timed work, per unit its kind counts.
  std::optional<estimate::Measured> Timed(const store::SampleRecord& s) const override {
    auto t = speed::ParseTestNameIn(kinds_, s.test);
    if (!t || t->n <= 0 || !s.raw.is_object()) return std::nullopt;
    const TestKind* k = KindOf(*t, kinds_);
    if (!k) return std::nullopt;
    const std::optional<double> secs = k->seconds(s.raw);
    if (!secs) return std::nullopt;
    return estimate::Measured{k->name, k->units(*t), *secs};
  }

  Status Derive(const metrics::ResultRow& base, const metrics::CellSamples& cell,
                const metrics::CellsById&, const store::EnvironmentRecord& env,
                std::vector<metrics::ResultRow>* rows) const override {
    return speed::DeriveSpeed(kinds_, base, cell, env, rows);
  }
  void Complete(const metrics::ResultRow& base, const metrics::CellSamples& cell,
                const store::EnvironmentRecord& env, std::vector<metrics::ResultRow>* rows,
                size_t first) const override {
    speed::CompleteSpeed(kinds_, base, cell, env, rows, first);
  }

  bool Interleaves() const override { return true; }

  RunStatus Run(Context& ctx, size_t phase) override {
    const config::Experiment& ex = ctx.Experiment();
    const TestSpec& t = ex.tests.at(phase);
    const TestKind* found_kind = Kind(t);
    if (!found_kind) return Failed(fmt::format("test {} is of no known kind", t.name));
    const TestKind& kind = *found_kind;
    // Interleaved: this visit's one measured repetition (its warm-ups first); a kind with its
    // own loop runs once, at the first visit.
    const Visit visit = ctx.CurrentVisit();
    const bool interleaved = visit.count > 1;
    if (kind.run) return interleaved && visit.index > 0 ? RunStatus() : kind.run(ctx, t);
    const std::optional<int64_t> vocab = ctx.Model().n_vocab;
    if (kind.needs_vocab && !vocab) {
      return Failed(
          fmt::format("{} draws random token ids from the model's vocabulary, and the "
                      "runtime did not report its size (load_model: model.n_vocab)",
                      t.name));
    }
    const int64_t depth = ctx.Cell().IntParam("depth");
    auto made = kind.request(
        {t, ex, depth, vocab.value_or(0), ctx.Model().bos, ctx.NBatch(), ctx, memo_[kind.name]});
    if (!made) return made.error();
    const json& req = made->request;
    const json& req_facts = made->facts;
    const int measured = interleaved ? 1 : ex.repetitions;
    const int total = ex.warmup + measured;
    // The measured requests of this test in this cell (across the visits when interleaved): how
    // many failed, and why.
    Tally& tally = tallies_[{ctx.Record().id, t.name}];
    if (!interleaved || visit.index == 0) tally = Tally{};
    for (int i = 0; i < total; ++i) {
      if (ctx.Stopped()) return Failed("interrupted");
      const bool warmup = i < ex.warmup;
      // The sample's repetition number: the warm-ups first, then the measured ones, numbered
      // across the visits when interleaved.
      const int rep = warmup || !interleaved ? i : ex.warmup + visit.index;
      // A measured repetition waits until the device is ready (the experiment's `ready:`).
      json ready = nullptr;
      if (!warmup) {
        auto found = ctx.Ready();
        if (!found) return found.error();
        ready = std::move(*found);
      }
      // A metered kind's measured repetitions: the energy they cost, where the device can tell
      // (the seconds from the first reading to the request's end; the runner adds the second
      // reading's). At a depth the same request decodes the depth's tokens first.
      const bool metered = !warmup && kind.metered && depth == 0;
      std::optional<env::Sensors> mark;
      if (metered) mark = ctx.EnergyMark();
      const auto t0 = std::chrono::steady_clock::now();
      auto resp = ctx.Call(req);
      const double call_s = SecondsSince(t0);
      json energy = metered ? ctx.EnergySince(mark, call_s) : json(nullptr);
      if (!warmup && kind.metered && depth > 0) {
        energy = {{"na", fmt::format("the request also decoded the depth's {} untimed tokens: its "
                                     "energy is not the measured tokens'",
                                     depth)}};
      }
      if (!resp) return resp.error();
      if (resp->contains("request_failed")) {
        // An endpoint's request that stalled past the timeout or was cut short: a result in
        // itself (stored, counted as failed), and the test goes on with the next request.
        json raw = RawFacts(std::move(*resp));
        raw["request"] = req_facts;
        if (!ready.is_null()) raw["ready"] = ready;
        if (interleaved) raw["visit"] = visit.index;
        if (auto st = ctx.Keep(t.name, rep, warmup, raw); !st) return st;
        const json& failure = raw["request_failed"];
        const std::string why = failure.is_object() && failure.value("message", json()).is_string()
                                    ? failure["message"].get<std::string>()
                                    : std::string("no reason given");
        if (!warmup) tally.Fail(why);
        ctx.Step(fmt::format("{} request {}/{} failed: {}", t.name, i + 1, total, why));
        continue;
      }
      // A reply missing a field or mistyping one broke the protocol: nothing of it is stored.
      if (auto st = kind.check(*resp); !st) return Broken(st.error().message);
      if (!warmup) ++tally.ok;
      ctx.Done(kind.name, kind.units(t), call_s);
      json raw = RawFacts(std::move(*resp));
      raw["request"] = req_facts;
      if (!ready.is_null()) raw["ready"] = ready;
      if (!energy.is_null()) raw["energy"] = std::move(energy);
      if (interleaved) raw["visit"] = visit.index;
      if (auto st = ctx.Keep(t.name, rep, warmup, raw); !st) return st;
      ctx.Step(fmt::format("{} {} {}/{}", t.name, warmup ? "warm-up" : "rep",
                           warmup ? i + 1 : rep - ex.warmup + 1,
                           warmup ? ex.warmup : ex.repetitions));
    }
    // Every measured request failed (every stream of each: a stall, a cut, junk, too few
    // tokens): the test measured nothing, and the cell fails saying why, its failed requests
    // kept. Interleaved, that is known at the last visit (when this run made every visit).
    const int expected = interleaved ? visit.count : ex.repetitions;
    const bool last = !interleaved || visit.index == visit.count - 1;
    if (last && tally.ok == 0 && tally.failed == expected && expected > 0) {
      return Failed(fmt::format("{}: every measured request failed ({} of {}): {}", t.name,
                                tally.failed, expected, tally.Reasons()));
    }
    return {};
  }

 private:
  // The kind of a test the experiment was parsed with (always found there: a test made by hand
  // of no kind has no ops, needs no context and fails when it runs).
  const TestKind* Kind(const TestSpec& t) const { return KindOf(t, kinds_); }

  const speed::TestKindTable& kinds_;
  // What each kind keeps across the cells of the run (ttft: the prompts), by kind.
  std::map<std::string, speed::KindMemo> memo_;

  // A test's measured requests in one cell: those that gave a figure, those that failed, and the
  // first few distinct reasons.
  struct Tally {
    int ok = 0, failed = 0;
    std::vector<std::string> reasons;
    void Fail(const std::string& why) {
      ++failed;
      if (reasons.size() < 3 && std::find(reasons.begin(), reasons.end(), why) == reasons.end()) {
        reasons.push_back(why);
      }
    }
    std::string Reasons() const {
      std::string out;
      for (const std::string& r : reasons) out += (out.empty() ? "" : "; ") + r;
      return out;
    }
  };
  std::map<std::pair<int64_t, std::string>, Tally> tallies_;  // by cell id and test
};

}  // namespace

int64_t TokensNeeded(const std::vector<config::TestSpec>& tests, int64_t depth,
                     const speed::TestKindTable& kinds) {
  int64_t need = 0;
  for (const auto& t : tests) {
    if (const TestKind* k = KindOf(t, kinds)) need = std::max(need, k->context_need(t, depth));
  }
  return need;
}

std::unique_ptr<Workload> NewSpeed(const speed::TestKindTable& kinds) {
  return std::make_unique<Speed>(kinds);
}

}  // namespace pipette::workload
