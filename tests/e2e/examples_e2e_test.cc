// End-to-end: every experiment file the project ships (examples/, bench/) is one Pipette
// accepts as it stands, planned with `run --dry-run` (which measures, quantizes and converts
// nothing): a file a user is told to run must not be the first thing that fails.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fixture.h"

namespace pipette_e2e {
namespace {

class ShippedExperiments : public E2E {};

TEST_F(ShippedExperiments, EveryOnePlans) {
  std::vector<fs::path> files;
  for (const char* folder : {"examples", "bench"}) {
    for (const auto& e : fs::directory_iterator(fs::path(kSource) / folder)) {
      if (e.path().extension() == ".yaml") files.push_back(e.path());
    }
  }
  ASSERT_GE(files.size(), 4u);  // quickstart, quality, quantize, runtimes at least
  for (const fs::path& f : files) {
    const Output o = Pipette({"run", f.string(), "--dry-run", "--store", Store()});
    EXPECT_EQ(o.code, 0) << f << "\n" << o.err;
    EXPECT_NE(o.out.find(f.string() + ": "), std::string::npos) << f << "\n" << o.out;
    EXPECT_NE(o.out.find("cell(s)"), std::string::npos) << f << "\n" << o.out;
  }
  EXPECT_FALSE(fs::exists(Store()));  // a dry run stores nothing
}

}  // namespace
}  // namespace pipette_e2e
