// `pipette tasks`: the shipped task definitions (tasks/), one task's facts and the prompt of its
// first item, or its items written as llama-perplexity's task file (--export), so that the
// trusted tool scores exactly what Pipette scores.
#pragma once

#include <string>

#include "pipette/app/commands.h"

namespace pipette::app {

struct TasksArgs {
  std::string task;       // "": list the shipped tasks
  std::string export_as;  // "": describe the task; else a format (llama-mc, ...)
  std::string output;     // the exported file
  int limit = 0, per_group = 0, sample = 0;
  int64_t seed = 1234;  // a sample's (as an experiment's default)
};

int Tasks(const TasksArgs& args, const Paths& paths);

}  // namespace pipette::app
