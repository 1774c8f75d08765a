#include "pipette/workload/resume.h"

namespace pipette::workload {

int64_t FirstKeptCellOf(const ResumeInput& in, const std::string& model) {
  if (!in.cells) return 0;
  for (const plan::Cell& c : *in.cells) {
    auto it = in.kept.find(c.index);
    if (it != in.kept.end() && c.model.name == model) return it->second;
  }
  return 0;
}

}  // namespace pipette::workload
