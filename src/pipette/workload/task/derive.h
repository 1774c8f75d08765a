// Derivation of the tasks workload (docs/metrics.md "Task accuracy"): for each task, its
// accuracy under every normalisation, the task's own as `acc`, over all its items and per
// group, with Wilson intervals.
#pragma once

#include <vector>

#include "pipette/metrics/derive.h"
#include "pipette/metrics/figures.h"
#include "pipette/metrics/headline.h"
#include "pipette/util/result.h"

namespace pipette::workload::task {

// The stored samples' test: "task:<name>" for an item, kInfoTest for a task's facts.
inline constexpr const char* kInfoTest = "task_info";
std::string ItemTest(const std::string& task);

Status DeriveTasks(const metrics::ResultRow& base, const std::vector<store::SampleRecord>& samples,
                   std::vector<metrics::ResultRow>* rows);

std::vector<metrics::FigureDef> TaskFigures();

// Its summary column: each task's accuracy (acc, the task's own normalisation) with its 95%
// interval and its count of items, "arc_easy 66.7% [20.8, 93.9] n=3; winogrande ...".
metrics::Headline TasksHeadline();

}  // namespace pipette::workload::task
