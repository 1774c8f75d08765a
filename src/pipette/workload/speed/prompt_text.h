// Plain English prose for text prompts (ttft). Written for Pipette; same licence as Pipette.
#pragma once

#include <string>

namespace pipette::workload {

// At least `min_chars` characters: the passage, repeated as often as needed, cut at a word end.
std::string ProseText(size_t min_chars);

}  // namespace pipette::workload
