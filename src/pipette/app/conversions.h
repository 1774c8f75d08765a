// The converted models of an experiment (convert:) at run time: show what is cached and what
// will be converted, convert what is missing with Pipette's converter (convert/maker.h, on this
// machine), and attach provenance to the cells.
#pragma once

#include <atomic>
#include <vector>

#include "pipette/config/experiment.h"
#include "pipette/convert/maker.h"
#include "pipette/plan/plan.h"
#include "pipette/util/command.h"

namespace pipette::app {

// One job per converted model of the experiment (in model order).
std::vector<convert::ConvertJob> ConversionJobs(const config::Experiment& ex);

// The converter this build runs: PIPETTE_PYTHON, else the build's PIPETTE_VENV_PYTHON; its
// package from PIPETTE_CONVERTER_DIR, else <source>/converters/onnx.
convert::ConverterOptions ConverterOptionsHere(const config::Experiment& ex);

// For --dry-run: which converted models the cells use are cached and which will be converted
// (asks the converter its version; nothing is converted).
void PrintConversionPlan(const config::Experiment& ex, const std::vector<plan::Cell>& cells,
                         CommandRunner& runner);

// Converts what the cells use and is not cached; gives each cell's model its provenance, or the
// reason it could not be made (its cells then fail with it; the others run).
void MakeConversionsFor(const config::Experiment& ex, CommandRunner& runner,
                        std::vector<plan::Cell>* cells, const std::atomic<bool>* stop = nullptr);

}  // namespace pipette::app
