#include "pipette/app/tasks.h"

#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "pipette/util/files.h"
#include "pipette/workload/task/definition.h"
#include "pipette/workload/task/items.h"
#include "pipette/workload/task/llama_files.h"
#include "pipette/workload/task/spec.h"

namespace pipette::app {
namespace {

namespace fs = std::filesystem;
namespace task = workload::task;

int List(const Paths& paths) {
  const std::vector<std::string> names = task::ShippedTasks(paths.tasks_dir);
  if (names.empty()) {
    return Fail(InputError(fmt::format("no task definitions in {}", paths.tasks_dir)));
  }
  std::cout << fmt::format("{:<18} {:<20} {:<5} {}\n", "task", "metric", "data", "title");
  for (const std::string& name : names) {
    auto def = task::LoadTaskDef((fs::path(paths.tasks_dir) / (name + ".yaml")).string());
    if (!def) return Fail(def.error());
    const bool data = task::TaskDataDir(*def, paths.task_data_dir).ok();
    std::cout << fmt::format("{:<18} {:<20} {:<5} {}\n", name, def->headline, data ? "yes" : "no",
                             def->title);
  }
  std::cout << fmt::format("\ndata: {} (scripts/setup.sh fetches it)\n", paths.task_data_dir);
  return 0;
}

}  // namespace

int Tasks(const TasksArgs& args, const Paths& paths) {
  if (args.task.empty()) {
    if (!args.export_as.empty()) return FailInput(InputError("--export needs a task"));
    return List(paths);
  }
  Result<std::string> file = task::DefinitionFile(args.task, paths.tasks_dir);
  if (!file && fs::is_regular_file(args.task)) file = fs::absolute(args.task).string();
  if (!file) return FailInput(file.error());
  auto def = task::LoadTaskDef(*file);
  if (!def) return Fail(def.error());
  if (args.per_group > 0 && !(def->rows && def->rows->group)) {
    return FailInput(InputError(fmt::format(
        "task {} has no groups: --per-group is for a task whose definition groups its items",
        def->name)));
  }
  auto dir = task::TaskDataDir(*def, paths.task_data_dir);
  if (!dir) return Fail(dir.error());
  if (args.sample > 0 && (args.limit > 0 || args.per_group > 0)) {
    return FailInput(
        InputError("--sample takes a subset of all the items: not with --limit or "
                   "--per-group"));
  }
  auto items =
      task::LoadTaskItems(*def, *dir, {args.limit, args.per_group, args.sample, args.seed});
  if (!items) return Fail(items.error());
  if (!args.export_as.empty()) {
    if (def->kind != task::Kind::kChoice) {
      return FailInput(InputError(fmt::format(
          "task {} is not a choice task: llama-perplexity's files hold choice tasks", def->name)));
    }
    auto format = task::LlamaFormatNamed(args.export_as);
    if (!format) return FailInput(format.error());
    if (args.output.empty()) return FailInput(InputError("--export needs -o FILE"));
    auto bytes = task::LlamaTaskFile(items->items, *format);
    if (!bytes) return Fail(bytes.error());
    if (auto st = WriteFileAtomically(args.output, *bytes); !st) return Fail(st.error());
    const char* flag = *format == task::LlamaFormat::kMultipleChoice ? "--multiple-choice"
                       : *format == task::LlamaFormat::kHellaswag    ? "--hellaswag"
                                                                     : "--winogrande";
    std::cerr << fmt::format(
        "{}: {} item(s) of {} (items SHA-256 {}); score them with: llama-perplexity -m MODEL -f "
        "{} {} --no-escape{}\n",
        args.output, items->items.size(), def->name, items->sha256, args.output, flag,
        *format == task::LlamaFormat::kHellaswag
            ? fmt::format(" --hellaswag-tasks {} (it takes them in an order of its own)",
                          items->items.size())
            : "");
    return 0;
  }
  const task::Item& first = items->items.front();
  std::cout << fmt::format(
      "task: {}\ntitle: {}\ndefinition: {}\nconvention: {}\ncompare with: {}\nlicence: {}\n"
      "data: {}\nitems: {} of {} (SHA-256 {})\nmetric: {}\n\n",
      def->name, def->title, def->path, def->convention, def->compare_with, def->licence,
      items->data_dir, items->items.size(), items->n_available, items->sha256, def->headline);
  if (def->kind == task::Kind::kGreedy) {
    std::cout << fmt::format(
        "first item ({}):\n--- context:\n{}\n--- continuation, right when it is the greedy "
        "choice at every token: {}\n",
        first.id, first.contexts.at(0), first.target);
    return 0;
  }
  if (def->kind != task::Kind::kChoice) {
    const nlohmann::json stops = def->gen.stop;
    std::cout << fmt::format(
        "first item ({}):\n--- prompt:\n{}\n--- generated: greedy, at most {} tokens, cut at "
        "{}\n",
        first.id, first.contexts.at(0), def->gen.max_tokens, stops.dump());
    if (!first.target.empty()) std::cout << fmt::format("--- target:\n{}\n", first.target);
    if (def->kind == task::Kind::kExecute) {
      std::cout << fmt::format(
          "--- program run in the sandbox ({} s): before the completion:\n{}\n--- after "
          "it:\n{}\n",
          def->gen.timeout_s, first.program_before, first.program_after);
    }
    return 0;
  }
  std::cout << fmt::format("first item ({}), gold choice {}:\n", first.id, first.gold);
  for (size_t k = 0; k < first.choices.size(); ++k) {
    if (k == 0 || first.choices[k].context != first.choices[k - 1].context) {
      std::cout << fmt::format("--- context{}:\n{}\n",
                               first.contexts.size() > 1 ? fmt::format(" of choice {}", k) : "",
                               first.ContextOf(k));
    }
    std::cout << fmt::format("--- choice {}: {}\n", k, first.choices[k].continuation);
  }
  return 0;
}

}  // namespace pipette::app
