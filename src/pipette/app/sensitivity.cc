#include "pipette/app/sensitivity.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "pipette/app/console_progress.h"
#include "pipette/app/measuring.h"
#include "pipette/app/model_facts.h"
#include "pipette/app/variants.h"
#include "pipette/config/experiment.h"
#include "pipette/env/fingerprint.h"
#include "pipette/model/gguf.h"
#include "pipette/plan/plan.h"
#include "pipette/quant/types.h"
#include "pipette/report/load.h"
#include "pipette/run/runner.h"
#include "pipette/runtime/registry.h"
#include "pipette/sensitivity/groups.h"
#include "pipette/sensitivity/recipe.h"
#include "pipette/store/store.h"
#include "pipette/util/files.h"
#include "pipette/util/strings.h"
#include "pipette/workload/registry.h"

namespace pipette::app {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// What one variant measured.
struct Measured {
  bool ok = false;
  std::string error;
  double kld = 0, top1 = 0;
  int64_t size = 0;
};

// Runs an experiment given as JSON text (JSON is YAML) and returns what each model measured.
class Session {
 public:
  Session(device::Device* device, store::Store* store, int64_t env_id,
          const std::atomic<bool>* stop, const env::ProcessTable* processes, run::MeasureLock* lock)
      : device_(device),
        store_(store),
        env_id_(env_id),
        stop_(stop),
        processes_(processes),
        lock_(lock) {}
  bool Stopped() const { return stop_ && stop_->load(); }

  // An experiment given as JSON text (JSON is YAML), checked like a file the user wrote.
  static Result<config::Experiment> Parse(const json& experiment, const std::string& name,
                                          const Paths& paths) {
    return config::ExperimentFromText(experiment.dump(2), name, runtime::ParamRegistry::Default(),
                                      ResolveOptionsHere(paths));
  }

  // Runs an experiment Parse() accepted.
  Result<std::map<std::string, Measured>> Execute(const config::Experiment& ex, int64_t* run_id) {
    const runtime::ParamRegistry registry = runtime::ParamRegistry::Default();
    auto cells = plan::Expand(ex, runtime::Registry(), workload::PlanNeeds());
    if (!cells) return cells.error();
    MakeVariantsFor(ex, *device_, &*cells, stop_);
    ConsoleProgress progress(stderr);
    run::RunnerDeps deps = LocalRunnerDeps(device_, store_, &progress, stop_, processes_);
    deps.lock = lock_->Record();
    deps.run_started = [this](int64_t id) { lock_->Describe({{"run_id", id}}); };
    auto summary = run::RunExperiment(ex, *cells, registry, env_id_, deps);
    if (!summary) return summary.error();
    *run_id = summary->run_id;
    auto data = report::LoadReportData(*store_, {summary->run_id}, workload::Derivers());
    if (!data) return data.error();
    std::map<std::string, Measured> out;
    for (const auto& c : data->cells) {
      Measured& m = out[c.model_name];
      m.ok = c.status == "ok";
      m.error = c.error;
      m.size = c.model_file_size;
    }
    for (const auto& r : data->rows) {
      if (r.test != "kld" || !r.na_reason.empty()) continue;
      if (r.metric == "kld_mean") out[r.cell->model].kld = r.value;
      if (r.metric == "top1_agree") out[r.cell->model].top1 = r.value;
    }
    return out;
  }

 private:
  device::Device* device_;  // where the quantizer and the cells' workers run
  store::Store* store_;
  int64_t env_id_;
  const std::atomic<bool>* stop_;
  const env::ProcessTable* processes_;
  run::MeasureLock* lock_;
};

std::string Label(const std::string& high, const std::string& group, const std::string& low) {
  std::string g = group;
  std::erase(g, ' ');
  return fmt::format("{}+{}:{}", high, g, low);
}

}  // namespace

std::optional<int64_t> ParseSize(const std::string& text) {
  double v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || v < 0) return std::nullopt;
  const std::string unit(p, text.data() + text.size());
  static const std::map<std::string, double> kUnits = {
      {"", 1},     {"B", 1},        {"KB", 1e3},        {"MB", 1e6},
      {"GB", 1e9}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}};
  auto it = kUnits.find(unit);
  if (it == kUnits.end()) return std::nullopt;
  return static_cast<int64_t>(std::llround(v * it->second));
}

int Sensitivity(const SensitivityArgs& args, const Paths& paths, device::Device& device) {
  // Check the arguments before anything runs.
  if (!quant::IsFileType(args.high)) {
    return Fail(InputError(fmt::format("--high: unknown file type '{}'{}", args.high,
                                       DidYouMean(args.high, quant::FileTypeNames()))));
  }
  // A uniform type: llama.cpp's mixes (Q4_K_M...) pick types by counting the tensors not
  // overridden, so overriding one group would change the types of others.
  static const std::vector<std::string> kUniform = {"Q8_0", "Q6_K", "Q5_1", "Q5_0", "Q4_1", "Q4_0"};
  if (std::find(kUniform.begin(), kUniform.end(), args.high) == kUniform.end()) {
    return Fail(InputError(fmt::format(
        "--high {}: the rest must stay one quantized type ({}): llama.cpp ignores per-tensor "
        "types for F16/BF16/F32, and its mixes (Q4_K_M...) would shift other tensors' types "
        "when a group is overridden",
        args.high, fmt::join(kUniform, ", "))));
  }
  const auto low = quant::CanonicalTensorType(args.low);
  if (!low) {
    return Fail(InputError(fmt::format("--low: unknown tensor type '{}'{}", args.low,
                                       DidYouMean(args.low, quant::TensorTypeNames()))));
  }
  sensitivity::Budget budget;
  if (!args.max_size.empty()) {
    budget.max_size = ParseSize(args.max_size);
    if (!budget.max_size) {
      return Fail(
          InputError(fmt::format("--max-size: '{}' is not a size (e.g. 120MiB, 95MB, "
                                 "90000000)",
                                 args.max_size)));
    }
  }
  if (args.max_kld >= 0) budget.max_kld = args.max_kld;
  if (!budget.max_size && !budget.max_kld) {
    return Fail(
        InputError("give a budget for the recipe: --max-size (e.g. 120MiB) and/or "
                   "--max-kld (e.g. 0.02)"));
  }
  sensitivity::GroupOptions gopt;
  gopt.layers = args.groups.find("layers") != std::string::npos;
  gopt.kinds = args.groups.find("kinds") != std::string::npos;
  std::stringstream group_list(args.groups);
  for (std::string part; std::getline(group_list, part, ',');) {
    if (part != "layers" && part != "kinds") {
      return Fail(InputError(fmt::format("--groups: '{}' is not layers or kinds", part)));
    }
  }
  if (!args.layers.empty() && !gopt.layers) {
    return Fail(InputError("--layers needs layer groups: add layers to --groups"));
  }
  if (!args.layers.empty()) {
    auto layers = sensitivity::ParseLayerList(args.layers);
    if (!layers) return Fail(InputError("--layers: " + layers.error().message));
    gopt.only_layers = *layers;
  }

  // The base model, resolved the way an experiment file resolves it.
  const runtime::ParamRegistry registry = runtime::ParamRegistry::Default();
  auto probe =
      config::ExperimentFromText(json({{"models", {args.model}}, {"tests", {"pp1"}}}).dump(),
                                 "pipette sensitivity", registry, ResolveOptionsHere(paths));
  if (!probe) return Fail(probe.error());
  const config::ModelSpec base = probe->models.front();
  auto gguf = model::ReadGguf(base.path);
  if (!gguf) return Fail(gguf.error());
  // A layer the model does not have would quietly leave the recipe without it.
  if (auto has = sensitivity::HasLayers(gopt.only_layers, sensitivity::LayerCount(*gguf)); !has) {
    return Fail(
        InputError(fmt::format("--layers {}: {} {}", args.layers, base.name, has.error().message)));
  }
  const auto groups = sensitivity::GroupsOf(*gguf, gopt);
  if (groups.empty()) {
    return Fail(InputError(fmt::format("{}: no tensor groups match (layers {})", base.path,
                                       args.layers.empty() ? "all" : args.layers)));
  }
  const std::string model_arg = base.source == "path" ? base.path : args.model;
  // The type the base's weights came from: its own, or its source's when Pipette made it from a
  // quantized file (an F16 made from Q4_1 holds Q4_1 weights).
  std::string origin = base.quant;
  if (base.provenance.is_object() && base.provenance.value("requantized", false)) {
    const json& b = base.provenance.value("base", json::object());
    origin = b.value("weights_from", b.value("quant", origin));
  }
  const std::string high_name = base.name + ":" + args.high;

  json kld = {{"reference", high_name}, {"chunks", args.chunks}, {"n_ctx", args.n_ctx}};
  if (args.top_k > 0) kld["top_k"] = args.top_k;  // the compact lower bound, when asked for
  if (!args.corpus.empty()) kld["corpus"] = fs::absolute(args.corpus).string();
  json params = json::object();
  if (args.threads > 0) params["threads"] = args.threads;
  auto experiment = [&](json quantize) {
    json e = {{"name", "sensitivity"},
              {"quantize", quantize},
              {"quality", {{"kld", kld}}},
              {"store", args.store}};
    if (!params.empty()) e["params"] = params;
    return e;
  };
  json entries = json::array({{{"base", model_arg}, {"types", {args.high}}}});
  for (const auto& g : groups) {
    entries.push_back({{"base", model_arg},
                       {"types", {args.high}},
                       {"overrides", {{g.pattern, *low}}},
                       {"label", Label(args.high, g.name, *low)}});
  }
  entries.push_back({{"base", model_arg},
                     {"types", {args.high}},
                     {"overrides", {{".*", *low}}},
                     {"label", Label(args.high, "all", *low)}});

  // Everything is checked before the store is touched.
  auto phase1 = Session::Parse(experiment(entries), "pipette sensitivity (groups)", paths);
  if (!phase1) return Fail(phase1.error());
  // -o never overwrites the store, the model or the corpus.
  std::vector<NamedPath> inputs = StoreFiles("the store", args.store);
  inputs.push_back({"the model", base.path});
  inputs.push_back({"the corpus", args.corpus});
  if (auto st = CheckOutputs(inputs, {{"-o", args.output}}); !st) return Fail(st.error());
  // The lock first: a command that waits, or is refused, has written nothing.
  env::LinuxProcessTable processes;
  const std::atomic<bool>* stop = StopOnSignals();
  auto lock = TakeMeasureLock({args.no_wait, args.lock_timeout_s},
                              "pipette sensitivity " + args.model, args.store, processes, stop);
  if (!lock) return Fail(lock.error());
  auto store = OpenStoreForWriting(args.store, processes);
  if (!store) return Fail(store.error());
  const json facts = device.Fingerprint(LocalFingerprintOptions(paths, args.no_bandwidth));
  auto env_id = (*store)->AddEnvironment({0, env::FingerprintId(facts), facts});
  if (!env_id) return Fail(env_id.error());
  Session session(&device, store->get(), *env_id, stop, &processes, lock->get());

  fmt::print(stderr,
             "sensitivity of {}: {} group(s) to {} one at a time, the rest {}; KLD on {} chunk(s) "
             "of {} tokens\n",
             base.name, groups.size(), *low, args.high, args.chunks, args.n_ctx);
  if (!quant::IsFullPrecision(origin)) {
    fmt::print(stderr,
               "warning: {} is itself quantized ({}): every variant here is a re-quantization, "
               "and the ranking is of how the groups take a second rounding\n",
               base.name, origin.empty() ? "unknown type" : origin);
  }
  int64_t run1 = 0;
  auto measured = session.Execute(*phase1, &run1);
  if (!measured) return Fail(measured.error());
  if (session.Stopped()) {
    fmt::print(stderr, "interrupted: what was measured is in {} (run {})\n", args.store, run1);
    return 130;
  }
  const Measured& high = (*measured)[high_name];
  if (!high.ok) {
    return Fail(RuntimeError(fmt::format("the {} variant failed: {}", high_name, high.error)));
  }

  std::vector<sensitivity::GroupResult> results;
  std::vector<std::string> failed;
  std::map<std::string, const sensitivity::Group*> group_of;
  for (const auto& g : groups) {
    const Measured& m = (*measured)[base.name + ":" + Label(args.high, g.name, *low)];
    group_of[g.name] = &g;
    if (!m.ok) {
      failed.push_back(fmt::format("{}: {}", g.name, m.error));
      continue;
    }
    results.push_back({g.name, g.pattern, m.kld, high.size - m.size});
  }
  const Measured& all_low = (*measured)[base.name + ":" + Label(args.high, "all", *low)];

  // The recipe is chosen from one partition of the tensors: layers (plus embeddings and output)
  // when layers were measured, else the kinds.
  std::vector<sensitivity::GroupResult> partition;
  for (const auto& r : results) {
    const sensitivity::Group* g = group_of[r.name];
    const bool layers_mode = gopt.layers;
    const bool in = layers_mode
                        ? (g->kind == "layer" || r.name == "embeddings" || r.name == "output")
                        : g->kind == "kind";
    if (in) partition.push_back(r);
  }
  const sensitivity::Recipe recipe = sensitivity::ChooseRecipe(partition, high.size, budget);

  std::ostringstream out;
  // Names and errors go through MarkdownLine/MarkdownCell: a '|' or a line break in them must
  // not break the report's tables and lines.
  out << fmt::format("# Layer sensitivity of {} ({})\n\n", MarkdownLine(base.name),
                     MarkdownLine(base.quant));
  out << fmt::format(
      "Each group's tensors quantized to {} while the rest stay {}; KL divergence against the "
      "all-{} variant on {} chunk(s) of {} tokens (store {}, run {}).\n",
      *low, args.high, args.high, args.chunks, args.n_ctx, MarkdownLine(args.store), run1);
  if (!quant::IsFullPrecision(origin)) {
    out << fmt::format(
        "Every variant is re-quantized from {}: not a quantization of the "
        "full-precision weights.\n",
        origin);
  }
  out << "\n| rank | group | tensors | bytes saved | kld mean | kld per MiB saved |\n"
         "| ---: | --- | ---: | ---: | ---: | ---: |\n";
  const auto ranked = sensitivity::RankByCost(results);
  for (size_t i = 0; i < ranked.size(); ++i) {
    const auto& r = ranked[i];
    out << fmt::format("| {} | {} | {} | {} | {:.6f} | {} |\n", i + 1, MarkdownCell(r.name),
                       group_of[r.name]->n_tensors, FormatBytes(double(r.bytes_saved)), r.kld,
                       r.bytes_saved > 0
                           ? fmt::format("{:.6f}", r.kld / (double(r.bytes_saved) / 1048576.0))
                           : "n/a");
  }
  out << fmt::format("\nAll {} ({}): {} | all {}: {}, kld mean {:.6f}\n", args.high,
                     MarkdownLine(high_name), FormatBytes(double(high.size)), *low,
                     all_low.ok ? FormatBytes(double(all_low.size)) : "failed", all_low.kld);
  for (const auto& f : failed) out << "failed: " << MarkdownLine(f) << "\n";

  out << "\n## Recipe\n\n";
  out << fmt::format("Budget: {}{}{}.\n",
                     budget.max_size ? "size <= " + FormatBytes(double(*budget.max_size)) : "",
                     budget.max_size && budget.max_kld ? ", " : "",
                     budget.max_kld ? fmt::format("kld mean <= {}", *budget.max_kld) : "");
  bool met = false;  // as measured
  if (!recipe.meets_budget) {
    out << fmt::format(
        "By the prediction no choice of these groups meets the budget; the closest is built and "
        "measured below.\n");
  }
  if (recipe.low.empty()) {
    met = !budget.max_size || high.size <= *budget.max_size;
    out << fmt::format("No group goes to {}: all {} ({}) {} the budget.\n", *low, args.high,
                       FormatBytes(double(high.size)), met ? "meets" : "does not meet");
  } else {
    std::string names;
    for (const auto& n : recipe.low) names += (names.empty() ? "" : ", ") + n;
    out << fmt::format("Groups to {} ({}): {}\n", *low, recipe.low.size(), names);
  }

  // Build the mix and measure it; if a KLD budget is exceeded, drop the last group and retry.
  sensitivity::Recipe tried = recipe;
  int64_t run2 = 0;
  Measured mix;
  for (int attempt = 0; attempt < 3 && !tried.low.empty(); ++attempt) {
    json ov = json::object();
    for (const auto& p : tried.patterns) ov[p] = *low;
    json mix_entries = json::array({{{"base", model_arg}, {"types", {args.high}}},
                                    {{"base", model_arg},
                                     {"types", {args.high}},
                                     {"overrides", ov},
                                     {"label", fmt::format("mix{}", tried.low.size())}}});
    fmt::print(stderr, "building and measuring the recipe ({} group(s) to {})\n", tried.low.size(),
               *low);
    auto phase2 = Session::Parse(experiment(mix_entries), "pipette sensitivity (recipe)", paths);
    if (!phase2) return Fail(phase2.error());
    auto m2 = session.Execute(*phase2, &run2);
    if (!m2) return Fail(m2.error());
    if (session.Stopped()) {
      fmt::print(stderr, "interrupted: what was measured is in {} (run {})\n", args.store, run2);
      return 130;
    }
    mix = (*m2)[base.name + ":" + fmt::format("mix{}", tried.low.size())];
    const bool kld_over = budget.max_kld && mix.ok && mix.kld > *budget.max_kld;
    out << fmt::format(
        "\n| {} group(s) low | size | kld mean | top1 agree |\n| --- | ---: | ---: | ---: |\n"
        "| predicted | {} | {:.6f} | |\n| measured (run {}) | {} | {:.6f} | {:.2f}% |\n",
        tried.low.size(), FormatBytes(double(tried.predicted_size)), tried.predicted_kld, run2,
        mix.ok ? FormatBytes(double(mix.size)) : "failed", mix.kld, 100 * mix.top1);
    if (!mix.ok) {
      out << "The mix failed: " << MarkdownLine(mix.error) << "\n";
      break;
    }
    const bool size_ok = !budget.max_size || mix.size <= *budget.max_size;
    met = size_ok && !kld_over;
    out << fmt::format("Budget met as measured: {}\n",
                       met ? "yes" : (size_ok ? "no (kld)" : "no (size)"));
    if (!met && (!kld_over || tried.low.size() <= 1)) {
      out << "No recipe from these groups meets the budget: loosen it, or measure more groups "
             "(--groups, --layers) or another --low type.\n";
      break;
    }
    if (met) {
      json ov_yaml = json::object();
      for (const auto& p : tried.patterns) ov_yaml[p] = *low;
      out << "\nTo use it in an experiment file:\n\n```yaml\nquantize:\n"
          << fmt::format("  - base: {}\n    types: [{}]\n    overrides: {}\n    label: mix\n",
                         model_arg, args.high, ov_yaml.dump())
          << "```\n";
      break;
    }
    out << "The measured KLD is over the budget (the groups' damage does not simply add up): "
           "dropping the last group and measuring again.\n";
    tried.low.pop_back();
    tried.patterns.pop_back();
    tried.predicted_kld = 0;
    tried.predicted_size = high.size;
    for (const auto& r : partition) {
      if (std::find(tried.low.begin(), tried.low.end(), r.name) != tried.low.end()) {
        tried.predicted_kld += r.kld;
        tried.predicted_size -= r.bytes_saved;
      }
    }
  }
  std::cout << out.str();
  if (!args.output.empty()) {
    if (auto st = WriteOutput(args.output, out.str(), processes); !st) return Fail(st.error());
    fmt::print(stderr, "wrote {}\n", args.output);
  }
  return failed.empty() && met ? 0 : 1;
}

}  // namespace pipette::app
