// How tables show a derived row's facts: labels and figures as text. Display only; every number
// arrives computed in metrics::ResultRow.
#pragma once

#include <cstdint>
#include <string>

#include "pipette/metrics/derive.h"
#include "pipette/runtime/params.h"

namespace pipette::report {

// The quantization as tables show it: a re-quantized variant's type gets a "*" (and the table a
// footnote, RequantNote).
std::string QuantDisplay(const metrics::ResultRow& row);
// A parameter as tables show it: its value; flash_attn left to the runtime or set to auto also
// says so ("on (auto)", "auto (unresolved)"). "" if the row has no such parameter. `params`: the
// parameters the rows' runtimes take.
std::string ParamDisplay(const metrics::ResultRow& row, const std::string& name,
                         const runtime::ParamRegistry& params);
// A dimension's value as tables show it: model, quant (QuantDisplay), runtime ("llama.cpp
// 0.3.36"), device, or a parameter (ParamDisplay).
std::string DimensionDisplay(const metrics::ResultRow& row, const std::string& dimension,
                             const runtime::ParamRegistry& params);
// The footnote for the "*" of QuantDisplay, or "" if the row is not re-quantized.
std::string RequantNote(const metrics::ResultRow& row);
// A count as tables show it: "134.52 M", "1.20 B", "950".
std::string CountDisplay(int64_t n);
// A repeated measurement: "median ± stddev unit", with " (noisy: CV x%)" when it is noisy.
std::string FigureDisplay(const metrics::ResultRow& row);

}  // namespace pipette::report
