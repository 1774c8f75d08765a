// The speed test kinds Pipette ships, one file each (the table: speed/test_kinds.cc), and what
// their files share.
#pragma once

#include <cstdint>
#include <vector>

#include "pipette/util/field_reader.h"
#include "pipette/workload/speed/test_kind.h"

namespace pipette::workload::speed {

TestKind PpKind();         // kinds/pp.cc
TestKind TgKind();         // kinds/tg.cc
TestKind TtftKind();       // kinds/ttft.cc
TestKind E2eKind();        // kinds/e2e.cc
TestKind SustainedKind();  // kinds/sustained.cc

inline TokenIds Ids(const std::vector<int64_t>& v) { return {v.begin(), v.end()}; }

// A typed response's check (TestKind::check): its error, or none.
template <class R>
Status Checked(const R& typed) {
  if (!typed) return typed.error();
  return {};
}

// The model's first token for a generation: its BOS where it has one in the vocabulary, else a
// random id (the same for the whole experiment).
int64_t FirstToken(uint64_t seed, int64_t bos, int64_t n_vocab);  // kinds/tg.cc

}  // namespace pipette::workload::speed
