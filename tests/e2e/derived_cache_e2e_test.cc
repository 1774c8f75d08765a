// The derived-results cache on a real run (SmolLM2): `pipette run` stores each finished cell's
// rows, and `pipette report` from them is byte for byte the report derived from the raw samples
// (`--no-cache`), in every format.
#include "fixture.h"
#include "pipette/report/formats.h"

namespace pipette_e2e {
namespace {

// The report's own time stamp differs between two invocations; nothing else may.
std::string WithoutTimes(const std::string& text) {
  static const std::regex kTime(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)");
  return std::regex_replace(text, kTime, "TIME");
}

TEST_F(E2E, TheReportFromTheCacheIsTheOneFromTheSamplesInEveryFormat) {
  fs::path ex = Write("ex.yaml", R"(name: e2e-cache
models: [smollm2-135m-instruct-q4_1]
params:
  threads: [1, 2]
  n_batch: 64
tests: [pp16, tg4, ttft@8]
repetitions: 2
warmup: 1
quality:
  ppl: {chunks: 1}
)");
  // With the bandwidth probe: the cached bw_util rows are derived against the stored environment.
  Output o = Pipette({"run", ex.string(), "--store", Store()});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  {
    auto s = pipette::store::Store::Open(Store(), pipette::store::OpenMode::kReadOnly);
    ASSERT_TRUE(s.ok()) << s.error().message;
    auto derived = (*s)->DerivedOfRun(1);
    ASSERT_TRUE(derived.ok());
    EXPECT_EQ(derived->size(), 2u);  // both cells, stored as each finished
  }
  for (const pipette::report::Format& f : pipette::report::Formats()) {
    const std::string format(f.name);
    SCOPED_TRACE(format);
    Output cached = Pipette({"report", "--store", Store(), "--format", format});
    ASSERT_EQ(cached.code, 0) << cached.err;
    Output live = Pipette({"report", "--store", Store(), "--format", format, "--no-cache"});
    ASSERT_EQ(live.code, 0) << live.err;
    EXPECT_FALSE(cached.out.empty());
    EXPECT_EQ(WithoutTimes(cached.out), WithoutTimes(live.out));
  }
  // And the figures are there: a cached report is not an empty one.
  const json doc = ReportJson();
  for (int cell : {1, 2}) {
    EXPECT_NE(Find(doc["results"], cell, "tg4", "throughput"), nullptr) << cell;
    EXPECT_NE(Find(doc["results"], cell, "load", "time"), nullptr) << cell;
    const json* util = Find(doc["results"], cell, "tg4", "bw_util");
    ASSERT_NE(util, nullptr) << cell;
    EXPECT_GT((*util)["value"].get<double>(), 0) << *util;
  }
  EXPECT_NE(Find(doc["results"], 1, "ppl", "ppl"), nullptr);
}

}  // namespace
}  // namespace pipette_e2e
