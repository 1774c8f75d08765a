#include "pipette/workload/speed/test_kinds.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>

#include "pipette/workload/speed/figures.h"
#include "pipette/workload/speed/kinds/kinds.h"
#include "pipette/workload/speed/speed.h"

namespace pipette::workload::speed {

const TestKindTable& TestKinds() {
  // One line per kind, in report order.
  static const TestKindTable kAll = {
      PpKind(), TgKind(), TtftKind(), E2eKind(), SustainedKind(),
  };
  return kAll;
}

const TestKind* KindOf(const config::TestSpec& t, const TestKindTable& kinds) {
  for (const TestKind& k : kinds) {
    if (k.name == t.kind) return &k;
  }
  return nullptr;
}

Result<config::TestSpec> ParseTestNameIn(const TestKindTable& kinds, std::string_view text) {
  std::vector<std::string> forms, examples;
  for (const TestKind& k : kinds) {
    if (auto t = k.parse(text)) return std::move(*t);
    forms.push_back(k.form);
    examples.push_back(k.example);
  }
  return InputError(fmt::format("unknown test '{}' (tests: {}, e.g. {})", text,
                                fmt::join(forms, ", "), fmt::join(examples, ", ")));
}

}  // namespace pipette::workload::speed

namespace pipette::workload {

// What hands the shipped table on (to the parser, the workload, the catalogue): only this file
// calls TestKinds() (app/layering_test.cc).
Result<config::TestSpec> ParseTestName(std::string_view text) {
  return speed::ParseTestNameIn(speed::TestKinds(), text);
}

std::unique_ptr<Workload> NewSpeed() { return NewSpeed(speed::TestKinds()); }

std::vector<metrics::FigureDef> SpeedFigures() { return SpeedFiguresOf(speed::TestKinds()); }

}  // namespace pipette::workload
