#include "dispatcher.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <optional>
#include <stdexcept>

#include "monotonic_clock.h"
#include "pipette/protocol/ops.h"
#include "pipette/protocol/session_ops.h"
#include "pipette/protocol/test_ops.h"
#include "proc_memory.h"

namespace pipette::worker_common {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;
namespace op = protocol::op;

// Serialises without throwing: text from a tokenizer may hold invalid UTF-8 (e.g. half of a
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

bool Builtin(const std::string& name) {
  return name == op::kHello || name == op::kMemory || name == op::kResetPeakMemory ||
         name == op::kShutdown;
}

}  // namespace

Dispatcher::Dispatcher(RuntimeIdentity identity) : identity_(std::move(identity)) {
  const char* test_ops = std::getenv(protocol::kTestOpsEnv);
  if (test_ops != nullptr && std::string_view(test_ops) == "1") {
    Handle(protocol::kTestThrowOp, [](const json&) -> Reply {
      throw std::runtime_error("thrown on purpose by the test op " +
                               std::string(protocol::kTestThrowOp));
    });
  }
}

void Dispatcher::Handle(const std::string& name, Handler handler) {
  handlers_[name] = [handler = std::move(handler)](const json& request, FrameStream*) {
    return handler(request);
  };
}

void Dispatcher::HandleWithFrames(const std::string& name, FramesHandler handler) {
  handlers_[name] = std::move(handler);
}

std::vector<std::string> Dispatcher::Ops() const {
  std::vector<std::string> ops;
  for (std::string_view name : protocol::Ops()) {
    const std::string s(name);
    if (Builtin(s) || handlers_.count(s)) ops.push_back(s);
  }
  return ops;
}

Reply Dispatcher::Hello() const {
  protocol::HelloResponse hello;
  hello.runtime = identity_.runtime;
  hello.runtime_version = identity_.runtime_version;
  if (identity_.build) hello.runtime_build = identity_.build();
  hello.pid = static_cast<int64_t>(getpid());
  hello.ops = Ops();
  return hello.ToJson();
}

Reply Dispatcher::ResetPeak() {
  const Status reset = ResetPeakMemory();
  if (!reset)
    std::fprintf(stderr, "%s: %s\n", identity_.program.c_str(), reset.error().message.c_str());
  auto reading = read_memory_();
  if (!reading) return reading.error();
  footprint_peak_.reset();
  if (reading->swap) footprint_peak_ = reading->rss + *reading->swap;
  return protocol::ResetPeakMemoryResponse{reset.ok(), reading->rss, reading->hwm}.ToJson();
}

void Dispatcher::SampleFootprint() {
  if (auto reading = read_memory_()) Keep(*reading);
}

void Dispatcher::Keep(const MemoryReading& reading) {
  if (!reading.swap) return;
  footprint_peak_ = std::max(footprint_peak_.value_or(0), reading.rss + *reading.swap);
}

Reply Dispatcher::Memory() {
  auto reading = read_memory_();
  if (!reading) return reading.error();
  Keep(*reading);
  return protocol::MemoryResponse{reading->rss, reading->hwm, reading->swap, footprint_peak_}
      .ToJson();
}

Reply Dispatcher::Answer(const std::string& name, const json& request, bool* shutdown,
                         FrameStream* frames) {
  if (name == op::kHello) return Hello();
  if (name == op::kMemory) return Memory();
  if (name == op::kResetPeakMemory) return ResetPeak();
  if (name == op::kShutdown) {
    *shutdown = true;
    return protocol::ShutdownResponse{}.ToJson();
  }
  const auto it = handlers_.find(name);
  if (it == handlers_.end()) return Fail("unknown op '" + name + "'");
  // A handler that throws is a bug in the worker: the request is refused saying what threw (the
  // controller names the op: "'pp' failed in the worker: the handler threw: ..."), and the
  // worker stays usable (as the Python loop does).
  try {
    return it->second(request, frames);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s: uncaught exception: %s\n", identity_.program.c_str(),
                 name.c_str(), e.what());
    return Fail(std::string("the handler threw: ") + e.what());
  } catch (...) {
    std::fprintf(stderr, "%s: %s: uncaught exception\n", identity_.program.c_str(), name.c_str());
    return Fail("the handler threw an exception that is not a std::exception");
  }
}

Dispatcher::Outcome Dispatcher::Dispatch(std::string_view line, std::FILE* frames_out) {
  const json request = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (request.is_discarded()) return {ErrorLine(nullptr, "request is not valid JSON")};
  if (!request.is_object()) return {ErrorLine(nullptr, "request is not a JSON object")};

  const auto id_it = request.find("id");
  if (id_it == request.end() || !id_it->is_number_integer()) {
    return {ErrorLine(nullptr, "request has no integer 'id'")};
  }
  const ordered_json id = *id_it;
  const auto op_it = request.find("op");
  if (op_it == request.end() || !op_it->is_string()) {
    return {ErrorLine(id, "request has no string 'op'")};
  }

  bool shutdown = false;
  std::optional<FrameStream> frames;
  if (frames_out != nullptr) frames.emplace(frames_out, id);
  Reply reply = Answer(op_it->get<std::string>(), request, &shutdown, frames ? &*frames : nullptr);
  if (frames && frames->started()) {
    // The response line went out before the frames: a failure now ends them with an abort frame.
    if (!reply) frames->Abort(-1, NowNs(), reply.error().message);
    return {"", false, true};
  }
  if (!reply) return {ErrorLine(id, reply.error().message)};
  ordered_json out;
  out["id"] = id;
  out["ok"] = true;
  for (auto& [key, value] : reply->items()) out[key] = std::move(value);
  return {Dump(out), shutdown};
}

}  // namespace pipette::worker_common
