#include "pipette/config/resolve.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <functional>

#include "pipette/config/parse_devices.h"
#include "pipette/config/resolve_files.h"
#include "pipette/config/spec_def.h"
#include "pipette/config/yaml_helpers.h"
#include "pipette/endpoint/api_key.h"
#include "pipette/model/bundled.h"
#include "pipette/model/gguf.h"
#include "pipette/runtime/registry.h"
#include "pipette/util/sha256.h"

namespace pipette::config {
namespace fs = std::filesystem;
namespace {

// An endpoint runtime: its server's address, or the command that starts it (the bundled
// llama-server must exist).
Result<RuntimeSpec> ResolveEndpoint(const Where& w, const WrittenRuntime& written,
                                    const runtime::Endpoint& reach, const ResolveOptions& opt,
                                    RuntimeSpec r) {
  const WrittenEndpoint& we = written.endpoint.value_or(WrittenEndpoint{});
  endpoint::EndpointSpec e;
  e.base_url = we.base_url.value_or("");
  e.model = we.model.value_or("");
  e.api_key_env = we.api_key_env.value_or("");
  e.body = we.body;
  if (we.server) {
    e.start_server = true;
    e.server_bundled = we.server->bundled;
    e.server_args = we.server->args;
    e.parallel = we.server->parallel;
    if (we.server->ready_timeout) e.ready_timeout_s = *we.server->ready_timeout;
    if (we.server->bundled) {
      const std::string program =
          (fs::path(opt.workers_dir) / reach.bundled_server).lexically_normal().string();
      std::error_code ec;
      if (!fs::is_regular_file(program, ec)) {
        return w.At(written.pos, fmt::format("the bundled llama-server for '{}' is not at {}: "
                                             "build it with `make build`",
                                             r.name, program));
      }
      e.server_command = {program};
    } else {
      e.server_command = we.server->command;
    }
  }
  // Only whether it is set and usable: the value is read when the endpoint is spoken to, and
  // never kept.
  if (auto key = endpoint::ApiKeyFromEnvironment(e.api_key_env); !key) {
    return w.At(written.pos, key.error().message);
  }
  r.endpoint = std::move(e);
  return r;
}

// A server Pipette starts has at least as many slots (`--parallel`) as the highest concurrency
// the experiment sends it, so no stream waits for a slot: that many when server.parallel is not
// given.
Status ResolveServerSlots(const Where& w, Experiment* ex) {
  int64_t highest = 1;
  for (const auto& [name, values] : ex->params) {
    if (name != "concurrency") continue;
    for (const std::string& v : values) highest = std::max<int64_t>(highest, std::stoll(v));
  }
  for (RuntimeSpec& r : ex->runtimes) {
    if (!r.endpoint || !r.endpoint->start_server) continue;
    if (!r.endpoint->parallel) {
      r.endpoint->parallel = static_cast<int>(highest);
    } else if (*r.endpoint->parallel < highest) {
      return w.AtLine(r.line, fmt::format("server.parallel {} is less than the highest concurrency "
                                          "({}): streams would wait for a slot; give at least {} "
                                          "or leave it out",
                                          *r.endpoint->parallel, highest, highest));
    }
  }
  return {};
}

// The worker program of a runtime: its own (relative to the experiment file), else the one
// Pipette builds for it (its registry entry); it must exist.
Result<RuntimeSpec> ResolveRuntime(const Where& w, const WrittenRuntime& written,
                                   const ResolveOptions& opt) {
  RuntimeSpec r;
  r.name = written.name;
  r.line = written.pos.line;
  auto entry = RuntimesOf(opt).Lookup(r.name);
  if (!entry) return w.At(written.name_pos, entry.error().message);
  if (const runtime::Endpoint* reach = (*entry)->EndpointReach()) {
    return ResolveEndpoint(w, written, *reach, opt, r);
  }
  if (!written.worker) {
    const runtime::WorkerProgram* program = (*entry)->Worker();
    if (!program) {
      return w.At(written.name_pos,
                  fmt::format("runtime '{}' is not reached through a worker program, and this "
                              "pipette reaches runtimes only so",
                              r.name));
    }
    r.worker = (fs::path(opt.workers_dir) / program->program).string();
  } else {
    fs::path p(*written.worker);
    if (p.is_relative()) p = fs::path(w.path()).parent_path() / p;
    r.worker = fs::absolute(p).lexically_normal().string();
  }
  std::error_code ec;
  if (!fs::is_regular_file(r.worker, ec)) {
    return w.At(written.name_pos, fmt::format("worker program for '{}' not found at {}: build it "
                                              "with `make build`",
                                              r.name, r.worker));
  }
  return r;
}

// Every model must be in a format at least one runtime of the file loads (each runtime says
// which); the plan pairs it with those alone.
Status CheckModelFormats(const Where& w, const Experiment& ex,
                         const runtime::RuntimeRegistry& runtimes) {
  std::vector<std::string> names;
  for (const RuntimeSpec& r : ex.runtimes) names.push_back(r.name);
  for (const ModelSpec& m : ex.models) {
    const bool loaded = std::any_of(ex.runtimes.begin(), ex.runtimes.end(), [&](const auto& r) {
      const runtime::Runtime* entry = runtimes.Find(r.name);
      return entry && entry->Accepts(m.format);
    });
    if (loaded) continue;
    std::vector<std::string> could;
    for (const runtime::Runtime& r : runtimes.runtimes()) {
      if (r.Accepts(m.format)) could.push_back(r.name);
    }
    return w.AtLine(
        m.line,
        fmt::format("model '{}' (format {}) is loaded by no runtime of this experiment ({}){}",
                    m.name, m.format.empty() ? "unknown" : m.format, fmt::join(names, ", "),
                    could.empty()
                        ? std::string()
                        : fmt::format(": add {} to runtimes:", fmt::join(could, " or "))));
  }
  return {};
}

std::string VariantsDir(const ResolveOptions& opt) {
  if (!opt.variants_dir.empty()) return opt.variants_dir;
  return (fs::path(opt.models_dir) / "variants").lexically_normal().string();
}

Status AddModel(const Where& w, const Place& pos, ModelSpec m, Experiment* ex) {
  for (const auto& other : ex->models) {
    if (other.name == m.name && (m.variant || m.conversion || other.path == m.path)) {
      return w.At(pos,
                  fmt::format("model '{}' is listed twice (first at line {})", m.name, other.line));
    }
  }
  ex->models.push_back(std::move(m));
  return {};
}

std::string ConvertedDir(const ResolveOptions& opt) {
  if (!opt.converted_dir.empty()) return opt.converted_dir;
  return (fs::path(opt.models_dir) / "converted").lexically_normal().string();
}

// The base of a quantize: or convert: entry: a model of this file by name, else a bundled name
// or a path.
Result<ModelSpec> ResolveBase(const Where& w, const WrittenModel& ref, const ResolveOptions& opt,
                              const Experiment& ex) {
  auto same = std::find_if(ex.models.begin(), ex.models.end(), [&](const ModelSpec& m) {
    return m.name == ref.ref && !m.variant && !m.conversion;
  });
  if (same != ex.models.end()) return *same;
  return ResolveModel(w, ref, opt);
}

// The SHA-256 of a base: a bundled model's was verified when it was fetched.
Result<std::string> BaseSha256(const Where& w, const Place& pos, const ModelSpec& base) {
  const model::BundledModel* bundled =
      base.source.starts_with("bundled:") ? model::FindBundled(base.source.substr(8)) : nullptr;
  if (bundled) return bundled->sha256;
  auto sha = Sha256File(base.path);
  if (!sha) return w.At(pos, sha.error().message);
  return *sha;
}

// One convert: entry: its base found (a GGUF) and hashed, and each variant added to the
// experiment's models, in the folder the maker makes (app/conversions.h).
Status ResolveConvert(const Where& w, const WrittenConvert& c, const ResolveOptions& opt,
                      Experiment* ex) {
  auto base = ResolveBase(w, c.base, opt, *ex);
  if (!base) return base.error();
  if (base->format != model::kGgufFormat) {
    return w.At(c.base.pos, fmt::format("convert: reads a GGUF, and base '{}' is a {} model",
                                        base->name, base->format));
  }
  auto sha = BaseSha256(w, c.base.pos, *base);
  if (!sha) return sha.error();
  // GPTQ's calibration text: the one written, else the shipped corpus.
  std::string calibration, calibration_sha;
  if (std::find(c.variants.begin(), c.variants.end(), "int4-gptq") != c.variants.end()) {
    const WrittenFile file = c.calibration.value_or(WrittenFile{std::nullopt, c.pos});
    auto path = CorpusFile(w, file, opt, "gptq calibration");
    if (!path) return path.error();
    auto text_sha = Sha256File(*path);
    if (!text_sha) return w.At(file.pos, text_sha.error().message);
    calibration = *path;
    calibration_sha = *text_sha;
  }
  for (const std::string& variant : c.variants) {
    convert::ConversionSpec v;
    v.to = c.to.value_or("onnx");
    v.variant = variant;
    v.name = fmt::format("{}:{}-{}", base->name, v.to, variant);
    v.base_name = base->name;
    v.base_path = base->path;
    v.base_sha256 = *sha;
    v.base_quant = base->quant;
    v.base_source = base->source;
    v.block_size = c.block_size.value_or(v.block_size);
    v.symmetric = c.symmetric.value_or(v.symmetric);
    if (variant == "int4-gptq") {
      v.calibration = calibration;
      v.calibration_sha256 = calibration_sha;
      v.calibration_tokens = c.calibration_tokens.value_or(v.calibration_tokens);
      v.calibration_samples = c.calibration_samples.value_or(v.calibration_samples);
      v.damp = c.damp.value_or(v.damp);
    }
    ModelSpec m;
    m.name = v.name;
    m.path = (fs::path(ConvertedDir(opt)) / v.FolderName() / v.GraphFile()).string();
    m.source = "converted:" + base->source;
    m.line = c.pos.line;
    m.n_ctx_train = base->n_ctx_train;
    m.quant = v.Label();
    m.format = v.Format();
    m.tokenizer_source = base->path;  // its tokenizer must be the GGUF's, token for token
    m.provenance = v.Provenance();
    m.conversion = std::move(v);
    if (auto st = AddModel(w, c.pos, std::move(m), ex); !st) return st;
  }
  return {};
}

// One quantize: entry: its base found and hashed, its importance-matrix corpus found, checked
// and hashed, and each variant added to the experiment's models.
Status ResolveQuantize(const Where& w, const WrittenQuantize& q, const ResolveOptions& opt,
                       Experiment* ex) {
  auto resolved_base = ResolveBase(w, q.base, opt, *ex);
  if (!resolved_base) return resolved_base.error();
  const ModelSpec& base = *resolved_base;
  const auto& all = RuntimesOf(opt).runtimes();
  auto quantizer =
      std::find_if(all.begin(), all.end(), [](const auto& r) { return r.makes_variants; });
  if (quantizer != all.end() && !quantizer->Accepts(base.format)) {
    return w.At(q.base.pos, fmt::format("quantize: makes its variants with {}, which does not load "
                                        "base '{}' (a {} model)",
                                        quantizer->name, base.name, base.format));
  }
  auto sha = BaseSha256(w, q.base.pos, base);
  if (!sha) return sha.error();
  const std::string& base_sha = *sha;
  std::optional<quant::ImatrixSpec> imatrix;
  if (q.imatrix) {
    quant::ImatrixSpec spec;
    spec.n_ctx = q.imatrix->n_ctx.value_or(spec.n_ctx);
    spec.chunks = q.imatrix->chunks.value_or(spec.chunks);
    auto file = CorpusFile(w, q.imatrix->corpus, opt, "imatrix corpus");
    if (!file) return file.error();
    spec.corpus = *file;
    if (auto st = CheckCorpusFitsAChunk(w, q.imatrix->corpus.pos, spec.corpus, spec.n_ctx,
                                        "imatrix corpus");
        !st) {
      return st;
    }
    auto corpus_sha = Sha256File(spec.corpus);
    if (!corpus_sha) return w.At(q.imatrix->corpus.pos, corpus_sha.error().message);
    spec.corpus_sha256 = *corpus_sha;
    imatrix = spec;
  }

  auto add = [&](const std::string& type, bool with_imatrix) -> Status {
    quant::VariantSpec v;
    v.label = q.label ? *q.label : with_imatrix ? type + "+imatrix" : type;
    v.name = base.name + ":" + v.label;
    v.base_name = base.name;
    v.base_path = base.path;
    v.base_sha256 = base_sha;
    v.base_quant = base.quant;
    if (base.provenance.is_object() && base.provenance.value("requantized", false)) {
      const auto& b = base.provenance.value("base", nlohmann::json::object());
      v.base_origin = b.value("weights_from", b.value("quant", ""));
    }
    v.base_source = base.source;
    v.type = type;
    v.overrides = q.overrides;
    if (with_imatrix) v.imatrix = imatrix;
    ModelSpec m;
    m.name = v.name;
    m.path = (fs::path(VariantsDir(opt)) / v.FileName()).string();
    m.source = "variant:" + base.source;
    m.line = q.pos.line;
    m.n_ctx_train = base.n_ctx_train;
    m.quant = v.label;
    m.format = base.format;  // the quantizer writes the base's format
    m.provenance = v.Provenance();
    m.variant = std::move(v);
    return AddModel(w, q.pos, std::move(m), ex);
  };
  for (const auto& t : q.types) {
    if (auto st = add(t, false); !st) return st;
  }
  if (q.imatrix) {
    for (const auto& t : q.imatrix->types) {
      if (auto st = add(t, true); !st) return st;
    }
  }
  return {};
}

// Each quality workload's entry, and each top-level section its owner defines, by its def.
Status ResolveQuality(const Where& w, const WrittenExperiment& written, const ResolveOptions& opt,
                      Experiment* ex) {
  for (const QualitySpec& q : written.quality.all()) {
    auto spec = q.def->Resolve(w, q.value, opt);
    if (!spec) return spec.error();
    ex->quality.Set(*q.def, std::move(*spec));
  }
  for (const QualitySpec& s : written.sections.all()) {
    auto spec = s.def->Resolve(w, s.value, opt);
    if (!spec) return spec.error();
    ex->sections.Set(*s.def, std::move(*spec));
  }
  return {};
}

// Every parameter the file sets belongs to at least one of its runtimes; one that only some
// have multiplies only their cells (plan/plan.h).
Status CheckParamsHaveARuntime(const Where& w, const WrittenExperiment& written,
                               const runtime::ParamRegistry& registry, const Experiment& ex) {
  std::vector<std::string> names;
  for (const RuntimeSpec& r : ex.runtimes) names.push_back(r.name);
  const runtime::ParamRegistry theirs = registry.Of(names);
  for (const WrittenParam& p : written.params) {
    const runtime::ParamDef* def = registry.Find(p.name);
    if (!def || theirs.Find(p.name)) continue;
    return w.AtLine(
        p.pos.line,
        fmt::format("parameter '{}' is {}'s; no runtime of this experiment ({}) has it{}", p.name,
                    fmt::join(def->runtimes, ", "), fmt::join(names, ", "),
                    theirs.DidYouMean(p.name)));
  }
  return {};
}

// The parameters to sweep, in registry order: those the file sets, and those with a default of
// Pipette's own (n_ctx, depth); any other is left to the runtime (not sent).
void ResolveParams(const WrittenExperiment& written, const runtime::ParamRegistry& registry,
                   Experiment* ex) {
  for (const runtime::ParamDef& def : registry.defs()) {
    auto it = std::find_if(written.params.begin(), written.params.end(),
                           [&](const WrittenParam& p) { return p.name == def.name; });
    if (it != written.params.end()) {
      ex->params.emplace_back(def.name, it->values);
      ex->param_lines[def.name] = it->pos.line;
    } else if (def.HasDefault()) {
      ex->params.emplace_back(def.name, std::vector<std::string>{def.default_value});
    }
  }
}

// The worker of the first registered runtime that `serves`: the file's own for it when the file
// lists it, else the one Pipette builds.
std::string HelperWorker(const Experiment& ex, const ResolveOptions& opt,
                         const std::function<bool(const runtime::Runtime&)>& serves) {
  for (const runtime::Runtime& r : RuntimesOf(opt).runtimes()) {
    if (!serves(r) || !r.Worker()) continue;
    for (const RuntimeSpec& spec : ex.runtimes) {
      if (spec.name == r.name) return spec.worker;
    }
    return (fs::path(opt.workers_dir) / r.Worker()->program).string();
  }
  return "";
}

}  // namespace

const runtime::RuntimeRegistry& RuntimesOf(const ResolveOptions& options) {
  return *options.runtimes;
}

Result<Experiment> Resolve(const WrittenExperiment& written, const runtime::ParamRegistry& registry,
                           const ResolveOptions& options) {
  if (!options.runtimes) return RuntimeError("config::Resolve: ResolveOptions.runtimes is unset");
  const Where w(written.path);
  Experiment ex;
  ex.written = written;
  ex.path = written.path;
  ex.source_text = written.source_text;
  ex.name = written.name.value_or(fs::path(written.path).stem().string());
  ex.description = written.description.value_or("");
  ex.device = written.device.value_or(ex.device);
  if (!written.devices.empty()) {
    if (!SpecsOf(options).devices()) {
      return RuntimeError("config::Resolve: the registry given names no device kinds");
    }
    auto devices = ResolveDevices(w, written.devices, *SpecsOf(options).devices());
    if (!devices) return devices.error();
    ex.devices = std::move(*devices);
  }
  ex.store = written.store.value_or(ex.store);
  for (const WrittenModel& wm : written.models) {
    auto m = ResolveModel(w, wm, options);
    if (!m) return m.error();
    if (auto st = AddModel(w, wm.pos, std::move(*m), &ex); !st) return st.error();
  }
  std::vector<WrittenRuntime> runtimes = written.runtimes;
  // None written: the registry's first (llama.cpp); no place: the file.
  if (runtimes.empty()) runtimes.push_back({.name = RuntimesOf(options).runtimes().front().name});
  for (const WrittenRuntime& wr : runtimes) {
    auto r = ResolveRuntime(w, wr, options);
    if (!r) return r.error();
    for (const auto& other : ex.runtimes) {
      if (other.name == r->name && other.worker == r->worker) {
        return w.At(wr.pos, fmt::format("runtime '{}' is listed twice (first at line {})", r->name,
                                        other.line));
      }
    }
    ex.runtimes.push_back(*r);
  }
  if (auto st = CheckParamsHaveARuntime(w, written, registry, ex); !st) return st.error();
  ResolveParams(written, registry, &ex);
  if (auto st = ResolveServerSlots(w, &ex); !st) return st.error();
  ex.tests = written.tests;
  if (auto st = ResolveQuality(w, written, options, &ex); !st) return st.error();
  for (const WrittenQuantize& q : written.quantize) {
    if (auto st = ResolveQuantize(w, q, options, &ex); !st) return st.error();
  }
  for (const WrittenConvert& c : written.convert) {
    if (auto st = ResolveConvert(w, c, options, &ex); !st) return st.error();
  }
  if (auto st = CheckModelFormats(w, ex, RuntimesOf(options)); !st) return st.error();
  ex.repetitions = written.repetitions.value_or(ex.repetitions);
  ex.warmup = written.warmup.value_or(ex.warmup);
  if (written.timeout) ex.timeout_s = static_cast<double>(*written.timeout);
  ex.seed = written.seed.value_or(ex.seed);
  ex.quantize_threads = std::max(1, options.machine.logical_cpus);
  ex.chat_renderer =
      HelperWorker(ex, options, [](const runtime::Runtime& r) { return r.renders_chat_templates; });
  ex.source_tokenizer = HelperWorker(
      ex, options, [](const runtime::Runtime& r) { return r.Accepts(model::kGgufFormat); });
  return ex;
}

}  // namespace pipette::config
