// The spec of quality: tasks (docs/tasks.md): the standard tasks an experiment scores, each named
// by a shipped definition (tasks/NAME.yaml) or a path to one, with the items it takes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "pipette/config/experiment.h"
#include "pipette/config/spec_def.h"
#include "pipette/workload/task/items.h"

namespace pipette::workload::task {

// One task of the experiment, resolved: its definition read and its items made and hashed.
struct TaskSpec {
  std::string name;        // the definition's stem ("mmlu_5shot")
  std::string definition;  // absolute path of the definition file
  std::string definition_sha256;
  std::string data_dir;  // where its items were read
  Selection selection;
  int64_t n_items = 0, n_available = 0;
  std::string items_sha256;
  int64_t max_bytes = 0;  // the longest context + continuation of its items, in bytes
  std::string max_item;   // that item's id
  Kind kind = Kind::kChoice;
  // Each prompt given to the model through its own chat template (one user message), not raw.
  bool chat = false;
  int64_t max_new_tokens = 0;  // a generation task's cap on the tokens it generates
};

struct TasksSpec {
  std::vector<TaskSpec> tasks;
  int line = 0;
};

const config::SpecDef& TasksSpecDef();

// The experiment's tasks, or nullptr when it has none.
const TasksSpec* TasksSpecOf(const config::Experiment& ex);
// Gives `ex` these tasks (tests and tools that make an experiment without a file).
void SetTasksSpec(config::Experiment* ex, TasksSpec spec);

// The shipped definition a task's name (lower-case letters, digits, _) stands for:
// tasks/NAME.yaml under `tasks_dir`. Anything else written is a path to a definition, relative to
// the experiment file, then to the current folder.
Result<std::string> DefinitionFile(const std::string& written, const std::string& tasks_dir);

// The shipped definitions' names, sorted.
std::vector<std::string> ShippedTasks(const std::string& tasks_dir);

}  // namespace pipette::workload::task
