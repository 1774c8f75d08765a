// The worker conformance suite: the same cases run against every worker, through the
// controller's own channel (worker/line_channel.h) and frame reader, and check what every worker
// must do (docs/protocol.md): the handshake, the envelope, errors that name the field, the
// shapes of the responses (the protocol layer's typed structs read them), frames, and exit.
//
// The workers: the C++ llama.cpp worker on the real bundled SmolLM2 model,
// tests/conformance/fixture_worker.py, a TEST FIXTURE on the Python worker module that answers
// with fixed data, and the ONNX Runtime worker on the bundled model converted to ONNX (a ctest
// fixture converts it: tests/conformance/CMakeLists.txt). A new runtime's worker is added to
// kWorkers, with its model file and the init_context options its cases use. A case about an op the
// worker's hello does not list is skipped, saying so: a worker need not serve every op (the runner
// stores a missing op as n/a).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <set>

#include "pipette/protocol/check.h"
#include "pipette/protocol/ops.h"
#include "pipette/protocol/quality_ops.h"
#include "pipette/protocol/session_ops.h"
#include "pipette/protocol/speed_ops.h"
#include "pipette/protocol/test_ops.h"
#include "pipette/protocol/version.h"
#include "pipette/testing/paths.h"
#include "pipette/worker/line_channel.h"
#include "pipette/worker/pipe_transport.h"

namespace pipette::conformance {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;
using worker::CallError;

const std::string kSource = pipette::testing::SourceDir();
constexpr milliseconds kTimeout(120000);  // a bound for a broken worker, not a speed limit

struct WorkerUnderTest {
  std::string name;
  std::vector<std::string> argv;
  std::string model;  // the model file load_model is given
  // The init_context fields of the cases: a small context, and a batch smaller than the speed
  // case's prompt, so that pp answers with more than one batch.
  json init_options;
  // What the worker answers the test op test_throw with (its handler throws on purpose).
  std::string thrown;
};

// gtest names a worker by its name (not its bytes) where a case fails.
void PrintTo(const WorkerUnderTest& w, std::ostream* os) { *os << w.name; }

const WorkerUnderTest kWorkers[] = {
    {"llama",
     {pipette::testing::WorkerLlama()},
     kSource + "/models/SmolLM2-135M-Instruct.Q4_1.gguf",
     {{"n_ctx", 256}, {"n_batch", 4}},
     "the handler threw: thrown on purpose by the test op test_throw"},
    {"python_fixture",
     {pipette::testing::Python3(), "-B", kSource + "/tests/conformance/fixture_worker.py"},
     kSource + "/models/SmolLM2-135M-Instruct.Q4_1.gguf",  // a file to load; never read
     {{"n_ctx", 256}, {"n_batch", 4}},
     "the handler threw RuntimeError: thrown on purpose by the test op test_throw"},
    {"onnxruntime",
     {pipette::testing::WorkerOnnxruntime()},
     pipette::testing::OnnxTestModel(),
     {{"n_ctx", 256}, {"n_batch", 4}},
     "the handler threw RuntimeError: thrown on purpose by the test op test_throw"},
    {"openvino",
     {pipette::testing::WorkerOpenvino()},
     pipette::testing::OnnxTestModel(),
     {{"n_ctx", 256}, {"n_batch", 4}},
     "the handler threw RuntimeError: thrown on purpose by the test op test_throw"},
    {"mnn",
     {pipette::testing::WorkerMnn()},
     pipette::testing::MnnTestModel(),
     {{"n_ctx", 256}, {"n_batch", 4}},
     "the handler threw RuntimeError: thrown on purpose by the test op test_throw"},
};

class Conformance : public ::testing::TestWithParam<WorkerUnderTest> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(std::filesystem::exists(Model())) << "run scripts/setup.sh first: " << Model();
    // The workers answer the test op (test_throw) too; hello does not list it.
    ASSERT_EQ(setenv(protocol::kTestOpsEnv, "1", 1), 0);
    auto transport = worker::PipeTransport::Start(GetParam().argv);
    ASSERT_TRUE(transport.ok()) << transport.error().message;
    raw_ = transport->get();
    channel_ = std::make_unique<worker::LineChannel>(std::move(*transport), GetParam().argv[0]);
  }
  void TearDown() override {
    if (channel_ && HasFailure()) std::cerr << "worker stderr: " << channel_->StderrTail() << "\n";
    channel_.reset();  // shuts the worker down (killed if it does not exit)
  }

  Result<json, CallError> Call(json request) {
    return channel_->Call(std::move(request), kTimeout);
  }

  // A successful response, checked against the op's typed response.
  json Ok(json request, bool frames = false) {
    const std::string op = request["op"];
    auto r = Call(std::move(request));
    EXPECT_TRUE(r.ok()) << r.error().message;
    if (!r.ok()) return json::object();
    const Status shape = protocol::CheckResponse(op, *r, frames);
    EXPECT_TRUE(shape.ok()) << op << ": " << shape.error().message << "\n" << r->dump();
    return *r;
  }

  // A request the worker must refuse and stay usable after: its message.
  std::string Refused(json request) {
    auto r = Call(std::move(request));
    EXPECT_FALSE(r.ok()) << "accepted: " << r->dump();
    if (r.ok()) return "";
    EXPECT_FALSE(r.error().broken) << r.error().message;
    EXPECT_TRUE(channel_->Alive());
    return r.error().message;
  }

  // A line written as is, and the line that answers it, parsed (the envelope's own cases).
  json Raw(const std::string& line) {
    const auto deadline = std::chrono::steady_clock::now() + kTimeout;
    EXPECT_TRUE(raw_->Write(line + "\n", deadline).ok());
    std::string got;
    while (got.find('\n') == std::string::npos) {
      char buf[4096];
      auto n = raw_->Read(buf, sizeof buf, deadline);
      if (!n.ok()) {
        ADD_FAILURE() << "no answer to " << line << ": " << n.error().message;
        return json();
      }
      got.append(buf, *n);
    }
    EXPECT_EQ(got.find('\n'), got.size() - 1) << "more than one line answered " << line;
    return json::parse(got, nullptr, false);
  }

  const std::string& Model() const { return GetParam().model; }

  json Hello() { return Ok(protocol::HelloRequest{}.ToJson()); }

  // Empty when the worker's hello lists every op of `needed`; else why the case is skipped.
  std::string Unserved(std::initializer_list<const char*> needed) {
    const std::set<std::string> ops = OpsOf(Hello());
    std::string missing;
    for (const char* op : needed) {
      if (!ops.count(op)) missing += std::string(missing.empty() ? "" : ", ") + op;
    }
    if (missing.empty()) return "";
    return GetParam().name + "'s hello does not list " + missing + ": the case does not apply";
  }

  std::set<std::string> OpsOf(const json& hello) {
    auto h = protocol::HelloResponse::FromJson(hello);
    EXPECT_TRUE(h.ok());
    return std::set<std::string>(h->ops.begin(), h->ops.end());
  }

  // hello, the worker's model loaded and a context of its init_options; the model's vocabulary
  // size. `context_` holds init_context's response.
  int64_t Ready() {
    Hello();
    const json loaded = Ok({{"op", "load_model"}, {"path", Model()}});
    json init = GetParam().init_options;
    init["op"] = "init_context";
    context_ = Ok(init);
    return loaded.value("model", json::object()).value("n_vocab", int64_t{0});
  }

  std::vector<int64_t> Tokens(const std::string& text) {
    const json r = Ok({{"op", "tokenize"}, {"text", text}});
    return r.value("tokens", std::vector<int64_t>{});
  }

  json context_;
  protocol::Transport* raw_ = nullptr;
  std::unique_ptr<worker::LineChannel> channel_;
};

TEST_P(Conformance, HelloSaysTheProtocolVersionTheRuntimeAndItsOps) {
  const json hello = Hello();
  EXPECT_EQ(hello["protocol"], protocol::kProtocolVersion);
  EXPECT_FALSE(hello["runtime"].get<std::string>().empty());
  EXPECT_TRUE(hello["runtime_build"].is_object());
  EXPECT_EQ(hello["pid"], channel_->Pid());
  const std::set<std::string> ops = OpsOf(hello);
  for (const char* must : {"hello", "load_model", "init_context", "reset_peak_memory", "memory",
                           "tokenize", "shutdown"}) {
    EXPECT_TRUE(ops.count(must)) << "hello's ops lack " << must;
  }
  for (const std::string& op : ops) EXPECT_TRUE(protocol::IsOp(op)) << op;
}

TEST_P(Conformance, EveryOpItListsIsKnownAndEveryOtherIsUnknownByName) {
  const std::set<std::string> ops = OpsOf(Hello());
  for (std::string_view name : protocol::Ops()) {
    const std::string op(name);
    if (op == protocol::op::kShutdown) continue;
    auto r = Call({{"op", op}});  // no fields: answered, or refused for what it lacks
    if (r.ok()) continue;
    ASSERT_FALSE(r.error().broken) << op << ": " << r.error().message;
    const bool unknown = r.error().message.find("unknown op") != std::string::npos;
    EXPECT_EQ(unknown, !ops.count(op)) << op << ": " << r.error().message;
  }
  const std::string message = Refused({{"op", "frobnicate"}});
  EXPECT_NE(message.find("unknown op 'frobnicate'"), std::string::npos) << message;
}

TEST_P(Conformance, LinesThatAreNoRequestAreAnsweredWithoutAnId) {
  for (const char* bad :
       {"this is not json", "[1,2]", "{\"op\":\"memory\"}", "{\"id\":\"7\",\"op\":\"memory\"}"}) {
    const json r = Raw(bad);
    EXPECT_TRUE(r.is_object()) << bad;
    EXPECT_TRUE(r.contains("id") && r["id"].is_null()) << bad << " -> " << r.dump();
    EXPECT_EQ(r.value("ok", true), false) << bad;
    EXPECT_TRUE(r.value("error", json()).is_string()) << bad;
  }
  const json no_op = Raw("{\"id\":3}");
  EXPECT_EQ(no_op["id"], 3);
  EXPECT_EQ(no_op["ok"], false);
  // The worker is still usable, and echoes any integer id, unknown fields ignored.
  const json memory = Raw("{\"id\":123456789012,\"op\":\"memory\",\"a_future_field\":true}");
  EXPECT_EQ(memory["id"], 123456789012);
  EXPECT_EQ(memory["ok"], true);
}

TEST_P(Conformance, AMissingOrMistypedFieldIsRefusedNamingTheOpAndTheField) {
  Ready();
  auto names = [](const std::string& message, const std::string& op, const std::string& field) {
    return message.find(op) != std::string::npos &&
           message.find("'" + field + "'") != std::string::npos;
  };
  struct Case {
    json request;
    std::string field;
  };
  const Case cases[] = {
      {{{"op", "load_model"}}, "path"},
      {{{"op", "init_context"}, {"n_ctx", "big"}}, "n_ctx"},
      {{{"op", "tokenize"}}, "text"},
      {{{"op", "tokenize"}, {"text", 5}}, "text"},
      {{{"op", "tokenize"}, {"text", "x"}, {"add_special", "yes"}}, "add_special"},
      {{{"op", "detokenize"}, {"tokens", {1, "a"}}}, "tokens"},
      {{{"op", "pp"}, {"tokens", "abc"}}, "tokens"},
      {{{"op", "pp"}, {"tokens", {1, 2}}, {"n_batch", 0}}, "n_batch"},
      {{{"op", "tg"}, {"first_token", 1}}, "n_gen"},
      {{{"op", "ttft"}}, "text"},
      {{{"op", "score"}, {"tokens", {1, 2, 3}}, {"from", -1}}, "from"},
      {{{"op", "chat"}, {"prompt_tokens", {1, 2}}}, "max_tokens"},
      {{{"op", "chat"}, {"max_tokens", 2}, {"messages", {{{"role", "user"}}}}},
       "messages[0].content"},
  };
  const std::set<std::string> ops = OpsOf(Hello());
  for (const Case& c : cases) {
    const std::string op = c.request["op"];
    if (!ops.count(op)) continue;  // not served: "unknown op" is the other case's check
    const std::string message = Refused(c.request);
    EXPECT_TRUE(names(message, op, c.field))
        << c.request.dump() << " -> " << message << " (should name " << op << " and '" << c.field
        << "')";
  }
  if (ops.count("quantize")) {
    const std::string m = Refused({{"op", "quantize"}, {"input", Model()}, {"output", "/x"}});
    EXPECT_TRUE(names(m, "quantize", "type")) << m;
  }
  if (ops.count("imatrix")) {
    const std::string m = Refused({{"op", "imatrix"}, {"chunks", {{1, 2}}}});
    EXPECT_TRUE(names(m, "imatrix", "output")) << m;
  }
}

TEST_P(Conformance, OpsThatNeedAModelOrAContextSaySoAndKeepTheWorker) {
  Hello();
  json init = GetParam().init_options;
  init["op"] = "init_context";
  EXPECT_FALSE(Refused(init).empty());
  const bool pp = OpsOf(Hello()).count("pp") > 0;
  if (pp) {
    EXPECT_FALSE(Refused({{"op", "pp"}, {"tokens", {1, 2}}}).empty());
  }
  const std::string no_such = Model() + ".no-such-model";
  const std::string missing = Refused({{"op", "load_model"}, {"path", no_such}});
  EXPECT_NE(missing.find("no-such-model"), std::string::npos) << missing;
  Ok({{"op", "load_model"}, {"path", Model()}});
  if (pp) {
    EXPECT_FALSE(Refused({{"op", "pp"}, {"tokens", {1, 2}}}).empty());  // no context yet
  }
  Ok({{"op", "memory"}});
}

TEST_P(Conformance, MemoryReadingsAreTheProcesssOwnInBytes) {
  Hello();
  const json reset = Ok({{"op", "reset_peak_memory"}});
  EXPECT_TRUE(reset["supported"].is_boolean());
  const json memory = Ok({{"op", "memory"}});
  EXPECT_GT(memory["rss"].get<int64_t>(), 1 << 20);  // any process holds a MiB
  EXPECT_GE(memory["hwm"].get<int64_t>(), memory["rss"].get<int64_t>());
}

TEST_P(Conformance, SpeedOpsAnswerWithTimestampsInOrder) {
  if (const std::string why = Unserved({"pp", "tg", "ttft", "detokenize"}); !why.empty()) {
    GTEST_SKIP() << why;
  }
  const int64_t n_vocab = Ready();
  ASSERT_GT(n_vocab, 0);
  const std::vector<int64_t> tokens = Tokens("The quick brown fox jumps over the lazy dog.");
  ASSERT_GE(tokens.size(), 5u);
  for (int64_t t : tokens) EXPECT_TRUE(t >= 0 && t < n_vocab) << t;

  const json pp = Ok({{"op", "pp"}, {"tokens", tokens}});
  EXPECT_EQ(pp["n_tokens"], tokens.size());
  const auto ends = pp["batch_end_ns"].get<std::vector<int64_t>>();
  const int64_t n_batch = context_.value("n_batch", int64_t{0});  // the context's batch
  if (n_batch > 0) {
    EXPECT_EQ(ends.size(), (tokens.size() + size_t(n_batch) - 1) / size_t(n_batch));
  }
  EXPECT_TRUE(std::is_sorted(ends.begin(), ends.end()));
  EXPECT_GE(ends.front(), pp["t_start_ns"].get<int64_t>());
  EXPECT_LE(ends.back(), pp["t_end_ns"].get<int64_t>());
  // pp at a depth: the prefix is decoded first, untimed; the tokens alone are counted.
  const json deep = Ok({{"op", "pp"}, {"prefix", tokens}, {"tokens", tokens}});
  EXPECT_EQ(deep["n_tokens"], tokens.size());
  EXPECT_FALSE(Refused({{"op", "pp"}, {"prefix", {n_vocab}}, {"tokens", tokens}}).empty());

  const json tg = Ok({{"op", "tg"}, {"prompt", tokens}, {"first_token", tokens[0]}, {"n_gen", 3}});
  const auto token_ends = tg["token_end_ns"].get<std::vector<int64_t>>();
  EXPECT_TRUE(std::is_sorted(token_ends.begin(), token_ends.end()));
  EXPECT_GE(token_ends.front(), tg["t_start_ns"].get<int64_t>());
  for (int64_t t : tg["tokens"].get<std::vector<int64_t>>()) EXPECT_TRUE(t >= 0 && t < n_vocab);

  const json ttft = Ok({{"op", "ttft"}, {"text", "Hello there"}});
  EXPECT_GT(ttft["n_prompt_tokens"].get<int64_t>(), 0);

  const json text = Ok({{"op", "detokenize"}, {"tokens", tokens}});
  EXPECT_FALSE(text["text"].get<std::string>().empty());
  EXPECT_FALSE(Refused({{"op", "pp"}, {"tokens", {n_vocab}}}).empty());  // outside the vocabulary
  if (n_batch > 0) {  // more than the context's batch
    EXPECT_FALSE(Refused({{"op", "pp"}, {"tokens", tokens}, {"n_batch", n_batch + 1}}).empty());
  }
}

// e2e: the prompt decoded and n_gen tokens chosen, timed from before the prompt; greedy, so the
// same request gives the same tokens.
TEST_P(Conformance, E2eTimesThePromptAndEveryGeneratedToken) {
  if (const std::string why = Unserved({"e2e", "tokenize"}); !why.empty()) GTEST_SKIP() << why;
  const int64_t n_vocab = Ready();
  const std::vector<int64_t> tokens = Tokens("The quick brown fox jumps over the lazy dog.");
  const json r = Ok({{"op", "e2e"}, {"prompt", tokens}, {"n_gen", 4}});
  EXPECT_EQ(r["n_prompt"], tokens.size());
  EXPECT_EQ(r["n_gen"], 4);
  const auto ends = r["token_end_ns"].get<std::vector<int64_t>>();
  ASSERT_EQ(ends.size(), 4u);
  EXPECT_TRUE(std::is_sorted(ends.begin(), ends.end()));
  EXPECT_GE(ends.front(), r["t_start_ns"].get<int64_t>());
  const auto ids = r["tokens"].get<std::vector<int64_t>>();
  ASSERT_EQ(ids.size(), 4u);
  for (int64_t t : ids) EXPECT_TRUE(t >= 0 && t < n_vocab) << t;
  EXPECT_EQ(Ok({{"op", "e2e"}, {"prompt", tokens}, {"n_gen", 4}})["tokens"], r["tokens"]);
  EXPECT_FALSE(Refused({{"op", "e2e"}, {"prompt", json::array()}, {"n_gen", 2}}).empty());
  EXPECT_FALSE(Refused({{"op", "e2e"}, {"prompt", {n_vocab}}, {"n_gen", 2}}).empty());
}

TEST_P(Conformance, ScoreFactsAreAlignedWithTheScoredPositions) {
  if (const std::string why = Unserved({"score"}); !why.empty()) GTEST_SKIP() << why;
  const int64_t n_vocab = Ready();
  const std::vector<int64_t> tokens = Tokens("One two three four five six seven.");
  ASSERT_GE(tokens.size(), 6u);
  const int64_t from = 2;
  const json r = Ok({{"op", "score"}, {"tokens", tokens}, {"from", from}, {"top_k", 3}});
  const size_t n = tokens.size() - 1 - from;
  ASSERT_EQ(r["logprob"].size(), n);
  for (size_t i = 0; i < n; ++i) {
    EXPECT_LE(r["logprob"][i].get<double>(), 0.0);
    EXPECT_GE(r["argmax"][i].get<int64_t>(), 0);
    EXPECT_LT(r["argmax"][i].get<int64_t>(), n_vocab);
    ASSERT_EQ(r["top_ids"][i].size(), 3u);
    EXPECT_EQ(r["top_ids"][i][0], r["argmax"][i]);  // the most likely id first
    EXPECT_LE(r["top_tail_logprob"][i].get<double>(), 0.0);
  }
}

TEST_P(Conformance, ScoreWithLogitsSendsFramesTheControllersReaderTakes) {
  if (const std::string why = Unserved({"score"}); !why.empty()) GTEST_SKIP() << why;
  const int64_t n_vocab = Ready();
  const std::vector<int64_t> tokens = Tokens("Frames carry every logit of every position.");
  ASSERT_GE(tokens.size(), 5u);
  const int64_t from = 1;
  const json facts = Ok({{"op", "score"}, {"tokens", tokens}, {"from", from}});
  const json head = Ok({{"op", "score"}, {"tokens", tokens}, {"from", from}, {"logits", true}},
                       /*frames=*/true);
  ASSERT_EQ(head["n_vocab"], n_vocab);
  const int64_t n_frames = head["frames"];
  ASSERT_EQ(n_frames, static_cast<int64_t>(tokens.size()) - 1 - from);
  worker::LogitsFrame frame;
  for (int64_t k = 0; k < n_frames; ++k) {
    auto r = channel_->ReadFrame(&frame, static_cast<size_t>(n_vocab), kTimeout);
    ASSERT_TRUE(r.ok()) << r.error().message;
    EXPECT_EQ(frame.position, from + k);
    // The frame's log-probability of the next token is the facts' (the same logits).
    double max = frame.logits[0], sum = 0;
    for (float v : frame.logits) max = std::max<double>(max, v);
    for (float v : frame.logits) sum += std::exp(double(v) - max);
    const double lp =
        double(frame.logits[size_t(tokens[size_t(from + k + 1)])]) - max - std::log(sum);
    EXPECT_NEAR(lp, facts["logprob"][size_t(k)].get<double>(), 1e-4) << "position " << from + k;
  }
  Ok({{"op", "memory"}});  // the stream is in step after the last frame
  // Refused before its line: no frames follow.
  EXPECT_FALSE(
      Refused({{"op", "score"}, {"tokens", tokens}, {"logits", true}, {"top_k", 2}}).empty());
  Ok({{"op", "memory"}});
}

TEST_P(Conformance, ChatAnswersFromMessagesOrPromptTokens) {
  if (const std::string why = Unserved({"chat"}); !why.empty()) GTEST_SKIP() << why;
  Ready();
  const json tokens =
      Ok({{"op", "chat"}, {"prompt_tokens", Tokens("Once upon")}, {"max_tokens", 3}});
  EXPECT_LE(tokens["tokens"].size(), 3u);
  EXPECT_TRUE(tokens["template"].is_null());
  // A prompt rendered elsewhere (render_chat) is answered for exactly that text.
  const std::string rendered = "<|im_start|>user\nSay hi.<|im_end|>\n<|im_start|>assistant\n";
  const json prompt = Ok({{"op", "chat"}, {"prompt", rendered}, {"max_tokens", 2}});
  EXPECT_EQ(prompt["prompt"], rendered);
  EXPECT_TRUE(prompt["template"].is_null());
  EXPECT_GT(prompt["n_prompt_tokens"].get<int64_t>(), 0);
  // Messages only where the worker renders templates itself (it serves render_chat).
  if (!Unserved({"render_chat"}).empty()) return;
  const json messages = Ok({{"op", "chat"},
                            {"messages", {{{"role", "user"}, {"content", "Say hi."}}}},
                            {"max_tokens", 2}});
  EXPECT_TRUE(messages["template"].is_string());
  EXPECT_GT(messages["n_prompt_tokens"].get<int64_t>(), 0);
  const std::string stop = messages["stop"];
  EXPECT_TRUE(stop == "eog" || stop == "max_tokens") << stop;
}

TEST_P(Conformance, RenderChatRendersATemplateGivenAsTextWithNoModelLoaded) {
  if (const std::string why = Unserved({"render_chat"}); !why.empty()) GTEST_SKIP() << why;
  Hello();  // no model: the template comes with the request
  const json base = {
      {"op", "render_chat"},
      {"template",
       "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n"
       "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"},
      {"bos_text", "<|im_start|>"},
      {"eos_text", "<|im_end|>"},
      {"messages", {{{"role", "user"}, {"content", "Say hi."}}}}};
  const json out = Ok(base);
  EXPECT_EQ(out["prompt"], "<|im_start|>user\nSay hi.<|im_end|>\n<|im_start|>assistant\n");
  EXPECT_EQ(out["template_origin"], "tokenizer.chat_template");
  // A vocabulary that adds BOS: the BOS text the template writes first is removed.
  json adds = base;
  adds["add_bos"] = true;
  EXPECT_EQ(Ok(adds)["prompt"], "user\nSay hi.<|im_end|>\n<|im_start|>assistant\n");
  // No template: llama.cpp's ChatML.
  json none = base;
  none["template"] = "";
  EXPECT_EQ(Ok(none)["template_origin"], "chatml");
  json broken = base;
  broken["template"] = "{% for m in messages %}";
  EXPECT_NE(Refused(broken).find("chat template"), std::string::npos);
}

TEST_P(Conformance, AHandlerThatThrowsIsRefusedNamingTheOpAndTheWorkerStaysUsable) {
  Ready();
  const std::string message = Refused({{"op", protocol::kTestThrowOp}});
  // The worker says what threw, the channel names the op: each once.
  EXPECT_EQ(message, "'test_throw' failed in the worker: " + GetParam().thrown);
  EXPECT_EQ(OpsOf(Hello()).count(protocol::kTestThrowOp), 0u) << "hello lists the test op";
  Ok({{"op", "memory"}});
  Ok({{"op", "tokenize"}, {"text", "still usable"}});
}

TEST_P(Conformance, TheEndOfInputEndsTheWorkerCleanly) {
  Hello();
  raw_->CloseInput();
  auto ended = raw_->AwaitExit(std::chrono::steady_clock::now() + kTimeout);
  ASSERT_TRUE(ended.ok()) << "the worker did not exit at the end of its input";
  EXPECT_EQ(*ended, "exited with status 0");
}

TEST_P(Conformance, ShutdownIsAnsweredThenTheWorkerExits) {
  Hello();
  Ok({{"op", "shutdown"}});
  auto ended = raw_->AwaitExit(std::chrono::steady_clock::now() + kTimeout);
  ASSERT_TRUE(ended.ok()) << "the worker did not exit after shutdown";
  EXPECT_EQ(*ended, "exited with status 0");
}

INSTANTIATE_TEST_SUITE_P(Workers, Conformance, ::testing::ValuesIn(kWorkers),
                         [](const ::testing::TestParamInfo<WorkerUnderTest>& param) {
                           return param.param.name;
                         });

}  // namespace
}  // namespace pipette::conformance
