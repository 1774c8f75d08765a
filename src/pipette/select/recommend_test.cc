#include "pipette/select/recommend.h"

#include <gtest/gtest.h>

#include <tuple>

namespace pipette::select {
namespace {

Candidate Scored(std::string name, double total, double quality) {
  Candidate c;
  c.name = std::move(name);
  c.device = "local";
  c.total = total;
  c.groups[size_t(Group::kQuality)] = quality;
  return c;
}

// The choice, why (the groups where it leads all others), the next best and the vetoes.
TEST(Recommend, NamesTheChoiceWhyAndTheNextBest) {
  Selection s;
  s.profile = "chat";
  s.ranked = {Scored("a", 0.9, 1.0), Scored("b", 0.5, 0.2)};
  s.group_used[size_t(Group::kQuality)] = true;
  const Weights w{.quality = 1, .efficiency = 0, .robustness = 0, .engineering = 0};
  EXPECT_EQ(Recommend(s, 3, w),
            "Under chat, choose a on local: it scores 0.90, the best quality of those that fit; "
            "next is b at 0.50. 1 of 3 candidates were vetoed.");
  s.unchecked = {"tg128.tps >= 10"};
  EXPECT_NE(Recommend(s, 2, w).find("Not every constraint was checked"), std::string::npos);
}

// With every candidate vetoed: the nearest one and what it breaks.
TEST(Recommend, WithNoCandidateLeftNamesTheNearestAndWhatItBreaks) {
  Selection s;
  s.profile = "phone";
  for (const auto& [who, constraint, by] : {std::tuple{"a", "peak_rss <= 1GiB", "0.4 GiB over"},
                                            std::tuple{"b", "peak_rss <= 1GiB", "0.9 GiB over"},
                                            std::tuple{"b", "tg128 >= 5", "1 t/s under"}}) {
    Veto v;
    v.candidate = who;
    v.device = "local";
    v.constraint = constraint;
    v.by = by;
    s.vetoed.push_back(v);
  }
  EXPECT_EQ(Recommend(s, 2, Weights{}),
            "No candidate meets every constraint of phone. The nearest, a on local, breaks 1: "
            "peak_rss <= 1GiB (0.4 GiB over).");
}

}  // namespace
}  // namespace pipette::select
