// pipette: the command line. Parses arguments and calls the library; nothing else.
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "pipette/app/commands.h"
#include "pipette/app/compare.h"
#include "pipette/app/predict.h"
#include "pipette/app/reproduce.h"
#include "pipette/app/select.h"
#include "pipette/app/sensitivity.h"
#include "pipette/build_info.h"
#include "pipette/device/local_device.h"
#include "pipette/report/formats.h"

int main(int argc, char** argv) {
  std::signal(SIGPIPE, SIG_IGN);  // a dead worker's pipe is an error value, not a signal
  CLI::App app{"Pipette: reproducible benchmarks for on-device language models"};
  app.set_version_flag(
      "--version", std::string(pipette::kPipetteVersion) + " (" + pipette::kPipetteCommit + ")");
  app.require_subcommand(1);

  pipette::app::RunArgs run;
  auto* run_cmd = app.add_subcommand("run", "Measure every cell of an experiment file");
  run_cmd->add_option("experiment", run.experiment,
                      "experiment file (YAML); with --resume, the run's own file by default");
  run_cmd->add_option("--store", run.store, "SQLite store (default: the experiment's store:)");
  run_cmd->add_flag("--dry-run", run.dry_run, "show the plan (cells, order) and exit");
  run_cmd->add_option("--only", run.only,
                      "run only the cells matching key=value[,key=value...] (model, runtime, "
                      "quant or a parameter), e.g. --only threads=2");
  run_cmd->add_option("--export-md", run.export_md, "write a Markdown report, after every cell");
  run_cmd->add_option("--export-csv", run.export_csv, "write a CSV report, after every cell");
  run_cmd->add_option("--export-json", run.export_json, "write a JSON report, after every cell");
  run_cmd->add_option("--export", run.exports,
                      "write a report in FORMAT to PATH, after every cell: FORMAT=PATH (" +
                          pipette::report::FormatList() + "); repeatable");
  run_cmd->add_flag("--no-bandwidth", run.no_bandwidth,
                    "skip the memory-bandwidth probe in the environment record");
  run_cmd->add_flag("--interleave", run.interleave,
                    "visit every cell once per repetition, in rounds (A B A B ...): drift on the "
                    "machine falls on every cell alike");
  run_cmd->add_flag("--strict", run.strict,
                    "a device not ready by the ready: deadline stops the run (else that cell "
                    "fails and the run goes on)");
  run_cmd
      ->add_option("--resume", run.resume,
                   "continue run RUN of the store: measure its cells that have no complete "
                   "result (same experiment, datasets, model files, device and build only)")
      ->check(CLI::PositiveNumber);
  run_cmd->add_flag("--retry-failed", run.retry_failed,
                    "with --resume: measure the run's failed cells again too");
  run_cmd->add_flag("--no-wait", run.no_wait,
                    "refuse at once when another Pipette is measuring on this machine");
  run_cmd
      ->add_option("--lock-timeout", run.lock_timeout_s,
                   "seconds to wait for another Pipette measuring on this machine")
      ->capture_default_str();
  run_cmd->footer(pipette::app::RunHelpFooter());

  pipette::app::ReportArgs report;
  auto* rep_cmd = app.add_subcommand("report", "Print results from the store");
  rep_cmd->add_option("--store", report.store, "SQLite store")->capture_default_str();
  rep_cmd->add_option("--run", report.runs, "run id(s) (default: the latest run)");
  rep_cmd->add_flag("--all", report.all, "every run in the store");
  rep_cmd->add_option("--format,-f", report.format, pipette::report::FormatList())
      ->capture_default_str();
  rep_cmd->add_option("--output,-o", report.output, "write to this file instead of stdout");
  rep_cmd->add_option("--vary", report.vary,
                      "one table per combination of the other dimensions, varying this one "
                      "(model, quant, runtime, device, scheme: quant and runtime together, or a "
                      "parameter), with ratios to the first row");
  // Hidden (no group): for tests and benchmarks, derive every row from the raw samples.
  rep_cmd->add_flag("--no-cache", report.no_cache, "ignore the derived-results cache")->group("");

  pipette::app::SensitivityArgs sens;
  auto* sens_cmd = app.add_subcommand(
      "sensitivity",
      "Quantize one group of tensors at a time (per layer, per kind), rank the groups by the KL "
      "divergence they cause, and build and measure a mixed-precision recipe for a budget");
  sens_cmd->add_option("model", sens.model, "bundled model name or .gguf path")->required();
  sens_cmd->add_option("--high", sens.high, "file type for everything not under test")
      ->capture_default_str();
  sens_cmd->add_option("--low", sens.low, "tensor type the group under test gets")
      ->capture_default_str();
  sens_cmd->add_option("--groups", sens.groups, "layers, kinds, or both")->capture_default_str();
  sens_cmd->add_option("--layers", sens.layers, "only these layers, e.g. 0-3,7");
  sens_cmd->add_option("--max-size", sens.max_size, "recipe budget: file size, e.g. 120MiB");
  sens_cmd->add_option("--max-kld", sens.max_kld, "recipe budget: mean KL divergence");
  sens_cmd->add_option("--corpus", sens.corpus, "text to measure KLD on (default: shipped)");
  sens_cmd->add_option("--chunks", sens.chunks, "chunks of the corpus")->capture_default_str();
  sens_cmd->add_option("--n-ctx", sens.n_ctx, "tokens per chunk")->capture_default_str();
  sens_cmd->add_option("--top-k", sens.top_k,
                       "KLD as a top-k lower bound with this many reference log-probabilities "
                       "per position (default: the full vocabulary)");
  sens_cmd->add_option("--threads", sens.threads,
                       "CPU threads (default: llama.cpp's, the physical cores)");
  sens_cmd->add_option("--store", sens.store, "SQLite store")->capture_default_str();
  sens_cmd->add_option("--output,-o", sens.output, "also write the report (Markdown) here");
  sens_cmd->add_flag("--no-bandwidth", sens.no_bandwidth,
                     "skip the memory-bandwidth probe in the environment record");
  sens_cmd->add_flag("--no-wait", sens.no_wait,
                     "refuse at once when another Pipette is measuring on this machine");
  sens_cmd
      ->add_option("--lock-timeout", sens.lock_timeout_s,
                   "seconds to wait for another Pipette measuring on this machine")
      ->capture_default_str();

  pipette::app::EnvArgs env;
  auto* env_cmd = app.add_subcommand(
      "env", "Print this machine's fingerprint and conditions, or those of an experiment's device");
  env_cmd->add_option("experiment", env.experiment, "the experiment file naming --device");
  env_cmd->add_option("--device", env.device,
                      "a device of the experiment's devices: read there (over ssh or adb)");
  env_cmd->add_flag("--json", env.json, "as JSON");
  env_cmd->add_flag("--no-bandwidth", env.no_bandwidth, "skip the memory-bandwidth probe");
  env_cmd->add_flag("--no-wait", env.no_wait,
                    "refuse at once when another Pipette is measuring (the probe measures)");
  env_cmd
      ->add_option("--lock-timeout", env.lock_timeout_s,
                   "seconds to wait for another Pipette measuring on this machine")
      ->capture_default_str();

  pipette::app::PredictArgs predict;
  auto* pred_cmd = app.add_subcommand(
      "predict",
      "Predict tg t/s of every variant and depth of a run from one measured variant's bytes per "
      "token, beside what was measured: whether decoding is bound by memory bandwidth");
  pred_cmd->add_option("--store", predict.store, "SQLite store")->capture_default_str();
  pred_cmd->add_option("--run", predict.runs, "run id(s) (default: the latest run)");
  pred_cmd->add_option("--from", predict.from,
                       "the variant predicted from: a model or a quantization (default: each "
                       "device's first tg figure)");
  pred_cmd->add_option("--format,-f", predict.format, "md or json")->capture_default_str();
  pred_cmd->add_option("--output,-o", predict.output, "write to this file instead of stdout");

  pipette::app::CompareArgs cmp;
  auto* cmp_cmd = app.add_subcommand(
      "compare",
      "Compare a candidate's figures with a baseline's: both medians, the ratio with a bootstrap "
      "95% interval, and a verdict; with --gate, exit 1 when a gate line fails");
  cmp_cmd
      ->add_option("baseline", cmp.baseline,
                   "STORE or a JSON report (its latest run), or STORE:RUN, REPORT.json:RUN")
      ->required();
  cmp_cmd
      ->add_option("candidate", cmp.candidate,
                   "STORE or a JSON report (its latest run), or STORE:RUN, REPORT.json:RUN")
      ->required();
  cmp_cmd->add_option("--ignore", cmp.ignore,
                      "a key not to pair on (model, quant, runtime, runtime_version, device, or "
                      "a parameter): to compare across a key meant to differ");
  cmp_cmd->add_option("--pair-on", cmp.pair_on,
                      "the only keys to pair on (besides the test and metric); every other key "
                      "may differ");
  cmp_cmd->add_option("--baseline-only", cmp.baseline_only,
                      "only the baseline's cells with these values: key=value,... (model, quant, "
                      "runtime, device, any parameter)");
  cmp_cmd->add_option("--candidate-only", cmp.candidate_only,
                      "only the candidate's cells with these values: key=value,...");
  cmp_cmd->add_option("--gate", cmp.gate, "a gate file: what may not get worse, by how much");
  cmp_cmd->add_option("--format,-f", cmp.format, "md, json, or the figures as csv or jsonl")
      ->capture_default_str();
  cmp_cmd->add_option("--output,-o", cmp.output, "write to this file instead of stdout");
  cmp_cmd->add_option("--seed", cmp.seed, "the bootstrap's seed")->capture_default_str();
  cmp_cmd->add_option("--resamples", cmp.resamples, "the bootstrap's resamples")
      ->capture_default_str();

  pipette::app::SelectArgs sel;
  auto* sel_cmd = app.add_subcommand(
      "select",
      "Choose a configuration: the cells of a run held against a profile's constraints, the rest "
      "ranked by its weights, with every veto, the Pareto set and a decision tree over devices");
  sel_cmd->add_option("--profile,-p", sel.profile, "the profile (--list shows them)");
  sel_cmd->add_option("--profiles", sel.profiles,
                      "a profiles file (profiles: NAME: {about, constraints, weights})");
  sel_cmd->add_flag("--list", sel.list, "list the profiles within reach");
  sel_cmd->add_option("--store", sel.store, "SQLite store")->capture_default_str();
  sel_cmd->add_option("--run", sel.runs,
                      "run id(s) whose cells are the candidates (default: the "
                      "latest run)");
  sel_cmd->add_option("--format,-f", sel.format, "md, json, or the ranking as csv or jsonl")
      ->capture_default_str();
  sel_cmd->add_option("--output,-o", sel.output, "write to this file instead of stdout");

  pipette::app::ReproduceArgs repro;
  auto* repro_cmd = app.add_subcommand(
      "reproduce",
      "Run a stored run's experiment again on this machine and say, figure by figure, whether "
      "it reproduced: quality bit-identical, speed within the noise band; exit 1 when not");
  repro_cmd->add_option("run", repro.run, "the run to reproduce")->required();
  repro_cmd->add_option("--store", repro.store, "SQLite store")->capture_default_str();
  repro_cmd->add_option("--format,-f", repro.format, "md, json, or the figures as csv or jsonl")
      ->capture_default_str();
  repro_cmd->add_option("--output,-o", repro.output, "write to this file instead of stdout");
  repro_cmd->add_flag("--no-bandwidth", repro.no_bandwidth,
                      "skip the memory bandwidth probe of the environment record");
  repro_cmd->add_flag("--no-wait", repro.no_wait,
                      "refuse at once when another Pipette is measuring on this machine");

  // CLI11 would call an unknown command an unexpected argument.
  if (argc > 1) {
    std::vector<std::string> commands;
    for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
      commands.push_back(sub->get_name());
    }
    if (const pipette::Status known = pipette::app::CheckCommand(argv[1], commands); !known) {
      std::fprintf(stderr, "error: %s\nRun with --help for more information.\n",
                   known.error().message.c_str());
      return known.error().exit_code;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  const auto paths = pipette::app::DefaultPaths(argv[0]);
  // The device every worker starts on (this machine), and whose fingerprint results carry.
  pipette::device::LocalDevice device;
  if (*run_cmd) return pipette::app::Run(run, paths, device);
  if (*rep_cmd) return pipette::app::Report(report);
  if (*env_cmd) return pipette::app::Env(env, paths, device);
  if (*sel_cmd) return pipette::app::Select(sel);
  if (*repro_cmd) return pipette::app::Reproduce(repro, paths, device);
  if (*sens_cmd) return pipette::app::Sensitivity(sens, paths, device);
  if (*pred_cmd) return pipette::app::Predict(predict);
  if (*cmp_cmd) return pipette::app::Compare(cmp);
  return 2;
}
