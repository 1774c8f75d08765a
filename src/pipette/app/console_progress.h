#pragma once

#include <chrono>
#include <cstdio>

#include "pipette/run/runner.h"

namespace pipette::app {

// Progress on standard error: a line that rewrites itself on a terminal, otherwise a line per
// cell and at most one progress line every few seconds.
class ConsoleProgress : public run::ProgressSink {
 public:
  explicit ConsoleProgress(std::FILE* out);
  void CellStarted(const plan::Cell& cell, int n_cells, int worker_pid) override;
  void Step(const plan::Cell& cell, int n_cells, const std::string& what, double fraction_done,
            double seconds_left) override;
  void CellFinished(const plan::Cell& cell, int n_cells, const store::CellRecord& rec) override;

 private:
  void ClearLine();
  std::FILE* out_;
  bool tty_;
  bool line_open_ = false;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace pipette::app
