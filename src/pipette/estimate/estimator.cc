#include "pipette/estimate/estimator.h"

#include <algorithm>
#include <optional>
#include <vector>

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
  double spent = 0;
  for (const auto& [k, s] : done_seconds_) spent += s;
  const double left = SecondsLeft();
  if (left >= 0 && spent + left > 0) {
    fraction_done_ = std::max(fraction_done_, std::min(1.0, spent / (spent + left)));
  }
}

// Seconds per unit of `kind` this run measured, else what history gives its planned work.
std::optional<double> Estimator::Rate(const std::string& kind) const {
  if (auto it = done_units_.find(kind); it != done_units_.end() && it->second > 0) {
    return done_seconds_.at(kind) / it->second;
  }
  if (auto h = history_units_.find(kind); h != history_units_.end() && h->second > 0) {
    return history_seconds_.at(kind) / h->second;
  }
  if (auto h = history_.seconds_per_unit.find(kind); h != history_.seconds_per_unit.end()) {
    return h->second;
  }
  return std::nullopt;
}

// How much slower `device` is than this machine: the median, over the kinds this run measured
// there that have a rate here too, of the ratio of their rates.
std::optional<double> Estimator::Slowdown(const std::string& device) const {
  std::vector<double> ratios;
  for (const auto& [kind, units] : done_units_) {
    const auto [base, where] = SplitDeviceKind(kind);
    if (where != device || units <= 0) continue;
    if (auto here = Rate(base); here && *here > 0) {
      ratios.push_back(done_seconds_.at(kind) / units / *here);
    }
  }
  if (ratios.empty()) return std::nullopt;
  std::sort(ratios.begin(), ratios.end());
  const size_t n = ratios.size();
  return n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
}

double Estimator::SecondsLeft() const {
  // This run's overall rate, for kinds not measured yet: over the kinds counted in tokens or
  // items. A unit of `load` is a whole model load (seconds, not milliseconds per token): its rate
  // says nothing of the others, and a first cell would otherwise show minutes for seconds left.
  double all_units = 0, all_seconds = 0;
  for (const auto& [k, u] : done_units_) {
    if (SplitDeviceKind(k).first == "load") continue;
    all_units += u;
    all_seconds += done_seconds_.at(k);
  }
  if (all_units <= 0 && from_history_.covered == 0) return -1;
  double left = 0;
  for (const auto& [kind, planned] : planned_) {
    auto it = done_units_.find(kind);
    const double done = it == done_units_.end() ? 0 : it->second;
    if (planned <= done) continue;
    std::optional<double> rate = Rate(kind);
    if (!rate) {
      // Work on a device not measured at this kind yet: this machine's rate for it, times how
      // much slower that device was at what it has done so far.
      const auto [base, device] = SplitDeviceKind(kind);
      if (!device.empty()) {
        if (auto here = Rate(base)) rate = *here * Slowdown(device).value_or(1.0);
      }
    }
    if (!rate) {
      if (all_units <= 0) return -1;
      rate = all_seconds / all_units;
    }
    left += (planned - done) * *rate;
  }
  return left;
}

}  // namespace pipette::estimate
