#include "pipette/app/console_progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include "pipette/util/strings.h"

namespace pipette::app {

ConsoleProgress::ConsoleProgress(std::FILE* out)
    : out_(out), tty_(::isatty(::fileno(out)) != 0), last_(std::chrono::steady_clock::now()) {}

void ConsoleProgress::ClearLine() {
  if (tty_ && line_open_) std::fputs("\r\033[K", out_);
  line_open_ = false;
}

void ConsoleProgress::CellStarted(const plan::Cell& cell, int n_cells, int worker_pid) {
  ClearLine();
  fmt::print(out_, "[cell {}/{}] {} (worker pid {})\n", cell.index + 1, n_cells, cell.label,
             worker_pid);
  std::fflush(out_);
}

namespace {
std::string Eta(double fraction_done, double seconds_left) {
  const std::string left =
      seconds_left < 0 ? "estimating" : "about " + FormatDuration(seconds_left) + " left";
  return fmt::format("{:3.0f}% done, {}", fraction_done * 100.0, left);
}
}  // namespace

void ConsoleProgress::Show(const std::string& line) {
  if (tty_) {
    fmt::print(out_, "\r\033[K{}", line);
    line_open_ = true;
  } else {
    fmt::print(out_, "{}\n", line);
  }
  std::fflush(out_);
}

void ConsoleProgress::PhaseStarted(const plan::Cell& cell, int n_cells, const std::string& phase) {
  last_ = std::chrono::steady_clock::now();
  Show(fmt::format("[cell {}/{}] {}: started", cell.index + 1, n_cells, phase));
}

void ConsoleProgress::PhaseFinished(const plan::Cell& cell, int n_cells, const std::string& phase,
                                    double seconds, double fraction_done, double seconds_left) {
  last_ = std::chrono::steady_clock::now();
  Show(fmt::format("[cell {}/{}] {}: done in {}  {}", cell.index + 1, n_cells, phase,
                   FormatDuration(seconds), Eta(fraction_done, seconds_left)));
}

void ConsoleProgress::Step(const plan::Cell& cell, int n_cells, const std::string& what,
                           double fraction_done, double seconds_left) {
  const auto now = std::chrono::steady_clock::now();
  if (!tty_ && now - last_ < std::chrono::seconds(5)) return;
  last_ = now;
  Show(fmt::format("[cell {}/{}] {}  {}", cell.index + 1, n_cells, what,
                   Eta(fraction_done, seconds_left)));
}

void ConsoleProgress::CellFinished(const plan::Cell& cell, int n_cells,
                                   const store::CellRecord& rec) {
  ClearLine();
  if (rec.status == "ok") {
    fmt::print(out_, "[cell {}/{}] done\n", cell.index + 1, n_cells);
  } else {
    fmt::print(out_, "[cell {}/{}] FAILED: {}\n", cell.index + 1, n_cells, rec.error);
  }
  std::fflush(out_);
}

}  // namespace pipette::app
