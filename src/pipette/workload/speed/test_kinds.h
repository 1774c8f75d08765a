// The speed test kinds Pipette runs, in report order (docs/architecture.md "Adding a speed test
// kind"): the table, and the grammar of `tests:` it makes (what config's parser is given).
#pragma once

#include <string_view>
#include <vector>

#include "pipette/config/written.h"
#include "pipette/util/result.h"
#include "pipette/workload/speed/test_kind.h"

namespace pipette::workload::speed {

using TestKindTable = std::vector<TestKind>;

// The kinds Pipette ships.
const TestKindTable& TestKinds();

// The kind of the test `t` (config::TestSpec::kind) in `kinds`, or nullptr.
const TestKind* KindOf(const config::TestSpec& t, const TestKindTable& kinds);

// A test's name read by the kind of `kinds` whose grammar it is; an input error (without a
// place) naming every kind of `kinds` for a name none reads.
Result<config::TestSpec> ParseTestNameIn(const TestKindTable& kinds, std::string_view text);

}  // namespace pipette::workload::speed

namespace pipette::workload {

// A test's name ("pp512", "tg128", "ttft@64", "e2e@128+64", "sustained60") read by the shipped
// kind whose grammar it is (speed::ParseTestNameIn): what config's parser is given.
Result<config::TestSpec> ParseTestName(std::string_view text);

}  // namespace pipette::workload
