#include "pipette/workload/ppl/spec.h"

#include <fmt/format.h>

#include "pipette/config/canonical.h"
#include "pipette/config/resolve_files.h"
#include "pipette/util/strings.h"

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
    if (node.IsMap()) {
      config::KeySet keys;
      for (const auto& kv : node) {
        if (auto st = keys.Add(w, kv.first, "in ppl "); !st) return st.error();
        const std::string key = kv.first.Scalar();
        if (key == "corpus") {
          auto s = config::Scalar(w, kv.second, "ppl.corpus");
          if (!s) return s.error();
          spec.corpus = {*s, config::PosOf(kv.second)};
        } else if (key == "n_ctx") {
          auto i = config::Integer(w, kv.second, "ppl.n_ctx", 4, 1 << 20);
          if (!i) return i.error();
          spec.n_ctx = static_cast<int>(*i);
        } else if (key == "chunks") {
          auto i = config::Integer(w, kv.second, "ppl.chunks", 0, 1 << 30);
          if (!i) return i.error();
          spec.chunks = static_cast<int>(*i);
        } else {
          return w.At(kv.first, fmt::format("unknown key '{}' in ppl{}", key,
                                            DidYouMean(key, {"corpus", "n_ctx", "chunks"})));
        }
      }
    } else if (!node.IsNull() && !(node.IsScalar() && node.Scalar() == "true")) {
      return w.At(node, "ppl: takes a mapping (corpus:, n_ctx:, chunks:) or nothing");
    }
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
