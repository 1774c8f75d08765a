#pragma once

#include <chrono>
#include <cstdio>

#include "pipette/run/runner.h"

namespace pipette::app {

// Progress on standard error: a line that rewrites itself on a terminal. Elsewhere (a log, a
// pipe) a line at the start and the end of every phase of every cell, with the fraction done and
// the time left, plus at most one progress line every few seconds within a phase: a log always
// shows what ran, however fast.
class ConsoleProgress : public run::ProgressSink {
 public:
  explicit ConsoleProgress(std::FILE* out);
  void CellStarted(const plan::Cell& cell, int n_cells, int worker_pid) override;
  void PhaseStarted(const plan::Cell& cell, int n_cells, const std::string& phase) override;
  void PhaseFinished(const plan::Cell& cell, int n_cells, const std::string& phase, double seconds,
                     double fraction_done, double seconds_left) override;
  void Step(const plan::Cell& cell, int n_cells, const std::string& what, double fraction_done,
            double seconds_left) override;
  void CellFinished(const plan::Cell& cell, int n_cells, const store::CellRecord& rec) override;

 private:
  void ClearLine();
  void Show(const std::string& line);  // rewrites the line on a terminal, else prints it
  std::FILE* out_;
  bool tty_;
  bool line_open_ = false;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace pipette::app
