#include "pipette/app/console_progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace pipette::app {
namespace {

std::string Contents(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string out;
  char buf[512];
  size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
  return out;
}

// Not a terminal: however quickly the phases go by, each start and end is a line with the
// fraction done and the time left; steps in between are rate-limited.
TEST(ConsoleProgress, ALogShowsEveryPhaseHoweverFast) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  ConsoleProgress p(f);
  plan::Cell cell;
  cell.index = 0;
  cell.label = "smol";
  p.CellStarted(cell, 2, 4242);
  p.PhaseStarted(cell, 2, "tg16");
  p.Step(cell, 2, "tg16 rep 1/2", 0.1, 3.0);  // within a few seconds of the start: not printed
  p.PhaseFinished(cell, 2, "tg16", 0.01, 0.25, 3.0);
  p.PhaseStarted(cell, 2, "ppl");
  p.PhaseFinished(cell, 2, "ppl", 0.02, 0.5, -1);
  store::CellRecord rec;
  rec.status = "ok";
  p.CellFinished(cell, 2, rec);
  const std::string out = Contents(f);
  std::fclose(f);
  EXPECT_EQ(out,
            "[cell 1/2] smol (worker pid 4242)\n"
            "[cell 1/2] tg16: started\n"
            "[cell 1/2] tg16: done in 0.0s   25% done, about 3.0s left\n"
            "[cell 1/2] ppl: started\n"
            "[cell 1/2] ppl: done in 0.0s   50% done, estimating\n"
            "[cell 1/2] done\n");
}

}  // namespace
}  // namespace pipette::app
