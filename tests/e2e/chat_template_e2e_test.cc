// End-to-end: the prompts Pipette's gen workload gives a model are the prompts llama-server
// (`--jinja`, the reference) renders for the same messages, byte for byte, and tokenize to the
// same number of tokens. Both run the model's own Jinja chat template through llama.cpp's engine.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fixture.h"
#include "pipette/store/store.h"
#include "pipette/util/sha256.h"

namespace pipette_e2e {
namespace {

const std::string kServer = kLlamaTools + "/llama-server";

// Items of the shipped gen dataset, verbatim: English with and without a system prompt, Chinese.
const std::vector<std::string> kItemIds = {"gen-json-001", "gen-json-002", "gen-fmt-023",
                                           "gen-fmt-026"};

// A TCP port nothing listens on now (the kernel picks it; closed again for the server to take).
int FreePort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof(addr);
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

// Runs a program (no shell), its standard output to `out`; returns its exit status.
int RunProgram(const std::vector<std::string>& argv, const fs::path& out) {
  return Wait(Spawn(argv, out, "/dev/null"));
}

class ChatTemplateE2E : public E2E {
 protected:
  // The shipped dataset's lines for kItemIds, and each item's messages as Pipette sends them.
  std::string ItemsJsonl(std::map<std::string, json>* messages) {
    std::ifstream in(kSource + "/datasets/gen/pipette-gen-v1.jsonl");
    std::string line, picked;
    while (std::getline(in, line)) {
      const json item = json::parse(line);
      const std::string id = item["id"];
      if (std::find(kItemIds.begin(), kItemIds.end(), id) == kItemIds.end()) continue;
      picked += line + "\n";
      json m = json::array();
      if (item.contains("system")) m.push_back({{"role", "system"}, {"content", item["system"]}});
      m.push_back({{"role", "user"}, {"content", item["prompt"]}});
      (*messages)[id] = m;
    }
    return picked;
  }

  // Starts llama-server on a free port with the model; false (and why) when it never gets ready.
  ::testing::AssertionResult StartServer(const std::string& model) {
    port_ = FreePort();
    if (port_ <= 0) return ::testing::AssertionFailure() << "no free port";
    const fs::path log = dir_ / "server.log";
    const pid_t pid =
        Spawn({kServer, "--jinja", "-m", model, "--host", "127.0.0.1", "--port",
               std::to_string(port_), "-c", "2048", "-np", "1", "-t", "1", "--no-webui"},
              log, log);
    started_.push_back(pid);  // TearDown kills it, passed or failed
    // Readiness, not speed: a loaded machine may take long to load the model.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    while (std::chrono::steady_clock::now() < deadline) {
      if (::waitpid(pid, nullptr, WNOHANG) == pid) {
        started_.pop_back();
        return ::testing::AssertionFailure() << "llama-server exited:\n" << ReadFile(log);
      }
      const fs::path health = dir_ / "health.json";
      if (RunProgram({"curl", "-s", "--max-time", "10", Url("/health")}, health) == 0) {
        const json h = json::parse(ReadFile(health), nullptr, false);
        if (h.is_object() && h.value("status", "") == "ok") return ::testing::AssertionSuccess();
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    return ::testing::AssertionFailure() << "llama-server not ready after 5 minutes:\n"
                                         << ReadFile(log);
  }

  std::string Url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

  // POSTs `body` to the server; the parsed answer (null when the request failed).
  json Post(const std::string& path, const json& body) {
    const fs::path request = dir_ / "request.json", response = dir_ / "response.json";
    std::ofstream(request, std::ios::binary) << body.dump();
    const int rc = RunProgram(
        {"curl", "-s", "-S", "--fail", "--max-time", "300", "-X", "POST", "-H",
         "Content-Type: application/json", "--data-binary", "@" + request.string(), Url(path)},
        response);
    EXPECT_EQ(rc, 0) << path << " " << body.dump() << ": " << ReadFile(response);
    return rc == 0 ? json::parse(ReadFile(response), nullptr, false) : json();
  }

  // Runs Pipette's gen workload on the items, then checks every stored prompt against the
  // server's rendering of the same messages (with `kwargs` as chat_template_kwargs).
  void CompareWithServer(const std::string& model_name, const std::string& model_path,
                         const std::string& options_yaml, const json& kwargs) {
    std::map<std::string, json> messages;
    Write("items.jsonl", ItemsJsonl(&messages));
    ASSERT_EQ(messages.size(), kItemIds.size());
    fs::path ex = Write("ex.yaml", "models: [" + model_name +
                                       "]\nparams:\n  threads: 1\ntimeout: 1800\nquality:\n  gen:\n"
                                       "    dataset: items.jsonl\n" +
                                       options_yaml);
    Output o = Pipette({"run", ex.string(), "--store", Store(), "--no-bandwidth"});
    ASSERT_EQ(o.code, 0) << o.err;

    ASSERT_TRUE(StartServer(model_path));
    auto store = pipette::store::Store::Open(Store());
    ASSERT_TRUE(store.ok());
    auto samples = (*store)->Samples((*(*store)->Cells(1))[0].id);
    ASSERT_TRUE(samples.ok());
    int compared = 0;
    for (const auto& s : *samples) {
      if (s.test != "gen") continue;
      const std::string id = s.raw["item"]["id"];
      ASSERT_TRUE(messages.count(id)) << id;
      json body = {{"messages", messages[id]}};
      if (!kwargs.empty()) body["chat_template_kwargs"] = kwargs;
      const json rendered = Post("/apply-template", body);
      ASSERT_TRUE(rendered.is_object() && rendered.contains("prompt")) << rendered.dump();
      const std::string prompt = s.raw["prompt"];
      EXPECT_EQ(prompt, rendered["prompt"].get<std::string>()) << model_name << " " << id;
      EXPECT_EQ(s.raw["prompt_sha256"], pipette::Sha256Hex(prompt)) << id;
      // The server tokenizes a completion's prompt with special tokens added (BOS) and parsed.
      const json tokens =
          Post("/tokenize",
               {{"content", rendered["prompt"]}, {"add_special", true}, {"with_pieces", false}});
      ASSERT_TRUE(tokens.is_object() && tokens["tokens"].is_array()) << tokens.dump();
      EXPECT_EQ(s.raw["n_prompt_tokens"], tokens["tokens"].size()) << model_name << " " << id;
      ++compared;
    }
    EXPECT_EQ(compared, static_cast<int>(kItemIds.size()));
  }

  int port_ = -1;
};

TEST_F(ChatTemplateE2E, SmolLM2PromptsAreLlamaServersWithTheTemplatesDefaultSystemMessage) {
  ASSERT_TRUE(fs::exists(kServer)) << "build llama-server first (scripts/setup.sh)";
  CompareWithServer("smollm2-135m-instruct-q4_1", kModel,
                    "    template_options:\n"
                    "      enable_thinking: false\n",
                    {{"enable_thinking", false}});
  if (HasFatalFailure()) return;
  // SmolLM2's template adds its default system message when the item has none, and the item's
  // own when it has one.
  auto store = pipette::store::Store::Open(Store());
  ASSERT_TRUE(store.ok());
  auto samples = (*store)->Samples((*(*store)->Cells(1))[0].id);
  ASSERT_TRUE(samples.ok());
  const std::string default_system =
      "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face";
  for (const auto& s : *samples) {
    if (s.test == "gen_dataset") {
      EXPECT_EQ(s.raw["template_origin"], "tokenizer.chat_template");
      EXPECT_EQ(s.raw["template_options"], json({{"enable_thinking", false}}));
      EXPECT_EQ(s.raw["enable_thinking"], false);
    }
    if (s.test != "gen") continue;
    const std::string prompt = s.raw["prompt"];
    EXPECT_EQ(prompt.rfind(default_system, 0) == 0, s.raw["item"]["id"] != "gen-json-002")
        << prompt;
  }
  // The JSON report says how the gen prompts were made.
  const json doc = ReportJson();
  const json* row = Find(doc["results"], 1, "gen", "format_ok");
  ASSERT_NE(row, nullptr);
  EXPECT_EQ((*row)["chat_template"]["options"], json({{"enable_thinking", false}}));
  EXPECT_EQ((*row)["chat_template"]["origin"], "tokenizer.chat_template");
  EXPECT_EQ((*row)["chat_template"]["sha256"].get<std::string>().size(), 64u);
}

TEST_F(ChatTemplateE2E, Gemma3PromptsAreLlamaServers) {
  ASSERT_TRUE(fs::exists(kServer)) << "build llama-server first (scripts/setup.sh)";
  CompareWithServer("gemma3-270m-q4_k_m", kSource + "/models/gemma-3-270m-q4_k_m.gguf", "",
                    json::object());
}

}  // namespace
}  // namespace pipette_e2e
