#include "pipette/select/recommend.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <map>
#include <utility>
#include <vector>

namespace pipette::select {

std::string Recommend(const Selection& s, size_t candidates, const Weights& w) {
  const size_t vetoed = candidates - s.ranked.size();
  std::string out;
  if (s.ranked.empty()) {
    std::map<std::pair<std::string, std::string>, int> breaks;  // (name, device) -> vetoes
    for (const Veto& v : s.vetoed) ++breaks[{v.candidate, v.device}];
    std::pair<std::string, std::string> nearest;
    int fewest = 1 << 30;
    for (const auto& [who, n] : breaks) {
      if (n < fewest) {
        fewest = n;
        nearest = who;
      }
    }
    out = fmt::format("No candidate meets every constraint of {}.", s.profile);
    if (fewest < (1 << 30)) {
      out +=
          fmt::format(" The nearest, {} on {}, breaks {}:", nearest.first, nearest.second, fewest);
      for (const Veto& v : s.vetoed) {
        if (v.candidate == nearest.first && v.device == nearest.second) {
          out += fmt::format(" {} ({});", v.constraint, v.by);
        }
      }
      out.back() = '.';
    }
    return out;
  }
  const Candidate& best = s.ranked[0];
  const std::array<double, kGroups> weight = {w.quality, w.efficiency, w.robustness, w.engineering};
  std::vector<std::string> strong;  // the groups that count where it is the best
  for (size_t g = 0; g < kGroups; ++g) {
    const double mine = best.groups[g].value_or(0);
    const bool ahead = std::all_of(s.ranked.begin() + 1, s.ranked.end(), [&](const Candidate& c) {
      return c.groups[g].value_or(0) < mine;
    });
    if (s.group_used[g] && weight[g] > 0 && s.ranked.size() > 1 && ahead) {
      strong.push_back(GroupName(Group(g)));
    }
  }
  out = fmt::format("Under {}, choose {} on {}: it scores {:.2f}", s.profile, best.name,
                    best.device, best.total);
  if (!strong.empty())
    out += fmt::format(", the best {} of those that fit", fmt::join(strong, " and "));
  if (s.ranked.size() > 1) {
    out += fmt::format("; next is {} at {:.2f}.", s.ranked[1].name, s.ranked[1].total);
  } else {
    out += s.unchecked.empty() ? ", the only candidate that meets every constraint."
                               : ", the only candidate that meets every constraint checked.";
  }
  if (vetoed > 0) out += fmt::format(" {} of {} candidates were vetoed.", vetoed, candidates);
  if (!s.unchecked.empty()) {
    // Never a choice that "meets every constraint" while one was not held at all.
    out += fmt::format(
        " Not every constraint was checked: no candidate measured the figure of {}, so this "
        "choice may break {}.",
        fmt::join(s.unchecked, "; "), s.unchecked.size() == 1 ? "it" : "them");
  }
  return out;
}

}  // namespace pipette::select
