// pipette-worker-llama: drives llama.cpp for the pipette controller. Reads one JSON request
// per line on standard input and answers one JSON line on standard output (docs/protocol.md).
// The protocol's loop is workers/common's; this worker is its llama.cpp handlers.
#include <llama.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "common/dispatcher.h"
#include "common/serve.h"
#include "llama_session.h"
#include "pipette/protocol/ops.h"
#include "quantize.h"
#include "render_chat.h"
#include "runtime_info.h"

namespace {

constexpr char kUsage[] =
    "usage: pipette-worker-llama [--verbose]\n"
    "       pipette-worker-llama --version | --help\n"
    "\n"
    "The llama.cpp worker of pipette. It reads requests (one JSON object per line) on standard\n"
    "input and writes one JSON response line per request on standard output, as specified in\n"
    "docs/protocol.md. llama.cpp's warnings and errors go to standard error.\n"
    "\n"
    "  --verbose   also pass llama.cpp's informational log lines to standard error\n"
    "  --version   print the worker's llama.cpp and llama-cpp-python versions and exit\n"
    "  --help      print this text and exit\n";

namespace op = pipette::protocol::op;
using nlohmann::json;
using pipette::llama_worker::LlamaSession;
using pipette::worker_common::Dispatcher;
using pipette::worker_common::FrameStream;

// The llama.cpp handlers of the protocol's ops (hello, memory, reset_peak_memory and shutdown
// are answered by the dispatcher itself).
void AddHandlers(LlamaSession& session, Dispatcher& d) {
  d.Handle(op::kLoadModel, [&](const json& r) { return session.LoadModel(r); });
  d.Handle(op::kInitContext, [&](const json& r) { return session.InitContext(r); });
  d.Handle(op::kTokenize, [&](const json& r) { return session.Tokenize(r); });
  d.Handle(op::kDetokenize, [&](const json& r) { return session.Detokenize(r); });
  d.Handle(op::kPp, [&](const json& r) { return session.PromptProcessing(r); });
  d.Handle(op::kTg, [&](const json& r) { return session.Generate(r); });
  d.Handle(op::kTtft, [&](const json& r) { return session.TimeToFirstToken(r); });
  d.Handle(op::kE2e, [&](const json& r) { return session.EndToEnd(r); });
  d.HandleWithFrames(op::kScore,
                     [&](const json& r, FrameStream* frames) { return session.Score(r, frames); });
  d.Handle(op::kChat, [&](const json& r) { return session.Chat(r); });
  d.Handle(op::kRenderChat, [](const json& r) { return pipette::llama_worker::RenderChat(r); });
  d.Handle(op::kImatrix, [&](const json& r) { return session.Imatrix(r); });
  d.Handle(op::kQuantize, [](const json& r) { return pipette::llama_worker::Quantize(r); });
}

}  // namespace

int main(int argc, char** argv) {
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--version") == 0) {
      std::fputs(pipette::llama_worker::VersionText().c_str(), stdout);
      return 0;
    }
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(kUsage, stdout);
      return 0;
    }
    if (std::strcmp(argv[i], "--verbose") == 0) {
      verbose = true;
      continue;
    }
    std::fprintf(stderr, "pipette-worker-llama: unknown argument '%s'\n\n%s", argv[i], kUsage);
    return 2;
  }

  pipette::worker_common::ExitWithParentWhenAsked();
  FILE* out = pipette::worker_common::TakeProtocolOutput();
  if (out == nullptr) {
    std::perror("pipette-worker-llama: cannot set up standard output");
    return 1;
  }
  pipette::llama_worker::StartLlamaRuntime(verbose);

  int status = 0;
  {
    LlamaSession session;
    Dispatcher dispatcher({"pipette-worker-llama", "llama.cpp",
                           pipette::llama_worker::LlamaCppPythonVersion(),
                           [] { return json(pipette::llama_worker::RuntimeBuild()); }});
    AddHandlers(session, dispatcher);
    status = pipette::worker_common::Serve(dispatcher, std::cin, out);
  }  // frees the context and the model
  llama_backend_free();
  std::fclose(out);
  return status;
}
