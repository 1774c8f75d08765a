#include "pipette/config/validate.h"

#include "pipette/config/spec_def.h"

namespace pipette::config {

Status ValidateAndOrder(Experiment* ex) {
  for (const QualitySpec& q : ex->quality.all()) {
    if (auto st = q.def->Validate(ex); !st) return st;
  }
  for (const QualitySpec& s : ex->sections.all()) {
    if (auto st = s.def->Validate(ex); !st) return st;
  }
  return {};
}

}  // namespace pipette::config
