#include "pipette/workload/ppl/spec.h"

#include <gtest/gtest.h>

#include <fstream>

#include "pipette/config/canonical.h"
#include "pipette/workload/spec_testing.h"

namespace pipette::workload {
namespace {

TEST(PplSpec, ParsedAsWrittenAndNothingElse) {
  auto ex = ParseWritten(kSmol + "quality:\n  ppl: {corpus: missing.txt}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  const auto* ppl = ex->quality.Get<WrittenPpl>("ppl");
  ASSERT_NE(ppl, nullptr);
  EXPECT_EQ(ppl->corpus.path, "missing.txt");
  EXPECT_FALSE(ppl->n_ctx.has_value());
  EXPECT_EQ(ppl->line, 3);
  EXPECT_TRUE(ParseWritten(kSmol + "quality:\n  ppl:\n").ok());
  EXPECT_TRUE(ParseWritten(kSmol + "quality:\n  ppl: true\n").ok());
  EXPECT_EQ(WrittenErrorOf(kSmol + "quality:\n  ppl: {corpsu: a.txt}\n"),
            "ex.yaml:3:9: unknown key 'corpsu' in ppl (did you mean 'corpus'?)");
  EXPECT_EQ(WrittenErrorOf(kSmol + "quality:\n  ppl: [a]\n"),
            "ex.yaml:3:8: ppl: takes a mapping (corpus:, n_ctx:, chunks:) or nothing");
}

TEST(PplSpec, CanonicalFormHoldsOnlyWhatIsWritten) {
  auto none = ParseWritten(kSmol + "quality:\n  ppl:\n");
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(config::CanonicalForm(*none)["quality"]["ppl"], nlohmann::json::object());
  auto some = ParseWritten(kSmol + "quality:\n  ppl: {chunks: 2, n_ctx: 128}\n");
  ASSERT_TRUE(some.ok());
  EXPECT_EQ(config::CanonicalForm(*some)["quality"]["ppl"],
            (nlohmann::json{{"n_ctx", 128}, {"chunks", 2}}));
}

using PplSpecResolve = SpecTest;

TEST_F(PplSpecResolve, DefaultsAndFiles) {
  const std::string corpus = opts_.datasets_dir + "/ppl/devils-dictionary.txt";
  auto ex = Parse(kSmol + "quality:\n  ppl: {corpus: " + corpus + ", n_ctx: 256, chunks: 2}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  const PplSpec* ppl = PplSpecOf(*ex);
  ASSERT_NE(ppl, nullptr);
  EXPECT_EQ(ppl->n_ctx, 256);
  EXPECT_EQ(ppl->chunks, 2);
  EXPECT_EQ(ppl->corpus, corpus);
  EXPECT_EQ(ex->Resolved()["quality"]["ppl"],
            (nlohmann::json{{"corpus", corpus}, {"n_ctx", 256}, {"chunks", 2}}));
  auto plain = Parse(kSmol + "quality:\n  ppl:\n");
  ASSERT_TRUE(plain.ok()) << plain.error().message;
  EXPECT_EQ(PplSpecOf(*plain)->corpus, corpus);  // the shipped corpus
  EXPECT_EQ(PplSpecOf(*plain)->n_ctx, 512);
  EXPECT_EQ(PplSpecOf(*plain)->chunks, 0);
}

TEST_F(PplSpecResolve, CorporaThatCannotFillOneChunkAreRefused) {
  std::ofstream(dir_ / "empty.txt") << "";
  std::ofstream(dir_ / "ten.txt") << "ten bytes.";
  const std::string empty = dir_ / "empty.txt", ten = dir_ / "ten.txt";
  EXPECT_EQ(ErrorOf(kSmol + "quality:\n  ppl: {corpus: empty.txt}\n"),
            "ex.yaml:3:17: the ppl corpus " + empty + " is empty");
  // Ten bytes are at most ten tokens, plus a BOS: enough for n_ctx 11, never for 12.
  EXPECT_TRUE(Parse(kSmol + "quality:\n  ppl: {corpus: ten.txt, n_ctx: 11}\n").ok());
  EXPECT_EQ(ErrorOf(kSmol + "quality:\n  ppl: {corpus: ten.txt, n_ctx: 12}\n"),
            "ex.yaml:3:17: the ppl corpus " + ten +
                " has 10 bytes, too few for one chunk of 12 tokens: a token covers at least one "
                "byte, so a chunk needs at least 11 bytes (n_ctx less the BOS token a tokenizer "
                "may add)");
  // The default is checked the same way: here the shipped corpus is missing.
  opts_.datasets_dir = dir_.path().string();
  EXPECT_NE(ErrorOf(kSmol + "quality:\n  ppl:\n").find("the default corpus is missing"),
            std::string::npos);
}

// A corpus's text is sent in JSON requests, which take only UTF-8: one of other bytes is refused
// when the experiment is resolved, before anything is measured, by its first bad byte.
TEST_F(PplSpecResolve, ACorpusThatIsNotUtf8IsRefusedAtItsFirstBadByte) {
  std::ofstream(dir_ / "latin1.txt", std::ios::binary)
      << "A first line of plain text.\nIt has caf\xE9 on its second line, and more text after.\n";
  EXPECT_EQ(ErrorOf(kSmol + "quality:\n  ppl: {corpus: latin1.txt, n_ctx: 16}\n"),
            "latin1.txt:2:11: not UTF-8: byte 0xE9 (offset 38 of the file) starts no "
            "well-formed UTF-8 sequence; save the text as UTF-8");
  std::ofstream(dir_ / "good.txt", std::ios::binary)
      << "A first line of plain text.\nIt has caf\xC3\xA9 on its second line.\n";
  EXPECT_TRUE(Parse(kSmol + "quality:\n  ppl: {corpus: good.txt, n_ctx: 16}\n").ok());
}

}  // namespace
}  // namespace pipette::workload
