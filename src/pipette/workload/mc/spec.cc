#include "pipette/workload/mc/spec.h"

#include <algorithm>

#include "pipette/config/resolve_files.h"
#include "pipette/quality/datasets.h"
#include "pipette/workload/dataset_spec.h"

namespace pipette::workload {
namespace {

using config::Where;

class McDef : public DatasetSpecDef {
 public:
  McDef() : DatasetSpecDef("mc", /*with_template_options=*/false) {}

  Result<std::any> Resolve(const Where& w, const std::any& any,
                           const config::ResolveOptions& opt) const override {
    const auto& written = std::any_cast<const WrittenDataset&>(any);
    McSpec spec;
    spec.line = written.line;
    spec.limit = written.limit.value_or(spec.limit);
    auto file = config::DatasetFile(w, written.dataset, opt, "mc", kDefaultMcDataset);
    if (!file) return file.error();
    spec.dataset = *file;
    // A malformed line is bad input: it names the dataset file and line.
    auto ds = quality::LoadMcDataset(spec.dataset);
    if (!ds) return ds.error();
    spec.n_items = static_cast<int64_t>(ds->items.size());
    // The items that run (the first `limit`) size the context; the longest is named when a
    // context cannot hold it.
    const size_t run =
        spec.limit > 0 ? std::min<size_t>(size_t(spec.limit), ds->items.size()) : ds->items.size();
    for (size_t i = 0; i < run; ++i) {
      const quality::McItem& item = ds->items[i];
      for (const auto& choice : item.choices) {
        const auto bytes = int64_t(McPrompt(item.question).size() + McContinuation(choice).size());
        if (bytes > spec.max_bytes) {
          spec.max_bytes = bytes;
          spec.max_line = item.line;
        }
      }
    }
    return std::any(spec);
  }

  nlohmann::json Resolved(const std::any& resolved) const override {
    const auto& m = std::any_cast<const McSpec&>(resolved);
    return {{"dataset", m.dataset}, {"limit", m.limit}};
  }
};

}  // namespace

std::string McPrompt(const std::string& question) { return "Question: " + question + "\nAnswer:"; }
std::string McContinuation(const std::string& choice) { return " " + choice; }

const config::SpecDef& McSpecDef() {
  static const McDef kDef;
  return kDef;
}

const McSpec* McSpecOf(const config::Experiment& ex) { return ex.quality.Get<McSpec>("mc"); }

void SetMcSpec(config::Experiment* ex, McSpec spec) {
  ex->quality.Set(McSpecDef(), std::move(spec));
}

}  // namespace pipette::workload
