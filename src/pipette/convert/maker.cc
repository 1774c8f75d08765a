#include "pipette/convert/maker.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "pipette/estimate/estimator.h"
#include "pipette/model/onnx_model.h"
#include "pipette/quant/maker.h"
#include "pipette/store/store.h"
#include "pipette/util/files.h"
#include "pipette/util/seconds.h"
#include "pipette/util/sha256.h"
#include "pipette/util/strings.h"

namespace pipette::convert {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string SidecarOf(const std::string& output) { return output + ".json"; }

// The last line of the converter's standard output, as JSON.
Result<json> ReplyOf(const CommandResult& r, const std::string& what) {
  std::string out = r.out;
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  const std::string line =
      out.substr(out.rfind('\n') == std::string::npos ? 0 : out.rfind('\n') + 1);
  json reply = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!reply.is_object()) {
    return RuntimeError(fmt::format("the converter's {} reply is not a JSON line: '{}'", what,
                                    line.substr(0, 200)));
  }
  return reply;
}

// The converter's failure: its exit code and the end of what it said.
Error Failure(const CommandResult& r, const std::string& what) {
  std::string tail = r.err;
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  if (tail.size() > 600) tail = "..." + tail.substr(tail.size() - 600);
  const std::string how =
      r.timed_out ? "ran out of time" : fmt::format("exited with code {}", r.exit_code);
  return RuntimeError(
      fmt::format("the converter's {} {}{}", what, how, tail.empty() ? "" : ": " + tail));
}

std::vector<std::string> ConvertArgs(const ConvertJob& job, const std::string& out,
                                     const std::string& source) {
  const ConversionSpec& s = job.spec;
  if (s.to == "mnn") {
    std::vector<std::string> a = {"mnn", "--onnx", source, "--out", out};
    if (s.variant == "int8") a.push_back("--int8");
    return a;
  }
  if (s.MadeFrom().empty()) {
    return {"gguf",
            "--gguf",
            s.base_path,
            "--out",
            out,
            "--dtype",
            s.variant == "fp16" ? "float16" : "float32"};
  }
  std::vector<std::string> a = {"quantize", "--onnx", source, "--out", out, "--method", s.variant};
  if (IsInt4(s.variant)) {
    a.insert(a.end(), {"--block-size", std::to_string(s.block_size),
                       s.symmetric ? "--symmetric" : "--asymmetric"});
  }
  if (s.variant == "int4-gptq") {
    a.insert(a.end(), {"--calibration", s.calibration, "--calibration-tokens",
                       std::to_string(s.calibration_tokens), "--calibration-samples",
                       std::to_string(s.calibration_samples), "--damp", fmt::format("{}", s.damp)});
  }
  return a;
}

// Runs the converter for one job into a temporary folder, checks what it wrote, renames it
// into place and records the provenance beside it.
Result<json> Make(CommandRunner& runner, const ConvertJob& job, const std::string& source,
                  const ConverterIdentity& identity, const ConverterOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  std::error_code ec;
  fs::create_directories(fs::path(job.output).parent_path(), ec);
  if (ec) return RuntimeError(fmt::format("cannot create {}: {}", job.output, ec.message()));
  const quant::PartFile part(job.output, options.processes);
  Command c = ConverterCommand(options, ConvertArgs(job, part.path(), source));
  if (options.say) c.on_stderr_line = [&](const std::string& l) { options.say("  " + l); };
  auto run = runner.Run(c);
  if (!run) return run.error();
  const std::string step = job.spec.to == "mnn"          ? "mnn"
                           : job.spec.MadeFrom().empty() ? "gguf"
                                                         : "quantize";
  if (run->exit_code != 0) return Failure(*run, step);
  auto reply = ReplyOf(*run, "conversion");
  if (!reply) return reply.error();
  if (!reply->value("ok", false)) {
    return RuntimeError("the converter did not say ok: " + reply->dump().substr(0, 300));
  }
  // What it wrote must be a model Pipette reads before it enters the cache.
  auto onnx = model::ReadOnnxModel(part.path());
  if (!onnx)
    return RuntimeError("the converter wrote an unreadable folder: " + onnx.error().message);
  if (onnx->format != job.spec.Format()) {
    return RuntimeError(fmt::format("the converter wrote a folder of format {}, asked for {}",
                                    onnx->format, job.spec.Format()));
  }
  const std::string graph = job.spec.GraphFile();
  auto sha = Sha256File(onnx->graph_path);
  if (!sha) return sha.error();
  if (*sha != onnx->files[graph]) {
    return RuntimeError(fmt::format("the converter's {} says {} has SHA-256 {}, and it has {}",
                                    model::kOnnxMetaFile, graph, onnx->files[graph], *sha));
  }
  fs::remove_all(job.output, ec);  // a folder made by another converter version
  fs::rename(part.path(), job.output, ec);
  if (ec)
    return RuntimeError(
        fmt::format("cannot move {} into the cache: {}", part.path(), ec.message()));
  json p = job.spec.Provenance();
  p["model"] = onnx->meta;
  p["made"] = {{"at", store::NowIso8601()},
               {"seconds", SecondsSince(t0)},
               {"convert_seconds", reply->value("seconds", onnx->meta.value("seconds", 0.0))},
               {"converter_version", identity.version},
               {"converter_packages", identity.packages}};
  if (!source.empty()) p["made"]["from"] = source;
  if (auto st = quant::WriteCacheFile(SidecarOf(job.output), p.dump(2) + "\n", options.processes);
      !st) {
    return st.error();
  }
  return p;
}

}  // namespace

Command ConverterCommand(const ConverterOptions& options, std::vector<std::string> args) {
  Command c;
  c.argv = {options.python, "-B", "-m", "pipette_convert"};
  c.argv.insert(c.argv.end(), args.begin(), args.end());
  c.env = {{"PYTHONPATH", options.converter_dir}};
  c.timeout_s = options.timeout_s;
  return c;
}

Result<ConverterIdentity> AskConverter(CommandRunner& runner, const ConverterOptions& options) {
  Command c = ConverterCommand(options, {"version"});
  c.timeout_s = 120;
  auto run = runner.Run(c);
  if (!run) return run.error();
  if (run->exit_code != 0) return Failure(*run, "version");
  auto reply = ReplyOf(*run, "version");
  if (!reply) return reply.error();
  ConverterIdentity id{reply->value("version", ""), reply->value("packages", json::object())};
  if (id.version.empty()) return RuntimeError("the converter's version reply names no version");
  return id;
}

std::optional<json> CachedConversion(const ConvertJob& job, const ConverterIdentity& by) {
  std::error_code ec;
  if (!fs::is_regular_file(fs::path(job.output) / job.spec.GraphFile(), ec)) return std::nullopt;
  auto text = ReadFileToString(SidecarOf(job.output));
  if (!text) return std::nullopt;
  json p = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!p.is_object() || p.value("key", "") != job.spec.CacheKey()) return std::nullopt;
  if (p.value("made", json::object()).value("converter_version", "") != by.version) {
    return std::nullopt;  // another converter made it
  }
  const json fresh = job.spec.Provenance();  // the names are the experiment's
  for (const char* k : {"name", "label", "base"}) p[k] = fresh[k];
  return p;
}

ConvertJob SourceJob(const ConvertJob& job) {
  ConvertJob src = job;
  src.spec.to = "onnx";
  src.spec.variant = "fp32";
  src.spec.name = job.spec.base_name + ":onnx-fp32";
  src.output = (fs::path(job.output).parent_path() / src.spec.FolderName()).string();
  return src;
}

std::vector<Result<MadeConversion>> MakeConversions(const std::vector<ConvertJob>& jobs,
                                                    CommandRunner& runner,
                                                    const ConverterOptions& options) {
  std::vector<Result<MadeConversion>> results(jobs.size(), RuntimeError("not made"));
  {
    env::LinuxProcessTable local;
    const env::ProcessTable& table = options.processes ? *options.processes : local;
    std::set<std::string> dirs;
    for (const auto& j : jobs) dirs.insert(fs::path(j.output).parent_path().string());
    for (const auto& d : dirs) {
      for (const auto& p : quant::RemoveAbandonedParts(d, table)) {
        if (options.say) options.say("removed " + p + ", left by a converter that is gone");
      }
    }
  }
  auto identity = AskConverter(runner, options);
  if (!identity) {
    for (auto& r : results) {
      r = RuntimeError("cannot ask the converter its version: " + identity.error().message);
    }
    return results;
  }
  // Every folder to have, the fp32 sources first: output -> job, and what is already there.
  std::vector<ConvertJob> all;
  std::map<std::string, Result<MadeConversion>> made;
  auto want = [&](const ConvertJob& j) {
    if (made.count(j.output)) return;
    if (auto p = CachedConversion(j, *identity)) {
      made.emplace(j.output, MadeConversion{true, *p});
    } else {
      made.emplace(j.output, RuntimeError("not made"));
      all.push_back(j);
    }
  };
  for (const auto& j : jobs) {
    if (!j.spec.MadeFrom().empty()) want(SourceJob(j));
  }
  for (const auto& j : jobs) want(j);
  std::stable_partition(all.begin(), all.end(),
                        [](const ConvertJob& j) { return j.spec.MadeFrom().empty(); });
  estimate::Estimator estimator;
  for (const auto& j : all) estimator.Plan({j.output, "convert", "convert", 1, 1});
  for (size_t n = 0; n < all.size(); ++n) {
    const ConvertJob& job = all[n];
    Result<MadeConversion>& slot = made.at(job.output);
    if (options.stop && options.stop->load()) {
      slot = RuntimeError(fmt::format("interrupted before {} was converted", job.spec.name));
      continue;
    }
    std::string source;
    if (!job.spec.MadeFrom().empty()) {
      const ConvertJob src = SourceJob(job);
      const Result<MadeConversion>& from = made.at(src.output);
      if (!from) {
        slot = RuntimeError(fmt::format("could not make {}: its source {} could not be made: {}",
                                        job.spec.name, src.spec.name, from.error().message));
        continue;
      }
      source = src.output;
    }
    if (options.say) {
      const double left = estimator.SecondsLeft();
      const std::string eta = left < 0 ? "" : fmt::format(", about {} left", FormatDuration(left));
      options.say(fmt::format("[convert {}/{}] {} ({} from {}){}", n + 1, all.size(), job.spec.name,
                              job.spec.Label(),
                              source.empty()         ? job.spec.base_quant + " GGUF"
                              : job.spec.to == "mnn" ? "ONNX fp32"
                                                     : "fp32",
                              eta));
    }
    const auto t0 = std::chrono::steady_clock::now();
    auto p = Make(runner, job, source, *identity, options);
    estimator.Done("convert", 1, SecondsSince(t0));
    if (p) {
      slot = MadeConversion{false, *p};
    } else {
      slot = RuntimeError(fmt::format("could not make {} ({} of {}): {}", job.spec.name,
                                      job.spec.variant, job.spec.base_path, p.error().message));
      if (options.say) options.say("  failed: " + slot.error().message);
    }
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    results[i] = made.at(jobs[i].output);
    if (results[i].ok()) {
      const json fresh = jobs[i].spec.Provenance();
      for (const char* k : {"name", "label", "base"}) results[i]->provenance[k] = fresh[k];
    }
  }
  return results;
}

}  // namespace pipette::convert
