#include "pipette/estimate/estimator.h"

#include <algorithm>

namespace pipette::estimate {

void Estimator::Plan(const Work& w) {
  if (w.requests <= 0) return;
  const double units = w.requests * w.units;
  planned_[w.kind] += units;
  double seconds = 0;
  if (auto exact = history_.seconds_per_request.find({w.cell_key, w.test});
      exact != history_.seconds_per_request.end()) {
    seconds = exact->second * w.requests;
  } else if (auto rate = history_.seconds_per_unit.find(w.kind);
             rate != history_.seconds_per_unit.end()) {
    seconds = rate->second * units;
  } else {
    ++from_history_.uncovered;
    return;
  }
  from_history_.seconds += seconds;
  ++from_history_.covered;
  history_units_[w.kind] += units;
  history_seconds_[w.kind] += seconds;
}

void Estimator::Done(const std::string& kind, double units, double seconds) {
  done_units_[kind] += units;
  done_seconds_[kind] += seconds;
}

double Estimator::SecondsLeft() const {
  double all_units = 0, all_seconds = 0;
  for (const auto& [k, u] : done_units_) {
    all_units += u;
    all_seconds += done_seconds_.at(k);
  }
  if (all_units <= 0 && from_history_.covered == 0) return -1;
  double left = 0;
  for (const auto& [kind, planned] : planned_) {
    auto it = done_units_.find(kind);
    const double done = it == done_units_.end() ? 0 : it->second;
    if (planned <= done) continue;
    double rate = 0;
    if (done > 0) {
      rate = done_seconds_.at(kind) / done;
    } else if (auto h = history_units_.find(kind); h != history_units_.end() && h->second > 0) {
      rate = history_seconds_.at(kind) / h->second;
    } else if (all_units > 0) {
      rate = all_seconds / all_units;
    } else {
      return -1;
    }
    left += (planned - done) * rate;
  }
  return left;
}

double Estimator::FractionDone() const {
  double spent = 0;
  for (const auto& [k, s] : done_seconds_) spent += s;
  const double left = SecondsLeft();
  if (left < 0 || spent + left <= 0) return 0;
  return std::min(1.0, spent / (spent + left));
}

}  // namespace pipette::estimate
