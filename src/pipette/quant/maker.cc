#include "pipette/quant/maker.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <regex>
#include <set>

#include "pipette/estimate/estimator.h"
#include "pipette/model/gguf.h"
#include "pipette/protocol/model_ops.h"
#include "pipette/protocol/quant_ops.h"
#include "pipette/protocol/session_ops.h"
#include "pipette/quality/ppl.h"
#include "pipette/store/store.h"
#include "pipette/util/files.h"
#include "pipette/util/json_read.h"
#include "pipette/util/seconds.h"
#include "pipette/util/sha256.h"
#include "pipette/util/strings.h"

namespace pipette::quant {
namespace fs = std::filesystem;
using nlohmann::json;
using std::chrono::milliseconds;

std::string PartName(const std::string& path, const env::ProcessIdentity& maker) {
  std::random_device rd;
  return fmt::format("{}.{}-{}-{:08x}.part", path, maker.pid, maker.start_ticks, rd());
}

PartFile::PartFile(const std::string& path, const env::ProcessTable* processes) {
  env::LinuxProcessTable local;
  const env::ProcessIdentity self = (processes ? *processes : local).Self();
  path_ = PartName(path, self);
  (void)WriteCacheFile(path_ + ".owner", self.ToJson().dump() + "\n", processes);
}

Status WriteCacheFile(const std::string& path, const std::string& content,
                      const env::ProcessTable* processes) {
  env::LinuxProcessTable local;
  const env::ProcessTable& table = processes ? *processes : local;
  return WriteFileAtomically(path, content, [&](int pid) { return table.Exists(pid); });
}

PartFile::~PartFile() {
  std::error_code ec;
  fs::remove_all(path_, ec);  // nothing once it was renamed into place
  fs::remove(path_ + ".owner", ec);
}

namespace {

std::string SidecarOf(const std::string& output) { return output + ".json"; }

// The maker of a `.part` file from its name: pid and start ticks (this release), or the pid only
// (Pipette 0.1.0 wrote "<path>.<pid>-<random>.part"). nullopt: not a maker's file.
struct PartMaker {
  int pid = 0;
  std::optional<uint64_t> start_ticks;
};
std::optional<PartMaker> ParsePartName(const std::string& name) {
  static const std::regex kNew(R"(.*\.(\d+)-(\d+)-[0-9a-f]{8}\.part)");
  static const std::regex kOld(R"(.*\.(\d+)-[0-9a-f]{8}\.part)");
  std::smatch m;
  if (std::regex_match(name, m, kNew)) {
    return PartMaker{std::stoi(m[1]), std::stoull(m[2])};
  }
  if (std::regex_match(name, m, kOld)) return PartMaker{std::stoi(m[1]), std::nullopt};
  return std::nullopt;
}

Status MakeDirs(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return RuntimeError(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
  return {};
}

QuantizerIdentity IdentityOf(const json& hello) {
  return {hello.value("runtime_version", ""),
          hello.value("runtime_build", json::object()).value("llama_cpp_commit", "")};
}

// One worker for all the jobs of a run, started on first use.
class Quantizer {
 public:
  Quantizer(device::Device& device, const MakerOptions& options)
      : device_(device), options_(options) {}
  ~Quantizer() {
    if (channel_) channel_->Shutdown(milliseconds(2000));
  }

  // Starts the worker if it is not running; its `hello`.
  Result<json> Start() {
    if (channel_ && channel_->Alive()) return hello_;
    auto ch = device_.StartWorker({options_.worker});
    if (!ch) return ch.error();
    channel_ = std::move(*ch);
    auto hello = Send(protocol::HelloRequest{}.ToJson());
    if (!hello) return hello.error();
    hello_ = *hello;
    return hello_;
  }

  Result<json> Call(json request) {
    if (auto started = Start(); !started) return started.error();
    return Send(std::move(request));
  }

  const json& hello() const { return hello_; }

 private:
  Result<json> Send(json request) {
    auto r = channel_->Call(std::move(request),
                            milliseconds(static_cast<int64_t>(options_.timeout_s * 1000)));
    if (!r.ok()) {
      std::string tail = channel_->StderrTail();
      if (r.error().broken) channel_.reset();
      if (tail.size() > 600) tail = "..." + tail.substr(tail.size() - 600);
      const std::string& why = r.error().message;
      return RuntimeError(tail.empty() ? why : why + "\nworker stderr: " + tail);
    }
    return std::move(*r);
  }

  device::Device& device_;
  const MakerOptions& options_;
  std::unique_ptr<worker::WorkerChannel> channel_;
  json hello_;
};

// Collects the importance matrix for a job into job.imatrix (atomically, by the worker).
Status MakeImatrix(Quantizer& q, const MakeJob& job, const MakerOptions& options, json* facts) {
  const ImatrixSpec& m = *job.spec.imatrix;
  auto text = ReadFileToString(m.corpus);
  if (!text) return text.error();
  if (Sha256Hex(*text) != m.corpus_sha256) {
    return InputError(
        fmt::format("the imatrix corpus {} changed since the experiment was read", m.corpus));
  }
  auto loaded = q.Call(protocol::LoadModelRequest{job.spec.base_path}.ToJson());
  if (!loaded) return loaded.error();
  auto tok = q.Call(protocol::TokenizeRequest{*text}.ToJson());
  if (!tok) return tok.error();
  auto tokenized = protocol::TokenizeResponse::FromJson(*tok);
  if (!tokenized) return RuntimeError(tokenized.error().message);
  const TokenIds& tokens = tokenized->tokens;
  const auto chunks = quality::PplChunks(static_cast<int64_t>(tokens.size()), m.n_ctx, m.chunks);
  if (chunks.empty()) {
    return InputError(fmt::format("the imatrix corpus {} has {} tokens, fewer than one chunk of {}",
                                  m.corpus, tokens.size(), m.n_ctx));
  }
  protocol::ImatrixRequest request;
  for (const auto& ch : chunks) {
    request.chunks.emplace_back(tokens.begin() + ch.begin, tokens.begin() + ch.begin + ch.n_ctx);
  }
  if (auto st = MakeDirs(fs::path(job.imatrix).parent_path()); !st) return st;
  const PartFile part(job.imatrix, options.processes);
  const std::string& tmp = part.path();
  request.output = tmp;
  auto r = q.Call(request.ToJson());
  if (!r) return r.error();
  auto collected = protocol::ImatrixResponse::FromJson(*r);
  if (!collected) return RuntimeError(collected.error().message);
  std::error_code ec;
  fs::rename(tmp, job.imatrix, ec);
  if (ec) return RuntimeError(fmt::format("cannot move {} into place: {}", tmp, ec.message()));
  *facts = {{"file", job.imatrix},
            {"n_chunks", chunks.size()},
            {"n_tokens", collected->n_tokens},
            {"n_entries", collected->n_entries}};
  return {};
}

Result<json> Make(Quantizer& q, const MakeJob& job, const MakerOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  json provenance = job.spec.Provenance();
  if (job.spec.imatrix) {
    std::error_code ec;
    if (!fs::is_regular_file(job.imatrix, ec)) {
      if (options.say)
        options.say(
            fmt::format("  collecting the importance matrix on {}", job.spec.imatrix->corpus));
      json facts;
      if (auto st = MakeImatrix(q, job, options, &facts); !st) return st.error();
      provenance["imatrix"]["collected"] = facts;
    }
    provenance["imatrix"]["file"] = job.imatrix;
    auto sha = Sha256File(job.imatrix);
    if (!sha) return sha.error();
    provenance["imatrix"]["file_sha256"] = *sha;
  }
  if (auto st = MakeDirs(fs::path(job.output).parent_path()); !st) return st.error();
  const PartFile part(job.output, options.processes);
  const std::string& tmp = part.path();
  protocol::QuantizeRequest req;
  req.input = job.spec.base_path;
  req.output = tmp;
  req.type = job.spec.type;
  req.n_threads = options.n_threads;
  req.allow_requantize = true;
  for (const auto& o : job.spec.overrides) req.overrides.push_back({o.pattern, o.type});
  if (job.spec.imatrix) req.imatrix = job.imatrix;
  auto r = q.Call(req.ToJson());
  if (!r) return r.error();
  auto quantized = protocol::QuantizeResponse::FromJson(*r);
  if (!quantized) return RuntimeError(quantized.error().message);
  // What llama.cpp wrote must be a model Pipette can read before it enters the cache.
  auto gguf = model::ReadGguf(tmp);
  if (!gguf) return RuntimeError("the quantizer wrote an unreadable file: " + gguf.error().message);
  auto sha = Sha256File(tmp);
  if (!sha) return sha.error();
  std::error_code ec;
  fs::rename(tmp, job.output, ec);
  if (ec) return RuntimeError(fmt::format("cannot move {} into the cache: {}", tmp, ec.message()));
  provenance["made"] = {
      {"at", store::NowIso8601()},
      {"seconds", SecondsSince(t0)},
      {"quantize_seconds", double(quantized->t_end_ns - quantized->t_start_ns) / 1e9},
      {"runtime", q.hello().value("runtime", "")},
      {"runtime_version", q.hello().value("runtime_version", "")},
      {"runtime_build", q.hello().value("runtime_build", json::object())},
      {"n_threads", options.n_threads}};
  provenance["file"] = {{"sha256", *sha}, {"size", gguf->file_size}};
  if (auto st = WriteCacheFile(SidecarOf(job.output), provenance.dump(2) + "\n", options.processes);
      !st) {
    return st.error();
  }
  return provenance;
}

}  // namespace

Result<QuantizerIdentity> AskQuantizer(device::Device& device, const std::string& worker) {
  MakerOptions options;
  options.worker = worker;
  options.timeout_s = 30;
  Quantizer q(device, options);
  auto hello = q.Start();
  if (!hello) return hello.error();
  return IdentityOf(*hello);
}

std::optional<json> CachedProvenance(const MakeJob& job, const QuantizerIdentity& by) {
  std::error_code ec;
  if (!fs::is_regular_file(job.output, ec)) return std::nullopt;
  auto text = ReadFileToString(SidecarOf(job.output));
  if (!text) return std::nullopt;
  json p = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  // A file on disk: any field of another type makes it no cached variant (made again).
  if (!p.is_object() || json_read::String(p, "key") != job.spec.CacheKey()) return std::nullopt;
  const auto size = fs::file_size(job.output, ec);
  const auto recorded = json_read::Int(json_read::Ref(p, "file"), "size");
  if (ec || !recorded || uint64_t(*recorded) != size) return std::nullopt;
  const json& made = json_read::Ref(p, "made");
  if (json_read::String(made, "runtime_version") != by.runtime_version ||
      json_read::String(json_read::Ref(made, "runtime_build"), "llama_cpp_commit") != by.commit) {
    return std::nullopt;  // another quantizer build made it
  }
  // The names are the experiment's, not the cache's.
  const json fresh = job.spec.Provenance();
  for (const char* k : {"name", "label", "base"}) p[k] = json_read::Member(fresh, k);
  return p;
}

std::vector<std::string> RemoveAbandonedParts(const std::string& dir,
                                              const env::ProcessTable& processes) {
  std::vector<std::string> removed;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string path = e.path().string();
    const std::string name = e.path().filename().string();
    const bool owner_note = name.ends_with(".part.owner");
    if (!owner_note && !name.ends_with(".part")) continue;
    const std::string part = owner_note ? path.substr(0, path.size() - 6) : path;
    const std::string owner = part + ".owner";
    if (owner_note && fs::exists(part, ec)) continue;  // handled with its part
    bool gone = false;
    if (auto text = ReadFileToString(owner)) {
      const env::ProcessIdentity maker =
          env::ProcessIdentity::FromJson(json::parse(*text, nullptr, false));
      // Another host or container: not ours to judge.
      gone = !maker.empty() && env::CheckLiveness(maker, processes) == env::Liveness::kGone;
    } else if (auto maker = ParsePartName(fs::path(part).filename().string())) {
      // No note (Pipette 0.1.0 wrote none): its pid, on this host. An old name has no start
      // time, so a live process with its pid might be its maker.
      const auto ticks = processes.StartTicks(maker->pid);
      gone = !processes.Exists(maker->pid) ||
             (ticks && maker->start_ticks && *ticks != *maker->start_ticks);
    }
    if (!gone) continue;
    const uintmax_t n = fs::remove_all(part, ec);  // a file or a folder
    if (!ec && n > 0) removed.push_back(part);
    fs::remove(owner, ec);
  }
  return removed;
}

std::vector<Result<MadeVariant>> MakeVariants(const std::vector<MakeJob>& jobs,
                                              device::Device& device, const MakerOptions& options) {
  std::vector<Result<MadeVariant>> results(jobs.size(), RuntimeError("not made"));
  {
    // What a killed maker left: removed before anything is made.
    env::LinuxProcessTable local;
    const env::ProcessTable& table = options.processes ? *options.processes : local;
    std::set<std::string> dirs;
    for (const auto& j : jobs) {
      dirs.insert(fs::path(j.output).parent_path().string());
      if (!j.imatrix.empty()) dirs.insert(fs::path(j.imatrix).parent_path().string());
    }
    for (const auto& d : dirs) {
      for (const auto& p : RemoveAbandonedParts(d, table)) {
        if (options.say) options.say("removed " + p + ", left by a maker that is gone");
      }
    }
  }
  Quantizer q(device, options);
  auto hello = q.Start();
  if (!hello) {
    for (auto& r : results)
      r = RuntimeError("cannot start the quantizer: " + hello.error().message);
    return results;
  }
  const QuantizerIdentity identity = IdentityOf(*hello);
  std::vector<size_t> todo;
  std::map<std::string, size_t> first_of;  // output -> job that makes it
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (auto p = CachedProvenance(jobs[i], identity)) {
      results[i] = MadeVariant{true, *p};
    } else if (first_of.emplace(jobs[i].output, i).second) {
      todo.push_back(i);
    }
  }
  // The time left, from the one estimator: each variant is one unit of kind "quantize", at the
  // rate this run has measured so far (no history: a variant is made once and then cached).
  estimate::Estimator estimator;
  for (size_t i : todo) estimator.Plan({jobs[i].output, "quantize", "quantize", 1, 1});
  for (size_t n = 0; n < todo.size(); ++n) {
    const MakeJob& job = jobs[todo[n]];
    if (options.stop && options.stop->load()) {
      results[todo[n]] = RuntimeError(fmt::format("interrupted before {} was made", job.spec.name));
      continue;
    }
    if (options.say) {
      const double left = estimator.SecondsLeft();
      const std::string eta = left < 0 ? "" : fmt::format(", about {} left", FormatDuration(left));
      options.say(fmt::format("[quantize {}/{}] {} ({} from {}){}", n + 1, todo.size(),
                              job.spec.name, job.spec.label, job.spec.base_quant, eta));
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto made = Make(q, job, options);
    estimator.Done("quantize", 1, SecondsSince(t0));
    if (made) {
      results[todo[n]] = MadeVariant{false, *made};
    } else {
      results[todo[n]] =
          RuntimeError(fmt::format("could not make {} ({} of {}): {}", job.spec.name, job.spec.type,
                                   job.spec.base_path, made.error().message));
      if (options.say) options.say("  failed: " + results[todo[n]].error().message);
    }
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    const size_t src = first_of.count(jobs[i].output) ? first_of[jobs[i].output] : i;
    if (src != i && !results[i].ok()) {
      results[i] = results[src];
      if (results[i].ok()) {
        const json fresh = jobs[i].spec.Provenance();
        for (const char* k : {"name", "label", "base"}) results[i]->provenance[k] = fresh[k];
      }
    }
  }
  return results;
}

}  // namespace pipette::quant
