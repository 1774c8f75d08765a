// Reading a workload's stored samples for its derivation (Workload::Derive): raw JSON of an
// unexpected shape (an older writer, a hand edit) becomes an error naming the workload, which the
// report shows as that workload's n/a row, instead of taking the whole report down.
#pragma once

#include <functional>
#include <string>

#include "pipette/util/result.h"

namespace pipette::workload {

// Runs `read`; a JSON type or range error inside it becomes "stored <what> data could not be
// read: ...".
Status ReadStored(const std::string& what, const std::function<void()>& read);

}  // namespace pipette::workload
