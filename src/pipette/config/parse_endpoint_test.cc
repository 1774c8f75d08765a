// The endpoint runtime's keys (config/parse_endpoint.h), parsed as part of an experiment file.
#include "pipette/config/parse_endpoint.h"

#include <gtest/gtest.h>

#include "pipette/config/canonical.h"
#include "pipette/config/parse.h"
#include "pipette/config/parse_testing.h"

namespace pipette::config {
namespace {

const std::string kHead = "models: [smollm2-135m-instruct-q4_1]\ntests: [tg16]\n";

// Parsing is pure: every case here names files that do not exist, and none is looked for.
using testing::ErrorOf;
using testing::Parse;

TEST(ParseEndpoint, ARunningServerWithItsKeys) {
  auto ex = Parse(kHead +
                  "runtimes:\n"
                  "  - name: openai\n"
                  "    base_url: http://127.0.0.1:8080/v1\n"
                  "    model: smol\n"
                  "    api_key_env: MY_KEY\n"
                  "    body: {chat_template_kwargs: {enable_thinking: false}, top_k: 1}\n");
  ASSERT_TRUE(ex.ok()) << ex.error().message;
  ASSERT_EQ(ex->runtimes.size(), 1u);
  const auto& e = ex->runtimes[0].endpoint;
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->base_url, "http://127.0.0.1:8080/v1");
  EXPECT_EQ(e->model, "smol");
  EXPECT_EQ(e->api_key_env, "MY_KEY");
  EXPECT_EQ(e->body, nlohmann::json::parse(
                         R"({"chat_template_kwargs":{"enable_thinking":false},"top_k":1})"));
  EXPECT_FALSE(e->server.has_value());
  // The canonical form (and so the config hash) holds what the entry writes.
  const auto canon = CanonicalForm(*ex);
  EXPECT_EQ(canon["runtimes"][0]["base_url"], "http://127.0.0.1:8080/v1");
  EXPECT_EQ(canon["runtimes"][0]["api_key_env"], "MY_KEY");
  EXPECT_EQ(canon["runtimes"][0]["name"], "openai");
}

TEST(ParseEndpoint, AServerPipetteStarts) {
  auto bundled = Parse(kHead + "runtimes:\n  - llama.cpp\n  - {name: openai, server: bundled}\n");
  ASSERT_TRUE(bundled.ok()) << bundled.error().message;
  ASSERT_TRUE(bundled->runtimes[1].endpoint->server.has_value());
  EXPECT_TRUE(bundled->runtimes[1].endpoint->server->bundled);
  EXPECT_FALSE(bundled->runtimes[0].endpoint.has_value());

  auto own = Parse(kHead +
                   "runtime:\n  name: openai\n  server:\n"
                   "    command: [/opt/llama-server, -m, '{model}', --port, '{port}']\n"
                   "    parallel: 4\n    ready_timeout: 30\n");
  ASSERT_TRUE(own.ok()) << own.error().message;
  const auto& s = *own->runtimes[0].endpoint->server;
  EXPECT_FALSE(s.bundled);
  EXPECT_EQ(s.command.size(), 5u);
  EXPECT_EQ(s.parallel, 4);
  EXPECT_EQ(s.ready_timeout, 30);
}

TEST(ParseEndpoint, BadEntriesAreNamedWithTheirPlace) {
  const std::string r = kHead + "runtimes:\n";
  EXPECT_EQ(ErrorOf(r + "  - {name: openai}\n"),
            "ex.yaml:4:5: an endpoint runtime needs base_url: (a server already running, e.g. "
            "http://127.0.0.1:8080/v1) or server: bundled (Pipette starts the pinned "
            "llama-server on the experiment's model)");
  EXPECT_EQ(ErrorOf(r + "  - {name: openai, base_url: 'http://h/v1', server: bundled}\n"),
            "ex.yaml:4:5: an endpoint runtime takes either base_url: (a server already running) "
            "or server: (Pipette starts one), not both");
  EXPECT_EQ(ErrorOf(r + "  - {name: openai, server: bundled, worker: w}\n"),
            "ex.yaml:4:5: runtime 'openai' is reached over HTTP and has no worker program: give "
            "base_url: or server:");
  EXPECT_EQ(ErrorOf(r + "  - {name: llama.cpp, base_url: 'http://h/v1'}\n"),
            "ex.yaml:4:23: 'base_url' is a key of an endpoint runtime (one reached over HTTP, "
            "such as openai); runtime 'llama.cpp' runs a worker program");
  EXPECT_EQ(ErrorOf(r + "  - {name: openai, server: bundled, modle: x}\n"),
            "ex.yaml:4:37: unknown key 'modle' in a runtime (did you mean 'model'?)");
  EXPECT_EQ(ErrorOf(r + "  - {name: openai, server: {paralel: 2}}\n"),
            "ex.yaml:4:29: unknown key 'paralel' in server (did you mean 'parallel'?)");
  EXPECT_EQ(ErrorOf(r + "  - {name: openai, server: docker}\n"),
            "ex.yaml:4:28: server: 'docker' is not known: write `server: bundled` (the pinned "
            "llama-server Pipette builds) or `server: {command: [...]}`");
  EXPECT_EQ(ErrorOf(r + "  - {name: openai, base_url: 'ftp://h'}\n"),
            "ex.yaml:4:30: URL 'ftp://h': scheme 'ftp' is not http or https");
  EXPECT_EQ(ErrorOf(r + "  - {name: openai, server: bundled, body: {max_tokens: 4}}\n"),
            "ex.yaml:4:44: body: key 'max_tokens' is set by Pipette (it decides what is "
            "measured) and cannot be replaced");
  EXPECT_NE(ErrorOf(r + "  - {name: openai, server: bundled, body: {ignore_eos: false}}\n")
                .find("body: ignore_eos: true (the boolean, unquoted) says the server honours"),
            std::string::npos);
  EXPECT_TRUE(
      testing::Parse(r + "  - {name: openai, server: bundled, body: {ignore_eos: true}}\n").ok());
  // Quoted, it would be sent as the string "true", which servers do not read as the flag.
  EXPECT_NE(ErrorOf(r + "  - {name: openai, server: bundled, body: {ignore_eos: 'true'}}\n")
                .find("body: ignore_eos: true (the boolean, unquoted)"),
            std::string::npos);
  // A command line written as server: is not repeated: it may hold a key.
  EXPECT_EQ(ErrorOf(r + "  - {name: openai, server: 'llama-server --api-key sk-secret'}\n"),
            "ex.yaml:4:28: server: this value is not known: write `server: bundled` (the pinned "
            "llama-server Pipette builds) or `server: {command: [...]}`");
  EXPECT_EQ(ErrorOf(r + "  - {name: openai, server: bundled, body: [1]}\n"),
            "ex.yaml:4:43: body: a mapping of keys added to every request body");
}

TEST(ParseEndpoint, AKeyIsNeverWrittenNorRepeated) {
  const std::string r = kHead + "runtimes:\n";
  const std::string key = "sk-live-0123456789abcdef";
  const std::string inline_key =
      ErrorOf(r + "  - {name: openai, server: bundled, api_key: " + key + "}\n");
  EXPECT_NE(inline_key.find("a key is never written in an experiment file"), std::string::npos);
  EXPECT_EQ(inline_key.find(key), std::string::npos) << inline_key;
  // A key pasted where the variable's name goes is not printed either.
  const std::string pasted =
      ErrorOf(r + "  - {name: openai, server: bundled, api_key_env: '" + key + "'}\n");
  EXPECT_NE(pasted.find("the name of an environment variable"), std::string::npos);
  EXPECT_EQ(pasted.find(key), std::string::npos) << pasted;
}

}  // namespace
}  // namespace pipette::config
