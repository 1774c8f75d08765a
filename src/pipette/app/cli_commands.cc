// The commands Pipette ships: each reads its arguments into its Args and calls its app/
// function (app/cli.h).
#include <memory>

#include "pipette/app/cli.h"
#include "pipette/app/commands.h"
#include "pipette/app/compare.h"
#include "pipette/app/predict.h"
#include "pipette/app/reproduce.h"
#include "pipette/app/select.h"
#include "pipette/app/sensitivity.h"
#include "pipette/app/tasks.h"
#include "pipette/report/formats.h"

namespace pipette::app {
namespace {

Command RunCommand() {
  return {"run", "Measure every cell of an experiment file", [](CLI::App& c) -> CommandRun {
            auto a = std::make_shared<RunArgs>();
            c.add_option("experiment", a->experiment,
                         "experiment file (YAML); with --resume, the run's own file by default");
            c.add_option("--store", a->store, "SQLite store (default: the experiment's store:)");
            c.add_flag("--dry-run", a->dry_run, "show the plan (cells, order) and exit");
            c.add_option("--only", a->only,
                         "run only the cells matching key=value[,key=value...] (model, runtime, "
                         "quant or a parameter), e.g. --only threads=2");
            c.add_option("--export-md", a->export_md, "write a Markdown report, after every cell");
            c.add_option("--export-csv", a->export_csv, "write a CSV report, after every cell");
            c.add_option("--export-json", a->export_json, "write a JSON report, after every cell");
            c.add_option("--export", a->exports,
                         "write a report in FORMAT to PATH, after every cell: FORMAT=PATH (" +
                             report::FormatList() + "); repeatable");
            c.add_flag("--no-bandwidth", a->no_bandwidth,
                       "skip the memory-bandwidth probe in the environment record");
            c.add_flag(
                "--interleave", a->interleave,
                "visit every cell once per repetition, in rounds (A B A B ...): drift on the "
                "machine falls on every cell alike");
            c.add_flag("--strict", a->strict,
                       "a device not ready by the ready: deadline stops the run (else that cell "
                       "fails and the run goes on)");
            c.add_option("--resume", a->resume,
                         "continue run RUN of the store: measure its cells that have no complete "
                         "result (same experiment, datasets, model files, device and build only)")
                ->check(CLI::PositiveNumber);
            c.add_flag("--retry-failed", a->retry_failed,
                       "with --resume: measure the run's failed cells again too");
            c.add_flag("--no-wait", a->no_wait,
                       "refuse at once when another Pipette is measuring on this machine");
            c.add_option("--lock-timeout", a->lock_timeout_s,
                         "seconds to wait for another Pipette measuring on this machine")
                ->capture_default_str();
            c.footer(RunHelpFooter());
            return [a](const CommandContext& ctx) { return Run(*a, ctx.paths, ctx.device); };
          }};
}

Command ReportCommand() {
  return {"report", "Print results from the store", [](CLI::App& c) -> CommandRun {
            auto a = std::make_shared<ReportArgs>();
            c.add_option("--store", a->store, "SQLite store")->capture_default_str();
            c.add_option("--run", a->runs, "run id(s) (default: the latest run)");
            c.add_flag("--all", a->all, "every run in the store");
            c.add_option("--format,-f", a->format, report::FormatList())->capture_default_str();
            c.add_option("--output,-o", a->output, "write to this file instead of stdout");
            c.add_option("--vary", a->vary,
                         "one table per combination of the other dimensions, varying this one "
                         "(model, quant, runtime, device, scheme: quant and runtime together, or a "
                         "parameter), with ratios to the first row");
            // Hidden (no group): for tests and benchmarks, derive every row from the raw samples.
            c.add_flag("--no-cache", a->no_cache, "ignore the derived-results cache")->group("");
            return [a](const CommandContext&) { return Report(*a); };
          }};
}

Command SensitivityCommand() {
  return {
      "sensitivity",
      "Quantize one group of tensors at a time (per layer, per kind), rank the groups by the KL "
      "divergence they cause, and build and measure a mixed-precision recipe for a budget",
      [](CLI::App& c) -> CommandRun {
        auto a = std::make_shared<SensitivityArgs>();
        c.add_option("model", a->model, "bundled model name or .gguf path")->required();
        c.add_option("--high", a->high, "file type for everything not under test")
            ->capture_default_str();
        c.add_option("--low", a->low, "tensor type the group under test gets")
            ->capture_default_str();
        c.add_option("--groups", a->groups, "layers, kinds, or both")->capture_default_str();
        c.add_option("--layers", a->layers, "only these layers, e.g. 0-3,7");
        c.add_option("--max-size", a->max_size, "recipe budget: file size, e.g. 120MiB");
        c.add_option("--max-kld", a->max_kld, "recipe budget: mean KL divergence");
        c.add_option("--corpus", a->corpus, "text to measure KLD on (default: shipped)");
        c.add_option("--chunks", a->chunks, "chunks of the corpus")->capture_default_str();
        c.add_option("--n-ctx", a->n_ctx, "tokens per chunk")->capture_default_str();
        c.add_option("--top-k", a->top_k,
                     "KLD as a top-k lower bound with this many reference log-probabilities "
                     "per position (default: the full vocabulary)");
        c.add_option("--threads", a->threads,
                     "CPU threads (default: llama.cpp's, the physical cores)");
        c.add_option("--store", a->store, "SQLite store")->capture_default_str();
        c.add_option("--output,-o", a->output, "also write the report (Markdown) here");
        c.add_flag("--no-bandwidth", a->no_bandwidth,
                   "skip the memory-bandwidth probe in the environment record");
        c.add_flag("--no-wait", a->no_wait,
                   "refuse at once when another Pipette is measuring on this machine");
        c.add_option("--lock-timeout", a->lock_timeout_s,
                     "seconds to wait for another Pipette measuring on this machine")
            ->capture_default_str();
        return [a](const CommandContext& ctx) { return Sensitivity(*a, ctx.paths, ctx.device); };
      }};
}

Command EnvCommand() {
  return {"env",
          "Print this machine's fingerprint and conditions, or those of an experiment's device",
          [](CLI::App& c) -> CommandRun {
            auto a = std::make_shared<EnvArgs>();
            c.add_option("experiment", a->experiment, "the experiment file naming --device");
            c.add_option("--device", a->device,
                         "a device of the experiment's devices: read there (over ssh or adb)");
            c.add_flag("--json", a->json, "as JSON");
            c.add_flag("--no-bandwidth", a->no_bandwidth, "skip the memory-bandwidth probe");
            c.add_flag("--no-wait", a->no_wait,
                       "refuse at once when another Pipette is measuring (the probe measures)");
            c.add_option("--lock-timeout", a->lock_timeout_s,
                         "seconds to wait for another Pipette measuring on this machine")
                ->capture_default_str();
            return [a](const CommandContext& ctx) { return Env(*a, ctx.paths, ctx.device); };
          }};
}

Command PredictCommand() {
  return {
      "predict",
      "Predict tg t/s of every variant and depth of a run from one measured variant's bytes per "
      "token, beside what was measured: whether decoding is bound by memory bandwidth",
      [](CLI::App& c) -> CommandRun {
        auto a = std::make_shared<PredictArgs>();
        c.add_option("--store", a->store, "SQLite store")->capture_default_str();
        c.add_option("--run", a->runs, "run id(s) (default: the latest run)");
        c.add_option("--from", a->from,
                     "the variant predicted from: a model or a quantization (default: each "
                     "device's first tg figure)");
        c.add_option("--format,-f", a->format, "md or json")->capture_default_str();
        c.add_option("--output,-o", a->output, "write to this file instead of stdout");
        return [a](const CommandContext&) { return Predict(*a); };
      }};
}

Command CompareCommand() {
  return {
      "compare",
      "Compare a candidate's figures with a baseline's: both medians, the ratio with a bootstrap "
      "95% interval, and a verdict; with --gate, exit 1 when a gate line fails",
      [](CLI::App& c) -> CommandRun {
        auto a = std::make_shared<CompareArgs>();
        c.add_option("baseline", a->baseline,
                     "STORE or a JSON report (its latest run), or STORE:RUN, REPORT.json:RUN")
            ->required();
        c.add_option("candidate", a->candidate,
                     "STORE or a JSON report (its latest run), or STORE:RUN, REPORT.json:RUN")
            ->required();
        c.add_option("--ignore", a->ignore,
                     "a key not to pair on (model, quant, runtime, runtime_version, device, or "
                     "a parameter): to compare across a key meant to differ");
        c.add_option("--pair-on", a->pair_on,
                     "the only keys to pair on (besides the test and metric); every other key "
                     "may differ");
        c.add_option("--baseline-only", a->baseline_only,
                     "only the baseline's cells with these values: key=value,... (model, quant, "
                     "runtime, device, any parameter)");
        c.add_option("--candidate-only", a->candidate_only,
                     "only the candidate's cells with these values: key=value,...");
        c.add_option("--gate", a->gate, "a gate file: what may not get worse, by how much");
        c.add_option("--format,-f", a->format, "md, json, or the figures as csv or jsonl")
            ->capture_default_str();
        c.add_option("--output,-o", a->output, "write to this file instead of stdout");
        c.add_option("--seed", a->seed, "the bootstrap's seed")->capture_default_str();
        c.add_option("--resamples", a->resamples, "the bootstrap's resamples")
            ->capture_default_str();
        return [a](const CommandContext&) { return Compare(*a); };
      }};
}

Command SelectCommand() {
  return {
      "select",
      "Choose a configuration: the cells of a run held against a profile's constraints, the rest "
      "ranked by its weights, with every veto, the Pareto set and a decision tree over devices",
      [](CLI::App& c) -> CommandRun {
        auto a = std::make_shared<SelectArgs>();
        c.add_option("--profile,-p", a->profile, "the profile (--list shows them)");
        c.add_option("--profiles", a->profiles,
                     "a profiles file (profiles: NAME: {about, constraints, weights})");
        c.add_flag("--list", a->list, "list the profiles within reach");
        c.add_option("--store", a->store, "SQLite store")->capture_default_str();
        c.add_option("--run", a->runs,
                     "run id(s) whose cells are the candidates (default: the "
                     "latest run)");
        c.add_option("--format,-f", a->format, "md, json, or the ranking as csv or jsonl")
            ->capture_default_str();
        c.add_option("--output,-o", a->output, "write to this file instead of stdout");
        return [a](const CommandContext&) { return Select(*a); };
      }};
}

Command ReproduceCommand() {
  return {"reproduce",
          "Run a stored run's experiment again on this machine and say, figure by figure, whether "
          "it reproduced: quality bit-identical, speed within the noise band; exit 1 when not",
          [](CLI::App& c) -> CommandRun {
            auto a = std::make_shared<ReproduceArgs>();
            c.add_option("run", a->run, "the run to reproduce")->required();
            c.add_option("--store", a->store, "SQLite store")->capture_default_str();
            c.add_option("--format,-f", a->format, "md, json, or the figures as csv or jsonl")
                ->capture_default_str();
            c.add_option("--output,-o", a->output, "write to this file instead of stdout");
            c.add_flag("--no-bandwidth", a->no_bandwidth,
                       "skip the memory bandwidth probe of the environment record");
            c.add_flag("--no-wait", a->no_wait,
                       "refuse at once when another Pipette is measuring on this machine");
            return [a](const CommandContext& ctx) { return Reproduce(*a, ctx.paths, ctx.device); };
          }};
}
Command TasksCommand() {
  return {"tasks",
          "List the standard tasks, show one task's items, or write them as llama-perplexity's "
          "task file",
          [](CLI::App& c) -> CommandRun {
            auto a = std::make_shared<TasksArgs>();
            c.add_option("task", a->task, "a shipped task's name or a definition file");
            c.add_option("--export", a->export_as,
                         "write the items as llama-perplexity's task file: llama-mc "
                         "(--multiple-choice), llama-hellaswag, llama-winogrande");
            c.add_option("--output,-o", a->output, "the file --export writes");
            c.add_option("--limit", a->limit, "the first N items (after --per-group)")
                ->check(CLI::NonNegativeNumber);
            c.add_option("--per-group", a->per_group, "the first N items of each group")
                ->check(CLI::NonNegativeNumber);
            c.add_option("--sample", a->sample,
                         "N items chosen by --seed, stratified by group (not with --limit or "
                         "--per-group)")
                ->check(CLI::NonNegativeNumber);
            c.add_option("--seed", a->seed, "the sample's seed")->capture_default_str();
            return [a](const CommandContext& ctx) { return Tasks(*a, ctx.paths); };
          }};
}

}  // namespace

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      RunCommand(),     ReportCommand(), SensitivityCommand(), EnvCommand(),   PredictCommand(),
      CompareCommand(), SelectCommand(), ReproduceCommand(),   TasksCommand(),
  };
  return commands;
}

}  // namespace pipette::app
