// How a deriver (metrics/derive.h) collects its figures of one cell: values of one (test,
// metric, subset) in the order they first appear, each figure's samples its repetitions (or
// windows) in order; then rows, each summarised over its samples and sharing the cell's facts.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "pipette/metrics/derive.h"

namespace pipette::metrics {

class RowBuilder {
 public:
  void Add(const std::string& test, const std::string& metric, const std::string& unit, double v,
           const std::string& subset = "");

  struct Entry {
    std::string test, metric, unit, subset;
    std::vector<double> values;
  };
  const std::vector<Entry>& entries() const { return entries_; }
  // Whether some value of (test, metric) was added.
  bool Has(const std::string& test, const std::string& metric) const;

  // Each entry as a row starting from `base` (the cell's facts), its value the median of its
  // samples, appended to `rows` in the entries' order.
  void AppendRows(const ResultRow& base, std::vector<ResultRow>* rows) const;

 private:
  std::map<std::string, size_t> index_;
  std::vector<Entry> entries_;
};

// An n/a row of `base`'s cell: (test, metric, unit) with the reason no repetition could give it.
ResultRow NaRow(const ResultRow& base, std::string test, std::string metric, std::string unit,
                std::string why);

}  // namespace pipette::metrics
