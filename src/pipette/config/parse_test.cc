#include "pipette/config/parse.h"

#include <gtest/gtest.h>

#include "pipette/config/parse_testing.h"

namespace pipette::config {
namespace {

// Parsing is pure: every case here names files that do not exist, and none is looked for.
using testing::ErrorOf;
using testing::Parse;

const std::string kModel = "models: [smollm2-135m-instruct-q4_1]\n";

TEST(Parse, WhatTheFileWritesAndNothingElse) {
  auto ex = Parse(
      "models: [no/such/model.gguf, {path: other.gguf, name: o}]\n"
      "tests: [pp512, tg128, ttft@64]\n"
      "quantize: {base: o, types: [Q4_0]}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  EXPECT_EQ(ex->path, "ex.yaml");
  ASSERT_EQ(ex->models.size(), 2u);
  EXPECT_EQ(ex->models[0].ref, "no/such/model.gguf");
  EXPECT_FALSE(ex->models[0].name.has_value());
  EXPECT_EQ(ex->models[1].name, "o");
  EXPECT_EQ(ex->models[1].pos.line, 1);
  EXPECT_TRUE(ex->runtimes.empty());  // none written
  EXPECT_TRUE(ex->params.empty());    // n_ctx and depth have defaults, but none is written
  ASSERT_EQ(ex->tests.size(), 3u);
  EXPECT_EQ(ex->tests[2].name, "ttft@64");
  EXPECT_EQ(ex->tests[2].line, 2);
  EXPECT_TRUE(ex->quality.empty());
  ASSERT_EQ(ex->quantize.size(), 1u);
  EXPECT_EQ(ex->quantize[0].base.ref, "o");
  EXPECT_FALSE(ex->repetitions.has_value());
  EXPECT_FALSE(ex->seed.has_value());
  EXPECT_FALSE(ex->name.has_value());
}

TEST(Parse, ListsSweepAndScalarsAreOneValue) {
  auto ex = Parse(kModel +
                  "params:\n  threads: [1, 2, 2]\n  n_batch: 64\n"
                  "  flash_attn: [on, false, auto, true]\n  swa_full: no\ntests: pp64\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  ASSERT_EQ(ex->params.size(), 4u);
  EXPECT_EQ(ex->params[0].name, "threads");
  EXPECT_EQ(ex->params[0].values, (std::vector<std::string>{"1", "2"}));  // duplicates dropped
  EXPECT_EQ(ex->params[0].pos.line, 3);
  EXPECT_EQ(ex->params[1].values, (std::vector<std::string>{"64"}));
  // true/false are on/off, and the canonical forms are what is kept (the second on dropped).
  EXPECT_EQ(ex->params[2].values, (std::vector<std::string>{"on", "off", "auto"}));
  EXPECT_EQ(ex->params[3].values, (std::vector<std::string>{"false"}));
}

TEST(Parse, ErrorsNameLineColumnAndSuggest) {
  const std::string& m = kModel;
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nwarmpu: 2\n"),
            "ex.yaml:3:1: unknown key 'warmpu' (did you mean 'warmup'?)");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nparams:\n  n_bacth: 8\n"),
            "ex.yaml:4:3: unknown parameter 'n_bacth' (did you mean 'n_batch'?)");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nthreads: 2\n"),
            "ex.yaml:3:1: 'threads' is a runtime parameter: put it under 'params:'");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nparams:\n  threads: 0\n"),
            "ex.yaml:4:12: threads must be between 1 and 1024, got 0");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nparams:\n  type_k: q9\n"),
            "ex.yaml:4:11: type_k must be one of f32, f16, bf16, q8_0, q4_0, q4_1, q5_0, q5_1, "
            "got 'q9'");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nparams:\n  flash_attn: maybe\n"),
            "ex.yaml:4:15: flash_attn must be one of auto, on, off (true = on, false = off, "
            "enabled = on, disabled = off), got 'maybe'");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nparams:\n  swa_full: half\n"),
            "ex.yaml:4:13: swa_full must be true or false, got 'half'");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nrepetitions: many\n"),
            "ex.yaml:3:14: field 'repetitions' must be an integer, got 'many'");
  EXPECT_EQ(ErrorOf(m + "tests: [pp0]\n"),
            "ex.yaml:2:9: test 'pp0' needs a positive token count, e.g. pp512, tg128, ttft@256");
  EXPECT_EQ(ErrorOf(m + "tests: [tg100000000]\n"),
            "ex.yaml:2:9: test 'tg100000000' asks for 100000000 tokens: a test takes at most "
            "16777216 (2^24)");
  EXPECT_EQ(ErrorOf(m + "tests: [tgx]\n"),
            "ex.yaml:2:9: test 'tgx' needs a whole number of tokens after 'tg', e.g. pp512, tg128, "
            "ttft@256");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nruntime: llama.cp\n"),
            "ex.yaml:3:10: unknown runtime 'llama.cp' (did you mean 'llama.cpp'?) (known: "
            "llama.cpp, onnxruntime, openvino, mnn, openai)");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\ndevice: phone\n"),
            "ex.yaml:3:9: device 'phone' is not known: write `local`, or a named device such as "
            "{name: board, ssh: {host: 10.0.0.2}} (kinds: local, ssh, adb)");
  EXPECT_EQ(ErrorOf("tests: [pp16]\n"),
            "ex.yaml: missing 'models:' (a list of bundled names or .gguf paths), 'quantize:' or "
            "'convert:'");
  EXPECT_EQ(ErrorOf(m),
            "ex.yaml: missing 'tests:' (for example [pp512, tg128, ttft@256]) or 'quality:'");
  EXPECT_EQ(ErrorOf("\n  \n"),
            "ex.yaml: the experiment file is empty (it needs at least models: and tests:)");
  EXPECT_EQ(ErrorOf("- just\n- a list\n"),
            "ex.yaml: an experiment file must be a YAML mapping (key: value)");
  EXPECT_NE(ErrorOf(m + "tests: [pp16\n").find("ex.yaml:3:1: malformed YAML"), std::string::npos);
}

TEST(Parse, ParametersByTheirLlamaCppNamesAreSuggested) {
  const std::string m = kModel + "tests: [pp16]\n";
  EXPECT_EQ(ErrorOf(m + "params: {n_thread: 2}\n"),
            "ex.yaml:3:10: unknown parameter 'n_thread' (did you mean 'threads'?)");
  EXPECT_EQ(ErrorOf(m + "params:\n  ctx-size: 512\n"),
            "ex.yaml:4:3: unknown parameter 'ctx-size' (did you mean 'n_ctx'?)");
  EXPECT_EQ(ErrorOf(m + "params:\n  fa: on\n"),
            "ex.yaml:4:3: unknown parameter 'fa' (did you mean 'flash_attn'?)");
  EXPECT_EQ(ErrorOf(m + "params:\n  swa-full: false\n"),
            "ex.yaml:4:3: unknown parameter 'swa-full' (did you mean 'swa_full'?)");
  EXPECT_EQ(ErrorOf(m + "params:\n  zz: 1\n"), "ex.yaml:4:3: unknown parameter 'zz'");
  // At the top level too: it is a parameter, by another name.
  EXPECT_EQ(ErrorOf(m + "n_threads: 2\n"),
            "ex.yaml:3:1: unknown key 'n_threads': the runtime parameter is 'threads', under "
            "'params:'");
}

// The place is data as well as words: the message is the one rendering of it.
// Bytes that are not UTF-8 are refused at their place, before they reach the canonical form or the
// store (found by fuzz/experiment_fuzz.cc: an uncaught JSON type_error).
TEST(Parse, BytesThatAreNotUtf8AreRefusedWhereTheyAre) {
  auto r = Parse(kModel + "tests: [pp16]\nname: caf\xff\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, 2);
  EXPECT_NE(r.error().message.find("ex.yaml:3:"), std::string::npos) << r.error().message;
  EXPECT_NE(r.error().message.find("not UTF-8"), std::string::npos) << r.error().message;
  // yaml-cpp decodes a NUL and an escaped lone surrogate into bytes that are not UTF-8.
  auto nul = Parse(kModel + "tests: [pp16]\nname: a" + std::string(1, '\0') + "b\n");
  ASSERT_FALSE(nul.ok());
  EXPECT_EQ(nul.error().exit_code, 2);
  EXPECT_EQ(nul.error().message,
            "ex.yaml:3:8: a control character (byte 0x00) is not allowed in YAML");
  auto surrogate = Parse(kModel + "tests: [pp16]\nname: \"a\\ud800\"\n");
  ASSERT_FALSE(surrogate.ok());
  EXPECT_EQ(surrogate.error().exit_code, 2);
  EXPECT_NE(surrogate.error().message.find("ex.yaml:3:"), std::string::npos)
      << surrogate.error().message;
}

TEST(Parse, AnErrorKeepsItsFileLineAndColumnAsContext) {
  auto r = Parse(kModel + "tests: [pp16]\nwarmpu: 2\n");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().exit_code, 2);
  EXPECT_EQ(r.error().context.file, "ex.yaml");
  EXPECT_EQ(r.error().context.line, 3);
  EXPECT_EQ(r.error().context.column, 1);
  EXPECT_EQ(r.error().message,
            Describe(r.error().context, "unknown key 'warmpu' (did you mean 'warmup'?)"));
  EXPECT_EQ(r.error().message, "ex.yaml:3:1: unknown key 'warmpu' (did you mean 'warmup'?)");

  // yaml-cpp's own exceptions and the tab check too.
  auto tab = Parse(kModel + "tests: [pp16]\nparams:\n  threads: 2\n  \tn_batch: 8\n");
  ASSERT_FALSE(tab.ok());
  EXPECT_EQ(tab.error().context.line, 5);
  EXPECT_EQ(tab.error().context.column, 3);
  EXPECT_EQ(tab.error().message,
            Describe(tab.error().context, "a tab in the indentation: YAML indents with spaces"));
  auto malformed = Parse(kModel + "tests: [pp16\n");
  ASSERT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.error().context.file, "ex.yaml");
  EXPECT_EQ(malformed.error().context.line, 3);
  EXPECT_EQ(malformed.error().context.column, 1);

  // A problem of the whole file names the file only.
  auto empty = Parse("\n");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().context.file, "ex.yaml");
  EXPECT_EQ(empty.error().context.line, 0);
  EXPECT_EQ(empty.error().message,
            Describe({.file = "ex.yaml"},
                     "the experiment file is empty (it needs at least models: and tests:)"));
}

TEST(Parse, ATabInTheIndentationIsNamed) {
  const std::string m = kModel + "tests: [pp16]\n";
  EXPECT_EQ(ErrorOf(m + "params:\n\tthreads: 2\n"),
            "ex.yaml:4:1: a tab in the indentation: YAML indents with spaces");
  EXPECT_EQ(ErrorOf(m + "params:\n  threads: 2\n  \tn_batch: 8\n"),
            "ex.yaml:5:3: a tab in the indentation: YAML indents with spaces");
  EXPECT_EQ(ErrorOf("models:\n\t- smollm2-135m-instruct-q4_1\ntests: [pp16]\n"),
            "ex.yaml:2:1: a tab in the indentation: YAML indents with spaces");
  // A tab YAML accepts (inside a block of text) is no error; other mistakes keep their words.
  EXPECT_TRUE(Parse(m + "description: |\n  one\n  \ttwo\n").ok());
  EXPECT_NE(ErrorOf(m + "params: {threads: 2\n").find("malformed YAML"), std::string::npos);
}

TEST(Parse, NothingMaySayAThingTwice) {
  const std::string& m = kModel;
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nrepetitions: 2\nrepetitions: 3\n"),
            "ex.yaml:4:1: duplicate key 'repetitions' (first at line 3)");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nparams:\n  threads: 1\n  threads: 2\n"),
            "ex.yaml:5:3: duplicate key 'threads' in params (first at line 4)");
  EXPECT_EQ(ErrorOf(m + "tests: [pp64, tg16, pp064]\n"),
            "ex.yaml:2:21: test pp64 is listed twice (first at line 2)");
  EXPECT_EQ(ErrorOf(m + "tests: [pp16]\nruntime: llama.cpp\nruntimes: [llama.cpp]\n"),
            "ex.yaml:4:1: give either 'runtime:' or 'runtimes:', not both");
}

// Hostile YAML is refused with its place, never followed: an alias that holds itself would nest
// without end (it overflowed the stack before), and aliases of aliases expand past any memory.
TEST(Parse, AliasesThatNeverEndAreRefused) {
  EXPECT_EQ(ErrorOf(kModel + "tests: [pp16]\nname: &x [*x]\n"),
            "ex.yaml:3:7: nested more than 64 levels deep (an alias that holds itself?)");
  std::string laughs = kModel + "tests: [pp16]\ndescription: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 7; ++i) {
    laughs += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) laughs += (j ? ", *a" : "*a") + std::to_string(i - 1);
    laughs += "]\n";
  }
  EXPECT_NE(ErrorOf(laughs).find("more than 10000 values once its aliases are expanded"),
            std::string::npos);
  EXPECT_EQ(ErrorOf(kModel + "tests: [pp16]\n\"a\\0b\": 1\n"),
            "ex.yaml:3:1: a key must not hold a NUL character");
  // An alias as such is YAML, and reads as what it names.
  auto aliased = Parse(kModel + "tests: &t [pp16]\nrepetitions: &n 3\nwarmup: *n\n");
  ASSERT_TRUE(aliased.ok()) << aliased.error().message;
  EXPECT_EQ(aliased->warmup, 3);
}

TEST(Parse, QuantizeErrorsNameTheLine) {
  EXPECT_EQ(ErrorOf("quantize: {base: smollm2-135m-instruct-q4_1, types: [Q4_K]}\n"
                    "tests: [pp16]\n"),
            "ex.yaml:1:54: unknown quantization type 'Q4_K' (did you mean 'Q6_K'?) (known: F32 "
            "F16 BF16 Q8_0 Q6_K Q5_K_M Q5_K_S Q5_1 Q5_0 Q4_K_M Q4_K_S Q4_1 Q4_0 IQ4_NL IQ4_XS "
            "Q3_K_L Q3_K_M Q3_K_S Q2_K)");
  EXPECT_EQ(ErrorOf("quantize:\n  base: smollm2-135m-instruct-q4_1\n  typs: [Q8_0]\n"
                    "tests: [pp16]\n"),
            "ex.yaml:3:3: unknown key 'typs' in quantize (did you mean 'types'?)");
  EXPECT_EQ(ErrorOf("quantize:\n  base: smollm2-135m-instruct-q4_1\n  types: [F16]\n"
                    "  overrides: {'blk\\.(0': q4_0}\n  label: x\n"
                    "tests: [pp16]\n")
                .substr(0, 57),
            "ex.yaml:4:15: 'blk\\.(0' is not a valid regular expression");
  EXPECT_EQ(ErrorOf("quantize:\n  base: smollm2-135m-instruct-q4_1\n  types: [F16]\n"
                    "  overrides: {'blk\\.0\\..*': q4_k_m}\n  label: x\n"
                    "tests: [pp16]\n")
                .substr(0, 42),
            "ex.yaml:4:29: unknown tensor type 'q4_k_m'");
  EXPECT_EQ(ErrorOf("quantize:\n  base: smollm2-135m-instruct-q4_1\n  types: [F16, Q8_0]\n"
                    "  overrides: {'blk\\.0\\..*': q4_0}\n"
                    "tests: [pp16]\n"),
            "ex.yaml:4:14: a variant with overrides needs 'label:' (its name in reports)");
  EXPECT_EQ(ErrorOf("quantize:\n  base: smollm2-135m-instruct-q4_1\n"
                    "  imatrix: {types: [Q8_0]}\ntests: [pp16]\n"),
            "ex.yaml:3:20: an importance matrix changes nothing for Q8_0: list lower-bit types "
            "(Q4_0, Q4_K_M, ...)");
  EXPECT_EQ(ErrorOf("quantize:\n  base: smollm2-135m-instruct-q4_1\n  types: [F16]\n"
                    "  overrides: {'^blk\\.0\\.': q4_0}\n  label: x\ntests: [pp16]\n")
                .substr(0, 62),
            "ex.yaml:4:14: llama.cpp ignores overrides when the type is F16");
}

}  // namespace
}  // namespace pipette::config
