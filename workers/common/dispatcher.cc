#include "request_router.h"

#include <unistd.h>

#include <cstdio>
#include <optional>

#include "monotonic_clock.h"
#include "proc_memory.h"
#include "quantize.h"
#include "runtime_info.h"

namespace pipette::llama_worker {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

constexpr int kProtocolVersion = 1;

// Serialises without throwing: text from the tokenizer may hold invalid UTF-8 (e.g. half of a
// multi-byte character), which is replaced by U+FFFD.
std::string Dump(const ordered_json& value) {
  return value.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

std::string ErrorLine(const ordered_json& id, const std::string& message) {
  ordered_json out;
  out["id"] = id;
  out["ok"] = false;
  out["error"] = message;
  return Dump(out);
}

Reply Hello() {
  ordered_json out;
  out["protocol"] = kProtocolVersion;
  out["runtime"] = "llama.cpp";
  out["runtime_version"] = LlamaCppPythonVersion();
  out["runtime_build"] = RuntimeBuild();
  out["pid"] = static_cast<int64_t>(getpid());
  return Reply::Ok(std::move(out));
}

Reply Memory() {
  const std::optional<MemoryReading> reading = ReadMemory();
  if (!reading) return Reply::Fail("cannot read VmRSS/VmHWM from /proc/self/status");
  ordered_json out;
  out["rss"] = reading->rss;
  out["hwm"] = reading->hwm;
  return Reply::Ok(std::move(out));
}

Reply ResetPeak() {
  std::string error;
  const bool supported = ResetPeakMemory(&error);
  if (!supported) std::fprintf(stderr, "pipette-worker-llama: %s\n", error.c_str());
  const std::optional<MemoryReading> reading = ReadMemory();
  if (!reading) return Reply::Fail("cannot read VmRSS/VmHWM from /proc/self/status");
  ordered_json out;
  out["supported"] = supported;
  out["rss"] = reading->rss;
  out["hwm"] = reading->hwm;
  return Reply::Ok(std::move(out));
}

}  // namespace

Reply RequestRouter::Dispatch(const std::string& op, const json& request, bool* shutdown,
                              FrameStream* stream) {
  if (op == "hello") return Hello();
  if (op == "load_model") return session_.LoadModel(request);
  if (op == "init_context") return session_.InitContext(request);
  if (op == "reset_peak_memory") return ResetPeak();
  if (op == "memory") return Memory();
  if (op == "tokenize") return session_.Tokenize(request);
  if (op == "detokenize") return session_.Detokenize(request);
  if (op == "pp") return session_.PromptProcessing(request);
  if (op == "tg") return session_.Generate(request);
  if (op == "ttft") return session_.TimeToFirstToken(request);
  if (op == "score") return session_.Score(request, stream);
  if (op == "chat") return session_.Chat(request);
  if (op == "imatrix") return session_.Imatrix(request);
  if (op == "quantize") return Quantize(request);
  if (op == "shutdown") {
    *shutdown = true;
    return Reply::Ok(ordered_json::object());
  }
  return Reply::Fail("unknown op '" + op + "'");
}

RequestRouter::Outcome RequestRouter::Handle(std::string_view line, std::FILE* stream_out) {
  const json request = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (request.is_discarded()) return {ErrorLine(nullptr, "request is not valid JSON"), false};
  if (!request.is_object()) return {ErrorLine(nullptr, "request is not a JSON object"), false};

  const auto id_it = request.find("id");
  if (id_it == request.end() || !id_it->is_number_integer()) {
    return {ErrorLine(nullptr, "request has no integer 'id'"), false};
  }
  const ordered_json id = *id_it;
  const auto op_it = request.find("op");
  if (op_it == request.end() || !op_it->is_string()) {
    return {ErrorLine(id, "request has no string 'op'"), false};
  }

  bool shutdown = false;
  std::optional<FrameStream> stream;
  if (stream_out != nullptr) stream.emplace(stream_out, id);
  Reply reply =
      Dispatch(op_it->get<std::string>(), request, &shutdown, stream ? &*stream : nullptr);
  if (stream && stream->started()) {
    // The response line went out before the frames: a failure now ends them with an abort frame.
    if (!reply.ok) stream->Abort(-1, NowNs(), reply.error);
    return {"", false, true};
  }
  if (!reply.ok) return {ErrorLine(id, reply.error), false};
  ordered_json out;
  out["id"] = id;
  out["ok"] = true;
  for (auto& [key, value] : reply.body.items()) out[key] = std::move(value);
  return {Dump(out), shutdown};
}

}  // namespace pipette::llama_worker
