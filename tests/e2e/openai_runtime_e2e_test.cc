// The `openai` runtime end to end: `pipette run` on the pinned llama-server (started by Pipette,
// or by the test as a server already running) beside the in-process llama.cpp worker, and on a
// fixture server — named as one — for the faults a real server will not produce on demand (a
// stall, an HTTP 500, a malformed SSE line). What is checked does not depend on the machine's
// speed: token counts, the server's and the client's counts agreeing, greedy output equal to the
// in-process output, the API key absent everywhere, the n/a reasons.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <sstream>
#include <thread>

#include "fixture.h"
#include "pipette/endpoint/server.h"

namespace pipette_e2e {
namespace {

using namespace pipette;

// The report's rows of the cells of `runtime` (and, when given, that concurrency).
std::vector<json> RowsOf(const json& results, const std::string& runtime, int concurrency = 0) {
  std::vector<json> out;
  for (const json& r : results) {
    if (r["runtime"] != runtime) continue;
    if (concurrency && r["params"].value("concurrency", 0) != concurrency) continue;
    out.push_back(r);
  }
  return out;
}

const json* Row(const std::vector<json>& rows, const std::string& test, const std::string& metric) {
  for (const json& r : rows) {
    if (r["test"] == test && r["metric"] == metric) return &r;
  }
  return nullptr;
}

// The row, or (a failure recorded) null: a missing row fails the test, not the test binary.
const json& At(const std::vector<json>& rows, const std::string& test, const std::string& metric) {
  static const json kMissing;
  if (const json* r = Row(rows, test, metric)) return *r;
  ADD_FAILURE() << "no row " << test << " " << metric;
  return kMissing;
}

class OpenAiRuntime : public E2E {};

TEST_F(OpenAiRuntime, TheBundledServerBesideInProcessLlamaCpp) {
  const fs::path ex = Write("serving.yaml", R"(name: serving
models: [)" + kModel + R"(]
runtimes:
  - llama.cpp
  - {name: openai, server: bundled}
params:
  threads: 2
  concurrency: [1, 2]
  api: [completions, chat]
tests: [pp32, tg16, ttft@32]
repetitions: 2
warmup: 1
quality:
  ppl: {chunks: 1, n_ctx: 128}
)");
  Output o = Pipette({"run", ex.string(), "--store", Store()});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  const json doc = ReportJson();
  const json& results = doc["results"];

  for (const std::string api : {"completions", "chat"}) {
    for (int c : {1, 2}) {
      std::vector<json> rows;
      for (const json& r : RowsOf(results, "openai", c)) {
        if (r["params"].value("api", "") == api) rows.push_back(r);
      }
      ASSERT_FALSE(rows.empty()) << "no openai cell with concurrency " << c << ", api " << api;
      SCOPED_TRACE(api + " concurrency " + std::to_string(c));
      // Every stream gave the tokens asked, and the server's count agreed with the client's.
      for (const char* test : {"tg16", "ttft@32"}) {
        const json* n = Row(rows, test, "streams");
        ASSERT_NE(n, nullptr) << test;
        EXPECT_EQ((*n)["median"], 2 * c) << test;  // two repetitions of c streams
        EXPECT_EQ(At(rows, test, "failed_streams")["median"], 0) << test;
        EXPECT_EQ(At(rows, test, "token_count_mismatches")["median"], 0) << test;
        const json* overhead = Row(rows, test, "serving_overhead");
        ASSERT_NE(overhead, nullptr) << test;
        EXPECT_EQ((*overhead)["n"], 2 * c);
      }
      const json* tg = Row(rows, "tg16", "throughput");
      ASSERT_NE(tg, nullptr);
      EXPECT_GT((*tg)["median"].get<double>(), 0);
      EXPECT_EQ((*tg)["n"], 2 * c);  // one value per stream
      ASSERT_NE(Row(rows, "tg16", "itl_p99"), nullptr);
      ASSERT_NE(Row(rows, "tg16", "aggregate_throughput"), nullptr);
      ASSERT_NE(Row(rows, "ttft@32", "ttft"), nullptr);
      // The server is Pipette's process: its peak memory is read, and the load is its start.
      const json* peak = Row(rows, "memory", "peak_rss");
      ASSERT_NE(peak, nullptr);
      EXPECT_GT((*peak)["median"].get<double>(), double(fs::file_size(kModel)));
      ASSERT_NE(Row(rows, "load", "time"), nullptr);
      // What HTTP cannot give is n/a with its reason, never estimated.
      bool ppl_na = false, pp_na = false;
      for (const json& r : rows) {
        const std::string reason =
            r.value("na", json()).is_string() ? r["na"].get<std::string>() : std::string();
        if (r["test"] == "ppl" &&
            reason.find("log-probabilities of given tokens") != std::string::npos) {
          ppl_na = true;
        }
        if (r["test"] == "pp32" && reason.find("ttft@P measures it") != std::string::npos) {
          pp_na = true;
        }
      }
      EXPECT_TRUE(ppl_na) << "ppl is not n/a with its reason, concurrency " << c;
      EXPECT_TRUE(pp_na);
    }
  }

  // The stored samples: the prompt of ttft@32 was found with the server's own tokenizer, and the
  // server counted the same prompt; the slot count and the server's build are recorded.
  auto store = store::Store::Open(Store());
  ASSERT_TRUE(store.ok());
  auto run = (*store)->LatestRunId();
  ASSERT_TRUE(run.ok() && run->has_value());
  auto cells = (*store)->Cells(**run);
  ASSERT_TRUE(cells.ok());
  int64_t in_process = 0, served = 0;
  for (const auto& c : *cells) {
    EXPECT_EQ(c.status, "ok") << c.key << ": " << c.error;
    if (c.runtime == "llama.cpp") in_process = c.id;
    if (c.runtime == "openai" && c.params.value("concurrency", 0) == 1 &&
        c.params.value("api", "") == "completions") {
      served = c.id;
    }
  }
  ASSERT_TRUE(in_process && served);
  for (const auto& s : Samples(served, "ttft@32")) {
    const json& t = s.raw["streams"][0]["tokens"];
    EXPECT_EQ(t["prompt_expected"], t["prompt_usage"]);
    EXPECT_GE(t["prompt_usage"].get<int64_t>(), 32);
  }
  const auto context = Samples(served, "context");
  ASSERT_EQ(context.size(), 1u);
  EXPECT_EQ(context[0].raw["slots"], 2);  // the highest concurrency tested
  EXPECT_FALSE(context[0].raw.value("server_build", "").empty());

  // In process beside served, side by side, the served cells as ratios to the in-process one:
  // one row for llama.cpp, one per api and concurrency for the server (named in the row).
  Output vary = Pipette({"report", "--store", Store(), "--vary", "runtime"});
  ASSERT_EQ(vary.code, 0) << vary.out << vary.err;
  EXPECT_NE(vary.out.find("varying runtime"), std::string::npos) << vary.out;
  std::vector<std::string> runtimes;
  std::istringstream lines(vary.out);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("| llama.cpp", 0) == 0 || line.rfind("| openai", 0) == 0) {
      runtimes.push_back(line.substr(2, line.find(' ', 2) - 2));
      EXPECT_NE(line.find("x)"), std::string::npos) << line;  // a ratio to the first
      if (runtimes.back() == "openai") {
        EXPECT_NE(line.find("concurrency="), std::string::npos) << line;
      }
    }
  }
  EXPECT_EQ(runtimes,
            (std::vector<std::string>{"llama.cpp", "openai", "openai", "openai", "openai"}))
      << vary.out;
}

// kld and mc, like ppl, need the log-probabilities of given tokens: n/a with that reason.
TEST_F(OpenAiRuntime, KldAndMcAreNotApplicableWithTheirReason) {
  const fs::path ex = Write("na.yaml", R"(name: na
models: [)" + kModel + R"(]
runtime: {name: openai, server: bundled}
tests: [tg4]
repetitions: 1
warmup: 0
quality:
  kld: {reference: SmolLM2-135M-Instruct.Q4_1, chunks: 1, n_ctx: 128}
  mc: {limit: 2}
)");
  Output o = Pipette({"run", ex.string(), "--store", Store()});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  const std::vector<json> rows = RowsOf(ReportJson()["results"], "openai");
  for (const char* test : {"kld", "mc"}) {
    bool found = false;
    for (const json& r : rows) {
      if (r["test"] != test) continue;
      found = true;
      ASSERT_TRUE(r["na"].is_string()) << r.dump();
      EXPECT_NE(r["na"].get<std::string>().find("log-probabilities of given tokens"),
                std::string::npos)
          << r.dump();
    }
    EXPECT_TRUE(found) << test;
  }
}

// `text` without a last character cut short: a generation stopped at max_tokens can end inside a
// UTF-8 sequence. The in-process worker's text shows those bytes as U+FFFD (its detokenized text
// must be valid UTF-8 to be stored); a server holds them back (it never sends half a character).
// The token ids are the same; only the rendering of the cut character differs.
std::string WholeCharacters(std::string text) {
  const std::string replacement = "\xEF\xBF\xBD";
  while (text.size() >= 3 && text.compare(text.size() - 3, 3, replacement) == 0)
    text.resize(text.size() - 3);
  return text;
}

// Greedy generation through the server's chat template equals the in-process output for the same
// rendered prompt on at least 95% of the shipped items (the issue's bound).
TEST_F(OpenAiRuntime, GreedyGenerationThroughTheServerEqualsInProcess) {
  const fs::path ex = Write("gen.yaml", R"(name: gen
models: [)" + kModel + R"(]
runtimes:
  - llama.cpp
  - {name: openai, server: bundled}
params:
  threads: 2
tests: [tg4]
repetitions: 1
warmup: 0
quality:
  gen: {}
)");
  Output o = Pipette({"run", ex.string(), "--store", Store()});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  auto store = store::Store::Open(Store());
  ASSERT_TRUE(store.ok());
  auto run = (*store)->LatestRunId();
  ASSERT_TRUE(run.ok() && run->has_value());
  auto cells = (*store)->Cells(**run);
  ASSERT_TRUE(cells.ok());
  ASSERT_EQ(cells->size(), 2u);
  const auto local =
      Samples((*cells)[0].runtime == "llama.cpp" ? (*cells)[0].id : (*cells)[1].id, "gen");
  const auto remote =
      Samples((*cells)[0].runtime == "openai" ? (*cells)[0].id : (*cells)[1].id, "gen");
  ASSERT_EQ(local.size(), 71u);
  ASSERT_EQ(remote.size(), local.size());
  int same = 0;
  for (size_t i = 0; i < local.size(); ++i) {
    // The same rendered prompt: llama-server's /apply-template and the in-process template.
    EXPECT_EQ(local[i].raw["prompt_sha256"], remote[i].raw["prompt_sha256"]) << "item " << i;
    const std::string mine = WholeCharacters(local[i].raw["text"].get<std::string>());
    if (mine == remote[i].raw["text"].get<std::string>()) {
      ++same;
    } else {
      std::cerr << "item " << i << " differs (up to 5% may):\n"
                << mine << "\n---\n"
                << remote[i].raw["text"] << "\n";
    }
  }
  EXPECT_GE(same * 100, 95 * static_cast<int>(local.size())) << same << " of " << local.size();
}

TEST_F(OpenAiRuntime, ARunningServerWithAnApiKeyThatIsNeverStoredOrPrinted) {
  const std::string key = "pipette-e2e-secret-7f3a9c";
  http::HttpLibClient client;
  auto server = endpoint::ServerProcess::Start(
      {kLlamaTools + "/llama-server", "-m", kModel, "--host", "127.0.0.1", "--port", "{port}", "-t",
       "2", "-c", "512", "--api-key", key, "--no-webui"},
      dir_ / "server.log", client, std::chrono::seconds(120));
  ASSERT_TRUE(server) << server.error().message;
  const std::string base = (*server)->url().ToString() + "/v1";
  const std::string text = R"(name: running
models: [)" + kModel + R"(]
runtime:
  name: openai
  base_url: )" + base + R"(
  api_key_env: PIPETTE_E2E_KEY
  body: {top_k: 1}
tests: [tg8, ttft@16]
repetitions: 1
warmup: 0
)";
  const fs::path ex = Write("running.yaml", text);

  // Without the variable: bad input naming the variable, nothing measured.
  unsetenv("PIPETTE_E2E_KEY");
  Output missing = Pipette({"run", ex.string(), "--store", Store()});
  EXPECT_EQ(missing.code, 2) << missing.err;
  EXPECT_NE(missing.err.find("PIPETTE_E2E_KEY is not set"), std::string::npos) << missing.err;
  EXPECT_FALSE(fs::exists(Store()));

  // A wrong key: the server's refusal is the cell's reason.
  setenv("PIPETTE_E2E_KEY", "wrong-key", 1);
  Output refused = Pipette({"run", ex.string(), "--store", Store()});
  EXPECT_NE(refused.code, 0);
  EXPECT_NE((refused.out + refused.err).find("HTTP 401"), std::string::npos)
      << refused.out << refused.err;

  setenv("PIPETTE_E2E_KEY", key.c_str(), 1);
  const fs::path exported = dir_ / "report.json";
  Output o = Pipette({"run", ex.string(), "--store", Store(), "--export-json", exported.string(),
                      "--export-md", (dir_ / "report.md").string()});
  unsetenv("PIPETTE_E2E_KEY");
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  const json doc = ReportJson();
  const std::vector<json> rows = RowsOf(doc["results"], "openai");
  ASSERT_NE(Row(rows, "tg8", "throughput"), nullptr);
  EXPECT_EQ(At(rows, "tg8", "token_count_mismatches")["median"], 0);
  ASSERT_NE(Row(rows, "ttft@16", "ttft"), nullptr);
  // Not Pipette's process: no memory and no load time, the memory n/a with its reason.
  EXPECT_EQ(Row(rows, "load", "time"), nullptr);
  const json* memory = Row(rows, "memory", "all");
  ASSERT_NE(memory, nullptr);
  EXPECT_NE((*memory)["na"].get<std::string>().find("not Pipette's process"), std::string::npos);
  // The body option is recorded with every row of the cell.
  EXPECT_EQ(rows.front()["runtime_build"]["endpoint"]["body"]["top_k"], 1);

  // The key is nowhere: not in the store, the exports, what was printed or the sql report.
  Output sql = Pipette({"report", "--store", Store(), "--format", "sql", "--all"});
  for (const fs::path& f : {fs::path(Store()), exported, dir_ / "report.md"}) {
    EXPECT_EQ(ReadFile(f).find(key), std::string::npos) << f;
  }
  for (const std::string& printed :
       {o.out, o.err, refused.out, refused.err, sql.out, missing.err}) {
    EXPECT_EQ(printed.find(key), std::string::npos);
    EXPECT_EQ(printed.find("wrong-key"), std::string::npos);  // nor the refused one
  }
  EXPECT_EQ(ReadFile(Store()).find("wrong-key"), std::string::npos);

  // More streams than the running server has slots would queue: the cell fails, saying so.
  setenv("PIPETTE_E2E_KEY", key.c_str(), 1);
  std::string queued = text;
  queued.replace(queued.find("tests:"), 0, "params: {concurrency: 64}\n");
  Output q = Pipette({"run", Write("queued.yaml", queued).string(), "--store", Store()});
  unsetenv("PIPETTE_E2E_KEY");
  EXPECT_NE(q.code, 0);
  EXPECT_NE((q.out + q.err).find("the streams would queue"), std::string::npos) << q.out << q.err;
  (*server)->Stop();
}

// The real llama-server with a thinking template (tests/data/thinking-template.jinja): the model
// generates after an open <think>, which the server returns as reasoning, so with a small budget
// every answer is empty. Such an item is flagged and never a success, even where its only checker
// (a length bound) would pass an empty answer; the experiment's body turns thinking off and the
// answers come back.
TEST_F(OpenAiRuntime, AThinkingModeThatSpendsTheBudgetIsFlaggedNotASuccess) {
  http::HttpLibClient client;
  auto server = endpoint::ServerProcess::Start(
      {kLlamaTools + "/llama-server", "-m", kModel, "--host", "127.0.0.1", "--port", "{port}", "-t",
       "2", "-c", "2048", "--no-webui", "--jinja", "--chat-template-file",
       kSource + "/tests/data/thinking-template.jinja", "--reasoning-format", "deepseek"},
      dir_ / "server.log", client, std::chrono::seconds(120));
  ASSERT_TRUE(server) << server.error().message;
  std::string items;
  for (const char* topic : {"a cat", "the sea", "a city", "a tree"}) {
    items += std::string(R"({"id": "story-)") + std::to_string(items.size()) +
             R"(", "prompt": "Write a long story )" + R"(about )" + topic +
             R"(.", "max_tokens": 12, "task_type": "story", )" +
             R"("language": "en", "checkers": [{"type": "max_chars", "value": 2000}]})" + "\n";
  }
  const fs::path dataset = Write("stories.jsonl", items);
  const std::string base = (*server)->url().ToString() + "/v1";
  auto experiment = [&](const std::string& body) {
    return Write("thinking.yaml", R"(name: thinking
models: [)" + kModel + R"(]
runtime: {name: openai, base_url: ')" +
                                      base + "'" + body + R"(}
tests: [tg4]
repetitions: 1
warmup: 0
quality:
  gen: {dataset: )" + dataset.string() +
                                      R"(}
)");
  };
  Output thinking = Pipette({"run", experiment("").string(), "--store", Store()});
  ASSERT_EQ(thinking.code, 0) << thinking.out << thinking.err;
  const auto samples = Samples(1, "gen");
  ASSERT_EQ(samples.size(), 4u);
  for (const auto& s : samples) {
    EXPECT_EQ(s.raw["thinking_exhausted"], true) << s.raw.dump();
    EXPECT_EQ(s.raw["text"], "");
    EXPECT_FALSE(s.raw["reasoning"].get<std::string>().empty());
    EXPECT_EQ(s.raw["stream"]["tokens"]["reasoning"], 12);
    EXPECT_EQ(s.raw["stream"]["tokens"]["answer"], 0);
  }
  {
    const std::vector<json> rows = RowsOf(ReportJson()["results"], "openai");
    const json* exhausted = Row(rows, "gen", "thinking_exhausted");
    ASSERT_NE(exhausted, nullptr);
    EXPECT_EQ((*exhausted)["median"], 4);
    const json* ok = Row(rows, "gen", "format_ok");
    ASSERT_NE(ok, nullptr);
    EXPECT_EQ((*ok)["value"], 0);  // an empty answer is never a success
  }
  // Thinking off through the request body: answers, none flagged, every item a success.
  fs::remove(Store());
  Output off = Pipette(
      {"run", experiment(", body: {chat_template_kwargs: {enable_thinking: false}}").string(),
       "--store", Store()});
  ASSERT_EQ(off.code, 0) << off.out << off.err;
  for (const auto& s : Samples(1, "gen")) {
    EXPECT_EQ(s.raw["thinking_exhausted"], false);
    EXPECT_FALSE(s.raw["text"].get<std::string>().empty());
  }
  const std::vector<json> rows = RowsOf(ReportJson()["results"], "openai");
  const json* ok = Row(rows, "gen", "format_ok");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ((*ok)["value"], 1);
  (*server)->Stop();
}

// A fixture server (a stand-in, not llama-server): /v1/models names one model, /v1/completions
// streams three tokens and /v1/chat/completions a three-word answer, except as `mode` says: the
// first request of each stalls past the experiment's 1 s timeout, every request answers HTTP 500,
// the first sends a line that is not JSON, the first's connection drops mid-stream, or no stream
// reports `usage`.
class FixtureServer {
 public:
  enum class Mode {
    kStallFirst,
    kHttp500,
    kMalformedFirst,
    kDropFirst,
    kNoUsage,
    kMalformedAll,
    kModelsArray
  };
  explicit FixtureServer(Mode mode) : mode_(mode) {
    server_.Get("/v1/models", [this](const httplib::Request&, httplib::Response& res) {
      res.set_content(mode_ == Mode::kModelsArray ? "[1,2,3]" : R"({"data":[{"id":"fixture"}]})",
                      "application/json");
    });
    server_.Post("/v1/completions", [this](const httplib::Request&, httplib::Response& res) {
      Stream(completions_++, false, res);
    });
    server_.Post("/v1/chat/completions", [this](const httplib::Request&, httplib::Response& res) {
      Stream(chats_++, true, res);
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FixtureServer() {
    stop_ = true;
    server_.stop();
    thread_.join();
  }
  std::string Url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/v1"; }

 private:
  void Stream(int n, bool chat, httplib::Response& res) {
    if (mode_ == Mode::kHttp500) {
      res.status = 500;
      res.set_content(R"({"error":{"message":"fixture failure"}})", "application/json");
      return;
    }
    const bool stall = mode_ == Mode::kStallFirst && n == 0;
    const bool malformed =
        (mode_ == Mode::kMalformedFirst && n == 0) || mode_ == Mode::kMalformedAll;
    const bool drop = mode_ == Mode::kDropFirst && n == 0;
    const bool usage = mode_ != Mode::kNoUsage;
    res.set_chunked_content_provider("text/event-stream", [this, stall, malformed, drop, usage,
                                                           chat](size_t, httplib::DataSink& sink) {
      if (stall) {
        for (int i = 0; i < 40 && !stop_; ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        sink.done();
        return true;
      }
      // Three tokens, a few milliseconds apart, as a server streams them.
      for (const char* word : {" one", " two", " three"}) {
        const nlohmann::json piece =
            chat ? nlohmann::json{{"choices", {{{"delta", {{"content", word}}}}}}}
                 : nlohmann::json{{"choices", {{{"text", word}}}}};
        const std::string chunk = malformed && std::string(word) == " two"
                                      ? std::string("data: {not json\n\n")
                                      : "data: " + piece.dump() + "\n\n";
        sink.write(chunk.data(), chunk.size());
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        if (drop) return false;  // the connection is closed mid-stream
      }
      nlohmann::json last = {{"choices", {{{"finish_reason", "length"}}}}};
      if (chat) {
        last["choices"][0]["delta"] = nlohmann::json::object();
      } else {
        last["choices"][0]["text"] = "";
      }
      if (usage) last["usage"] = {{"prompt_tokens", 2}, {"completion_tokens", 3}};
      const std::string body = "data: " + last.dump() + "\n\ndata: [DONE]\n\n";
      sink.write(body.data(), body.size());
      sink.done();
      return true;
    });
  }

  Mode mode_;
  httplib::Server server_;
  int port_ = 0;
  std::atomic<int> completions_{0};
  std::atomic<int> chats_{0};
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

std::string FixtureExperiment(const std::string& url, const std::string& more = "") {
  return R"(name: fixture
models: [)" +
         kModel + R"(]
runtime: {name: openai, base_url: ')" +
         url + R"('}
tests: [tg2]
repetitions: 3
warmup: 0
timeout: 1
)" + more;
}

TEST_F(OpenAiRuntime, FixtureAStalledOrMalformedRequestIsRecordedAndTheCellGoesOn) {
  for (auto mode : {FixtureServer::Mode::kStallFirst, FixtureServer::Mode::kMalformedFirst,
                    FixtureServer::Mode::kDropFirst}) {
    SCOPED_TRACE(static_cast<int>(mode));
    FixtureServer fixture(mode);
    const fs::path ex = Write("fixture.yaml", FixtureExperiment(fixture.Url()));
    fs::remove(Store());
    Output o = Pipette({"run", ex.string(), "--store", Store()});
    ASSERT_EQ(o.code, 0) << o.out << o.err;
    const std::vector<json> rows = RowsOf(ReportJson()["results"], "openai");
    EXPECT_EQ(At(rows, "tg2", "streams")["median"], 3);
    EXPECT_EQ(At(rows, "tg2", "failed_streams")["median"], 1);
    const json* tg = Row(rows, "tg2", "throughput");
    ASSERT_NE(tg, nullptr);
    EXPECT_EQ((*tg)["n"], 2);  // the two requests that completed
    // The generic server gives no per-chunk count: the counts came from the chunks and usage.
    const auto samples = Samples(1, "tg2");
    ASSERT_EQ(samples.size(), 3u);
    const char* kind = mode == FixtureServer::Mode::kStallFirst       ? "timeout"
                       : mode == FixtureServer::Mode::kMalformedFirst ? "server_error"
                                                                      : "cut";
    EXPECT_EQ(samples[0].raw["request_failed"]["kind"], kind);
    EXPECT_EQ(samples[1].raw["streams"][0]["tokens"]["streamed_counted_by"], "chunks");
  }
}

TEST_F(OpenAiRuntime, FixtureAnHttpErrorOrAServerThatIsDownFailsTheCellWithTheReason) {
  {
    FixtureServer fixture(FixtureServer::Mode::kHttp500);
    const fs::path ex = Write("fixture.yaml", FixtureExperiment(fixture.Url()));
    Output o = Pipette({"run", ex.string(), "--store", Store()});
    EXPECT_NE(o.code, 0);
    EXPECT_NE((o.out + o.err).find("HTTP 500: fixture failure"), std::string::npos)
        << o.out << o.err;
  }
  // Nothing listens on a port just freed.
  auto port = endpoint::FreeLocalPort();
  ASSERT_TRUE(port);
  const fs::path ex =
      Write("down.yaml", FixtureExperiment("http://127.0.0.1:" + std::to_string(*port) + "/v1"));
  fs::remove(Store());
  Output o = Pipette({"run", ex.string(), "--store", Store()});
  EXPECT_NE(o.code, 0);
  EXPECT_NE((o.out + o.err).find("could not connect"), std::string::npos) << o.out << o.err;
}

TEST_F(OpenAiRuntime, FixtureWithoutUsageTheModelsTokenizerCountsTheTokens) {
  FixtureServer fixture(FixtureServer::Mode::kNoUsage);
  std::string text = FixtureExperiment(fixture.Url());
  text.replace(text.find("tests: [tg2]"), 12, "tests: [tg2, ttft@8]");
  const fs::path ex = Write("fixture.yaml", text);
  Output o = Pipette({"run", ex.string(), "--store", Store()});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  const auto samples = Samples(1, "tg2");
  ASSERT_EQ(samples.size(), 3u);
  for (const auto& s : samples) {
    const json& t = s.raw["streams"][0]["tokens"];
    // " one two three" is three tokens to SmolLM2's tokenizer, one a chunk: counted, agreeing.
    EXPECT_EQ(t["generated_from"], "tokenizer");
    EXPECT_EQ(t["tokenizer"], 3);
    EXPECT_FALSE(t.contains("usage"));
    EXPECT_FALSE(t.contains("mismatch")) << t.dump();
  }
  const std::vector<json> rows = RowsOf(ReportJson()["results"], "openai");
  EXPECT_EQ(At(rows, "tg2", "token_count_mismatches")["median"], 0);
  // A server without a tokenizer endpoint: ttft's prompt of 8 tokens was found with the model's.
  ASSERT_NE(Row(rows, "ttft@8", "ttft"), nullptr);
  for (const auto& s : Samples(1, "ttft@8")) {
    EXPECT_EQ(s.raw["streams"][0]["tokens"]["prompt_expected"], 8) << s.raw.dump();
  }
}

TEST_F(OpenAiRuntime, FixtureAGenItemWhoseRequestStallsFailsAndTheNextGoesOn) {
  FixtureServer fixture(FixtureServer::Mode::kStallFirst);
  const fs::path ex =
      Write("fixture.yaml", FixtureExperiment(fixture.Url(), "quality:\n  gen: {limit: 3}\n"));
  Output o = Pipette({"run", ex.string(), "--store", Store()});
  ASSERT_EQ(o.code, 0) << o.out << o.err;
  const auto items = Samples(1, "gen");
  ASSERT_EQ(items.size(), 3u);
  EXPECT_EQ(items[0].raw["request_failed"]["kind"], "timeout");
  EXPECT_EQ(items[0].raw["stop"], "failed");
  EXPECT_EQ(items[0].raw["text"], "");
  for (size_t i = 1; i < items.size(); ++i) {
    EXPECT_FALSE(items[i].raw.contains("request_failed"));
    EXPECT_EQ(items[i].raw["text"], " one two three");
    EXPECT_EQ(items[i].raw["stream"]["tokens"]["generated_from"], "usage");
  }
  const std::vector<json> rows = RowsOf(ReportJson()["results"], "openai");
  const json* failed = Row(rows, "gen", "failed_requests");
  ASSERT_NE(failed, nullptr);
  EXPECT_EQ((*failed)["median"], 1);
}

// The status of the one cell of the store's first run ("" when there is not exactly one).
std::string OnlyCellStatus(const std::string& path) {
  auto store = store::Store::Open(path);
  if (!store.ok()) return "";
  auto cells = (*store)->Cells(1);
  return cells.ok() && cells->size() == 1 ? (*cells)[0].status : "";
}

// Every request of a test failed (here: a line that is not JSON in every stream): the test
// measured nothing, so the cell fails with the reason and the run exits 1, its failed streams
// still counted in the report.
TEST_F(OpenAiRuntime, FixtureATestWhoseEveryRequestFailedFailsTheCell) {
  FixtureServer fixture(FixtureServer::Mode::kMalformedAll);
  const fs::path ex = Write("fixture.yaml", FixtureExperiment(fixture.Url()));
  Output o = Pipette({"run", ex.string(), "--store", Store()});
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_NE((o.out + o.err).find("every measured request failed (3 of 3)"), std::string::npos)
      << o.out << o.err;
  EXPECT_EQ(OnlyCellStatus(Store()), "failed");
  const std::vector<json> rows = RowsOf(ReportJson()["results"], "openai");
  EXPECT_EQ(At(rows, "tg2", "failed_streams")["median"], 3);
}

// A server whose /v1/models answers an array: the cell fails naming the reply, the run ends
// with its code (never an uncaught exception and an abandoned run).
TEST_F(OpenAiRuntime, FixtureAModelsReplyOfAnotherShapeFailsTheCell) {
  FixtureServer fixture(FixtureServer::Mode::kModelsArray);
  const fs::path ex = Write("fixture.yaml", FixtureExperiment(fixture.Url()));
  Output o = Pipette({"run", ex.string(), "--store", Store()});
  EXPECT_EQ(o.code, 1) << o.out << o.err;
  EXPECT_NE((o.out + o.err).find("did not list its models"), std::string::npos) << o.out << o.err;
  EXPECT_EQ(OnlyCellStatus(Store()), "failed");
}

// An API key variable holding a line break: bad input naming the variable, before anything is
// measured or stored.
TEST_F(OpenAiRuntime, FixtureAKeyWithALineBreakIsRefusedBeforeMeasuring) {
  FixtureServer fixture(FixtureServer::Mode::kNoUsage);
  std::string text = FixtureExperiment(fixture.Url());
  text.replace(text.find("base_url:"), 0, "api_key_env: PIPETTE_E2E_KEY, ");
  setenv("PIPETTE_E2E_KEY", "sk-e2e\r\nX-Injected: 1", 1);
  Output o = Pipette({"run", Write("fixture.yaml", text).string(), "--store", Store()});
  unsetenv("PIPETTE_E2E_KEY");
  EXPECT_EQ(o.code, 2) << o.out << o.err;
  EXPECT_NE(o.err.find("PIPETTE_E2E_KEY holds a control character"), std::string::npos) << o.err;
  EXPECT_EQ((o.out + o.err).find("sk-e2e"), std::string::npos);
  EXPECT_FALSE(fs::exists(Store()));
}

}  // namespace
}  // namespace pipette_e2e
