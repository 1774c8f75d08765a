// The recommendation a selection ends with (select/select.h Selection::recommendation): one
// paragraph that names the choice and why, the next best, what was vetoed and what went
// unchecked; or, with no candidate left, the nearest one and the constraints it breaks.
#pragma once

#include <cstddef>
#include <string>

#include "pipette/select/profile.h"
#include "pipette/select/select.h"

namespace pipette::select {

// `s` ranked and vetoed, of `candidates` in all, under the profile's weights `w`.
std::string Recommend(const Selection& s, size_t candidates, const Weights& w);

}  // namespace pipette::select
