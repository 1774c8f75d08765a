// The quantized variants of an experiment at run time: warn about re-quantization, show what is
// cached and what will be made, make what is missing, and attach provenance to the cells.
#pragma once

#include <vector>

#include "pipette/config/experiment.h"
#include "pipette/device/device.h"
#include "pipette/plan/plan.h"
#include "pipette/quant/maker.h"

namespace pipette::app {

// One job per variant model of the experiment (in model order).
std::vector<quant::MakeJob> VariantJobs(const config::Experiment& ex);

// Says, once per base, when the variants of a base are re-quantizations.
void WarnRequantized(const config::Experiment& ex);

// For --dry-run: which variants the cells use are cached and which will be made (asks the
// quantizer's worker who it is; nothing else runs).
void PrintVariantPlan(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
                      device::Device& device);

// Makes the variants the cells use that are not cached; gives each cell's model its provenance,
// or the reason it could not be made (its cells then fail with it; the others run).
void MakeVariantsFor(const config::Experiment& ex, device::Device& device,
                     std::vector<plan::Cell>* cells, const std::atomic<bool>* stop = nullptr);

}  // namespace pipette::app
