#include "pipette/workload/gen/spec.h"

#include <algorithm>

#include "pipette/config/resolve_files.h"
#include "pipette/quality/datasets.h"
#include "pipette/workload/dataset_spec.h"

namespace pipette::workload {
namespace {

using config::Where;

class GenDef : public DatasetSpecDef {
 public:
  GenDef() : DatasetSpecDef("gen", /*with_template_options=*/true) {}

  Result<std::any> Resolve(const Where& w, const std::any& any,
                           const config::ResolveOptions& opt) const override {
    const auto& written = std::any_cast<const WrittenDataset&>(any);
    GenSpec spec;
    spec.line = written.line;
    spec.limit = written.limit.value_or(spec.limit);
    if (written.template_options) spec.template_options = *written.template_options;
    auto file = config::DatasetFile(w, written.dataset, opt, "gen", kDefaultGenDataset);
    if (!file) return file.error();
    spec.dataset = *file;
    auto ds = quality::LoadGenDataset(spec.dataset);
    if (!ds) return ds.error();
    spec.n_items = static_cast<int64_t>(ds->items.size());
    // The items that run (the first `limit`) size the context; the largest is named when a
    // context cannot hold it.
    const size_t run =
        spec.limit > 0 ? std::min<size_t>(size_t(spec.limit), ds->items.size()) : ds->items.size();
    for (size_t i = 0; i < run; ++i) {
      const quality::GenItem& item = ds->items[i];
      // Bytes bound tokens; 64 tokens for the template's own markers.
      const int64_t need = int64_t(item.prompt.size() + item.system.size()) + 64 + item.max_tokens;
      if (need > spec.max_need) {
        spec.max_need = need;
        spec.max_line = item.line;
      }
    }
    return std::any(spec);
  }

  nlohmann::json Resolved(const std::any& resolved) const override {
    const auto& g = std::any_cast<const GenSpec&>(resolved);
    nlohmann::json j = {{"dataset", g.dataset}, {"limit", g.limit}};
    if (!g.template_options.empty()) j["template_options"] = g.template_options;
    return j;
  }
};

}  // namespace

const config::SpecDef& GenSpecDef() {
  static const GenDef kDef;
  return kDef;
}

const GenSpec* GenSpecOf(const config::Experiment& ex) { return ex.quality.Get<GenSpec>("gen"); }

void SetGenSpec(config::Experiment* ex, GenSpec spec) {
  ex->quality.Set(GenSpecDef(), std::move(spec));
}

}  // namespace pipette::workload
