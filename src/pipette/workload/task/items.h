// A task's items as its definition makes them (definition.h): read from JSONL rows through its
// templates, or from an OLMES request set, selected (limit:, per_group:), and hashed, so a run
// records exactly what it scored.
#pragma once

#include <string>
#include <vector>

#include "pipette/util/result.h"
#include "pipette/workload/task/definition.h"

namespace pipette::workload::task {

// One choice: the text it is scored after (an index into its item's contexts) and the text whose
// log-likelihood is its score.
struct Choice {
  size_t context = 0;
  std::string continuation;
};

struct Item {
  std::string id, group;              // group: "" when the task has none
  std::vector<std::string> contexts;  // one for all choices, or one each (partial scoring)
  std::vector<Choice> choices;        // a choice task's: at least 2
  int gold = 0;                       // 0-based
  // A generation task's: the answer to match (kGenerate), and the program around the completion
  // (kExecute: before + completion + after). Its prompt is contexts[0].
  std::string target, program_before, program_after;
  // With Selection::rotate: the item it is a rotation of (its id), and which rotation (0: the
  // original order; the id then ends in "#rN" for N > 0).
  std::string base_id;
  int rotation = 0;
  std::string file;  // where it was read (relative to the data folder)
  int line = 0;      // its row's line (an OLMES document: its first request's)
  const std::string& ContextOf(size_t choice) const { return contexts[choices[choice].context]; }
};

// Which items run: the first `limit` (0: all), after taking the first `per_group` of each group
// (0: all); or, with `sample`, that many chosen by `seed`, stratified by group (docs/tasks.md
// "Samples").
struct Selection {
  int limit = 0;
  int per_group = 0;
  int sample = 0;
  int64_t seed = 0;
  // Each selected item also in every rotation of its choices (docs/tasks.md "Choice rotation"):
  // rotation r puts the original choice (j + r) mod k in slot j. Rows only.
  bool rotate = false;
};

// The items a seeded stratified sample takes, of items given as (id, group) in order: each group
// gets its share of `n` (largest remainder, ties to the group met first), and within a group the
// items first in the order of SHA-256("<seed>:<id>:<position>"). True for each item taken.
std::vector<bool> StratifiedSample(const std::vector<std::pair<std::string, std::string>>& items,
                                   int n, int64_t seed);

struct TaskItems {
  std::string data_dir;  // the data folder the files were read from
  std::vector<Item> items;
  int64_t n_available = 0;  // the items before the selection
  // Of every selected item's id, group, gold, contexts and continuations, in order: what was
  // scored, whatever file it came from.
  std::string sha256;
  // The files read (relative to data_dir), each with its SHA-256.
  std::vector<std::pair<std::string, std::string>> files;
};

// The folder a definition's `data:` names: absolute, else beside the definition file if it is
// there, else under `task_data_dir`. An error (exit 2) names what is missing and how to fetch it.
Result<std::string> TaskDataDir(const TaskDef& def, const std::string& task_data_dir);

// The selected items of `def`, read from `data_dir` (TaskDataDir). Every problem is bad input
// (exit 2) naming the file and line.
Result<TaskItems> LoadTaskItems(const TaskDef& def, const std::string& data_dir,
                                const Selection& selection);

}  // namespace pipette::workload::task
