// The one time estimator: how long planned work takes, from the history of earlier runs and from
// what this run has measured so far. `pipette run --dry-run` shows its estimate before a run
// (history only); the progress line shows its time left during one.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "pipette/estimate/history.h"

namespace pipette::estimate {

// A piece of planned work: `requests` requests of `units` units each (estimate/history.h), of
// test `test` in the cell with key `cell_key`.
struct Work {
  std::string cell_key;
  std::string test;
  std::string kind;
  double requests = 0;
  double units = 1;
};

struct Estimate {
  double seconds = 0;  // of the work that history covers
  int covered = 0;     // pieces of work with an estimate
  int uncovered = 0;   // without one (no earlier measurement of their kind)
};

class Estimator {
 public:
  explicit Estimator(History history = {}) : history_(std::move(history)) {}

  void Plan(const Work& work);
  // Measured in this run: `units` of `kind` took `seconds`.
  void Done(const std::string& kind, double units, double seconds);

  // What history says of the planned work, before anything ran.
  const Estimate& FromHistory() const { return from_history_; }
  // Seconds left of the planned work, or a negative number while some kind left has no rate:
  // each kind at the rate this run measured for it, else the rate history gives it; work on
  // another device ("tg@board", DeviceKind) not measured there yet at this machine's rate for its
  // kind times how much slower that device was at the kinds it has done; else this run's overall
  // rate.
  double SecondsLeft() const;
  // Share of the estimated total time already spent (by time, not by units: a token of prompt
  // and an item of generation cost very different). It never goes back: work found slower than
  // estimated raises the seconds left, and holds the share where it was until the spent time
  // catches up.
  double FractionDone() const { return fraction_done_; }

 private:
  std::optional<double> Rate(const std::string& kind) const;
  std::optional<double> Slowdown(const std::string& device) const;

  History history_;
  Estimate from_history_;
  std::map<std::string, double> planned_;                          // units per kind
  std::map<std::string, double> history_units_, history_seconds_;  // of planned work it covers
  std::map<std::string, double> done_units_, done_seconds_;
  double fraction_done_ = 0;
};

}  // namespace pipette::estimate
