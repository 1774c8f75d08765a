#include "pipette/workload/ppl/spec.h"

#include <fmt/format.h>

#include "pipette/config/canonical.h"
#include "pipette/config/resolve_files.h"

namespace pipette::workload {
namespace {

using config::Where;

class PplDef : public config::SpecDef {
 public:
  std::string Name() const override { return "ppl"; }

  Result<std::any> Parse(const Where& w, const YAML::Node& node) const override {
    WrittenPpl spec;
    spec.line = config::Line(node);
    spec.corpus.pos = config::PosOf(node);
    if (node.IsNull() || (node.IsScalar() && node.Scalar() == "true")) return std::any(spec);
    auto m = config::YamlMapping::Read(
        w, node, "ppl", "ppl: takes a mapping (corpus:, n_ctx:, chunks:) or nothing");
    if (!m) return m.error();
    if (auto st = m->OnlyKeys({"corpus", "n_ctx", "chunks"}, " in ppl"); !st) return st.error();
    FieldReader& f = m->fields();
    if (f.Has("corpus")) spec.corpus = {f.String("corpus"), m->PlaceOf("corpus")};
    spec.n_ctx = f.OptionalInt("n_ctx", 4, 1 << 20);
    spec.chunks = f.OptionalInt("chunks", 0, 1 << 30);
    if (auto st = m->status(); !st) return st.error();
    return std::any(spec);
  }

  nlohmann::json Canonical(const std::any& written) const override {
    const auto& p = std::any_cast<const WrittenPpl&>(written);
    nlohmann::json j = nlohmann::json::object();
    config::PutChunks(j, p.corpus, p.n_ctx, p.chunks);
    return j;
  }

  Result<std::any> Resolve(const Where& w, const std::any& any,
                           const config::ResolveOptions& opt) const override {
    const auto& written = std::any_cast<const WrittenPpl&>(any);
    PplSpec spec;
    spec.line = written.line;
    spec.n_ctx = written.n_ctx.value_or(spec.n_ctx);
    spec.chunks = written.chunks.value_or(spec.chunks);
    auto file = config::CorpusFile(w, written.corpus, opt, "corpus");
    if (!file) return file.error();
    spec.corpus = *file;
    if (auto st = config::CheckCorpusFitsAChunk(w, written.corpus.pos, spec.corpus, spec.n_ctx,
                                                "ppl corpus");
        !st) {
      return st.error();
    }
    return std::any(spec);
  }

  nlohmann::json Resolved(const std::any& resolved) const override {
    const auto& p = std::any_cast<const PplSpec&>(resolved);
    return {{"corpus", p.corpus}, {"n_ctx", p.n_ctx}, {"chunks", p.chunks}};
  }
};

}  // namespace

const config::SpecDef& PplSpecDef() {
  static const PplDef kDef;
  return kDef;
}

const PplSpec* PplSpecOf(const config::Experiment& ex) { return ex.quality.Get<PplSpec>("ppl"); }

void SetPplSpec(config::Experiment* ex, PplSpec spec) {
  ex->quality.Set(PplSpecDef(), std::move(spec));
}

}  // namespace pipette::workload
