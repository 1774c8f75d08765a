// A constrained choice of configuration (docs/running.md "Choosing a configuration"): every cell of
// a run is a candidate; a profile's hard constraints veto, and what remains is ranked by a
// weighted score over four groups of figures — task quality, efficiency, robustness, engineering —
// each figure scaled min–max over the remaining candidates in its good direction, a group scoring
// the mean of its figures. Pure: the rows come from the store, select/view.h renders the result.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/select/profile.h"
#include "pipette/util/result.h"

namespace pipette::select {

enum class Group { kQuality = 0, kEfficiency, kRobustness, kEngineering };
inline constexpr size_t kGroups = 4;
std::string GroupName(Group g);  // "quality", "efficiency", "robustness", "engineering"

// One figure a candidate is scored on.
struct Scored {
  std::string name;  // "mc_acc", "tg128", "peak_rss", "noise", "load_time" ...
  Group group = Group::kQuality;
  bool higher_is_better = true;
  double value = 0;             // as measured
  double scaled = 0;            // 0 (the worst remaining candidate) to 1 (the best)
  std::string unit;             // "bytes" where the text shows it so; else ""
  bool same_tokenizer = false;  // Scoring::same_tokenizer
  // Scoring::replaces_headline: the headline it stands in for ("tg128"), and that one's unit.
  std::string replaces, replaces_unit;
};

struct Candidate {
  std::string name;    // model, quantization, runtime and the parameters that tell it apart
  std::string device;  // CellFacts::device
  int64_t run_id = 0;
  int cell = 0;  // 1-based
  std::vector<Scored> figures;
  std::array<std::optional<double>, kGroups> groups;  // none: no figure of the group measured
  std::vector<std::string> missing;  // figures other candidates have and it lacks: scored 0
  double total = 0;
  // No other candidate at least as good in every group the profile weighs and better in one.
  bool pareto = false;
};

struct Veto {
  std::string candidate, device;
  std::string constraint;  // as written
  std::string figure;      // the figure it read, test.metric
  std::optional<double> value;
  std::string by;    // "0.42 GiB over", "3.1 t/s under", "not measured"
  std::string unit;  // the figure's unit, as the row gives it
};

// One branch of the decision tree: a device (or tier) and its best candidate.
struct Leaf {
  std::string device;
  std::optional<std::string> best;  // none: every candidate there was vetoed
  double total = 0;
  size_t candidates = 0, vetoed = 0;
};

struct Selection {
  std::string profile, about;
  std::vector<Candidate> ranked;  // best first; ties by name
  std::vector<Veto> vetoed;       // one per broken constraint
  // Constraints no candidate measured: not checked, and said so.
  std::vector<std::string> unchecked;
  std::array<bool, kGroups> group_used{};  // some candidate has a figure of the group
  std::vector<Leaf> tree;                  // with more than one device
  std::vector<std::string> notes;          // figures left out of the score, and why
  std::string recommendation;              // in plain words
  size_t candidates = 0;                   // every cell, vetoed or not
};

// Candidates from `rows` (one per cell of each run), held against `profile`. A constraint naming
// several figures of one cell, or a bound in the wrong unit for its figure, is an error naming
// its file, line and column (exit 2). `figures`: what each figure means (workload::Figures()
// outside tests).
Result<Selection> Select(const metrics::FigureCatalogue& figures,
                         const std::vector<metrics::ResultRow>& rows, const Profile& profile);

}  // namespace pipette::select
