// Every workload Pipette runs, in the order a cell runs them, with the spec each reads from
// quality: (docs/architecture.md "Adding a workload"). A new workload is one folder under
// src/pipette/workload/ and one line in registry.cc.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "pipette/config/spec_def.h"
#include "pipette/metrics/figures.h"
#include "pipette/plan/plan.h"
#include "pipette/workload/workload.h"

namespace pipette::workload {

// A fresh instance of each, for one run.
std::vector<std::unique_ptr<Workload>> MakeWorkloads();

// The quality workloads an experiment may name (quality: ppl, kld, mc, gen, divergence), in
// this order: for the config step, with the sections and the device kinds app/ adds
// (app::ExperimentSpecs(), config::ResolveOptions::specs).
const config::SpecRegistry& QualitySpecs();

// One instance of each, never run: what reports and the cache ask of the workloads (their const
// hooks: Headlines, ReadsOtherCells, RowsCacheable).
const std::vector<std::unique_ptr<Workload>>& Registered();

// What derives a run's rows (metrics::DeriveRows), in report order: the instances of Registered()
// and the cell facts' deriver (metrics/cell_figures.h).
const metrics::RowDerivers& Derivers();

// Every workload's headlines (Workload::Headlines), for the reports.
const metrics::Headlines& Headlines();

// Every workload's figures and headlines (metrics/figures.h), in report order: what app/ hands
// down to compare, select, reproduce and the reports.
const metrics::FigureCatalogue& Figures();

// Tokens a cell's context must hold at `depth`: the most any workload of the experiment needs.
int64_t ContextNeed(const config::Experiment& ex, int64_t depth);
// What needs that most (Workload::ContextNeedWhat, else "the NAME workload"); "" when none needs
// any.
std::string ContextNeedWhat(const config::Experiment& ex, int64_t depth);
// Both, as the plan takes them (plan::Expand).
plan::ContextNeeds PlanNeeds();

}  // namespace pipette::workload
