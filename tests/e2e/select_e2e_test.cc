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

// Bad input is exit 2 with its place, never a recommendation and never another file blamed: a
// figure Pipette never reports, a bound no value can meet, a profiles path that is no readable
// file, a run given twice.
TEST_F(SelectE2E, BadProfilesAndArgumentsAreExitTwoWithTheirPlace) {
  const fs::path typo = Write("typo.yaml",
                              "profiles:\n"
                              "  x:\n"
                              "    constraints:\n"
                              "      - peak_rs <= 1MiB\n");
  Output t = Pipette({"select", "--store", Store(), "--profiles", typo.string(), "--profile", "x"});
  EXPECT_EQ(t.code, 2) << t.out;
  EXPECT_NE(t.err.find(typo.string() + ":4:9: 'peak_rs <= 1MiB': 'peak_rs' is no figure"),
            std::string::npos)
      << t.err;
  EXPECT_NE(t.err.find("(did you mean 'peak_rss'?)"), std::string::npos) << t.err;
  EXPECT_EQ(t.out.find("meets every constraint"), std::string::npos) << t.out;

  const fs::path never = Write("never.yaml",
                               "profiles:\n"
                               "  x:\n"
                               "    constraints: [format_ok >= 1.5]\n");
  Output n =
      Pipette({"select", "--store", Store(), "--profiles", never.string(), "--profile", "x"});
  EXPECT_EQ(n.code, 2);
  EXPECT_NE(n.err.find(never.string() + ":3:32: 'format_ok >= 1.5': no value of format_ok"),
            std::string::npos)
      << n.err;

  for (const std::string& path : {dir_.string(), (dir_ / "missing.yaml").string()}) {
    Output p = Pipette({"select", "--store", Store(), "--profiles", path, "--profile", "x"});
    EXPECT_EQ(p.code, 2) << path;
    EXPECT_NE(p.err.find("--profiles " + path + ": cannot read " + path), std::string::npos)
        << p.err;
  }

  Output twice =
      Pipette({"select", "--store", Store(), "--run", "1", "--run", "1", "--profile", "roomy"});
  EXPECT_EQ(twice.code, 2);
  EXPECT_NE(twice.err.find("--run 1 is given twice"), std::string::npos) << twice.err;
  EXPECT_EQ(twice.err.find("select.yaml"), std::string::npos) << twice.err;
}

}  // namespace
}  // namespace pipette_e2e
