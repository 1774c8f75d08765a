// `pipette select` through the CLI on a run made in the test (the bundled model at one and two
// threads): a profile from the experiment file's `select:` section, one from a profiles file, the
// shipped ones listed; vetoes with the figure and by how much; exit 1 when nothing fits and 2 for
// bad input with its place. Ranking, ties and the decision tree on known figures are unit-tested
// (select/select_test.cc): real runs' speeds are not known answers.
#include <gtest/gtest.h>

#include <set>

#include "fixture.h"

namespace pipette_e2e {
namespace {

class SelectE2E : public E2E {
 protected:
  void SetUp() override {
    E2E::SetUp();
    const fs::path ex = Write("ex.yaml",
                              "models: [smollm2-135m-instruct-q4_1]\n"
                              "params: {threads: [1, 2]}\n"
                              "tests: [tg8]\n"
                              "repetitions: 3\n"
                              "warmup: 0\n"
                              "quality:\n"
                              "  mc: {limit: 4}\n"
                              "select:\n"
                              "  roomy:\n"
                              "    about: anything that runs\n"
                              "    constraints: [peak_rss <= 16GiB, tg8 >= 0.01 t/s]\n");
    Output run = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
    ASSERT_EQ(run.code, 0) << run.err;
  }
};

TEST_F(SelectE2E, TheExperimentsProfileRanksBothCellsAndExplainsTheScore) {
  Output r = Pipette({"select", "--store", Store(), "--profile", "roomy", "--format", "json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const json j = json::parse(r.out);
  EXPECT_EQ(j["schema"], "pipette.select");
  EXPECT_EQ(j["profile"]["source"], (dir_ / "ex.yaml").string());
  ASSERT_EQ(j["ranked"].size(), 2u) << r.out;
  EXPECT_TRUE(j["vetoed"].empty());
  // The candidates are told apart by their threads.
  std::set<std::string> names;
  for (const json& c : j["ranked"]) names.insert(c["candidate"].get<std::string>());
  EXPECT_EQ(names, (std::set<std::string>{"smollm2-135m-instruct-q4_1 Q4_1 llama.cpp threads=1",
                                          "smollm2-135m-instruct-q4_1 Q4_1 llama.cpp threads=2"}));
  EXPECT_GE(j["ranked"][0]["score"].get<double>(), j["ranked"][1]["score"].get<double>());
  bool acc = false;
  for (const json& f : j["figures"]) acc = acc || f["figure"] == "mc_acc";
  EXPECT_TRUE(acc) << r.out;
  EXPECT_NE(j["recommendation"].get<std::string>().find("Under roomy, choose "), std::string::npos);

  Output md = Pipette({"select", "--store", Store(), "--profile", "roomy"});
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_NE(md.out.find("## Ranked"), std::string::npos) << md.out;
  EXPECT_NE(md.out.find("## Recommendation"), std::string::npos) << md.out;
}

TEST_F(SelectE2E, NothingFitsExitsOneWithEachVetoAndBadInputTwo) {
  const fs::path profiles = Write("p.yaml",
                                  "profiles:\n"
                                  "  impossible:\n"
                                  "    constraints:\n"
                                  "      - tg8 >= 100000 t/s\n");
  Output r = Pipette({"select", "--store", Store(), "--profiles", profiles.string(), "--profile",
                      "impossible", "--format", "json"});
  EXPECT_EQ(r.code, 1) << r.err;
  const json j = json::parse(r.out);
  EXPECT_TRUE(j["ranked"].empty());
  ASSERT_EQ(j["vetoed"].size(), 2u);
  for (const json& v : j["vetoed"]) {
    EXPECT_EQ(v["figure"], "tg8.throughput");
    EXPECT_NE(v["by"].get<std::string>().find("t/s under"), std::string::npos) << v;
  }
  // The shipped profiles are listed beside the file's and the experiment's.
  Output list = Pipette({"select", "--store", Store(), "--profiles", profiles.string(), "--list"});
  ASSERT_EQ(list.code, 0) << list.err;
  EXPECT_NE(list.out.find("phone-4gb-chat (shipped)"), std::string::npos) << list.out;
  EXPECT_NE(list.out.find("impossible (" + profiles.string() + ")"), std::string::npos);
  EXPECT_NE(list.out.find("roomy ("), std::string::npos);

  Output typo = Pipette({"select", "--store", Store(), "--profile", "phone-4gb-chta"});
  EXPECT_EQ(typo.code, 2);
  EXPECT_NE(typo.err.find("did you mean 'phone-4gb-chat'?"), std::string::npos) << typo.err;
  const fs::path bad = Write("bad.yaml",
                             "profiles:\n"
                             "  x:\n"
                             "    constraints:\n"
                             "      - tg8 => 5 t/s\n");
  Output b = Pipette({"select", "--store", Store(), "--profiles", bad.string(), "--profile", "x"});
  EXPECT_EQ(b.code, 2);
  EXPECT_NE(b.err.find(bad.string() + ":4:13: '=>' is not a comparison"), std::string::npos)
      << b.err;
}

}  // namespace
}  // namespace pipette_e2e
