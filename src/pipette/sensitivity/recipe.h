// Choosing which groups go low-bit, from what each cost when it alone was quantized.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace pipette::sensitivity {

// What one group cost and saved, measured on its own variant (the rest high).
struct GroupResult {
  std::string name;
  std::string pattern;
  double kld = 0;           // mean KL divergence against the all-high variant (nats)
  int64_t bytes_saved = 0;  // all-high file size minus this variant's file size
};

struct Budget {
  std::optional<int64_t> max_size;  // bytes of the mixed file
  std::optional<double> max_kld;    // mean KLD of the mixed model
};

struct Recipe {
  std::vector<std::string> low;  // names of the groups made low-bit, in the order chosen
  std::vector<std::string> patterns;
  int64_t predicted_size = 0;  // the all-high size minus the chosen groups' savings
  double predicted_kld = 0;    // the chosen groups' KLDs summed (assumes they add up)
  bool meets_budget = false;   // by the prediction; the built mix is measured after
};

// Groups ordered by damage per byte saved, least first (ties: fewer nats first, then name).
std::vector<GroupResult> RankByCost(std::vector<GroupResult> groups);

// Greedy: take groups in RankByCost order. With max_size, until the predicted size fits (and,
// with max_kld too, only while the predicted KLD stays within it); with max_kld alone, while the
// predicted KLD stays within it. Groups that save nothing are never taken.
Recipe ChooseRecipe(const std::vector<GroupResult>& groups, int64_t high_size,
                    const Budget& budget);

}  // namespace pipette::sensitivity
