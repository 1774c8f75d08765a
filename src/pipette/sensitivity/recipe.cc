#include "pipette/sensitivity/recipe.h"

#include <algorithm>
#include <limits>

namespace pipette::sensitivity {

std::vector<GroupResult> RankByCost(std::vector<GroupResult> groups) {
  auto cost = [](const GroupResult& g) {
    return g.bytes_saved > 0 ? std::max(g.kld, 0.0) / double(g.bytes_saved)
                             : std::numeric_limits<double>::infinity();
  };
  std::stable_sort(groups.begin(), groups.end(), [&](const GroupResult& a, const GroupResult& b) {
    if (cost(a) != cost(b)) return cost(a) < cost(b);
    if (a.kld != b.kld) return a.kld < b.kld;
    return a.name < b.name;
  });
  return groups;
}

Recipe ChooseRecipe(const std::vector<GroupResult>& groups, int64_t high_size,
                    const Budget& budget) {
  Recipe r;
  r.predicted_size = high_size;
  auto fits = [&] {
    const bool size_ok = !budget.max_size || r.predicted_size <= *budget.max_size;
    const bool kld_ok = !budget.max_kld || r.predicted_kld <= *budget.max_kld;
    return size_ok && kld_ok;
  };
  for (const GroupResult& g : RankByCost(groups)) {
    if (g.bytes_saved <= 0) continue;
    if (budget.max_size && r.predicted_size <= *budget.max_size) break;  // the size is met
    if (!budget.max_size && !budget.max_kld) break;
    const double next_kld = r.predicted_kld + std::max(g.kld, 0.0);
    if (budget.max_kld && next_kld > *budget.max_kld) break;
    r.low.push_back(g.name);
    r.patterns.push_back(g.pattern);
    r.predicted_kld = next_kld;
    r.predicted_size -= g.bytes_saved;
  }
  r.meets_budget = fits();
  return r;
}

}  // namespace pipette::sensitivity
