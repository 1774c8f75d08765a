#include "pipette/run/eta.h"

#include <algorithm>

namespace pipette::run {

void EtaEstimator::Done(const std::string& kind, double units, double seconds) {
  done_units_[kind] += units;
  done_seconds_[kind] += seconds;
}

double EtaEstimator::SecondsLeft() const {
  double all_units = 0, all_seconds = 0;
  for (const auto& [k, u] : done_units_) {
    all_units += u;
    all_seconds += done_seconds_.at(k);
  }
  if (all_units <= 0) return -1;
  const double fallback = all_seconds / all_units;
  double left = 0;
  for (const auto& [kind, planned] : planned_) {
    auto it = done_units_.find(kind);
    const double done = it == done_units_.end() ? 0 : it->second;
    const double rate = done > 0 ? done_seconds_.at(kind) / done : fallback;
    if (planned > done) left += (planned - done) * rate;
  }
  return left;
}

double EtaEstimator::FractionDone() const {
  // By time, not by units: a token of prompt and an item of generation cost very different.
  double spent = 0;
  for (const auto& [k, s] : done_seconds_) spent += s;
  const double left = SecondsLeft();
  if (left < 0 || spent + left <= 0) return 0;
  return std::min(1.0, spent / (spent + left));
}

}  // namespace pipette::run
