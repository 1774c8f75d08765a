// The endpoint layer against the real llama-server, built by this project from the same pinned
// llama.cpp as the in-process worker, serving the bundled SmolLM2.
#include <gtest/gtest.h>

#include "fixture.h"
#include "pipette/endpoint/server.h"
#include "pipette/endpoint/stream.h"
#include "pipette/util/temp_dir.h"

namespace pipette_e2e {
namespace {

using namespace pipette;

// The pinned llama-server on the bundled SmolLM2 with `parallel` slots, its log in `dir`.
Result<std::unique_ptr<endpoint::ServerProcess>> StartLlamaServer(const TempDir& dir,
                                                                  http::HttpClient& client,
                                                                  int parallel, int n_ctx) {
  return endpoint::ServerProcess::Start(
      {kLlamaTools + "/llama-server", "-m", kModel, "--host", "127.0.0.1", "--port", "{port}", "-t",
       "2", "-c", std::to_string(n_ctx), "--parallel", std::to_string(parallel)},
      dir.path() / "server.log", client, std::chrono::seconds(120));
}

http::Url V1(const endpoint::ServerProcess& server) {
  http::Url url = server.url();
  url.base_path = "/v1";
  return url;
}

TEST(OpenAiEndpoint, LlamaServerStreamsExactlyTheAskedTokensOneChunkEach) {
  TempDir dir("pipette-endpoint-e2e");
  http::HttpLibClient client;
  auto server = StartLlamaServer(dir, client, 1, 512);
  ASSERT_TRUE(server) << server.error().message;
  const http::Url url = V1(**server);

  endpoint::GenerationRequest req;
  req.prompt = json::array({1, 504, 3458, 282});  // token ids: no tokenizer in between
  req.max_tokens = 8;
  auto s = endpoint::StreamGeneration(client, url, req, endpoint::StreamOptions{});
  ASSERT_TRUE(s) << s.error().message << "\n" << (*server)->LogTail();
  const auto& r = s->record;
  EXPECT_EQ(r.finish_reason, "length");
  EXPECT_EQ(r.usage_completion_tokens, 8);
  EXPECT_EQ(r.usage_prompt_tokens, 4);
  EXPECT_EQ(r.server_predicted_n, 8);
  EXPECT_EQ(r.server_prompt_n, 4);  // cache_prompt off: the whole prompt processed
  ASSERT_TRUE(r.server_predicted_ms.has_value());
  EXPECT_GT(*r.server_predicted_ms, 0);
  // llama-server sends one chunk per token (none of these 8 is an incomplete UTF-8 piece).
  EXPECT_EQ(r.content_ns.size(), 8u) << r.text;
  EXPECT_LT(s->t_sent_ns, r.content_ns.front());
  for (size_t i = 1; i < r.content_ns.size(); ++i) EXPECT_LE(r.content_ns[i - 1], r.content_ns[i]);
  EXPECT_LE(r.content_ns.back(), s->t_end_ns);

  // Greedy: the same request gives the same text.
  auto again = endpoint::StreamGeneration(client, url, req, endpoint::StreamOptions{});
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(again->record.text, r.text);

  const pid_t pid = (*server)->pid();
  (*server)->Stop();
  EXPECT_FALSE((*server)->Alive());
  EXPECT_NE(kill(pid, 0), 0);  // the process is gone
}

TEST(OpenAiEndpoint, TwoStreamsAtOnceOnTwoSlotsBothComplete) {
  TempDir dir("pipette-endpoint-e2e");
  http::HttpLibClient client;
  auto server = StartLlamaServer(dir, client, 2, 1024);
  ASSERT_TRUE(server) << server.error().message;
  const http::Url url = V1(**server);
  std::vector<endpoint::GenerationRequest> reqs(2);
  reqs[0].prompt = json::array({1, 504, 3458, 282});
  reqs[1].prompt = json::array({1, 3458, 504});
  for (auto& r : reqs) r.max_tokens = 12;
  auto out = endpoint::StreamConcurrently(client, url, reqs, endpoint::StreamOptions{});
  ASSERT_EQ(out.size(), 2u);
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_TRUE(out[i]) << out[i].error().message << "\n" << (*server)->LogTail();
    EXPECT_EQ(out[i]->record.usage_completion_tokens, 12) << i;
    EXPECT_EQ(out[i]->record.usage_prompt_tokens, static_cast<int64_t>(reqs[i].prompt.size()));
    EXPECT_EQ(out[i]->record.finish_reason, "length") << i;
  }
}

}  // namespace
}  // namespace pipette_e2e
