// Time-left estimates for long runs: learn seconds per token for each kind of request from what
// has run so far and apply them to what is left.
#pragma once

#include <map>
#include <string>

namespace pipette::run {

class EtaEstimator {
 public:
  // A piece of work: `kind` ("pp", "tg", "ttft", "load") and its size in tokens (or 1).
  void Plan(const std::string& kind, double units) { planned_[kind] += units; }
  void Done(const std::string& kind, double units, double seconds);
  // Seconds left, or a negative number while nothing has been measured yet.
  double SecondsLeft() const;
  // Share of the estimated total time already spent.
  double FractionDone() const;

 private:
  std::map<std::string, double> planned_, done_units_, done_seconds_;
};

}  // namespace pipette::run
