// A gate file (docs/running.md "Comparing and gating"): what may not get worse and by how much,
// one figure a line, e.g.
//
//   # release gate
//   tg128: -3%          # decoding may be at most 3% slower
//   peak_rss: +5%       # memory at most 5% higher
//   mc_acc: -1 point    # accuracy at most one percentage point lower
//   kld_mean: +0.01     # an absolute limit, in the figure's unit
//   format_ok: -0       # not lower at all
//   task:mmlu_5shot: -1 point   # a standard task's accuracy (its acc) at most a point lower
//
// A line fails when its figure's verdict is *worse* and the median change is past the limit.
// A pure parser: names are resolved against the figures compared (compare.h), not here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "pipette/util/result.h"

namespace pipette::compare {

struct GateLine {
  std::string figure;  // as written: a test (tg128), a metric (peak_rss), test.metric
  enum class Kind { kRelative, kAbsolute } kind = Kind::kRelative;
  // The change allowed, signed: -0.03 for "-3%", 0.01 for "+1 point", +0.01 for "+0.01". The sign
  // is the way the figure may move; zero keeps it (negative: "-0").
  double limit = 0;
  bool negative = false;  // the sign as written (for "-0" and "+0")
  bool point = false;     // given in percentage points (of a proportion)
  std::string text;       // the change as written ("-3%")
  int line = 0;           // 1-based, in its file
  int change_column = 0;  // 1-based: where the change starts
};

// The lines of a gate file; an error names the file, line and column of the first malformed one
// with the form expected.
Result<std::vector<GateLine>> ParseGate(std::string_view text, const std::string& file);

// Whether a change from `baseline` to `candidate` goes past the line's limit in the line's
// direction (a relative change of a zero baseline is past any limit when the candidate moved).
bool PastLimit(const GateLine& line, double baseline, double candidate);

}  // namespace pipette::compare
